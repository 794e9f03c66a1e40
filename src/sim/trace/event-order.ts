// The trace's events in time order without holding them: each event is a reference (what kind,
// which record of the timeline) and its time, in typed arrays (13 bytes an event), so a run of
// millions of events is ordered in tens of MB and each event is rendered only when it is
// written (chrome-trace.ts). The order is (time, rank of the kind, push order), a stable sort.
//
// A comparison sort over millions of entries runs a JavaScript callback per comparison (5 M:
// several times slower than the engine's own numeric sort). So each entry's key is one number:
// (index of its time among the distinct times, rank, push order) packed into a double, exact
// while (3 x distinct times + 3) x entries stays below 2^53, and the keys get the numeric sort.

/** An event kind's rank among events at the same time: 0, 1 or 2. */
export type Rank = (kind: number) => number;

export class EventOrder {
  private readonly kinds: Uint8Array;
  private readonly indices: Uint32Array;
  private readonly times: Float64Array;
  private n = 0;

  /** Room for `capacity` events (the caller's bound; allocated once, no growing). */
  constructor(capacity: number) {
    this.kinds = new Uint8Array(capacity);
    this.indices = new Uint32Array(capacity);
    this.times = new Float64Array(capacity);
  }

  push(kind: number, index: number, ts: number): void {
    this.kinds[this.n] = kind;
    this.indices[this.n] = index;
    this.times[this.n] = ts;
    this.n++;
  }

  /** Visits every event in (time, rank, push order). */
  forEach(rank: Rank, visit: (kind: number, index: number, ts: number) => void): void {
    for (const at of this.order(rank)) visit(this.kinds[at]!, this.indices[at]!, this.times[at]!);
  }

  /** The entries' positions in order. */
  private order(rank: Rank): Iterable<number> {
    const n = this.n;
    const times = this.times.subarray(0, n);
    const distinct = uniqueSorted(times);
    if ((3 * distinct.length + 3) * n >= Number.MAX_SAFE_INTEGER) return this.compared(rank);
    const keys = new Float64Array(n);
    for (let at = 0; at < n; at++)
      keys[at] = (3 * indexOf(distinct, times[at]!) + rank(this.kinds[at]!)) * n + at;
    keys.sort();
    return (function* () {
      for (let j = 0; j < n; j++) yield keys[j]! % n;
    })();
  }

  /** The same order by comparisons (beyond the packed keys' range: ~10^8 events). */
  private compared(rank: Rank): Iterable<number> {
    const order = Uint32Array.from({ length: this.n }, (_, k) => k);
    const t = this.times;
    const r = (k: number): number => rank(this.kinds[k]!);
    return order.sort((x, y) => t[x]! - t[y]! || r(x) - r(y) || x - y);
  }
}

/** The distinct values of `xs`, ascending. */
function uniqueSorted(xs: Float64Array): Float64Array {
  const s = xs.slice().sort();
  let m = 0;
  for (let k = 0; k < s.length; k++) if (m === 0 || s[k] !== s[m - 1]) s[m++] = s[k]!;
  return s.subarray(0, m);
}

/** The position of `x` in the ascending `xs`, which holds it. */
function indexOf(xs: Float64Array, x: number): number {
  let lo = 0;
  let hi = xs.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
