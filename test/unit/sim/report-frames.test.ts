// Code frames in the executor's reports (issue 15): a race, an out-of-bounds write, a
// schedule-meaning error and a wrong result each cite a queue position; with the IR known, the
// report carries that command's statement as its span, so the renderer prints the source line
// with carets, and every further position it cites is a note with its own frame.

import { describe, expect, it } from "vitest";
import { decodeStream } from "../../../src/backend/sdma/decode.js";
import { encodePackets } from "../../../src/backend/sdma/encode.js";
import type { Packet } from "../../../src/backend/sdma/packets.js";
import { renderDiagnostics } from "../../../src/diagnostics/render.js";
import { simulate } from "../../../src/sim/run.js";
import { diag } from "../../../src/diagnostics/diagnostic.js";
import { withSourceFrames } from "../../../src/sim/report-frames.js";
import { compileFile, compileText, RELAY, type Compiled } from "./compile-helper.js";

/** Moves one address of the first copy_linear of queue 0 by `delta`, relocation included. */
function shiftCopy(c: Compiled, field: "src" | "dst", delta: number): void {
  const name = c.manifest.queues[0]!.file;
  const packets = decodeStream(c.streams.get(name)!).packets.map((e) => e.packet as Packet);
  const k = packets.findIndex((p) => p.kind === "copy_linear");
  const p = packets[k] as Extract<Packet, { kind: "copy_linear" }>;
  packets[k] = { ...p, [field]: p[field] + delta };
  c.streams.set(name, encodePackets(packets));
  const dword = encodePackets(packets.slice(0, k)).length + (field === "src" ? 3 : 5);
  const relocs = c.manifest.relocations.find((x) => x.queue === c.manifest.queues[0]!.name)!;
  const entries = relocs.entries as number[];
  const at = entries.findIndex((d, i) => i % 3 === 0 && d === dword);
  entries[at + 2]! += delta;
}

const run = (c: Compiled, withIr = true) =>
  simulate(
    { manifest: c.manifest, streams: c.streams, module: withIr ? c.module : undefined },
    { target: c.target },
  );

const COPY_LINE = "copy buf@r[r * chunk +: chunk] -> buf@p[r * chunk +: chunk]";

describe("executor reports with code frames", () => {
  it("a race, a meaning error and a wrong result point at the copy statement", () => {
    const c = compileFile("examples/all_gather_pcpy.dmac");
    shiftCopy(c, "src", 64);
    const r = run(c);
    expect(r.diagnostics.map((d) => d.code).sort()).toEqual(["DMAC6001", "DMAC6003", "DMAC6013"]);
    for (const d of r.diagnostics) {
      expect(d.file?.name, d.code).toBe("examples/all_gather_pcpy.dmac");
      expect(d.file!.text.slice(d.span!.start, d.span!.end)).toContain("copy buf@r");
    }
    const text = renderDiagnostics(r.diagnostics, "full", { color: false });
    expect(text).toMatch(/error\[DMAC6003\]: .*\n +--> examples\/all_gather_pcpy\.dmac:\d+:\d+\n/);
    expect(text).toContain(COPY_LINE);
    expect(text).toMatch(/\n\s+\| +\^{10,}/);
    // Both accesses of the race come from this statement: one frame, no note repeating it.
    expect(r.diagnostics.find((d) => d.code === "DMAC6003")!.related).toEqual([]);
  });

  it("an out-of-bounds write points at its statement", () => {
    const c = compileFile("examples/all_gather_pcpy.dmac");
    // Queue 0's first copy writes buf@p[0 +: 8KiB]; 60 KiB on, it runs past the 64 KiB buffer.
    shiftCopy(c, "dst", 60 * 1024);
    const r = run(c);
    const oob = r.diagnostics.find((d) => d.code === "DMAC6002");
    expect(oob, JSON.stringify(r.diagnostics.map((d) => d.code))).toBeDefined();
    const text = renderDiagnostics([oob!], "full", { color: false });
    expect(text).toContain(COPY_LINE);
    expect(text).toMatch(/\^{10,}/);
  });

  it("a second position at another statement is a note with its own frame", () => {
    const c = compileText("relay.dmac", RELAY, {}, "aggressive");
    const r = run(c);
    const [a, b] = r.program!.queues;
    const cite = (q: typeof a, at: number): string => `${q!.name} +0x${at.toString(16)}`;
    // The first command of each queue: the first copy, and the second queue's poll (the `when`).
    const message = `${cite(a, 0)} writes b@1 while ${cite(b, 0)} reads it`;
    const [d] = withSourceFrames([diag("DMAC6003", undefined, [message])], r.program!, c.module);
    expect(d!.file!.text.slice(d!.span!.start, d!.span!.end)).toBe("copy b@0 -> b@1");
    expect(
      d!.related.map((x) => [x.message, c.module.file!.text.slice(x.span.start, x.span.end)]),
    ).toEqual([[cite(b, 0), "when got@1 == 1"]]);
    const text = renderDiagnostics([d!], "full", { color: false });
    expect(text).toMatch(/note: gpu1\.sdma\d+ \+0x0\n --> relay\.dmac:8:3\n/);
    // A position that names no command is left alone.
    const [e] = withSourceFrames(
      [diag("DMAC6003", undefined, [`${cite(a, 2)} x`])],
      r.program!,
      c.module,
    );
    expect(e!.file).toBeUndefined();
  });

  it("without the IR the reports are as before (no span, the position in the text)", () => {
    const c = compileFile("examples/all_gather_pcpy.dmac");
    shiftCopy(c, "src", 64);
    const r = run(c, false);
    expect(r.diagnostics.length).toBeGreaterThan(0);
    expect(r.diagnostics.every((d) => d.file === undefined)).toBe(true);
  });
});
