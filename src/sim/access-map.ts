// The race detector's map over the bytes [0, size) of one buffer instance: the range is tiled by
// segments, each naming a row of the access table (memory.ts). It is an integer interval map
// (ir/int-interval-map.ts: blocks of typed arrays, a cursor that finds the next access near the
// last one without a search). That map joins equal neighbours; the race detector makes a fresh
// row for every write and for every piece a read touches, so no two segments are ever equal and
// the segments are exactly the boundaries its accesses made: only added (at the ends of an
// access) or removed (inside a write).
//
// Cost: O(1) to find a byte near the last one, O(log n) elsewhere, O(BLOCK) to insert or remove a
// boundary, O(k) to visit k segments.

import {
  assign,
  createIntIntervalMap,
  nextPiece,
  pieceEnd,
  pieceStart,
  pieceValue,
  seek,
  segmentCount,
  type IntIntervalMap,
} from "../ir/int-interval-map.js";

export type AccessMap = IntIntervalMap;

export function createAccessMap(size: number, row: number): AccessMap {
  return createIntIntervalMap(size, row);
}

/** Calls visit(start, end, row) for every segment overlapping [lo, hi), clipped to it. */
export function visitAccess(
  m: AccessMap,
  lo: number,
  hi: number,
  visit: (start: number, end: number, row: number) => void,
): void {
  if (lo >= hi) return;
  seek(m, lo);
  for (;;) {
    const start = pieceStart(m);
    const end = pieceEnd(m);
    visit(start > lo ? start : lo, end < hi ? end : hi, pieceValue(m));
    if (end >= hi || !nextPiece(m)) return;
  }
}

// The pieces of a range an update reads before it writes any (module scratch, grown on demand).
let pieceAt = new Float64Array(64);
let pieceRow = new Int32Array(64);

/**
 * Replaces the row of every segment in [lo, hi) by f(row, start, end) (clipped), splitting at lo
 * and hi. f must return a row no segment holds (a fresh one): equal neighbours would be joined.
 */
export function updateAccess(
  m: AccessMap,
  lo: number,
  hi: number,
  f: (row: number, start: number, end: number) => number,
): void {
  if (lo >= hi) return;
  seek(m, lo);
  if (pieceEnd(m) >= hi) {
    assign(m, lo, hi, f(pieceValue(m), lo, hi)); // inside one segment: the common case
    return;
  }
  let n = 0;
  for (;;) {
    if (n === pieceAt.length) growPieces();
    const start = pieceStart(m);
    pieceAt[n] = start > lo ? start : lo;
    pieceRow[n++] = pieceValue(m);
    if (pieceEnd(m) >= hi || !nextPiece(m)) break;
  }
  for (let k = 0; k < n; k++)
    pieceRow[k] = f(pieceRow[k]!, pieceAt[k]!, k + 1 < n ? pieceAt[k + 1]! : hi);
  for (let k = 0; k < n; k++)
    assign(m, pieceAt[k]!, k + 1 < n ? pieceAt[k + 1]! : hi, pieceRow[k]!);
}

function growPieces(): void {
  const at = new Float64Array(pieceAt.length * 2);
  at.set(pieceAt);
  pieceAt = at;
  const row = new Int32Array(pieceRow.length * 2);
  row.set(pieceRow);
  pieceRow = row;
}

/** Makes [lo, hi) one segment with `row` (a fresh row: see updateAccess). */
export function assignAccess(m: AccessMap, lo: number, hi: number, row: number): void {
  if (lo < hi) assign(m, lo, hi, row);
}

/** Number of segments (tests). */
export function accessSegments(m: AccessMap): number {
  return segmentCount(m);
}
