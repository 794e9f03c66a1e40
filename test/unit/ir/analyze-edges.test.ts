// src/driver/analyze.ts's analyzeSchedule with `edges: false` (what `dmac sim` asks for when it rebuilds
// a compiled source's IR): no dependency edges are built, so their bound (DMAC3024) is not checked,
// and everything else is as with edges: the same ops and the same verification.

import { describe, expect, it } from "vitest";
import { checkSource } from "../../../src/check/check-source.js";
import { analyzeSchedule } from "../../../src/driver/analyze.js";
import { makeSourceFile } from "../../../src/source/source-file.js";

const schedule = (text: string) => {
  const c = checkSource(makeSourceFile("t.dmac", text), { defines: {} });
  expect(c.diagnostics).toEqual([]);
  return c.schedules[0]!;
};

// A buffer written in 200 pieces, then read whole 200 times: 40,000 edges.
const FRAGMENTED = `target mi300x
schedule fragcopy(n: int = 200) {
  buffer a: 2B * n
  for i in 0..n {
    fill a@0[2B * i +: 1B] with 1
  }
  for _i in 0..n {
    copy a@0 -> a@1
  }
}
`;

describe("analyzeSchedule({ edges: false })", () => {
  it("builds no edges, and so does not stop at their bound", () => {
    const s = schedule(FRAGMENTED);
    const withEdges = analyzeSchedule(s, { maxOps: 1000 }); // 8,000 edges allowed
    expect(withEdges.diagnostics.map((d) => d.code)).toEqual(["DMAC3024"]);
    const without = analyzeSchedule(s, { maxOps: 1000, edges: false });
    expect(without.diagnostics).toEqual([]);
    expect(without.module?.edges).toBeUndefined();
  });

  it("is otherwise the same module", () => {
    const s = schedule(FRAGMENTED);
    const a = analyzeSchedule(s).module!;
    const b = analyzeSchedule(s, { edges: false }).module!;
    expect(a.edges).toBeDefined();
    expect({ ...b, edges: a.edges }).toEqual(a);
  });
});
