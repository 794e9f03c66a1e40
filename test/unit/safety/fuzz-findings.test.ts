// Regression tests for the bugs the fuzzers found outside the fuzz harness's own replay
// (test/fuzz-regressions/ holds the raw inputs).

import { describe, expect, it } from "vitest";
import { renderDiagnostics } from "../../../src/diagnostics/render.js";
import { checkSource } from "../../../src/check/check-source.js";
import { makeSourceFile } from "../../../src/source/source-file.js";

describe("fuzz findings", () => {
  it("renders a code frame under a very long line in linear time", () => {
    // The caret line under column 200000 is 200000 spaces and a caret; trimming it with
    // /\s+$/ backtracked quadratically (1.3 s at 38k columns, minutes at 200k).
    const text = `schedule s() {\n  buffer b: 1KiB${" ".repeat(200_000)} }}\n`;
    const r = checkSource(makeSourceFile("long.dmac", text), { defines: {} });
    expect(r.diagnostics.length).toBeGreaterThan(0);
    const t0 = performance.now();
    const out = renderDiagnostics(r.diagnostics, "full", { color: false });
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(out).toContain("^");
  });
});

describe("fuzz findings: buffers too large for memory", () => {
  it("are rejected before lowering splits them into millions of packets", async () => {
    const { compileToQueues } = await import("../../../src/driver/compile.js");
    // A mutated example: 200 TiB chunks. Lowering split every swap into 2e5 packets (9 s)
    // before the layout rejected the buffers.
    const text = `target mi300x
schedule s(chunk: bytes = 214748364864KiB) implements all_to_all_inplace(buf) {
  buffer buf: chunk * ranks
  for r in ranks, p in ranks where r < p {
    swap buf@r[p * chunk +: chunk] <-> buf@p[r * chunk +: chunk]
  }
}
`;
    const t0 = performance.now();
    const r = compileToQueues(makeSourceFile("big.dmac", text), {});
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(r.compiled).toBeUndefined();
    expect(r.diagnostics.map((d) => d.code)).toEqual(["DMAC4008"]);
    expect(r.diagnostics[0]!.message).toContain("gpu0");
  });

  it("an honest large schedule still fits", async () => {
    const { compileToQueues } = await import("../../../src/driver/compile.js");
    const text = `target mi300x
schedule s(chunk: bytes = 1GiB) implements all_gather_inplace(buf) {
  buffer buf: chunk * ranks
  for r in ranks, p in ranks where p != r {
    copy buf@r[r * chunk +: chunk] -> buf@p[r * chunk +: chunk]
  }
}
`;
    const r = compileToQueues(makeSourceFile("ok.dmac", text), {});
    expect(r.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(r.compiled).toBeDefined();
  });
});

describe("fuzz findings: an operator chain inside deep blocks with a syntax error", () => {
  it("gets DMAC1013 before chevrotain's error recovery overflows the stack", async () => {
    const { parseSource } = await import("../../../src/frontend/parse.js");
    const text = `schedule s() {\n${"if true {".repeat(139)} let x = ${Array(5000).fill("1").join("+")} , p\n}\n`;
    const r = parseSource(makeSourceFile("deep.dmac", text));
    expect(r.diagnostics.map((d) => d.code)).toEqual(["DMAC1013"]);
  });
});
