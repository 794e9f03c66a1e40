// The executor's allocation-light provenance moves (singleSource / writeSource, on the interval
// map's singlePiece / assignOne) must give exactly the segments the general readRange /
// writeSegments path gives: a random differential run over small buffers.
import { describe, expect, it } from "vitest";
import {
  createProvenance,
  fillRange,
  readRange,
  singleSource,
  writeSegments,
  writeSource,
  type ProvenanceState,
} from "../../../src/ir/provenance.js";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

const dump = (st: ProvenanceState): string =>
  JSON.stringify([...st.maps].sort((a, b) => a[0] - b[0]).map(([k, m]) => [k, m.blocks]));

describe("allocation-light provenance moves", () => {
  it("match readRange + writeSegments on random copies and fills", () => {
    for (let seed = 1; seed <= 30; seed++) {
      const r = rng(seed);
      const sizes = [64, 96, 2000];
      const fast = createProvenance(2, sizes);
      const slow = createProvenance(2, sizes);
      let singles = 0;
      for (let op = 0; op < 300; op++) {
        const b0 = Math.floor(r() * 3);
        const b1 = Math.floor(r() * 3);
        const g0 = Math.floor(r() * 2);
        const g1 = Math.floor(r() * 2);
        const len = 1 + Math.floor(r() * Math.min(sizes[b0]!, sizes[b1]!, 40));
        const o0 = Math.floor(r() * (sizes[b0]! - len + 1));
        const o1 = Math.floor(r() * (sizes[b1]! - len + 1));
        if (r() < 0.15) {
          fillRange(fast, g1, b1, o1, len, op & 0xff, op);
          fillRange(slow, g1, b1, o1, len, op & 0xff, op);
          continue;
        }
        const segs = readRange(slow, g0, b0, o0, len);
        writeSegments(slow, g1, b1, o1, o0, segs, op);
        const one = singleSource(fast, g0, b0, o0, len);
        expect(one === undefined).toBe(segs.length !== 1);
        if (one !== undefined) {
          singles++;
          expect(one).toEqual(segs[0]!.source);
          writeSource(fast, g1, b1, o1, len, one, op);
        } else writeSegments(fast, g1, b1, o1, o0, readRange(fast, g0, b0, o0, len), op);
        if (op % 25 === 24) expect(dump(fast)).toBe(dump(slow));
      }
      expect(singles).toBeGreaterThan(0);
    }
  });

  it("rejects a range outside the buffer like the general path", () => {
    const st = createProvenance(1, [16]);
    expect(() => singleSource(st, 0, 0, 8, 16)).toThrow();
    expect(() => writeSource(st, 0, 0, 8, 16, { kind: "byte", value: 1 }, 0)).toThrow();
    expect(() => singleSource(st, 1, 0, 0, 4)).toThrow();
  });
});
