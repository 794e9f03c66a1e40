// The race detector's access map must behave exactly like the generic interval map
// (ir/interval-map.ts) under the detector's use: every write and every piece a read touches gets
// a fresh row, so no two segments are equal: same segments after every operation, same pieces
// visited. Random operations, enough segments to split blocks.

import { describe, expect, it } from "vitest";
import {
  accessSegments,
  assignAccess,
  createAccessMap,
  granuleOf,
  updateAccess,
  visitAccess,
  type AccessMap,
} from "../../../src/sim/access-map.js";
import {
  assignRange,
  createIntervalMap,
  forEachPiece,
  segmentCount,
  updateRange,
  type IntervalMap,
} from "../../../src/ir/interval-map.js";

const OPS = { shift: (v: number) => v, continues: (a: number, b: number) => a === b };

function pieces(visit: (f: (s: number, e: number, v: number) => void) => void): number[][] {
  const out: number[][] = [];
  visit((s, e, v) => out.push([s, e, v]));
  return out;
}

function run(seed: number, size: number, granule: number, steps: number, fineAfter = steps): void {
  let x = seed;
  const rnd = (n: number): number => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return Math.floor((x / 2147483648) * n);
  };
  const a: AccessMap = createAccessMap(size, 0);
  const b: IntervalMap<number> = createIntervalMap(size, 0, OPS);
  let next = 1;
  for (let i = 0; i < steps; i++) {
    if (i === fineAfter) granule = 1;
    const lo = granule * rnd(size / granule);
    const len = granule * (1 + (rnd(10) === 0 ? rnd(size / granule) : rnd(4)));
    const hi = Math.min(size, lo + len);
    const op = rnd(3);
    if (op === 0) {
      const row = next++;
      assignAccess(a, lo, hi, row);
      assignRange(b, lo, hi, [{ start: lo, end: hi, value: row }]);
    } else if (op === 1) {
      // Fresh rows, one per piece, in the order the pieces come (both maps visit them in order).
      const base = next;
      let k = 0;
      updateAccess(a, lo, hi, () => base + k++);
      k = 0;
      updateRange(b, lo, hi, () => base + k++);
      next += k;
    } else {
      const want = pieces((f) => forEachPiece(b, lo, hi, f));
      expect(pieces((f) => visitAccess(a, lo, hi, f))).toEqual(want);
      // The one-granule shortcut (memory.ts) names the one piece's row.
      const k = granuleOf(a, lo, hi);
      if (k >= 0) expect([[lo, hi, a.rows[k]]]).toEqual(want);
    }
  }
  expect(accessSegments(a)).toBe(segmentCount(b));
  expect(pieces((f) => visitAccess(a, 0, size, f))).toEqual(
    pieces((f) => forEachPiece(b, 0, size, f)),
  );
}

describe("access map", () => {
  it("matches the generic interval map on small buffers", () => {
    for (let seed = 1; seed <= 20; seed++) run(seed, 4096, 64, 300);
  });

  it("matches it across block splits and multi-block writes", () => {
    for (let seed = 1; seed <= 4; seed++) run(seed, 1 << 20, 16, 6000);
  });

  it("matches it when the granules get finer, and as intervals past the granule limit", () => {
    for (let seed = 1; seed <= 4; seed++) run(seed, 1 << 16, 4096, 2000, 1000);
    for (let seed = 1; seed <= 2; seed++) run(seed, 1 << 22, 256, 3000, 1500);
  });
});
