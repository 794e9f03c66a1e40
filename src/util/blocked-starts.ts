// The layout and search shared by the two blocked interval maps (src/ir/int-interval-map.ts for dependency
// inference, src/sim/access-map.ts for the race detector): segments of [0, size) whose starts
// live in blocks of a Float64Array each, with a count per block and each block's first start.
// Each map keeps its own values (an Int32Array per block) and its own way of changing
// boundaries; finding a byte, the end of a segment and splitting a block are the same in both.

export interface BlockedStarts {
  readonly size: number;
  /** Per block: segment starts (strictly increasing across blocks). */
  starts: Float64Array[];
  /** Used entries of each block (>= 1). */
  count: number[];
  /** starts[b][0] of each block, for the binary search. */
  first: number[];
}

/** The block holding byte x (0 <= x < size): the last whose first start is <= x. */
export function blockOf(m: BlockedStarts, x: number): number {
  const first = m.first;
  let lo = 0;
  let hi = first.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (first[mid]! <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// blockOf and entryOf are the same binary search over a number[] and over a Float64Array: one
// function for both costs dependency inference about half again its time (mixed element kinds).

/** The entry of block b whose segment holds byte x (x at or after the block's first start). */
export function entryOf(m: BlockedStarts, b: number, x: number): number {
  const s = m.starts[b]!;
  let a = 0;
  let z = m.count[b]! - 1;
  while (a < z) {
    const mid = (a + z + 1) >> 1;
    if (s[mid]! <= x) a = mid;
    else z = mid - 1;
  }
  return a;
}

/** The end of segment (b, j): the next start, or size after the last one. */
export function segmentEnd(m: BlockedStarts, b: number, j: number): number {
  if (j + 1 < m.count[b]!) return m.starts[b]![j + 1]!;
  return b + 1 < m.first.length ? m.first[b + 1]! : m.size;
}

/**
 * Splits block b in two at entry `at` (the first block keeps [0, at)); `values` are the map's
 * per-block values, which move with their starts. New blocks hold `capacity` entries.
 */
export function splitBlock(
  m: BlockedStarts,
  values: Int32Array[],
  b: number,
  at: number,
  capacity: number,
): void {
  const count = m.count[b]!;
  const s = new Float64Array(capacity);
  const v = new Int32Array(capacity);
  s.set(m.starts[b]!.subarray(at, count));
  v.set(values[b]!.subarray(at, count));
  m.starts.splice(b + 1, 0, s);
  values.splice(b + 1, 0, v);
  m.count.splice(b + 1, 0, count - at);
  m.first.splice(b + 1, 0, s[0]!);
  m.count[b] = at;
}
