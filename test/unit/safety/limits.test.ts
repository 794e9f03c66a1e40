// Every resource limit: its diagnostic, its default, and the option that raises it. Limits stop
// hostile or mistaken input (a binary passed as source, generated nesting, a loop bound off by
// 10^6, a stream that would not fit a ring, a poll that spins forever) with a clear error
// instead of a stack overflow, an out-of-memory or a hang.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dmac as cli } from "../../helpers/cli.js";
import { checkSource } from "../../../src/check/check-source.js";
import { compileToQueues } from "../../../src/driver/compile.js";
import {
  DEFAULT_MAX_NESTING,
  MAX_NESTING_CEILING,
  parseExpression,
  parseSource,
} from "../../../src/frontend/parse.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { renderDiagnostics } from "../../../src/diagnostics/render.js";
import { simulate } from "../../../src/sim/run.js";
import { encodePackets } from "../../../src/backend/sdma/encode.js";
import { manifestFor, poll, syncAddr, target } from "../sim/node.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-limits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, text: string): string {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
}

const codes = (ds: readonly { code: string }[]): string[] => [...new Set(ds.map((d) => d.code))];

const GOOD = `target mi300x
schedule ag(chunk: bytes = 4KiB) implements all_gather_inplace(buf) {
  buffer buf: chunk * ranks
  for r in ranks, p in ranks where p != r {
    copy buf@r[r * chunk +: chunk] -> buf@p[r * chunk +: chunk]
  }
}
`;

describe("source size (DMAC1012, --max-source-bytes)", () => {
  it("rejects a file above the limit and accepts it once the limit is raised", async () => {
    const p = write("size.dmac", GOOD);
    const small = await cli("check", p, "--max-source-bytes", "100", "--format", "concise");
    expect(small.code).toBe(1);
    expect(small.err).toContain("DMAC1012");
    expect((await cli("check", p, "--max-source-bytes", "100000")).code).toBe(0);
    const o = join(dir, "size-out");
    expect((await cli("compile", p, "-o", o, "--max-source-bytes", "100")).err).toContain(
      "DMAC1012",
    );
  });

  it("has a 16 MiB default", () => {
    const big = makeSourceFile("big.dmac", " ".repeat(16 * 1024 * 1024 + 1));
    expect(codes(parseSource(big).diagnostics)).toEqual(["DMAC1012"]);
  });
});

describe("nesting (DMAC1013, --max-nesting)", () => {
  it("limits brackets, raised by --max-nesting up to its ceiling", async () => {
    const deep = `schedule s() { buffer b: ${"(".repeat(30)}1KiB${")".repeat(30)} }\n`;
    const p = write("deep.dmac", deep);
    const r = await cli("check", p, "--max-nesting", "20", "--format", "concise");
    expect(r.err).toContain("DMAC1013");
    expect((await cli("check", p, "--max-nesting", "40")).err).not.toContain("DMAC1013");
    const over = await cli("check", p, "--max-nesting", String(MAX_NESTING_CEILING + 1));
    expect(over.code).toBe(1);
    expect(over.err).toContain("DMAC5004");
  });

  it("counts operator chains: 100k terms give DMAC1013, not a stack overflow", () => {
    // (Comparisons do not chain: `1 < 1 < 1` is a syntax error, not a deep tree.)
    const cases = [
      ["+", 100_000],
      ["*", 20_000],
      ["&&", 20_000],
      ["-", 20_000],
    ] as const;
    const got = cases.map(([op, n]) => {
      const chain = Array(n)
        .fill(op === "&&" ? "true" : "1")
        .join(op);
      const text = `target mi300x\nschedule s() {\n  buffer buf: 4KiB\n  let x = ${chain}\n}\n`;
      const r = compileToQueues(makeSourceFile("chain.dmac", text), {});
      renderDiagnostics(r.diagnostics, "full", { color: false });
      return [op, r.diagnostics.map((d) => `${d.code} ${d.message.slice(0, 200)}`)];
    });
    expect(got).toEqual(
      cases.map(([op]) => [op, ["DMAC1013 nesting is deeper than the limit of 200 levels"]]),
    );
  });

  it("accepts a chain at the limit and rejects one just above it", () => {
    const at = (n: number) =>
      checkSource(
        makeSourceFile(
          "c.dmac",
          `target mi300x\nschedule s() {\n  buffer buf: ${Array(n + 1)
            .fill("1KiB")
            .join(" + ")}\n}\n`,
        ),
        { defines: {} },
      ).diagnostics;
    // The schedule's block is one level, each operator one more.
    expect(codes(at(DEFAULT_MAX_NESTING - 1))).not.toContain("DMAC1013");
    expect(codes(at(DEFAULT_MAX_NESTING + 1))).toContain("DMAC1013");
  });

  it("bounds -D values the same way", () => {
    const r = parseExpression(makeSourceFile("-D", Array(50_000).fill("1").join("+")));
    expect(r.expr).toBeUndefined();
    expect(codes(r.diagnostics)).toEqual(["DMAC1013"]);
  });

  it("clamps an API caller's limit to the ceiling instead of overflowing the stack", () => {
    const text = `schedule s() { buffer b: ${"(".repeat(2000)}1KiB${")".repeat(2000)} }\n`;
    const r = parseSource(makeSourceFile("x.dmac", text), { maxNesting: 1e9 });
    expect(codes(r.diagnostics)).toEqual(["DMAC1013"]);
  });
});

