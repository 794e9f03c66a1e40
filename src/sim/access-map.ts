// The race detector's map over the bytes [0, size) of one buffer instance: the range is tiled by
// segments, each naming a row of the access table (memory.ts). The detector makes a fresh row for
// every write and for every piece a read touches, so no two neighbouring segments are equal and
// a segment is a maximal run of bytes with one row.
//
// Two forms, the same segments:
// - granular (the usual one): a row per granule of g bytes (a power of two), where every access
//   so far started and ended on a granule boundary (or at the end of the buffer). An access of a
//   granule or a few costs O(1): no search, no boundary shifted, nothing allocated. An access that
//   is not aligned to g makes the granules finer (each row repeated), as long as there are at most
//   MAX_GRANULES of them;
// - intervals (ir/int-interval-map.ts: blocks of typed arrays and a cursor) for the rest: accesses
//   at odd offsets in a large buffer.
//
// Cost: granular, O(granules touched); intervals, O(1) near the last access and O(log n)
// elsewhere to find a byte, O(BLOCK) to insert or remove a boundary, O(k) to visit k segments.

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

/** Granules per buffer instance at most (2 MiB of rows); finer accesses use the intervals. */
const MAX_GRANULES = 1 << 19;

export interface AccessMap {
  readonly size: number;
  /** Granule bytes (granular form). */
  g: number;
  /** The row of each granule (granular form; the last granule may be partial). */
  rows: Int32Array;
  /** The interval form, once an access did not fit any granule size allowed. */
  map: IntIntervalMap | undefined;
}

export function createAccessMap(size: number, row: number): AccessMap {
  let g = 1;
  while (g < size) g *= 2;
  return { size, g, rows: Int32Array.of(row), map: undefined };
}

/**
 * Makes lo and hi granule boundaries (hi may be the end of the buffer): true when the map is
 * granular afterwards, false when it is (now) the interval form.
 */
function fit(m: AccessMap, lo: number, hi: number): boolean {
  if (m.map !== undefined) return false;
  let g = m.g;
  if (lo % g === 0 && (hi % g === 0 || hi === m.size)) return true;
  while (lo % g !== 0 || (hi % g !== 0 && hi !== m.size)) g /= 2;
  const n = Math.ceil(m.size / g);
  if (n > MAX_GRANULES) {
    m.map = intervalsOf(m);
    m.rows = new Int32Array(0);
    return false;
  }
  const ratio = m.g / g;
  const rows = new Int32Array(n);
  for (let k = 0; k < m.rows.length; k++) rows.fill(m.rows[k]!, k * ratio, (k + 1) * ratio);
  m.g = g;
  m.rows = rows;
  return true;
}

/** The granular map's segments as an interval map. */
function intervalsOf(m: AccessMap): IntIntervalMap {
  const { g, rows, size } = m;
  const map = createIntIntervalMap(size, rows[0]!);
  let start = 0;
  for (let k = 1; k <= rows.length; k++)
    if (k === rows.length || rows[k] !== rows[start]) {
      if (start > 0) assign(map, start * g, Math.min(k * g, size), rows[start]!);
      start = k;
    }
  return map;
}

/** Calls visit(start, end, row) for every segment overlapping [lo, hi), clipped to it. */
export function visitAccess(
  m: AccessMap,
  lo: number,
  hi: number,
  visit: (start: number, end: number, row: number) => void,
): void {
  if (lo >= hi) return;
  if (!fit(m, lo, hi)) {
    const map = m.map!;
    seek(map, lo);
    for (;;) {
      const start = pieceStart(map);
      const end = pieceEnd(map);
      visit(start > lo ? start : lo, end < hi ? end : hi, pieceValue(map));
      if (end >= hi || !nextPiece(map)) return;
    }
  }
  const { g, rows } = m;
  const last = hi === m.size ? rows.length : hi / g;
  let k = lo / g;
  let start = lo;
  let row = rows[k]!;
  for (k++; k < last; k++)
    if (rows[k] !== row) {
      visit(start, k * g, row);
      start = k * g;
      row = rows[k]!;
    }
  visit(start, hi, row);
}

