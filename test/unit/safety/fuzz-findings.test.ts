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
