// A sorted interval map over the bytes [0, size) of one buffer: the range is tiled by segments,
// each carrying a value. Used by dependency inference (who last wrote / read each byte) and by
// the reference semantics (where each byte came from).
//
// Cost: proportional to the number of segments touched, never to byte counts, so a 1 GiB buffer
// costs what a 1 KiB one does. Segments live in a list of sorted blocks (at most MAX_BLOCK
// segments each; a block is split when it grows past that), so locating a byte is
// O(log n) and inserting or removing k segments is O(k + MAX_BLOCK) rather than O(n): a million
// segments in one buffer stay near-linear whatever order they are written in.
//
// A segment's end is the next segment's start (or `size`). Values must be treated as immutable:
// splitting a segment gives both halves values derived with `shift` (which may return the same
// object when the value does not depend on position).

import { invariant } from "../util/internal-error.js";

export interface IntervalValueOps<V> {
  /** The value of the part of a segment with value `v` that starts `delta` bytes into it. */
  shift(v: V, delta: number): V;
  /** True if a segment with value `b` directly after one with value `a` (of length `aLen`) is
   * the continuation of `a`, so the two can be one segment. */
  continues(a: V, b: V, aLen: number): boolean;
}

export interface Piece<V> {
  readonly start: number;
  readonly end: number;
  readonly value: V;
}

interface Block<V> {
  starts: number[];
  vals: V[];
}

export interface IntervalMap<V> {
  readonly size: number;
  readonly ops: IntervalValueOps<V>;
  /** Never empty; blocks[0].starts[0] === 0; starts strictly increase across all blocks. */
  blocks: Block<V>[];
}

const MAX_BLOCK = 512;

export function createIntervalMap<V>(
  size: number,
  initial: V,
  ops: IntervalValueOps<V>,
): IntervalMap<V> {
  invariant(size > 0, "interval map of size 0");
  return { size, ops, blocks: [{ starts: [0], vals: [initial] }] };
}

