// An interval map with integer values over the bytes [0, size) of one buffer, for dependency
// inference's "last writer of each byte" (deps.ts). It means exactly what interval-map.ts does
// with number values that continue each other when equal (neighbours with one value are one
// segment), but it is specialised for a million writes: segments live in blocks of typed arrays
// (starts, values) with a count each, an assignment finds its range once and moves each block's
// tail once (no split-then-merge passes, no splice, no arrays per call), and the pieces of a
// range are walked with a cursor kept in the map instead of a callback.
//
// Cost: O(log n) to find a byte, O(BLOCK) to change the boundaries of one block, plus O(k) for k
// segments removed or visited; a million segments in one buffer stay near-linear in any order.

import { blockOf, entryOf, segmentEnd, splitBlock } from "../util/blocked-starts.js";
import { InternalError, invariant } from "../util/internal-error.js";

/** Entries per block at most (a full block is split, see splitBlockAt). */
const BLOCK = 256;

export interface IntIntervalMap {
  readonly size: number;
  /** Per block: segment starts (strictly increasing across blocks) and values. */
  starts: Float64Array[];
  vals: Int32Array[];
  /** Used entries of each block (>= 1). */
  count: number[];
  /** starts[b][0] of each block, for the binary search. */
  first: number[];
  /** The cursor (seek/nextPiece): entry j of block b. */
  b: number;
  j: number;
}

export function createIntIntervalMap(size: number, initial: number): IntIntervalMap {
  invariant(size > 0, "interval map of size 0");
  const s = new Float64Array(BLOCK);
  const v = new Int32Array(BLOCK);
  v[0] = initial;
  return { size, starts: [s], vals: [v], count: [1], first: [0], b: 0, j: 0 };
}

/**
 * Moves the cursor to the segment containing byte x (0 <= x < size). Accesses that stay near
 * each other (the pieces a write just looked at, buffers filled in order) find x in the cursor's
 * segment or the next one without a search.
 */
export function seek(m: IntIntervalMap, x: number): void {
  const b = m.b;
  const j = m.j;
  const blocks = m.first.length;
  if (b < blocks && j < m.count[b]!) {
    const s = m.starts[b]!;
    if (s[j]! <= x) {
      const count = m.count[b]!;
      if (j + 1 < count) {
        if (x < s[j + 1]!) return;
        if (j + 2 >= count ? x < segmentEnd(m, b, j + 1) : x < s[j + 2]!) {
          m.j = j + 1;
          return;
        }
      } else if (x < segmentEnd(m, b, j)) return;
    }
    // Still in the cursor's block (several writers interleaving near one another): search it alone.
    if (m.first[b]! <= x && (b + 1 >= blocks || x < m.first[b + 1]!)) {
      m.j = entryOf(m, b, x);
      return;
    }
  }
  const block = blockOf(m, x);
  m.b = block;
  m.j = entryOf(m, block, x);
}

/** The start of the cursor's segment. */
export function pieceStart(m: IntIntervalMap): number {
  return m.starts[m.b]![m.j]!;
}

/** The end of the cursor's segment (the next start, or size). */
export function pieceEnd(m: IntIntervalMap): number {
  return segmentEnd(m, m.b, m.j);
}

/** The value of the cursor's segment. */
export function pieceValue(m: IntIntervalMap): number {
  return m.vals[m.b]![m.j]!;
}

/**
 * Sets the value of the cursor's segment in place (without merging it with equal neighbours:
 * the tiling stays exact, only possibly finer than needed).
 */
export function setPieceValue(m: IntIntervalMap, value: number): void {
  m.vals[m.b]![m.j] = value;
}

/** Moves the cursor to the next segment; false (cursor unchanged) after the last one. */
export function nextPiece(m: IntIntervalMap): boolean {
  if (m.j + 1 < m.count[m.b]!) {
    m.j++;
    return true;
  }
  if (m.b + 1 < m.first.length) {
    m.b++;
    m.j = 0;
    return true;
  }
  return false;
}

/** The value of the segment before the one starting at entry j of block b (which is not 0). */
function valueBefore(m: IntIntervalMap, b: number, j: number): number {
  return j > 0 ? m.vals[b]![j - 1]! : m.vals[b - 1]![m.count[b - 1]! - 1]!;
}

// The entries an assignment puts in place of the ones it removes (at most three).
const newStart = new Float64Array(3);
const newVal = new Int32Array(3);

/**
 * Sets [lo, hi) to `value`: the same segments as interval-map.ts assignOne with values that
 * continue each other when equal (neighbours equal to `value` absorb it).
 */
