import { describe, it, expect } from "vitest";
import { mulberry32 } from "../../helpers/prng.js";
import {
  coalesce,
  copyRange,
  createProvenance,
  fillRange,
  readRange,
  withWriters,
  writeSegments,
} from "../../../src/ir/provenance.js";
import {
  assignOne,
  assignRange,
  createIntervalMap,
  readPieces,
  segmentCount,
  splitAt,
  updateRange,
  type IntervalValueOps,
} from "../../../src/ir/interval-map.js";

// A value "position p of run id": continues when the id matches and positions line up.
interface Run {
  id: number;
  pos: number;
}
const RUN_OPS: IntervalValueOps<Run> = {
  shift: (v, d) => ({ id: v.id, pos: v.pos + d }),
  continues: (a, b, len) => a.id === b.id && a.pos + len === b.pos,
};

describe("interval map", () => {
  it("splits with shifted values and merges continuations back", () => {
    const m = createIntervalMap<Run>(100, { id: 0, pos: 0 }, RUN_OPS);
    splitAt(m, 40);
    splitAt(m, 40);
    expect(readPieces(m, 0, 100)).toEqual([
      { start: 0, end: 40, value: { id: 0, pos: 0 } },
      { start: 40, end: 100, value: { id: 0, pos: 40 } },
    ]);
    assignRange(m, 10, 20, [{ start: 10, end: 20, value: { id: 1, pos: 0 } }]);
    expect(segmentCount(m)).toBe(4);
    // Writing the original run back merges everything into one segment.
    assignRange(m, 10, 20, [{ start: 10, end: 20, value: { id: 0, pos: 10 } }]);
    // (the split at 40 is only a boundary between continuing values: reads see the same run)
    expect(readPieces(m, 0, 100)).toEqual([
      { start: 0, end: 40, value: { id: 0, pos: 0 } },
      { start: 40, end: 100, value: { id: 0, pos: 40 } },
    ]);
    expect(segmentCount(m)).toBe(2);
  });

  it("reads clip and shift the first piece", () => {
    const m = createIntervalMap<Run>(100, { id: 0, pos: 0 }, RUN_OPS);
    assignRange(m, 50, 60, [{ start: 50, end: 60, value: { id: 2, pos: 0 } }]);
    expect(readPieces(m, 45, 55)).toEqual([
      { start: 45, end: 50, value: { id: 0, pos: 45 } },
      { start: 50, end: 55, value: { id: 2, pos: 0 } },
    ]);
    updateRange(m, 52, 58, (v) => ({ id: v.id + 10, pos: v.pos }));
    expect(readPieces(m, 50, 60).map((p) => [p.start, p.end, p.value.id])).toEqual([
      [50, 52, 2],
      [52, 58, 12],
      [58, 60, 2],
    ]);
  });

  it("agrees with a byte array under many random writes across block boundaries", () => {
    const size = 20_000;
    const m = createIntervalMap<Run>(size, { id: 0, pos: 0 }, RUN_OPS);
    const bytes = new Int32Array(size * 2); // (id, pos) per byte
    for (let i = 0; i < size; i++) bytes[2 * i + 1] = i;
    let seed = 12345;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let step = 1; step <= 4000; step++) {
      const lo = rnd(size - 1);
      const hi = lo + 1 + rnd(Math.min(64, size - lo));
      if (rnd(10) === 0) {
        // A multi-piece assignment: two runs.
        const mid = lo + Math.max(1, (hi - lo) >> 1);
        const pieces =
          mid < hi
            ? [
                { start: lo, end: mid, value: { id: step, pos: 0 } },
                { start: mid, end: hi, value: { id: -step, pos: 0 } },
              ]
            : [{ start: lo, end: hi, value: { id: step, pos: 0 } }];
        assignRange(m, lo, hi, pieces);
        for (const p of pieces)
          for (let x = p.start; x < p.end; x++) {
            bytes[2 * x] = p.value.id;
            bytes[2 * x + 1] = x - p.start;
          }
      } else {
        assignRange(m, lo, hi, [{ start: lo, end: hi, value: { id: step, pos: 0 } }]);
        for (let x = lo; x < hi; x++) {
          bytes[2 * x] = step;
          bytes[2 * x + 1] = x - lo;
        }
      }
    }
    expect(segmentCount(m)).toBeGreaterThan(1024); // several blocks
    let prevEnd = 0;
    for (const p of readPieces(m, 0, size)) {
      expect(p.start).toBe(prevEnd);
      prevEnd = p.end;
      for (let x = p.start; x < p.end; x++) {
        if (bytes[2 * x] !== p.value.id || bytes[2 * x + 1] !== p.value.pos + (x - p.start)) {
          throw new Error(`byte ${x} differs`);
        }
      }
    }
    expect(prevEnd).toBe(size);
  });

  it("assignOne gives the segments of assignRange with one piece, within and across blocks", () => {
    // Values that often continue their neighbours (few run ids, positions lined up), so that
    // both ends of an assignment merge, also with segments of the neighbouring blocks.
    const size = 40_000;
    const one = createIntervalMap<Run>(size, { id: 0, pos: 0 }, RUN_OPS);
    const ref = createIntervalMap<Run>(size, { id: 0, pos: 0 }, RUN_OPS);
    const draw = mulberry32(777);
    const rnd = (n: number) => Math.floor(draw() * n);
    let most = 0;
    for (let step = 0; step < 20_000; step++) {
      const len = 1 + rnd(rnd(400) === 0 ? 4000 : 16);
      const lo = rnd(size - len + 1);
      const id = rnd(8);
      // Position lo in run `id` a quarter of the time: continues a neighbour of the same run.
      const value = { id, pos: rnd(4) === 0 ? lo : rnd(size) };
      assignOne(one, lo, lo + len, value);
      assignRange(ref, lo, lo + len, [{ start: lo, end: lo + len, value }]);
      if (step % 2000 === 0 || step === 19_999) {
        most = Math.max(most, segmentCount(one));
        expect(segmentCount(one)).toBe(segmentCount(ref));
        expect(readPieces(one, 0, size)).toEqual(readPieces(ref, 0, size));
      }
    }
    expect(most).toBeGreaterThan(1024); // several blocks
  });

  it("stays correct for 200,000 sequential segments", () => {
    const n = 200_000;
    const m = createIntervalMap<Run>(n * 8, { id: 0, pos: 0 }, RUN_OPS);
    for (let i = 0; i < n; i++)
      assignRange(m, i * 8, i * 8 + 8, [
        { start: i * 8, end: i * 8 + 8, value: { id: i + 1, pos: 0 } },
      ]);
    expect(segmentCount(m)).toBe(n);
    expect(readPieces(m, 8 * 177_777 + 3, 8 * 177_778 + 1)).toEqual([
      { start: 8 * 177_777 + 3, end: 8 * 177_778, value: { id: 177_778, pos: 3 } },
      { start: 8 * 177_778, end: 8 * 177_778 + 1, value: { id: 177_779, pos: 0 } },
    ]);
  });
});