describe("operations and loop trips (DMAC3010, DMAC3019, --max-ops)", () => {
  const loops = (n: string) => `target mi300x
schedule s() {
  buffer buf: 64KiB
  for i in 0..${n} { fill buf@0[(i % 16) * 4KiB +: 4KiB] with 1 }
}
`;
  it("stops a loop that runs too often, with --max-ops raising the limit", async () => {
    const p = write("trips.dmac", loops("5000"));
    const r = await cli("check", p, "--max-ops", "1000", "--format", "concise");
    expect(r.err).toContain("DMAC3019");
    const o = join(dir, "trips-out");
    expect((await cli("compile", p, "-o", o, "--max-ops", "1000")).err).toContain("DMAC3019");
    expect((await cli("compile", p, "-o", o, "--max-ops", "10000")).err).not.toContain("DMAC3019");
  });

  it("stops a mistyped huge bound quickly with the default limit", () => {
    const t0 = performance.now();
    const r = compileToQueues(makeSourceFile("t.dmac", loops("1000000000000")), {});
    expect(codes(r.diagnostics)).toContain("DMAC3019");
    expect(performance.now() - t0).toBeLessThan(5000);
  });

  it("limits the operations all loops produce (DMAC3010)", async () => {
    const text = `target mi300x
schedule s() {
  buffer buf: 64KiB
  for i in 0..30 { fill buf@0[(i % 16) * 4KiB +: 4KiB] with 1 }
  for j in 0..30 { fill buf@1[(j % 16) * 4KiB +: 4KiB] with 2 }
}
`;
    const p = write("ops.dmac", text);
    const r = await cli("compile", p, "-o", join(dir, "ops-out"), "--max-ops", "40");
    expect(r.code).toBe(1);
    expect(r.err).toContain("DMAC3010");
    expect((await cli("compile", p, "-o", join(dir, "ops-out"), "--max-ops", "100")).code).toBe(0);
  });
});

describe("packet stream size (DMAC4006, --max-stream-bytes)", () => {
  it("rejects a queue whose stream is larger, and the option raises the limit", async () => {
    const p = write("stream.dmac", GOOD);
    const r = await cli("compile", p, "-o", join(dir, "s-out"), "--max-stream-bytes", "16");
    expect(r.code).toBe(1);
    expect(r.err).toContain("DMAC4006");
    const ok = await cli("compile", p, "-o", join(dir, "s-out"), "--max-stream-bytes", "65536");
    expect(ok.code).toBe(0);
  });
});

describe("executor events and simulated time (DMAC6008, maxEvents / maxSimTimeUs)", () => {
  // A poll on an external signal that needs 1000 raises, one every 1 us: the run lasts about
  // 1000 us and takes thousands of events, so each watchdog trips when set low.
  const signalled = () => {
    const { manifest, streams } = manifestFor(4096, [
      { gpu: 0, engine: 14, packets: [poll(syncAddr(0, 0), 1000)] },
    ]);
    const m = manifest as unknown as {
      memory: { signals: unknown[]; syncWords: unknown[] };
    };
    m.memory.signals.push({ name: "flag", id: 0, gpu: 0, address: syncAddr(0, 0) });
    return { manifest, streams };
  };

  it("stops after maxEvents events", () => {
    const r = simulate(signalled(), { target, signalPeriodUs: 1, maxEvents: 50 });
    expect(codes(r.diagnostics)).toContain("DMAC6008");
    expect(r.verified).toBe(false);
  });

  it("stops after maxSimTimeUs of simulated time", () => {
    const r = simulate(signalled(), { target, signalPeriodUs: 1, maxSimTimeUs: 10 });
    expect(codes(r.diagnostics)).toContain("DMAC6008");
  });

  it("the same stream completes when the limits are raised", () => {
    const r = simulate(signalled(), { target, signalPeriodUs: 1 });
    expect(codes(r.diagnostics)).not.toContain("DMAC6008");
  });

  it("encodePackets is what the hostile-stream helpers use", () => {
    expect(encodePackets([poll(syncAddr(0, 0), 1)]).length).toBeGreaterThan(0);
  });
});
