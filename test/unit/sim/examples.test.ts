import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decodeStream } from "../../../src/backend/sdma/decode.js";
import { encodePackets } from "../../../src/backend/sdma/encode.js";
import type { Packet } from "../../../src/backend/sdma/packets.js";
import { simulate } from "../../../src/sim/run.js";
import { compileFile } from "./compile-helper.js";

const examples = readdirSync("examples")
  .filter((f) => f.endsWith(".dmac"))
  .sort();

describe("every example verifies in the executor", () => {
  for (const f of examples) {
    it(`${f} from its packets and from its trace`, () => {
      const c = compileFile(`examples/${f}`);
      const r = simulate(
        { manifest: c.manifest, streams: c.streams, module: c.module },
        { target: c.target },
      );
      expect(r.diagnostics.map((d) => d.message)).toEqual([]);
      expect(r.verified).toBe(true);
      const t = simulate({ trace: c.trace, module: c.module }, { target: c.target });
      expect(t.verified).toBe(true);
      expect(t.stats.totalUs).toBeCloseTo(r.stats.totalUs, 6);
    });
  }

  it("at 1 KiB and 1 GiB chunks (same packet count, same event count)", () => {
    const small = compileFile("examples/all_gather_pcpy.dmac", { chunk: "1KiB" });
    const big = compileFile("examples/all_gather_pcpy.dmac", { chunk: "1GiB" });
    const rs = simulate(
      { manifest: small.manifest, streams: small.streams, module: small.module },
      { target: small.target },
    );
    const rb = simulate(
      { manifest: big.manifest, streams: big.streams, module: big.module },
      { target: big.target },
    );
    expect(rs.verified && rb.verified).toBe(true);
    expect(rb.stats.events).toBe(rs.stats.events);
    // 7 GiB leave each GPU over 7 links at 48 GB/s: ~22.4 ms.
    expect(rb.stats.totalUs / 1e3).toBeGreaterThan(22);
    expect(rb.stats.totalUs / 1e3).toBeLessThan(23);
    expect(rb.bandwidth.busbwGBps).toBeGreaterThan(47);
  });

  it("is deterministic", () => {
    const c = compileFile("examples/all_to_all_swap.dmac");
    const a = simulate(
      { manifest: c.manifest, streams: c.streams, module: c.module },
      { target: c.target, record: true },
    );
    const b = simulate(
      { manifest: c.manifest, streams: c.streams, module: c.module },
      { target: c.target, record: true },
    );
    expect(JSON.stringify(a.stats)).toBe(JSON.stringify(b.stats));
    expect(JSON.stringify(a.timeline)).toBe(JSON.stringify(b.timeline));
  });

  it("reports a wrong result (DMAC6001) when a copy reads the wrong bytes", () => {
    const c = compileFile("examples/all_gather_pcpy.dmac");
    const name = c.manifest.queues[0]!.file;
    const packets = decodeStream(c.streams.get(name)!).packets.map((e) => e.packet as Packet);
    const k = packets.findIndex((p) => p.kind === "copy_linear");
    const p = packets[k] as Extract<Packet, { kind: "copy_linear" }>;
    packets[k] = { ...p, src: p.src + 64 };
    c.streams.set(name, encodePackets(packets));
    // Keep the manifest consistent with the stream: the source address's relocation moves too.
    const srcDword = encodePackets(packets.slice(0, k)).length + 3;
    const relocs = c.manifest.relocations.find((x) => x.queue === c.manifest.queues[0]!.name)!;
    const entries = relocs.entries as number[];
    const at = entries.findIndex((d, i) => i % 3 === 0 && d === srcDword);
    entries[at + 2]! += 64;
    const r = simulate(
      { manifest: c.manifest, streams: c.streams, module: c.module },
      { target: c.target },
    );
    // Reading 64 bytes further also reads bytes a peer writes concurrently: a race as well; and
    // the packet no longer moves the bytes its source map says (DMAC6013).
    expect(r.diagnostics.map((d) => d.code).sort()).toEqual(["DMAC6001", "DMAC6003", "DMAC6013"]);
    const wrong = r.diagnostics.find((d) => d.code === "DMAC6001")!;
    expect(wrong.message).toMatch(/buf@\d\[0 \.\. \d+\) holds buf@0\[64 \.\./);
    expect(wrong.message).toContain("examples/all_gather_pcpy.dmac:");
    expect(r.verified).toBe(false);
  });
});
