// Golden files (header, body, what is compared), the sim summary's tolerance, and the unified
// diffs (only the changed lines and their context, bounded, coloured on request).

import { describe, expect, it } from "vitest";
import {
  goldenPath,
  isGoldenText,
  parseGolden,
  renderGolden,
} from "../../../src/golden/golden-file.js";
import { compareSimSummary } from "../../../src/golden/sim-summary.js";
import { colourDiff, unifiedDiff } from "../../../src/golden/diff.js";
import { VERSION } from "../../../src/version.js";

describe("golden files", () => {
  const meta = {
    source: "ring.dmac",
    label: "O2",
    kind: "dump" as const,
    command: "dmac golden ring.dmac -O2",
  };

  it("are named NAME[.LABEL].KIND.golden", () => {
    expect(goldenPath("/t/ring", "", "sim")).toBe("/t/ring.sim.golden");
    expect(goldenPath("/t/ring", "O2", "dump")).toBe("/t/ring.O2.dump.golden");
  });

  it("record the command line and the version in a header that is not compared", () => {
    const text = renderGolden(meta, "# queue\n// ---\nbody\n");
    expect(text).toContain(`// command: dmac golden ring.dmac -O2\n// dmac: ${VERSION}\n// ---\n`);
    expect(isGoldenText(text)).toBe(true);
    const parsed = parseGolden(text);
    if ("error" in parsed) throw new Error(parsed.error);
    expect(parsed.body).toBe("# queue\n// ---\nbody\n");
    expect(parsed.fields.get("source")).toBe("ring.dmac");
    // Another dmac version wrote it: the body is all that counts.
    const older = parseGolden(text.replace(`// dmac: ${VERSION}`, "// dmac: 0.0.1"));
    expect("body" in older && older.body).toBe(parsed.body);
  });

  it("read a file without a header as all body, refuse a newer format", () => {
    expect(parseGolden("plain\n")).toEqual({ body: "plain\n", fields: new Map() });
    expect(parseGolden("// dmac-golden 9\n// ---\nx\n")).toEqual({
      error: "it was written by a newer dmac (golden format 9)",
    });
    expect(parseGolden("// dmac-golden 1\nno end\n")).toHaveProperty("error");
  });
});

describe("sim summary comparison", () => {
  const golden =
    "verdict  verified\ntime     100 us\nalgbw    50 GB/s\nbusbw    40 GB/s\ntotal    1 MiB\n";
  const moved = (f: number) =>
    `verdict  verified\ntime     ${(100 * f).toFixed(3)} us\nalgbw    ${(50 / f).toFixed(3)} GB/s\nbusbw    ${(40 / f).toFixed(3)} GB/s\ntotal    1 MiB\n`;

  it("passes a time within the tolerance and says what moved", () => {
    const r = compareSimSummary(golden, moved(1.015), 0.02);
    expect(r.same).toBe(true);
    expect(r.note).toMatch(/time 100 us -> 101.500 us \(\+1.5%, within the tolerance of 2%\)/);
    expect(compareSimSummary(golden, golden, 0).note).toBeUndefined();
  });

  it("fails a time beyond it", () => {
    const r = compareSimSummary(golden, moved(1.05), 0.02);
    expect(r.same).toBe(false);
    expect(r.note).toMatch(/\+5%, beyond the tolerance of 2%/);
    expect(compareSimSummary(golden, moved(0.95), 0.02).same).toBe(false);
  });

  it("never tolerates a changed verdict or byte total", () => {
    expect(
      compareSimSummary(golden, golden.replace("verified", "NOT verified: DMAC6003"), 1).same,
    ).toBe(false);
    expect(compareSimSummary(golden, golden.replace("1 MiB", "2 MiB"), 1).same).toBe(false);
  });
});

describe("unified diffs", () => {
  const lines = Array.from({ length: 40 }, (_, i) => `packet ${i}`);
  const before = lines.join("\n") + "\n";

  it("show only the changed lines with three lines of context", () => {
    const after = before.replace("packet 20\n", "packet 20 changed\n");
    const d = unifiedDiff("a.golden", "a.dmac (now)", before, after);
    expect(d.split("\n").filter((l) => /^[-+]/.test(l) && !/^(---|\+\+\+)/.test(l))).toEqual([
      "-packet 20",
      "+packet 20 changed",
    ]);
    expect(d).toContain("@@ -18,7 +18,7 @@\n packet 17\n");
    expect(d).not.toContain("packet 16");
  });

  it("bound the lines printed and colour them on request", () => {
    const after = lines.map((l) => `${l}!`).join("\n") + "\n";
    const d = unifiedDiff("a", "b", before, after, 10);
    expect(d).toMatch(/\.\.\. 71 more diff lines\n$/);
    const c = colourDiff("--- a\n+++ b\n@@ -1 +1 @@\n-x\n+y\n y");
    expect(c).toContain("\x1b[31m-x\x1b[0m");
    expect(c).toContain("\x1b[32m+y\x1b[0m");
    expect(c).toContain("\n y");
  });
});
