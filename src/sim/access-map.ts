// The race detector's map over the bytes [0, size) of one buffer instance: the range is tiled by
// segments, each naming a row of the access table (memory.ts). It behaves exactly like
// ir/interval-map.ts used with integer values that are never merged (every write or read makes
// fresh rows), so segment boundaries are only added (at the ends of an access) or removed
// (inside a write), but it is specialised for the executor's hot path: segments live in blocks
// of typed arrays (starts, rows) and no operation allocates except when a block splits.
//
// Cost: O(log n) to find a byte, O(BLOCK) to insert or remove a boundary, O(k) to visit k
// segments.

import { blockOf, entryOf, segmentEnd, splitBlock } from "../util/blocked-starts.js";

const BLOCK = 256;

export interface AccessMap {
  readonly size: number;
  /** Per block: segment starts (strictly increasing across blocks) and their rows. */
  starts: Float64Array[];
  rows: Int32Array[];
  /** Used entries of each block (>= 1). */
  count: number[];
  /** starts[b][0] of each block, for the binary search. */
  first: number[];
}

export function createAccessMap(size: number, row: number): AccessMap {
  const s = new Float64Array(BLOCK);
  const r = new Int32Array(BLOCK);
  r[0] = row;
  return { size, starts: [s], rows: [r], count: [1], first: [0] };
}

// The position found by locate(): block and entry (module state: no tuple allocated).
let atB = 0;
let atJ = 0;

/** Sets atB/atJ to the segment containing byte x (0 <= x < size). */
function locate(m: AccessMap, x: number): void {
  atB = blockOf(m, x);
  atJ = entryOf(m, atB, x);
}

/** Makes x a segment boundary (no-op at 0, size, or an existing boundary). */
function splitAt(m: AccessMap, x: number): void {
  if (x <= 0 || x >= m.size) return;
  locate(m, x);
  let b = atB;
  let j = atJ;
  if (m.starts[b]![j] === x) return;
  if (m.count[b] === BLOCK) {
    splitBlock(m, m.rows, b, m.count[b]! >> 1, BLOCK); // a full block: into halves
    if (j >= m.count[b]!) {
      j -= m.count[b]!;
      b++;
    }
  }
  const s = m.starts[b]!;
  const r = m.rows[b]!;
  const n = m.count[b]!;
  s.copyWithin(j + 2, j + 1, n);
  r.copyWithin(j + 2, j + 1, n);
  s[j + 1] = x;
  r[j + 1] = r[j]!;
  m.count[b] = n + 1;
}

/** Calls visit(start, end, row) for every segment overlapping [lo, hi), clipped to it. */
export function visitAccess(
  m: AccessMap,
  lo: number,
  hi: number,
  visit: (start: number, end: number, row: number) => void,
): void {
  if (lo >= hi) return;
  locate(m, lo);
  let b = atB;
  let j = atJ;
  for (;;) {
    const start = m.starts[b]![j]!;
    if (start >= hi) return;
    const end = segmentEnd(m, b, j);
    visit(start > lo ? start : lo, end < hi ? end : hi, m.rows[b]![j]!);
    if (end >= hi) return;
    if (++j >= m.count[b]!) {
      b++;
      j = 0;
    }
  }
}

/** Replaces the row of every segment in [lo, hi) by f(row, start, end), splitting at lo, hi. */
export function updateAccess(
  m: AccessMap,
  lo: number,
  hi: number,
  f: (row: number, start: number, end: number) => number,
): void {
  if (lo >= hi) return;
  splitAt(m, lo);
  splitAt(m, hi);
  locate(m, lo);
  let b = atB;
  let j = atJ;
  for (;;) {
    const start = m.starts[b]![j]!;
    if (start >= hi) return;
    const end = segmentEnd(m, b, j);
    const rows = m.rows[b]!;
    rows[j] = f(rows[j]!, start, end);
    if (end >= hi) return;
    if (++j >= m.count[b]!) {
      b++;
      j = 0;
    }
  }
}

/** Makes [lo, hi) one segment with `row` (removing the boundaries inside it). */
export function assignAccess(m: AccessMap, lo: number, hi: number, row: number): void {
  if (lo >= hi) return;
  splitAt(m, lo);
  splitAt(m, hi);
  locate(m, lo);
  const b = atB;
  const j = atJ;
  const s = m.starts[b]!;
  const n = m.count[b]!;
  m.rows[b]![j] = row;
  // Entries j+1 .. k-1 of block b start inside (lo, hi): remove them.
  let k = j + 1;
  while (k < n && s[k]! < hi) k++;
  if (k < n || hi >= m.size) {
    if (k > j + 1) {
      s.copyWithin(j + 1, k, n);
      m.rows[b]!.copyWithin(j + 1, k, n);
      m.count[b] = n - (k - j - 1);
    }
    if (k < n || b + 1 >= m.first.length) return;
  }
  m.count[b] = j + 1;
  // The range goes on into later blocks: drop those inside it, and the prefix of the one
  // holding the boundary at hi (or every later block when hi is the end of the buffer).
  let nb = b + 1;
  while (nb < m.first.length) {
    const ns = m.starts[nb]!;
    const nn = m.count[nb]!;
    if (ns[nn - 1]! < hi) {
      nb++;
      continue;
    }
    let cut = 0;
    while (ns[cut]! < hi) cut++;
    if (cut > 0) {
      ns.copyWithin(0, cut, nn);
      m.rows[nb]!.copyWithin(0, cut, nn);
      m.count[nb] = nn - cut;
      m.first[nb] = ns[0]!;
    }
    break;
  }
  const drop = nb - (b + 1);
  if (drop > 0) {
    m.starts.splice(b + 1, drop);
    m.rows.splice(b + 1, drop);
    m.count.splice(b + 1, drop);
    m.first.splice(b + 1, drop);
  }
}

/** Number of segments (tests). */
export function accessSegments(m: AccessMap): number {
  let n = 0;
  for (const c of m.count) n += c;
  return n;
}
