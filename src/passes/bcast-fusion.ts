// bcast-fusion: two copies of the same source bytes, driven by the same GPU, to two destinations,
// become one COPY_LINEAR broadcast (one read, two writes), then the program is re-lowered
// (relower.ts). Conditions on a pair (i, j), i < j in program order:
// - both are copies not yet grouped, same driver, same source region (rank, buffer, offset, len),
//   at most one packet long (maxCopyBytes), and pinned alike by the source (or not at all);
// - no happens-before path between them and j may move up to i (relower.ts canHoist);
// - the broadcast alignment rule: the two destination addresses agree in their low 5 bits.
//   At the symbolic level this is `dstOff_i % 32 == dstOff_j % 32`, which is exact because layout
//   aligns every buffer instance to 4 KiB (backend/sdma/layout.ts bufferAlign); emit's DMAC4001
//   check remains the backstop should a layout ever break that assumption.
// Pairs are formed greedily in program order (first unpaired partner), so a rank sending one
// chunk to 7 peers gets 3 broadcasts and 1 copy, as DMA-Latte's `bcst` does. The broadcast runs on
// the engine of its second destination (lowering's rule) unless a later engine-assign moves it.
// The partner search is O(log n) per pair tried: a min-tree over each candidate's latest
// happens-before predecessor skips the copies that may not move up (a chain of copies of one
// source to one destination was quadratic: test/unit/perf/pass-scaling.test.ts).

import type { QueueProgram } from "../queues/queue-program.js";
import type { Pass, PassContext, PassResult } from "./pass.js";
import { hoistIndex, K_COPY, readPlacement, relower } from "./relower.js";

/** Bytes of the bcast alignment rule (COPY_LINEAR broadcast: dst1 and dst2 share bits 4:0). */
const BCAST_ALIGN = 32;

/**
 * Minimum over a fixed array with point updates, and "the first index in [lo, hi) whose value
 * is below x" in O(log n): the greedy pairing's search for the next partner that may move up.
 */
class MinTree {
  private readonly size: number;
  private readonly v: Int32Array;
  constructor(values: Int32Array) {
    let size = 1;
    while (size < values.length) size *= 2;
    this.size = size;
    this.v = new Int32Array(2 * size).fill(UNUSABLE);
    this.v.set(values, size);
    for (let i = size - 1; i >= 1; i--) this.v[i] = Math.min(this.v[2 * i]!, this.v[2 * i + 1]!);
  }
  set(i: number, x: number): void {
    let k = i + this.size;
    this.v[k] = x;
    for (k >>= 1; k >= 1; k >>= 1) this.v[k] = Math.min(this.v[2 * k]!, this.v[2 * k + 1]!);
  }
  firstBelow(lo: number, hi: number, x: number): number {
    return this.find(1, 0, this.size, lo, hi, x);
  }
  private find(node: number, nl: number, nr: number, lo: number, hi: number, x: number): number {
    if (nr <= lo || nl >= hi || this.v[node]! >= x) return -1;
    if (nr - nl === 1) return nl;
    const mid = (nl + nr) >>> 1;
    const l = this.find(2 * node, nl, mid, lo, hi, x);
    return l >= 0 ? l : this.find(2 * node + 1, mid, nr, lo, hi, x);
  }
}

/** A candidate already paired (never below any op index). */
const UNUSABLE = 0x7fffffff;

function run(prog: QueueProgram, ctx: PassContext): PassResult {
  const m = ctx.module;
  const t = m.ops;
  const base = readPlacement(prog, m);
  const maxCopy = ctx.lower.maxCopyBytes ?? ctx.target.limits.maxCopyBytes;
  // Candidates: single copies, bucketed by (driver, source region, pin, guard): copies under
  // different `when` guards never pair (canHoist), so they need not meet.
  const buckets = new Map<string, number[]>();
  const keep: (readonly number[])[] = [];
  for (const g of base.groups) {
    const i = g[0]!;
    if (g.length !== 1 || t.kind[i] !== K_COPY || t.len[i]! > maxCopy) {
      keep.push(g);
      continue;
    }
    const key = `${t.driver[i]}:${t.srcRank[i]}:${t.srcBuf[i]}:${t.srcOff[i]}:${t.len[i]}:${t.engine[i]}:${t.guard[i]}`;
    let b = buckets.get(key);
    if (!b) buckets.set(key, (b = []));
    b.push(i);
  }
  // The buckets of two or more, one after another; bucket members in program order.
  const starts: number[] = [];
  let total = 0;
  for (const ops of buckets.values()) {
    if (ops.length < 2) {
      keep.push(ops);
      continue;
    }
    starts.push(total);
    total += ops.length;
  }
  const cand = new Int32Array(total);
  {
    let k = 0;
    for (const ops of buckets.values()) if (ops.length >= 2) for (const i of ops) cand[k++] = i;
  }
  starts.push(total);
  // For the pairing order, see the header: for each unpaired copy i, its partner is the first
  // later unpaired copy j of its bucket that may move up to i (canHoist: j's latest predecessor
  // is before i, no wait/notify between them) with the same destination alignment. Copies that
  // may move up but are misaligned are counted. The tree holds each candidate's latest
  // predecessor (UNUSABLE once paired), so copies that may not move up are skipped in O(log n).
  const h = hoistIndex(m);
  const tree = new MinTree(cand.map((i) => h.maxPred[i]!));
  const used = new Uint8Array(total);
  let fused = 0;
  let rejectedAlign = 0;
  for (let b = 0; b + 1 < starts.length; b++) {
    const end = starts[b + 1]!;
    for (let a = starts[b]!; a < end; a++) {
      if (used[a]) continue;
      const i = cand[a]!;
      const barrier = h.nextBarrier[i + 1]!; // j may move up to i only if j <= barrier
      let partner = -1;
      for (let from = a + 1; ;) {
        const p = tree.firstBelow(from, end, i);
        if (p < 0 || cand[p]! > barrier) break;
        if (t.dstOff[i]! % BCAST_ALIGN !== t.dstOff[cand[p]!]! % BCAST_ALIGN) {
          rejectedAlign++;
          from = p + 1;
          continue;
        }
        partner = p;
        break;
      }
      used[a] = 1;
      tree.set(a, UNUSABLE);
      if (partner < 0) {
        keep.push([i]);
        continue;
      }
      used[partner] = 1;
      tree.set(partner, UNUSABLE);
      keep.push([i, cand[partner]!]);
      fused++;
    }
  }
  keep.sort((x, y) => x[0]! - y[0]!);
  // A fused broadcast takes the engine of its second copy (lowering's dst2 rule) unless pinned.
  const engine = new Int16Array(t.count).fill(-1);
  for (let i = 0; i < t.count; i++) if (t.engine[i]! >= 0) engine[i] = t.engine[i]!;
  const program = relower(m, { groups: keep, engine }, ctx.target, ctx.lower);
  return {
    program,
    counters: { "broadcasts formed": fused, "pairs rejected by alignment": rejectedAlign },
  };
}

const pass: Pass = {
  name: "bcast-fusion",
  description:
    "two unordered copies of the same source bytes by one GPU become one broadcast packet (destinations equal modulo 32)",
  levels: [2],
  required: false,
  relowers: true,
  run,
};
export default pass;
