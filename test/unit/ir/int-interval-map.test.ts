// The typed-array interval map of dependency inference (src/ir/int-interval-map.ts) against a
// value per byte and against the general interval map (equal values continue each other), under
// random assignments that cross, fill, split and empty blocks, in order and out of order.
import { describe, expect, it } from "vitest";
import {
  assign,
  createIntIntervalMap,
  nextPiece,
  pieceEnd,
  pieceStart,
  pieceValue,
  seek,
  segmentCount,
  setPieceValue,
  type IntIntervalMap,
} from "../../../src/ir/int-interval-map.js";
import {
  assignOne,
  createIntervalMap,
  readPieces,
  type IntervalValueOps,
} from "../../../src/ir/interval-map.js";
import { mulberry32 } from "../../helpers/prng.js";

const EQUAL: IntervalValueOps<number> = { shift: (v) => v, continues: (a, b) => a === b };

/** The pieces of [lo, hi) as [start, end, value] (clipped), walked with the cursor. */
function pieces(m: IntIntervalMap, lo: number, hi: number): [number, number, number][] {
  const out: [number, number, number][] = [];
  seek(m, lo);
  for (;;) {
    out.push([Math.max(lo, pieceStart(m)), Math.min(hi, pieceEnd(m)), pieceValue(m)]);
    if (pieceEnd(m) >= hi || !nextPiece(m)) return out;
  }
}

/** Checks m against the byte values: exact tiling, every byte's value. */
function expectBytes(m: IntIntervalMap, bytes: Int32Array): void {
  let prev = 0;
  for (const [s, e, v] of pieces(m, 0, bytes.length)) {
    expect(s).toBe(prev);
    expect(e).toBeGreaterThan(s);
    prev = e;
    for (let x = s; x < e; x++)
      if (bytes[x] !== v) throw new Error(`byte ${x}: ${v} != ${bytes[x]}`);
  }
  expect(prev).toBe(bytes.length);
}

describe("int interval map", () => {
  it("starts as one segment and splits, merges equal neighbours", () => {
    const m = createIntIntervalMap(100, -1);
    assign(m, 10, 20, 5);
    assign(m, 20, 30, 5);
    expect(pieces(m, 0, 100)).toEqual([
      [0, 10, -1],
      [10, 30, 5],
      [30, 100, -1],
    ]);
    assign(m, 0, 10, 5);
    assign(m, 30, 100, 5);
    expect(pieces(m, 0, 100)).toEqual([[0, 100, 5]]);
    expect(segmentCount(m)).toBe(1);
    assign(m, 40, 41, 7);
    expect(pieces(m, 35, 45)).toEqual([
      [35, 40, 5],
      [40, 41, 7],
      [41, 45, 5],
    ]);
  });

  for (const [name, ordered] of [
    ["random", false],
    ["mostly in order", true],
  ] as const) {
    it(`agrees with per-byte values and the general map under ${name} assignments`, () => {
      const rnd = mulberry32(name.length * 7919);
      const size = 30_000;
      const m = createIntIntervalMap(size, -1);
      const g = createIntervalMap<number>(size, -1, EQUAL);
      const bytes = new Int32Array(size).fill(-1);
      let pos = 0;
      for (let step = 0; step < 12_000; step++) {
        const big = rnd() < 0.01;
        const len = 1 + Math.floor(rnd() * (big ? 3000 : 12));
        let lo: number;
        if (ordered && rnd() < 0.9) {
          lo = pos % (size - len);
          pos = lo + len;
        } else lo = Math.floor(rnd() * (size - len));
        // Few distinct values, so that neighbours are often equal and merge.
        const v = Math.floor(rnd() * 6);
        assign(m, lo, lo + len, v);
        assignOne(g, lo, lo + len, v);
        bytes.fill(v, lo, lo + len);
        if (step % 3000 === 0) expectBytes(m, bytes);
        // A read-since mark on a piece, as dependency inference sets them (no merge).
        if (rnd() < 0.05) {
          const x = Math.floor(rnd() * size);
          seek(m, x);
          const s = pieceStart(m);
          const e = pieceEnd(m);
          setPieceValue(m, pieceValue(m) + 100);
          for (let k = s; k < e; k++) bytes[k] = bytes[k]! + 100;
          assignOne(g, s, e, bytes[s]!);
        }
      }
      expectBytes(m, bytes);
      expect(segmentCount(m)).toBeGreaterThan(512); // several blocks
      // The same segments as the general map, apart from marks the general map merged.
      const gp = readPieces(g, 0, size).map((p) => [p.start, p.end, p.value]);
      const merged: [number, number, number][] = [];
      for (const p of pieces(m, 0, size)) {
        const last = merged[merged.length - 1];
        if (last && last[2] === p[2]) last[1] = p[1];
        else merged.push([...p]);
      }
      expect(merged).toEqual(gp);
    });
  }

  it("one assignment over many blocks, and the whole range", () => {
    const size = 100_000;
    const m = createIntIntervalMap(size, -1);
    for (let i = 0; i < 5000; i++) assign(m, i * 20, i * 20 + 10, i);
    expect(segmentCount(m)).toBe(10_000);
    assign(m, 15, 99_995, 1);
    expect(pieces(m, 0, size)).toEqual([
      [0, 10, 0],
      [10, 15, -1],
      [15, 99_995, 1],
      [99_995, 100_000, -1],
    ]);
    assign(m, 0, size, 3);
    expect(segmentCount(m)).toBe(1);
    expect(pieces(m, 5, 6)).toEqual([[5, 6, 3]]);
  });

  it("a million segments written in order stay near-linear", () => {
    const n = 1_000_000;
    const m = createIntIntervalMap(n * 64, -1);
    const t0 = performance.now();
    for (let i = 0; i < n; i++) assign(m, i * 64, i * 64 + 64, i);
    const ms = performance.now() - t0;
    expect(segmentCount(m)).toBe(n);
    expect(pieces(m, 64 * 777_777 + 1, 64 * 777_778 + 1)).toEqual([
      [64 * 777_777 + 1, 64 * 777_778, 777_777],
      [64 * 777_778, 64 * 777_778 + 1, 777_778],
    ]);
    expect(ms).toBeLessThan(5000); // ~100 ms; quadratic block handling took minutes
  });
});
