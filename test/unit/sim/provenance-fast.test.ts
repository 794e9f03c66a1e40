// The typed provenance (ir/provenance.ts: interned rows on integer interval maps) must give
// exactly the segments the object form it replaced gave (ir/interval-map.ts with values
// {source, writer} that continue each other when the writer is the same and the source run goes
// on), and its allocation-free moves (copyRange, swapRanges) exactly what readRange +
// writeSegments give: random differential runs over small buffers.
import { describe, expect, it } from "vitest";
import {
  assignRange,
  createIntervalMap,
  readPieces,
  type IntervalMap,
  type IntervalValueOps,
} from "../../../src/ir/interval-map.js";
import {
  copyRange,
  createProvenance,
  fillRange,
  firstDifference,
  readRange,
  singleSource,
  sourceAt,
  sourceContinues,
  swapRanges,
  writeSegments,
  writeSource,
  type Prov,
  type ProvenanceState,
  type ProvSegment,
} from "../../../src/ir/provenance.js";

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

const SIZES = [64, 96, 2000];
const RANKS = 2;

const dump = (st: ProvenanceState): string => {
  const out: ProvSegment[][] = [];
  for (let g = 0; g < RANKS; g++)
    for (let b = 0; b < SIZES.length; b++) out.push(readRange(st, g, b, 0, SIZES[b]!));
  return JSON.stringify(out);
};

// The object form, as ir/provenance.ts had it before the typed rows.
const PROV_OPS: IntervalValueOps<Prov> = {
  shift: (v, delta) => (delta === 0 ? v : { source: sourceAt(v.source, delta), writer: v.writer }),
  continues: (a, b, aLen) => a.writer === b.writer && sourceContinues(a.source, b.source, aLen),
};

class ObjectProvenance {
  readonly maps = new Map<number, IntervalMap<Prov>>();
  map(g: number, b: number): IntervalMap<Prov> {
    const k = g * SIZES.length + b;
    let m = this.maps.get(k);
    if (!m) {
      m = createIntervalMap<Prov>(
        SIZES[b]!,
        { source: { kind: "initial", rank: g, buffer: b, offset: 0 }, writer: -1 },
        PROV_OPS,
      );
      this.maps.set(k, m);
    }
    return m;
  }
  read(g: number, b: number, o: number, len: number): ProvSegment[] {
    return readPieces(this.map(g, b), o, o + len).map((p) => ({
      start: p.start,
      end: p.end,
      source: p.value.source,
      writer: p.value.writer,
    }));
  }
  write(g: number, b: number, o: number, from: number, segs: ProvSegment[], w: number): void {
    const d = o - from;
    const pieces = segs.map((s) => ({
      start: s.start + d,
      end: s.end + d,
      value: { source: s.source, writer: w },
    }));
    assignRange(this.map(g, b), o, segs.at(-1)!.end + d, pieces);
  }
  dump(): string {
    const out: ProvSegment[][] = [];
    for (let g = 0; g < RANKS; g++)
      for (let b = 0; b < SIZES.length; b++) out.push(this.read(g, b, 0, SIZES[b]!));
    return JSON.stringify(out);
  }
}

