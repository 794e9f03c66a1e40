// The read set of dependency inference (src/ir/read-set.ts) against a plain list of records:
// random insertions and overlap queries (taking the records out, putting back parts outside the
// query, as deps.ts does), with queries both before and after many pending insertions.
import { describe, expect, it } from "vitest";
import { ReadSet } from "../../../src/ir/read-set.js";
import { mulberry32 } from "../../helpers/prng.js";

type Rec = [lo: number, hi: number, op: number];

const byKey = (a: Rec, b: Rec): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

describe("read set", () => {
  it("takes out exactly the overlapping records, in order of their starts", () => {
    const rnd = mulberry32(0x5eed);
    const set = new ReadSet();
    let list: Rec[] = [];
    for (let step = 0; step < 20_000; step++) {
      const lo = Math.floor(rnd() * 5000);
      const hi = lo + 1 + Math.floor(rnd() * (rnd() < 0.05 ? 2000 : 40));
      if (rnd() < 0.7) {
        set.add(lo, hi, step);
        list.push([lo, hi, step]);
        continue;
      }
      set.takeOverlapping(lo, hi);
      const got: Rec[] = [];
      for (let k = 0; k < set.taken; k++)
        got.push([set.takenLo(k), set.takenHi(k), set.takenOp(k)]);
      const want = list.filter(([a, b]) => a < hi && b > lo);
      list = list.filter(([a, b]) => !(a < hi && b > lo));
      for (let k = 1; k < got.length; k++)
        expect(got[k]![0]).toBeGreaterThanOrEqual(got[k - 1]![0]);
      expect([...got].sort(byKey)).toEqual([...want].sort(byKey));
      for (const [a, b, op] of got) {
        if (a < lo) {
          set.add(a, lo, op);
          list.push([a, lo, op]);
        }
        if (b > hi) {
          set.add(hi, b, op);
          list.push([hi, b, op]);
        }
      }
      expect(set.size).toBe(list.length);
    }
  });

  it("ignores empty records and queries", () => {
    const set = new ReadSet();
    set.add(5, 5, 1);
    expect(set.size).toBe(0);
    set.add(0, 10, 2);
    set.takeOverlapping(3, 3);
    expect(set.taken).toBe(0);
    set.takeOverlapping(10, 20);
    expect(set.taken).toBe(0);
    set.takeOverlapping(9, 20);
    expect([set.taken, set.takenLo(0), set.takenHi(0), set.takenOp(0)]).toEqual([1, 0, 10, 2]);
    expect(set.size).toBe(0);
  });
});
