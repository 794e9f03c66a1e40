// The search shared by the two blocked interval maps (src/ir/int-interval-map.ts for dependency
// inference, src/sim/access-map.ts for the race detector): segments of [0, size) whose starts
// live in blocks of a Float64Array each, with a count per block and each block's first start.
// Each map keeps its own values and its own way of changing boundaries; finding a byte and the
// end of a segment are the same in both.

export interface BlockedStarts {
  readonly size: number;
  /** Per block: segment starts (strictly increasing across blocks). */
  readonly starts: readonly Float64Array[];
  /** Used entries of each block (>= 1). */
  readonly count: readonly number[];
  /** starts[b][0] of each block, for the binary search. */
  readonly first: readonly number[];
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