// The pieces of a range an update reads before it writes any (module scratch, grown on demand).
let pieceAt = new Float64Array(64);
let pieceRow = new Int32Array(64);

/**
 * Replaces the row of every segment in [lo, hi) by f(row, start, end) (clipped), in order,
 * splitting at lo and hi. f must return a row no segment holds (a fresh one): equal neighbours
 * would be one segment.
 */
export function updateAccess(
  m: AccessMap,
  lo: number,
  hi: number,
  f: (row: number, start: number, end: number) => number,
): void {
  if (lo >= hi) return;
  if (!fit(m, lo, hi)) return updateIntervals(m.map!, lo, hi, f);
  const { g, rows } = m;
  const last = hi === m.size ? rows.length : hi / g;
  let from = lo / g;
  let start = lo;
  for (let k = from + 1; k <= last; k++)
    if (k === last || rows[k] !== rows[from]) {
      const row = f(rows[from]!, start, k === last ? hi : k * g);
      if (k === from + 1) rows[from] = row;
      else rows.fill(row, from, k);
      from = k;
      start = k * g;
    }
}

function updateIntervals(
  map: IntIntervalMap,
  lo: number,
  hi: number,
  f: (row: number, start: number, end: number) => number,
): void {
  seek(map, lo);
  if (pieceEnd(map) >= hi) {
    assign(map, lo, hi, f(pieceValue(map), lo, hi)); // inside one segment: the common case
    return;
  }
  let n = 0;
  for (;;) {
    if (n === pieceAt.length) growPieces();
    const start = pieceStart(map);
    pieceAt[n] = start > lo ? start : lo;
    pieceRow[n++] = pieceValue(map);
    if (pieceEnd(map) >= hi || !nextPiece(map)) break;
  }
  for (let k = 0; k < n; k++)
    pieceRow[k] = f(pieceRow[k]!, pieceAt[k]!, k + 1 < n ? pieceAt[k + 1]! : hi);
  for (let k = 0; k < n; k++)
    assign(map, pieceAt[k]!, k + 1 < n ? pieceAt[k + 1]! : hi, pieceRow[k]!);
}

function growPieces(): void {
  const at = new Float64Array(pieceAt.length * 2);
  at.set(pieceAt);
  pieceAt = at;
  const row = new Int32Array(pieceRow.length * 2);
  row.set(pieceRow);
  pieceRow = row;
}

/**
 * The granule that [lo, hi) is exactly (its row is m.rows[k], one segment's clipped to it), or -1:
 * the common access, which callers handle without visiting pieces.
 */
export function granuleOf(m: AccessMap, lo: number, hi: number): number {
  if (m.map !== undefined || lo % m.g !== 0) return -1;
  const k = lo / m.g;
  return hi - lo === m.g || (hi === m.size && k === m.rows.length - 1) ? k : -1;
}

/** Makes [lo, hi) one segment with `row` (a fresh row: see updateAccess). */
export function assignAccess(m: AccessMap, lo: number, hi: number, row: number): void {
  if (lo >= hi) return;
  if (!fit(m, lo, hi)) assign(m.map!, lo, hi, row);
  else if (hi - lo <= m.g) m.rows[lo / m.g] = row;
  else m.rows.fill(row, lo / m.g, hi === m.size ? m.rows.length : hi / m.g);
}

/** The row of the segment holding byte x (0 <= x < size). */
export function accessRowAt(m: AccessMap, x: number): number {
  if (m.map === undefined) return m.rows[Math.floor(x / m.g)]!;
  seek(m.map, x);
  return pieceValue(m.map);
}

/** Number of segments (tests). */
export function accessSegments(m: AccessMap): number {
  if (m.map !== undefined) return segmentCount(m.map);
  let n = 1;
  for (let k = 1; k < m.rows.length; k++) if (m.rows[k] !== m.rows[k - 1]) n++;
  return n;
}
