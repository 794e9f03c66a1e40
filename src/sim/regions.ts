// The node's address map in columns. A program names its regions in two parts: `regions`, one
// object each (buffers, user signals, the trigger: a few hundred), and `wordRegions`, columns for
// the words there may be one of per packet (sync words, completion and timestamp slots: a million
// on the forward program of bench/gen.js). regionMap merges both, sorted by address, into typed
// columns; a region becomes an object only when a report asks for it (region(i)). Before, every
// slot was an object that every full collection marked for the whole run.

import { grown } from "../util/arrays.js";
import type { ProgramBase, RegionKind, SimRegion } from "./program.js";

/** Region kinds by code (the `kind` columns). */
export const REGION_KINDS = [
  "buffer",
  "signal",
  "sync",
  "completion",
  "timestamp",
  "trigger",
  "ring",
] as const satisfies readonly RegionKind[];
export const REGION_CODE: Readonly<Record<RegionKind, number>> = Object.fromEntries(
  REGION_KINDS.map((k, i) => [k, i]),
) as Record<RegionKind, number>;

/** Word regions as columns; region k as an object from `region(k)` (reports only). */
export interface WordRegions {
  readonly count: number;
  /** REGION_CODE of sync, completion or timestamp. */
  readonly kind: Uint8Array;
  readonly addr: Float64Array;
  readonly bytes: Float64Array;
  /** The GPU whose memory it is; -1: host memory. */
  readonly gpu: Int32Array;
  /** Initial value; NaN: none (0). */
  readonly initial: Float64Array;
  readonly region: (k: number) => SimRegion;
}

/** Fills WordRegions row by row (`name(k)` names row k when a report asks). */
export class WordRegionsBuilder {
  private n = 0;
  readonly kind: Uint8Array;
  readonly addr: Float64Array;
  readonly bytes: Float64Array;
  readonly gpu: Int32Array;
  readonly initial: Float64Array;
  constructor(readonly capacity: number) {
    // (Shared memory: they go to the checks' thread uncopied, as the commands do: program.ts.)
    const at = (bytes: number) => new SharedArrayBuffer(capacity * bytes);
    this.kind = new Uint8Array(at(1));
    this.addr = new Float64Array(at(8));
    this.bytes = new Float64Array(at(8));
    this.gpu = new Int32Array(at(4));
    this.initial = new Float64Array(at(8));
  }

  add(kind: RegionKind, addr: number, bytes: number, gpu: number | null, initial?: number): void {
    const k = this.n++;
    this.kind[k] = REGION_CODE[kind];
    this.addr[k] = addr;
    this.bytes[k] = bytes;
    this.gpu[k] = gpu ?? -1;
    this.initial[k] = initial ?? NaN;
  }

  finish(name: (k: number) => string): WordRegions {
    const { kind, addr, bytes, gpu, initial } = this;
    const region = (k: number): SimRegion => ({
      kind: REGION_KINDS[kind[k]!]!,
      name: name(k),
      gpu: gpu[k]! < 0 ? null : gpu[k]!,
      addr: addr[k]!,
      bytes: bytes[k]!,
      ...(Number.isNaN(initial[k]!) ? {} : { initial: initial[k]! }),
    });
    return { count: this.n, kind, addr, bytes, gpu, initial, region };
  }
}

/** Every region of a program, sorted by address (ties keep `regions` then `wordRegions` order). */
export interface RegionMap {
  readonly starts: Float64Array;
  /** addr + bytes of each region. */
  readonly ends: Float64Array;
  readonly kind: Uint8Array;
  /** -1: host memory. */
  readonly gpu: Int32Array;
  /** Buffer id of each region (-1: not a buffer instance on a GPU). */
  readonly bufferOf: Int32Array;
  /** Initial value of a word (0 when none is given). */
  readonly initial: Float64Array;
  readonly region: (i: number) => SimRegion;
}

/** Runs of word regions merged instead of sorted: more than this, and they are sorted. */
const MAX_RUNS = 16;

/**
 * The indices 0 .. R-1 (regions ++ wordRegions) stably sorted by addrOf, as stretches of
 * consecutive indices: stretch s is src[s] .. src[s] + len[s] - 1, at sorted positions from
 * at[s]. A named region is a stretch of its own. The word regions (from N on) are a few sorted
 * runs (sync words, completion slots, timestamp slots: a million entries), the named ones few:
 * those are sorted and the runs merged, in O(stretches x runs x log R) instead of a sort with a
 * comparator: each step takes the lowest head's list up to the next head's address (found by a
 * binary search in a run), so a run's long stretches are taken without comparing each entry.
 */
interface Stretches {
  readonly n: number;
  readonly at: Int32Array;
  readonly src: Int32Array;
  readonly len: Int32Array;
}

class StretchList {
  n = 0;
  at = new Int32Array(16);
  src = new Int32Array(16);
  len = new Int32Array(16);
  private i = 0;
  private lastWords = false;

  /** Indices from .. from + len - 1 come next (`words`: word regions, else a named one). */
  push(from: number, len: number, words: boolean): void {
    const s = this.n - 1;
    // (Consecutive word indices join the last stretch: the sorted fallback gives them one by one.)
    const joins = words && this.lastWords && this.src[s]! + this.len[s]! === from;
    this.lastWords = words;
    if (joins) {
      this.len[s]! += len;
      this.i += len;
      return;
    }
    if (this.n === this.at.length) {
      this.at = grown(this.at, 2 * this.n);
      this.src = grown(this.src, 2 * this.n);
      this.len = grown(this.len, 2 * this.n);
    }
    this.at[this.n] = this.i;
    this.src[this.n] = from;
    this.len[this.n++] = len;
    this.i += len;
  }
}