describe("provenance", () => {
  const GiB = 2 ** 30;

  it("unwritten ranges hold their own initial bytes", () => {
    const st = createProvenance(2, [GiB]);
    expect(readRange(st, 1, 0, 4096, 8)).toEqual([
      {
        start: 4096,
        end: 4104,
        source: { kind: "initial", rank: 1, buffer: 0, offset: 4096 },
        writer: -1,
      },
    ]);
  });

  it("copies and fills 1 GiB ranges with a handful of segments", () => {
    const st = createProvenance(2, [4 * GiB, 4 * GiB]);
    const segs = readRange(st, 0, 0, GiB, GiB);
    writeSegments(st, 1, 1, 2 * GiB, GiB, segs, 0);
    fillRange(st, 1, 1, 2 * GiB + 16, 16, 0xff, 1);
    const out = readRange(st, 1, 1, 2 * GiB - 8, GiB + 16);
    expect(out).toEqual([
      {
        start: 2 * GiB - 8,
        end: 2 * GiB,
        source: { kind: "initial", rank: 1, buffer: 1, offset: 2 * GiB - 8 },
        writer: -1,
      },
      {
        start: 2 * GiB,
        end: 2 * GiB + 16,
        source: { kind: "initial", rank: 0, buffer: 0, offset: GiB },
        writer: 0,
      },
      { start: 2 * GiB + 16, end: 2 * GiB + 32, source: { kind: "byte", value: 255 }, writer: 1 },
      {
        start: 2 * GiB + 32,
        end: 3 * GiB,
        source: { kind: "initial", rank: 0, buffer: 0, offset: GiB + 32 },
        writer: 0,
      },
      {
        start: 3 * GiB,
        end: 3 * GiB + 8,
        source: { kind: "initial", rank: 1, buffer: 1, offset: 3 * GiB },
        writer: -1,
      },
    ]);
  });

  it("copying a range back to where it came from merges it into one run", () => {
    const st = createProvenance(1, [1024, 1024]);
    writeSegments(st, 0, 1, 0, 0, readRange(st, 0, 0, 0, 512), 0);
    writeSegments(st, 0, 1, 512, 512, readRange(st, 0, 0, 512, 512), 0);
    expect(readRange(st, 0, 1, 0, 1024)).toEqual([
      {
        start: 0,
        end: 1024,
        source: { kind: "initial", rank: 0, buffer: 0, offset: 0 },
        writer: 0,
      },
    ]);
  });

  it("coalesce joins continuing segments, optionally ignoring writers", () => {
    const a = { kind: "initial" as const, rank: 0, buffer: 0, offset: 0 };
    const b = { kind: "initial" as const, rank: 0, buffer: 0, offset: 8 };
    const segs = [
      { start: 0, end: 8, source: a, writer: 1 },
      { start: 8, end: 16, source: b, writer: 2 },
    ];
    expect(coalesce(segs)).toHaveLength(2);
    expect(coalesce(segs, false)).toEqual([{ start: 0, end: 16, source: a, writer: 1 }]);
  });
});

describe("a state moved without writers, named afterwards (withWriters)", () => {
  it("merges pieces whose sources continue, and names each segment's first byte's writer", () => {
    const sizes = [64, 64];
    const exact = createProvenance(2, sizes);
    const bare = createProvenance(2, sizes);
    // Four copies of 8 bytes that continue one another, then a fill in the middle.
    const last = new Int32Array(64).fill(-1); // the last writer of each byte of (1, 1)
    for (let k = 0; k < 4; k++) {
      copyRange(exact, 0, 0, 8 * k, 8, 1, 1, 16 + 8 * k, k);
      copyRange(bare, 0, 0, 8 * k, 8, 1, 1, 16 + 8 * k, -1);
      last.fill(k, 16 + 8 * k, 24 + 8 * k);
    }
    fillRange(exact, 1, 1, 30, 4, 7, 9);
    fillRange(bare, 1, 1, 30, 4, 7, -1);
    last.fill(9, 30, 34);
    expect(readRange(bare, 1, 1, 0, 64)).toHaveLength(5);
    const named = withWriters(bare, (rank, buffer, at) =>
      rank === 1 && buffer === 1 ? last[at]! : -1,
    );
    // What the final-state check reads: sources continuing one another merged, the first
    // piece's writer.
    expect(coalesce(readRange(named, 1, 1, 0, 64), false)).toEqual(
      coalesce(readRange(exact, 1, 1, 0, 64), false),
    );
  });
});