describe("typed provenance", () => {
  // Writers come in bursts (one op, one command) unless `revisit`: then some writes reuse an
  // earlier writer, which switches the row table to its hash index (ProvRows).
  it.each([
    { revisit: false, seeds: 30 },
    { revisit: true, seeds: 10 },
  ])(
    "gives the object form's segments, and the moves match readRange + writeSegments (%o)",
    ({ revisit, seeds }) => {
      for (let seed = 1; seed <= seeds; seed++) {
        const r = rng(seed);
        const fast = createProvenance(RANKS, SIZES);
        const slow = createProvenance(RANKS, SIZES);
        const obj = new ObjectProvenance();
        const pick = () => {
          const b = Math.floor(r() * 3);
          return { g: Math.floor(r() * RANKS), b };
        };
        for (let step = 0; step < 300; step++) {
          const op = revisit && step > 10 && r() < 0.2 ? Math.floor(r() * step) : step;
          const s = pick();
          const d = pick();
          const d2 = pick();
          const len = 1 + Math.floor(r() * Math.min(SIZES[s.b]!, SIZES[d.b]!, SIZES[d2.b]!, 40));
          const at = (b: number) => Math.floor(r() * (SIZES[b]! - len + 1));
          const [os, od, od2] = [at(s.b), at(d.b), at(d2.b)];
          const kind = r();
          if (kind < 0.15) {
            fillRange(fast, d.g, d.b, od, len, op & 0xff, op);
            fillRange(slow, d.g, d.b, od, len, op & 0xff, op);
            const v: ProvSegment = {
              start: 0,
              end: len,
              source: { kind: "byte", value: op & 0xff },
              writer: op,
            };
            obj.write(d.g, d.b, od, 0, [v], op);
          } else if (kind < 0.3) {
            swapRanges(fast, s.g, s.b, os, d.g, d.b, od, len, op);
            const a = readRange(slow, s.g, s.b, os, len);
            const b = readRange(slow, d.g, d.b, od, len);
            writeSegments(slow, s.g, s.b, os, od, b, op);
            writeSegments(slow, d.g, d.b, od, os, a, op);
            const oa = obj.read(s.g, s.b, os, len);
            const ob = obj.read(d.g, d.b, od, len);
            obj.write(s.g, s.b, os, od, ob, op);
            obj.write(d.g, d.b, od, os, oa, op);
          } else {
            const bcast = kind < 0.45;
            if (bcast) copyRange(fast, s.g, s.b, os, len, d.g, d.b, od, op, d2.g, d2.b, od2);
            else copyRange(fast, s.g, s.b, os, len, d.g, d.b, od, op);
            const segs = readRange(slow, s.g, s.b, os, len);
            expect(singleSource(slow, s.g, s.b, os, len) === undefined).toBe(segs.length !== 1);
            writeSegments(slow, d.g, d.b, od, os, segs, op);
            if (bcast) writeSegments(slow, d2.g, d2.b, od2, os, segs, op);
            const osegs = obj.read(s.g, s.b, os, len);
            obj.write(d.g, d.b, od, os, osegs, op);
            if (bcast) obj.write(d2.g, d2.b, od2, os, osegs, op);
          }
          if (step % 25 === 24) {
            expect(dump(fast)).toBe(obj.dump());
            expect(dump(slow)).toBe(obj.dump());
          }
        }
        if (revisit) expect(fast.rows.index.length).toBeGreaterThan(0);
      }
    },
  );

  it("finds the first byte where two states hold different sources", () => {
    const a = createProvenance(1, [100]);
    const b = createProvenance(1, [100]);
    expect(firstDifference(a, b, 0, 0, 100)).toBe(-1);
    // Same bytes, different writers and histories: no difference.
    fillRange(a, 0, 0, 10, 20, 7, 1);
    fillRange(b, 0, 0, 10, 5, 7, 2);
    fillRange(b, 0, 0, 15, 15, 7, 3);
    expect(firstDifference(a, b, 0, 0, 100)).toBe(-1);
    copyRange(a, 0, 0, 50, 10, 0, 0, 60, 4);
    expect(firstDifference(a, b, 0, 0, 100)).toBe(60);
    copyRange(b, 0, 0, 50, 10, 0, 0, 60, 9);
    expect(firstDifference(a, b, 0, 0, 100)).toBe(-1);
    writeSource(b, 0, 0, 99, 1, { kind: "initial", rank: 0, buffer: 0, offset: 98 }, 5);
    expect(firstDifference(a, b, 0, 0, 100)).toBe(99);
  });

  it("compares states that number their buffers differently by (rank, buffer)", () => {
    const a = createProvenance(2, [8]);
    const b = createProvenance(2, [8, 4, 4]);
    copyRange(a, 1, 0, 0, 8, 0, 0, 0, 1);
    copyRange(b, 1, 0, 0, 8, 0, 0, 0, 1);
    expect(firstDifference(a, b, 0, 0, 8)).toBe(-1);
    copyRange(b, 0, 0, 0, 4, 1, 0, 4, 2);
    expect(firstDifference(a, b, 1, 0, 8)).toBe(4);
  });

  it("rejects a range outside the buffer like the general path", () => {
    const st = createProvenance(1, [16]);
    expect(() => singleSource(st, 0, 0, 8, 16)).toThrow();
    expect(() => writeSource(st, 0, 0, 8, 16, { kind: "byte", value: 1 }, 0)).toThrow();
    expect(() => singleSource(st, 1, 0, 0, 4)).toThrow();
    expect(() => copyRange(st, 0, 0, 0, 8, 0, 0, 12, 1)).toThrow();
    expect(() => swapRanges(st, 0, 0, 0, 0, 0, 12, 8, 1)).toThrow();
  });
});
