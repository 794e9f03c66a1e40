// Whether a module's ops share no written byte: no two ops write one byte of a (rank, buffer)
// and no op reads a byte that another op writes. Such a module (an out-of-place collective: an
// all-to-all, an all-gather) has no memory edge at all, and dependency inference (deps.ts) skips
// its interval maps: sorting every access once costs a fraction of walking them op by op.
//
// The test is sufficient, not necessary: an op that reads bytes it writes itself (a swap, a copy
// within one buffer) makes it false, and deps.ts then infers edges as usual. Waits and notifies
// order ops through signals, not bytes: a module with either is not tested (false).

import { K_BCAST, K_COPY, K_FILL, type IrModule } from "./ir.js";

/** One access list: [lo, hi) ranges grouped by (rank, buffer) key. */
interface Ranges {
  /** Ranges of key k: [at[k], at[k + 1]). */
  readonly at: Int32Array;
  readonly lo: Float64Array;
  readonly hi: Float64Array;
}

/** True when the module's ops write disjoint bytes and read none of the written ones. */
export function writesDisjoint(m: IrModule): boolean {
  const keys = m.ranks * m.buffers.length;
  const seen: Seen = {
    nWrites: new Int32Array(keys),
    nReads: new Int32Array(keys),
    lastW: new Float64Array(2 * keys),
    lastR: new Float64Array(2 * keys),
    unsortedW: new Uint8Array(keys),
    unsortedR: new Uint8Array(keys),
  };
  if (!countAccesses(m, seen)) return false;
  const writes = ranges(seen.nWrites, keys);
  const reads = ranges(seen.nReads, keys);
  placeAccesses(m, writes, reads);
  for (let k = 0; k < keys; k++) {
    if (seen.unsortedW[k] === 1) sort(writes, k);
    if (!disjoint(writes, k)) return false;
    if (seen.unsortedR[k] === 1) sort(reads, k);
    if (!untouched(writes, reads, k)) return false;
  }
  return true;
}

// (Each loop below is a function of its own with nothing after it but a return: V8 compiles a
// long loop while it runs, and code after it that has not run yet would be compiled without
// type feedback, to be left again as soon as the loop ends.)

/** What countAccesses learns of each (rank, buffer) key. */
interface Seen {
  readonly nWrites: Int32Array;
  readonly nReads: Int32Array;
  /** The key's last write and last read, [lo, hi) at 2k, 2k + 1. */
  readonly lastW: Float64Array;
  readonly lastR: Float64Array;
  /** 1 where the key's writes (reads) did not come with starts and ends in ascending order. */
  readonly unsortedW: Uint8Array;
  readonly unsortedR: Uint8Array;
}

/**
 * Counts each key's accesses; false for an op the test does not cover, or an access that
 * overlaps its key's last write (or, for a write, last read): a certain conflict, found before
 * any sorting (where most modules with edges stop, at their first one).
 */
function countAccesses(m: IrModule, seen: Seen): boolean {
  const t = m.ops;
  const B = m.buffers.length;
  for (let i = 0; i < t.count; i++) {
    const kind = t.kind[i]!;
    // (A swap reads what it writes; waits and notifies order through signals.)
    if ((kind !== K_COPY && kind !== K_BCAST && kind !== K_FILL) || t.guard[i]! >= 0) return false;
    const len = t.len[i]!;
    if (len <= 0) continue;
    if (kind !== K_FILL) {
      const src = t.srcOff[i]!;
      if (!access(seen, false, t.srcRank[i]! * B + t.srcBuf[i]!, src, src + len)) return false;
    }
    const dst = t.dstOff[i]!;
    if (!access(seen, true, t.dstRank[i]! * B + t.dstBuf[i]!, dst, dst + len)) return false;
    if (kind === K_BCAST) {
      const dst2 = t.dst2Off[i]!;
      if (!access(seen, true, t.dst2Rank[i]! * B + t.dst2Buf[i]!, dst2, dst2 + len)) return false;
    }
  }
  return true;
}