function stableStretches(R: number, N: number, addrOf: (j: number) => number): Stretches {
  const list = new StretchList();
  // (A named region comes one at a time and stays a stretch of its own: it is written field by
  // field.)
  const add = (from: number, len: number): void => list.push(from, len, from >= N);
  const runStart: number[] = [];
  for (let j = N; j < R; j++) if (j === N || addrOf(j) < addrOf(j - 1)) runStart.push(j);
  if (runStart.length > MAX_RUNS) {
    const order = Array.from({ length: R }, (_, j) => j).sort((a, b) => addrOf(a) - addrOf(b));
    for (const j of order) add(j, 1);
    return list;
  }
  const named = Array.from({ length: N }, (_, j) => j).sort((a, b) => addrOf(a) - addrOf(b));
  // Lists: the named one first, then each run, in index order; a tie goes to the lower list
  // (its indices are lower), which keeps the order stable.
  const k = runStart.length;
  const at = new Int32Array(k + 1);
  const end = new Int32Array(k + 1);
  at[0] = 0;
  end[0] = N;
  for (let r = 0; r < k; r++) {
    at[r + 1] = runStart[r]!;
    end[r + 1] = r + 1 < k ? runStart[r + 1]! : R;
  }
  const head = (h: number): number => addrOf(h === 0 ? named[at[0]!]! : at[h]!);
  for (;;) {
    let best = -1;
    let bestAddr = Infinity;
    let next = -1;
    let nextAddr = Infinity;
    for (let h = 0; h <= k; h++) {
      if (at[h]! >= end[h]!) continue;
      const a = head(h);
      if (best < 0 || a < bestAddr) {
        next = best;
        nextAddr = bestAddr;
        best = h;
        bestAddr = a;
      } else if (next < 0 || a < nextAddr) {
        next = h;
        nextAddr = a;
      }
    }
    if (best < 0) return list;
    if (best === 0) {
      add(named[at[0]!++]!, 1);
      continue;
    }
    // The run's entries before the next head: below its address, or at it when this list is
    // the lower one. The head itself always qualifies.
    let lo = at[best]! + 1;
    let hi = end[best]!;
    if (next >= 0)
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        const a = addrOf(mid);
        if (a < nextAddr || (a === nextAddr && best < next)) lo = mid + 1;
        else hi = mid;
      }
    add(at[best]!, lo - at[best]!);
    at[best] = lo;
  }
}

/** Stretches of a concatenation already sorted: each named region, then the word regions. */
function inOrder(R: number, N: number): Stretches {
  const list = new StretchList();
  for (let j = 0; j < N; j++) list.push(j, 1, false);
  if (R > N) list.push(N, R - N, true);
  return list;
}

export function regionMap(p: Pick<ProgramBase, "regions" | "wordRegions">): RegionMap {
  const named = p.regions;
  const words = p.wordRegions;
  const N = named.length;
  const R = N + (words?.count ?? 0);
  const addrOf = (j: number): number => (j < N ? named[j]!.addr : words!.addr[j - N]!);
  let sorted = true;
  for (let j = 1; j < R && sorted; j++) sorted = addrOf(j - 1) <= addrOf(j);
  // Sorted positions in stretches of regions ++ wordRegions (a stable sort: ties keep their order).
  const st = sorted ? inOrder(R, N) : stableStretches(R, N, addrOf);
  const starts = new Float64Array(R);
  const ends = new Float64Array(R);
  const kind = new Uint8Array(R);
  const gpu = new Int32Array(R);
  const bufferOf = new Int32Array(R).fill(-1);
  const initial = new Float64Array(R);
  for (let s = 0; s < st.n; s++) {
    const i = st.at[s]!;
    const j = st.src[s]!;
    if (j < N) {
      const r = named[j]!;
      starts[i] = r.addr;
      ends[i] = r.addr + r.bytes;
      kind[i] = REGION_CODE[r.kind];
      gpu[i] = r.gpu ?? -1;
      if (r.kind === "buffer" && r.buffer !== undefined && r.gpu !== null) bufferOf[i] = r.buffer;
      initial[i] = r.initial ?? 0;
    } else {
      // A stretch of word regions: the columns copied whole (the million completion slots of
      // a big program are a few stretches), ends and initial values a short loop each.
      const k = j - N;
      const len = st.len[s]!;
      starts.set(words!.addr.subarray(k, k + len), i);
      kind.set(words!.kind.subarray(k, k + len), i);
      gpu.set(words!.gpu.subarray(k, k + len), i);
      wordEnds(ends, initial, words!, k, len, i);
    }
  }
  const region = (i: number): SimRegion => {
    // The stretch holding sorted position i (the last that starts at or before it).
    let lo = 0;
    let hi = st.n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (st.at[mid]! <= i) lo = mid;
      else hi = mid - 1;
    }
    const j = st.src[lo]! + (i - st.at[lo]!);
    return j < N ? named[j]! : words!.region(j - N);
  };
  return { starts, ends, kind, gpu, bufferOf, initial, region };
}

/** ends and initial at i.. for word regions k .. k + len - 1 (no initial value: 0). */
function wordEnds(
  ends: Float64Array,
  initial: Float64Array,
  words: WordRegions,
  k: number,
  len: number,
  i: number,
): void {
  const { addr, bytes } = words;
  const init = words.initial;
  for (let x = 0; x < len; x++) {
    ends[i + x] = addr[k + x]! + bytes[k + x]!;
    const v = init[k + x]!;
    initial[i + x] = Number.isNaN(v) ? 0 : v;
  }
}