/** Index of the last block whose first start is <= x. */
function blockOf<V>(m: IntervalMap<V>, x: number): number {
  const blocks = m.blocks;
  let lo = 0;
  let hi = blocks.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (blocks[mid]!.starts[0]! <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Index of the last entry of `starts` that is <= x (starts[0] <= x is required). */
function entryOf(starts: readonly number[], x: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function segEnd<V>(m: IntervalMap<V>, b: number, j: number): number {
  const block = m.blocks[b]!;
  if (j + 1 < block.starts.length) return block.starts[j + 1]!;
  const next = m.blocks[b + 1];
  return next === undefined ? m.size : next.starts[0]!;
}

/** Makes x a segment boundary (no-op at 0, size, or an existing boundary). */
export function splitAt<V>(m: IntervalMap<V>, x: number): void {
  if (x <= 0 || x >= m.size) return;
  const b = blockOf(m, x);
  const block = m.blocks[b]!;
  const j = entryOf(block.starts, x);
  const start = block.starts[j]!;
  if (start === x) return;
  block.starts.splice(j + 1, 0, x);
  block.vals.splice(j + 1, 0, m.ops.shift(block.vals[j]!, x - start));
  if (block.starts.length > MAX_BLOCK) rebalance(m, b);
}

/** Splits an oversized block into blocks of MAX_BLOCK / 2 entries. */
function rebalance<V>(m: IntervalMap<V>, b: number): void {
  const block = m.blocks[b]!;
  const half = MAX_BLOCK >> 1;
  const parts: Block<V>[] = [];
  for (let k = 0; k < block.starts.length; k += half) {
    parts.push({ starts: block.starts.slice(k, k + half), vals: block.vals.slice(k, k + half) });
  }
  m.blocks.splice(b, 1, ...parts);
}

/** Calls `visit` for every segment overlapping [lo, hi), clipped to it (values shifted). */
export function forEachPiece<V>(
  m: IntervalMap<V>,
  lo: number,
  hi: number,
  visit: (start: number, end: number, value: V) => void,
): void {
  if (lo >= hi) return;
  let b = blockOf(m, lo);
  let j = entryOf(m.blocks[b]!.starts, lo);
  for (;;) {
    const block = m.blocks[b]!;
    const start = block.starts[j]!;
    if (start >= hi) return;
    const end = segEnd(m, b, j);
    const v = block.vals[j]!;
    const from = Math.max(start, lo);
    visit(from, Math.min(end, hi), from > start ? m.ops.shift(v, from - start) : v);
    if (end >= hi) return;
    j++;
    if (j >= block.starts.length) {
      b++;
      j = 0;
    }
  }
}

/** The segments overlapping [lo, hi), clipped to it, in order. */
export function readPieces<V>(m: IntervalMap<V>, lo: number, hi: number): Piece<V>[] {
  const out: Piece<V>[] = [];
  forEachPiece(m, lo, hi, (start, end, value) => out.push({ start, end, value }));
  return out;
}

/** Replaces every value in [lo, hi) by `f(value, start, end)` (splitting at lo and hi first). */
export function updateRange<V>(
  m: IntervalMap<V>,
  lo: number,
  hi: number,
  f: (value: V, start: number, end: number) => V,
): void {
  if (lo >= hi) return;
  splitAt(m, lo);
  splitAt(m, hi);
  let b = blockOf(m, lo);
  let j = entryOf(m.blocks[b]!.starts, lo);
  for (;;) {
    const block = m.blocks[b]!;
    const start = block.starts[j]!;
    if (start >= hi) return;
    const end = segEnd(m, b, j);
    block.vals[j] = f(block.vals[j]!, start, end);
    if (end >= hi) return;
    j++;
    if (j >= block.starts.length) {
      b++;
      j = 0;
    }
  }
}

/**
 * Overwrites [lo, hi) with `pieces`, which must tile it exactly in order. Adjacent segments that
 * continue each other (`ops.continues`) are merged, inside the pieces and at both ends.
 */
export function assignRange<V>(
  m: IntervalMap<V>,
  lo: number,
  hi: number,
  pieces: readonly Piece<V>[],
): void {
  invariant(
    0 <= lo && lo < hi && hi <= m.size,
    () => `assign [${lo}, ${hi}) outside [0, ${m.size})`,
  );
  const starts: number[] = [];
  const vals: V[] = [];
  let expect = lo;
  for (const p of pieces) {
    invariant(p.start === expect && p.end > p.start, "pieces must tile the assigned range");
    expect = p.end;
    const last = vals.length - 1;
    if (last >= 0 && m.ops.continues(vals[last]!, p.value, p.start - starts[last]!)) continue;
    starts.push(p.start);
    vals.push(p.value);
  }
  invariant(expect === hi, "pieces must tile the assigned range");

  splitAt(m, lo);
  splitAt(m, hi);
  const b = blockOf(m, lo);
  const block = m.blocks[b]!;
  const j = entryOf(block.starts, lo);
  // Remove the old segments of [lo, hi): the tail of block b from j, whole blocks after it
  // that lie inside, and the prefix of the block that contains hi.
  let k = j;
  while (k < block.starts.length && block.starts[k]! < hi) k++;
  if (k < block.starts.length || b === m.blocks.length - 1) {
    if (starts.length <= 1024) {
      // The common case (a few pieces): native splice moves the block's tail in place.
      block.starts.splice(j, k - j, ...starts);
      block.vals.splice(j, k - j, ...vals);
    } else {
      block.starts = block.starts.slice(0, j).concat(starts, block.starts.slice(k));
      block.vals = block.vals.slice(0, j).concat(vals, block.vals.slice(k));
    }
  } else {
    block.starts = block.starts.slice(0, j).concat(starts);
    block.vals = block.vals.slice(0, j).concat(vals);
    let nb = b + 1;
    while (nb < m.blocks.length) {
      const nblock = m.blocks[nb]!;
      const ns = nblock.starts;
      if (ns[ns.length - 1]! < hi) {
        nb++;
        continue;
      }
      let cut = 0;
      while (ns[cut]! < hi) cut++;
      if (cut > 0) {
        nblock.starts = ns.slice(cut);
        nblock.vals = nblock.vals.slice(cut);
      }
      break;
    }
    m.blocks.splice(b + 1, nb - (b + 1));
  }
  if (block.starts.length > MAX_BLOCK) rebalance(m, b);
  mergeAt(m, hi);
  mergeAt(m, lo);
}

/** If x is a boundary between two segments that continue each other, removes it. */
function mergeAt<V>(m: IntervalMap<V>, x: number): void {
  if (x <= 0 || x >= m.size) return;
  const b = blockOf(m, x);
  const block = m.blocks[b]!;
  const j = entryOf(block.starts, x);
  if (block.starts[j] !== x) return;
  let pb = b;
  let pj = j - 1;
  if (pj < 0) {
    pb = b - 1;
    pj = m.blocks[pb]!.starts.length - 1;
  }
  const prev = m.blocks[pb]!;
  const prevStart = prev.starts[pj]!;
  if (!m.ops.continues(prev.vals[pj]!, block.vals[j]!, x - prevStart)) return;
  block.starts.splice(j, 1);
  block.vals.splice(j, 1);
  if (block.starts.length === 0) m.blocks.splice(b, 1);
}

/** Number of segments (for tests and statistics). */
export function segmentCount<V>(m: IntervalMap<V>): number {
  let n = 0;
  for (const block of m.blocks) n += block.starts.length;
  return n;
}

// ---- allocation-light variants (the executor's hot path; same results as the general ones) ----

/**
 * The value of [lo, hi) shifted to lo when one segment covers the whole range, else undefined.
 * Same as readPieces(m, lo, hi) having exactly one piece, without building the list.
 */
export function singlePiece<V>(m: IntervalMap<V>, lo: number, hi: number): V | undefined {
  if (lo >= hi) return undefined;
  const b = blockOf(m, lo);
  const block = m.blocks[b]!;
  const j = entryOf(block.starts, lo);
  if (segEnd(m, b, j) < hi) return undefined;
  const start = block.starts[j]!;
  const v = block.vals[j]!;
  return lo > start ? m.ops.shift(v, lo - start) : v;
}

/**
 * Same as assignRange(m, lo, hi, [{ start: lo, end: hi, value }]) (merging with continuing
 * neighbours included), without the piece list and the temporary arrays when [lo, hi) stays in
 * one block: one search, and the block's entries from lo to hi replaced in one step by at most
 * three (the head before lo, the value, the tail after hi), each left out where it continues its
 * neighbour (what splitAt, splitAt, replace, mergeAt(hi), mergeAt(lo) would give).
 */
export function assignOne<V>(m: IntervalMap<V>, lo: number, hi: number, value: V): void {
  if (!(0 <= lo && lo < hi && hi <= m.size)) {
    assignRange(m, lo, hi, [{ start: lo, end: hi, value }]); // reports the invariant
    return;
  }
  const b = blockOf(m, lo);
  const block = m.blocks[b]!;
  const starts = block.starts;
  const vals = block.vals;
  const j = entryOf(starts, lo);
  let k = j + 1;
  while (k < starts.length && starts[k]! < hi) k++;
  const next = m.blocks[b + 1];
  if (k === starts.length && next !== undefined && next.starts[0]! < hi) {
    // Crosses a block boundary: the general path (rare).
    assignRange(m, lo, hi, [{ start: lo, end: hi, value }]);
    return;
  }
  const ops = m.ops;
  const headStart = starts[j]!;
  const tailStart = starts[k - 1]!;
  const tailEnd = k < starts.length ? starts[k]! : next === undefined ? m.size : next.starts[0]!;
  const tailVal = tailEnd > hi ? ops.shift(vals[k - 1]!, hi - tailStart) : undefined;
  // Does the value continue the segment before lo (then lo is no boundary)?
  let joinsPrev = false;
  if (headStart < lo) joinsPrev = ops.continues(vals[j]!, value, lo - headStart);
  else if (lo > 0) {
    const pb = j > 0 ? block : m.blocks[b - 1]!;
    const pj = j > 0 ? j - 1 : pb.starts.length - 1;
    joinsPrev = ops.continues(pb.vals[pj]!, value, lo - pb.starts[pj]!);
  }
  // Does the segment after hi continue the value (then hi is no boundary)?
  let joinsNext = false;
  let nextInBlock = false;
  if (tailVal !== undefined) joinsNext = ops.continues(value, tailVal, hi - lo);
  else if (hi < m.size) {
    const nb = k < starts.length ? block : next!;
    nextInBlock = nb === block;
    joinsNext = ops.continues(value, nb.vals[nextInBlock ? k : 0]!, hi - lo);
  }
  // Replace entries [j, k) (and the next one when it joins and is in this block).
  const keepHead = headStart < lo;
  const end = joinsNext && nextInBlock ? k + 1 : k;
  const from = keepHead ? j + 1 : j;
  const put = (joinsPrev ? 0 : 1) + (tailVal !== undefined && !joinsNext ? 1 : 0);
  if (put === 2) {
    starts.splice(from, end - from, lo, hi);
    vals.splice(from, end - from, value, tailVal!);
  } else if (put === 1) {
    const x = joinsPrev ? hi : lo;
    const v = joinsPrev ? tailVal! : value;
    if (end - from === 1) {
      starts[from] = x;
      vals[from] = v;
    } else {
      starts.splice(from, end - from, x);
      vals.splice(from, end - from, v);
    }
  } else {
    starts.splice(from, end - from);
    vals.splice(from, end - from);
  }
  if (joinsNext && !nextInBlock && tailVal === undefined && hi < m.size) {
    // The joining segment starts the next block: drop its boundary there.
    next!.starts.splice(0, 1);
    next!.vals.splice(0, 1);
    if (next!.starts.length === 0) m.blocks.splice(b + 1, 1);
  }
  if (starts.length === 0) m.blocks.splice(b, 1);
  else if (starts.length > MAX_BLOCK) rebalance(m, b);
}