/** One access of countAccesses; false on a certain conflict. */
function access(seen: Seen, write: boolean, key: number, lo: number, hi: number): boolean {
  const { lastW, lastR } = seen;
  const at = 2 * key;
  if (lo < lastW[at + 1]! && lastW[at]! < hi) return false;
  if (write && lo < lastR[at + 1]! && lastR[at]! < hi) return false;
  const last = write ? lastW : lastR;
  if (lo < last[at]! || hi < last[at + 1]!) (write ? seen.unsortedW : seen.unsortedR)[key] = 1;
  last[at] = lo;
  last[at + 1] = hi;
  (write ? seen.nWrites : seen.nReads)[key]!++;
  return true;
}

/** Every access into its key's part of `writes` or `reads`, in program order. */
function placeAccesses(m: IrModule, writes: Ranges, reads: Ranges): void {
  const t = m.ops;
  const B = m.buffers.length;
  const wAt = writes.at.slice();
  const rAt = reads.at.slice();
  for (let i = 0; i < t.count; i++) {
    const len = t.len[i]!;
    if (len <= 0) continue;
    const kind = t.kind[i]!;
    if (kind !== K_FILL) put(reads, rAt, t.srcRank[i]! * B + t.srcBuf[i]!, t.srcOff[i]!, len);
    put(writes, wAt, t.dstRank[i]! * B + t.dstBuf[i]!, t.dstOff[i]!, len);
    if (kind === K_BCAST) put(writes, wAt, t.dst2Rank[i]! * B + t.dst2Buf[i]!, t.dst2Off[i]!, len);
  }
}

/** Room for counts[k] ranges of each key k. */
function ranges(counts: Int32Array, keys: number): Ranges {
  const at = new Int32Array(keys + 1);
  for (let k = 0; k < keys; k++) at[k + 1] = at[k]! + counts[k]!;
  return { at, lo: new Float64Array(at[keys]!), hi: new Float64Array(at[keys]!) };
}

function put(r: Ranges, next: Int32Array, key: number, off: number, len: number): void {
  const j = next[key]!++;
  r.lo[j] = off;
  r.hi[j] = off + len;
}

/** Sorts key k's starts and ends, each on its own (typed-array sorts, no comparator). */
function sort(r: Ranges, k: number): void {
  r.lo.subarray(r.at[k]!, r.at[k + 1]!).sort();
  r.hi.subarray(r.at[k]!, r.at[k + 1]!).sort();
}

/**
 * Key k's writes (sorted) are pairwise disjoint: exactly when the i-th smallest end is at most
 * the (i+1)-th smallest start, for then no byte lies under two of them (the starts at or before
 * it outnumber the ends at or before it by one at most).
 */
function disjoint(w: Ranges, k: number): boolean {
  const from = w.at[k]!;
  const to = w.at[k + 1]!;
  for (let i = from; i + 1 < to; i++) if (w.hi[i]! > w.lo[i + 1]!) return false;
  return true;
}

/**
 * No read of key k overlaps a write of it. Both are sorted, the writes disjoint (disjoint() ran):
 * the i-th start pairs with the i-th end. At a write's start, the reads under it are those
 * started minus those ended, and a read that starts later inside the write overlaps it too.
 */
function untouched(w: Ranges, r: Ranges, k: number): boolean {
  const wFrom = w.at[k]!;
  const wTo = w.at[k + 1]!;
  const rFrom = r.at[k]!;
  const rTo = r.at[k + 1]!;
  if (wFrom === wTo || rFrom === rTo) return true;
  let started = rFrom; // reads with lo <= the write's start
  let ended = rFrom; // reads with hi <= the write's start
  for (let i = wFrom; i < wTo; i++) {
    const lo = w.lo[i]!;
    while (started < rTo && r.lo[started]! <= lo) started++;
    while (ended < rTo && r.hi[ended]! <= lo) ended++;
    if (started > ended) return false; // a read covers the write's first byte
    if (started < rTo && r.lo[started]! < w.hi[i]!) return false; // one starts inside it
  }
  return true;
}
