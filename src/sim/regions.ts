// The node's address map in columns. A program names its regions in two parts: `regions`, one
// object each (buffers, user signals, the trigger: a few hundred), and `wordRegions`, columns for
// the words there may be one of per packet (sync words, completion and timestamp slots: a million
// on the forward program of bench/gen.js). regionMap merges both, sorted by address, into typed
// columns; a region becomes an object only when a report asks for it (region(i)). Before, every
// slot was an object that every full collection marked for the whole run.

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
 * The indices 0 .. R-1 stably sorted by addrOf. The word regions (from N on) are a few sorted
 * runs (sync words, completion slots, timestamp slots: a million entries), the named ones few:
 * those are sorted and the runs merged, in O(R + stretches x runs x log R) instead of a sort with
 * a comparator: each step takes the lowest head's list up to the next head's address (found by a
 * binary search in a run), so a run's long stretches are written without comparing each entry.
 */
function stableOrder(R: number, N: number, addrOf: (j: number) => number): Int32Array {
  const runStart: number[] = [];
  for (let j = N; j < R; j++) if (j === N || addrOf(j) < addrOf(j - 1)) runStart.push(j);
  if (runStart.length > MAX_RUNS)
    return Int32Array.from(
      Array.from({ length: R }, (_, j) => j).sort((a, b) => addrOf(a) - addrOf(b)),
    );
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
  const out = new Int32Array(R);
  let i = 0;
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
    if (best < 0) return out;
    if (best === 0) {
      out[i++] = named[at[0]!++]!;
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
    for (let x = at[best]!; x < lo; x++) out[i++] = x;
    at[best] = lo;
  }
}

export function regionMap(p: Pick<ProgramBase, "regions" | "wordRegions">): RegionMap {
  const named = p.regions;
  const words = p.wordRegions;
  const N = named.length;
  const R = N + (words?.count ?? 0);
  const addrOf = (j: number): number => (j < N ? named[j]!.addr : words!.addr[j - N]!);
  let sorted = true;
  for (let j = 1; j < R && sorted; j++) sorted = addrOf(j - 1) <= addrOf(j);
  // Sorted position -> index in regions ++ wordRegions (a stable sort: ties keep their order).
  const order = sorted ? undefined : stableOrder(R, N, addrOf);
  const at = (i: number): number => (order ? order[i]! : i);
  const starts = new Float64Array(R);
  const ends = new Float64Array(R);
  const kind = new Uint8Array(R);
  const gpu = new Int32Array(R);
  const bufferOf = new Int32Array(R).fill(-1);
  const initial = new Float64Array(R);
  for (let i = 0; i < R; i++) {
    const j = at(i);
    if (j < N) {
      const r = named[j]!;
      starts[i] = r.addr;
      ends[i] = r.addr + r.bytes;
      kind[i] = REGION_CODE[r.kind];
      gpu[i] = r.gpu ?? -1;
      if (r.kind === "buffer" && r.buffer !== undefined && r.gpu !== null) bufferOf[i] = r.buffer;
      initial[i] = r.initial ?? 0;
    } else {
      const k = j - N;
      starts[i] = words!.addr[k]!;
      ends[i] = starts[i]! + words!.bytes[k]!;
      kind[i] = words!.kind[k]!;
      gpu[i] = words!.gpu[k]!;
      const v = words!.initial[k]!;
      initial[i] = Number.isNaN(v) ? 0 : v;
    }
  }
  const region = (i: number): SimRegion => {
    const j = at(i);
    return j < N ? named[j]! : words!.region(j - N);
  };
  return { starts, ends, kind, gpu, bufferOf, initial, region };
}