export function assign(m: IntIntervalMap, lo: number, hi: number, value: number): void {
  // (Tested inline: invariant()'s message closure would be made on every call.)
  if (!(0 <= lo && lo < hi && hi <= m.size))
    throw new InternalError(`assign [${lo}, ${hi}) outside [0, ${m.size})`);
  seek(m, lo);
  const b = m.b;
  const j = m.j;
  const headStart = m.starts[b]![j]!;
  const headVal = m.vals[b]![j]!;
  // The last segment overlapping [lo, hi): (b2, j2).
  let b2 = b;
  let j2 = j;
  if (segmentEnd(m, b, j) < hi) {
    seek(m, hi - 1);
    b2 = m.b;
    j2 = m.j;
  }
  const tailEnd = segmentEnd(m, b2, j2);
  const tailVal = m.vals[b2]![j2]!;
  // New boundaries in [headStart, tailEnd).
  let n = 0;
  if (headStart < lo) {
    newStart[n] = headStart;
    newVal[n++] = headVal;
  }
  const prev = headStart < lo ? headVal : lo > 0 ? valueBefore(m, b, j) : value - 1;
  if (prev !== value) {
    newStart[n] = lo;
    newVal[n++] = value;
  }
  if (tailEnd > hi && tailVal !== value) {
    newStart[n] = hi;
    newVal[n++] = tailVal;
  }
  // The segment starting at tailEnd (== hi) joins when it holds `value`: drop its boundary too.
  let last = j2;
  let lastB = b2;
  if (tailEnd === hi && hi < m.size) {
    const nb = j2 + 1 < m.count[b2]! ? b2 : b2 + 1;
    const nj = nb === b2 ? j2 + 1 : 0;
    if (m.vals[nb]![nj]! === value) {
      lastB = nb;
      last = nj;
    }
  }
  replace(m, b, j, lastB, last, n);
}

/** Replaces entries (b, j) .. (lastB, last) inclusive by the n entries of newStart/newVal. */
function replace(m: IntIntervalMap, b: number, j: number, lastB: number, last: number, n: number) {
  if (lastB === b) {
    const count = m.count[b]!;
    const removed = last - j + 1;
    const next = count - removed + n;
    if (next > BLOCK) {
      // Split at j (or at the middle when j is near the start), then replace in the block that
      // holds (b, j) now: the entries from j move to a block of their own, with room.
      const at = j >= BLOCK >> 2 ? j : BLOCK >> 1;
      splitBlockAt(m, b, at);
      if (j >= at) replace(m, b + 1, j - at, b + 1, last - at, n);
      else if (last < at) replace(m, b, j, b, last, n);
      else replace(m, b, j, b + 1, last - at, n);
      return;
    }
    const s = m.starts[b]!;
    const v = m.vals[b]!;
    if (removed !== n) move(s, v, j + n, last + 1, count);
    for (let k = 0; k < n; k++) {
      s[j + k] = newStart[k]!;
      v[j + k] = newVal[k]!;
    }
    setCount(m, b, next);
    return;
  }
  // Spans blocks: keep block b's entries before j plus the new ones, drop the blocks between,
  // and block lastB's entries up to `last`.
  let tail = lastB;
  const rest = m.count[tail]! - (last + 1);
  move(m.starts[tail]!, m.vals[tail]!, 0, last + 1, last + 1 + rest);
  let bb = b;
  let jj = j;
  if (j + n > BLOCK) {
    splitBlockAt(m, b, j);
    bb = b + 1;
    jj = 0;
    tail++;
  }
  const s = m.starts[bb]!;
  const v = m.vals[bb]!;
  for (let k = 0; k < n; k++) {
    s[jj + k] = newStart[k]!;
    v[jj + k] = newVal[k]!;
  }
  // Highest index first, so that a block dropped for being empty does not move the others.
  setCount(m, tail, rest);
  dropBlocks(m, bb + 1, tail);
  setCount(m, bb, jj + n);
}

/** Moves entries [from, to) of one block to start at `at` (a short loop beats copyWithin). */
function move(s: Float64Array, v: Int32Array, at: number, from: number, to: number): void {
  if (to - from > 32) {
    // A long move (a write behind others in a block: the executor's slower queues) is a memmove.
    s.copyWithin(at, from, to);
    v.copyWithin(at, from, to);
    return;
  }
  if (at < from) {
    for (let k = from; k < to; k++) {
      s[at + k - from] = s[k]!;
      v[at + k - from] = v[k]!;
    }
  } else {
    for (let k = to - 1; k >= from; k--) {
      s[at + k - from] = s[k]!;
      v[at + k - from] = v[k]!;
    }
  }
}

/** Sets block b's count (removing the block when it is empty) and its first start. */
function setCount(m: IntIntervalMap, b: number, count: number): void {
  if (count === 0) {
    dropBlocks(m, b, b + 1);
    return;
  }
  m.count[b] = count;
  m.first[b] = m.starts[b]![0]!;
}

/** Removes blocks [from, to). */
function dropBlocks(m: IntIntervalMap, from: number, to: number): void {
  const n = to - from;
  if (n <= 0) return;
  m.starts.splice(from, n);
  m.vals.splice(from, n);
  m.count.splice(from, n);
  m.first.splice(from, n);
}

/**
 * Splits block b in two at `at` entries (the first block keeps [0, at)). Replacements split a
 * full block at the entry they change: a buffer written in order then leaves full blocks behind
 * it instead of half-full ones, so it takes half the blocks and half the splits.
 */
function splitBlockAt(m: IntIntervalMap, b: number, at: number): void {
  splitBlock(m, m.vals, b, at, BLOCK);
}

/** Number of segments (for tests and statistics). */
export function segmentCount(m: IntIntervalMap): number {
  let n = 0;
  for (const c of m.count) n += c;
  return n;
}
