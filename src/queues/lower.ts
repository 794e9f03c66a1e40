// -O0 lowering: IrModule (ops + happens-before edges) -> QueueProgram. This is the AMD-DMA-Latte
// baseline: every data op on its own command(s), followed by its own host completion signal.
//
// Engine choice per op: the pinned engine (`on sdma(E)`) if any; otherwise the target's
// recommended engine map[driver][other], where `other` is the rank on the far side of the
// transfer (for a broadcast: its second destination, as DMA-Latte's `bcst` does); an op that
// stays on its driver's GPU uses target.engines.localCopy.
//
// Ordering (see queue-program.ts for the queue semantics this relies on):
// - cross-queue edge p -> i: after p, p's queue raises the progress word (producer queue ->
//   consumer queue, on the consumer's GPU) with FENCE to the next value of that counter; before
//   i, i's queue polls it with `>=`. Several preds on one producer queue need one poll (max value).
// - same-queue edge p -> i, i a data op: the engine may overlap consecutive copies, so -O0 puts a
//   queue barrier (FENCE barrier := k; POLL barrier == k) before i unless a barrier already sits
//   between p and i. A signal/notify/completion after p needs nothing: they wait for prior work.
// - `when` (wait op w): a POLL on the flag (func from the compare) before the first op w guards
//   on each queue. Waits that are preds in the edge list are treated the same way. On a flag
//   declared `thermometer` (outside code stores 2^k - 1 for k), `>= V` (`> V` as `>= V+1`) is the
//   bit test (flag & 2^(V-1)) == 2^(V-1) in every sync mode: the declaration, not --sync, is
//   the contract with outside code (the checker allows only those compares, V in 1..32).
// - `notify` n on rank r: an ATOMIC ADD_RTN_32 of +1 on the flag, on the queue of the latest
//   earlier op that writes rank r (or its preds), after progress polls for every other queue that
//   wrote rank r earlier (or is a pred); with no such op, on rank r's local-copy engine.
// All of this is forward-only in program order, so the polls can never deadlock: every poll waits
// for a signal emitted after an op earlier in program order.
//
// The steps, each a function below: placeOps (op -> queue key, the ops a notify must follow),
// numberQueues (keys -> queue indices), placedPreds (each placed op's placed predecessors, flat),
// progressNeeds (which producer ops raise a progress word for which consumer queues), and
// emitCommands (the commands, in program order, into one CmdBuilder per queue).

import { K_BCAST, K_COPY, K_FILL, K_NOTIFY, K_SWAP, K_WAIT, type IrModule } from "../ir/ir.js";
import type { Target } from "../target/target.js";
import { InternalError } from "../util/internal-error.js";
import {
  CmdBuilder,
  FUNC_EQ,
  FUNC_GE,
  ListsBuilder,
  MASK_ALL,
  SPACE,
  type CompletionProtocol,
  type Queue,
  type QueueProgram,
  type SyncWord,
} from "./queue-program.js";

export interface LowerOptions {
  readonly completion: CompletionProtocol;
  /** Split copies, broadcasts and swaps at this many bytes (default target.limits.maxCopyBytes). */
  readonly maxCopyBytes?: number | undefined;
}

/** COPY_SWAP: at most 0x3FFFFFE0 bytes and 64-byte granules (sdma-gfx942.md 2.4). */
const SWAP_MAX_BYTES = 0x3fffffc0;

function isData(kind: number): boolean {
  return kind === K_COPY || kind === K_BCAST || kind === K_SWAP || kind === K_FILL;
}

/**
 * The engine of each (driver, other rank) pair, at driver * ranks + other: the target's
 * recommended engine, its local-copy engine on the diagonal (an op that stays on its driver's
 * GPU), -1 where it has none. A table made once, read per op: the nested arrays of the target's
 * map cost several property loads per op in the unoptimised code most of a lowering runs in.
 */
function engineTable(ranks: number, target: Target): Int32Array {
  const table = new Int32Array(ranks * ranks);
  for (let d = 0; d < ranks; d++)
    for (let o = 0; o < ranks; o++)
      table[d * ranks + o] =
        o === d ? target.engines.localCopy : (target.recommendedEngine.map[d]?.[o] ?? -1);
  return table;
}

/** The (gpu, engine) an op runs on, as gpu * engines + engine; -1 for ops that are not placed.
 * `engineOf`: engineTable's. */
function chooseQueueKey(m: IrModule, engineOf: Int32Array, count: number, i: number): number {
  const t = m.ops;
  const kind = t.kind[i]!;
  const driver = t.driver[i]!;
  const pinned = t.engine[i]!;
  if (pinned >= 0) return driver * count + pinned;
  let other: number;
  if (kind === K_COPY) other = t.srcRank[i] === driver ? t.dstRank[i]! : t.srcRank[i]!;
  else if (kind === K_BCAST) {
    other =
      t.dst2Rank[i] !== driver
        ? t.dst2Rank[i]!
        : t.dstRank[i] !== driver
          ? t.dstRank[i]!
          : t.srcRank[i]!;
  } else if (kind === K_SWAP) other = t.srcRank[i] === driver ? t.dstRank[i]! : t.srcRank[i]!;
  else other = t.dstRank[i]!;
  const R = m.ranks;
  const engine =
    driver >= 0 && driver < R && other >= 0 && other < R ? engineOf[driver * R + other]! : -1;
  if (engine < 0) {
    throw new InternalError(`no recommended engine for rank ${driver} -> ${other} (op ${i})`);
  }
  return driver * count + engine;
}

/**
 * The data packets (copy, broadcast, swap and fill packets after splitting at the packet limits)
 * lowering gives, counted in program order without building them; stops at the first op that
 * takes the count past `limit` and returns its index (`over`), so that a schedule (or a
 * `--max-copy-bytes 3`) that would make hundreds of millions of packets is refused before any is
 * allocated. O(ops).
 */
export function countDataPackets(
  m: IrModule,
  target: Target,
  opts: Pick<LowerOptions, "maxCopyBytes">,
  limit = Infinity,
): { packets: number; over: number | undefined } {
  const t = m.ops;
  const maxCopy = opts.maxCopyBytes ?? target.limits.maxCopyBytes;
  const maxFill = target.limits.maxFillBytes;
  const swapMax = Math.max(64, Math.floor(Math.min(maxCopy, SWAP_MAX_BYTES) / 64) * 64);
  // (The result is made before the loop: see emitCommands.)
  const r: { packets: number; over: number | undefined } = { packets: 0, over: undefined };
  let packets = 0;
  for (let i = 0; i < t.count; i++) {
    const kind = t.kind[i]!;
    if (!isData(kind)) continue;
    const len = t.len[i]!;
    const per = kind === K_SWAP ? swapMax : kind === K_FILL ? maxFill : maxCopy;
    r.packets = packets += Math.max(1, Math.ceil(len / per));
    if (packets > limit) {
      r.over = i;
      return r;
    }
  }
  return r;
}

/** Step 1: the queue key of every data op and notify (-1: not placed), and each notify's cover. */
function placeOps(
  m: IrModule,
  target: Target,
): { key: Int32Array; notifyIndex: Int32Array; notifyCover: number[][] } {
  const t = m.ops;
  const n = t.count;
  const edges = m.edges!;
  const engines = target.engines.count;
  const key = new Int32Array(n).fill(-1);
  // lastWriter[rank * keySpace + queueKey]: the latest op so far on that queue key writing that
  // rank (-1: none).
  const keySpace = m.ranks * engines;
  const lastWriter = new Int32Array(m.ranks * keySpace).fill(-1);
  const notifyCover: number[][] = []; // per notify (by order of appearance): ops it must follow
  const notifyIndex = new Int32Array(n).fill(-1);
  const placed = { key, notifyIndex, notifyCover }; // (before the loop: see emitCommands)
  const engineOf = engineTable(m.ranks, target);
  for (let i = 0; i < n; i++) {
    const kind = t.kind[i]!;
    if (isData(kind)) {
      const k = (key[i] = chooseQueueKey(m, engineOf, engines, i));
      lastWriter[t.dstRank[i]! * keySpace + k] = i;
      if (kind === K_BCAST) lastWriter[t.dst2Rank[i]! * keySpace + k] = i;
      if (kind === K_SWAP) lastWriter[t.srcRank[i]! * keySpace + k] = i;
    } else if (kind === K_NOTIFY) {
      const r = t.sigRank[i]!;
      const cover: number[] = [];
      for (let k = r * keySpace; k < (r + 1) * keySpace; k++)
        if (lastWriter[k]! >= 0) cover.push(lastWriter[k]!);
      for (let e = edges.predStart[i]!; e < edges.predStart[i + 1]!; e++) {
        const p = edges.predIdx[e]!;
        if (key[p]! >= 0) cover.push(p);
      }
      cover.sort((a, b) => a - b);
      const latest = cover[cover.length - 1];
      key[i] = latest !== undefined ? key[latest]! : r * engines + target.engines.localCopy;
      notifyIndex[i] = notifyCover.length;
      notifyCover.push(cover);
      // The notify's own queue now holds a command ordered after every covered op.
    }
  }
  return placed;
}

/** Step 2: queue indices, sorted by (gpu, engine) = by key; queueOf[op] (-1: not placed). */
function numberQueues(key: Int32Array, keySpace: number): { keys: number[]; queueOf: Int32Array } {
  // (Loops over typed arrays rather than Array.from, filter, Map or Set: this runs per op. The
  // loops over the ops are functions of their own: see emitCommands.)
  const used = new Uint8Array(keySpace);
  markUsed(key, used);
  const keys: number[] = [];
  const queueOfKey = new Int32Array(keySpace).fill(-1);
  for (let k = 0; k < keySpace; k++)
    if (used[k] === 1) {
      queueOfKey[k] = keys.length;
      keys.push(k);
    }
  const queueOf = new Int32Array(key.length).fill(-1);
  mapKeys(key, queueOfKey, queueOf);
  return { keys, queueOf };
}

function markUsed(key: Int32Array, used: Uint8Array): void {
  for (let i = 0; i < key.length; i++) if (key[i]! >= 0) used[key[i]!] = 1;
}

function mapKeys(key: Int32Array, queueOfKey: Int32Array, queueOf: Int32Array): void {
  for (let i = 0; i < key.length; i++) if (key[i]! >= 0) queueOf[i] = queueOfKey[key[i]!]!;
}

const NO_OPS: readonly number[] = [];

/** The poll of wait op w: its compare as written, or a thermometer flag's bit test. */
function flagPoll(m: IrModule, w: number): { func: number; value: number; mask: number } {
  const t = m.ops;
  if (m.signals[t.signal[w]!]?.encoding !== "thermometer")
    return { func: t.cmp[w]!, value: t.value[w]!, mask: MASK_ALL };
  const V = t.cmp[w] === FUNC_GE ? t.value[w]! : t.value[w]! + 1; // `>` (checked: only >= and >)
  const bit = 2 ** (V - 1);
  return { func: FUNC_EQ, value: bit, mask: bit };
}

/** The waits that guard op i (its `when` chain and the waits among its preds), sorted. */
function waitChain(m: IrModule, i: number): readonly number[] {
  const t = m.ops;
  const edges = m.edges!;
  // Fast path, the common case: no guard and no wait among the preds (no allocation).
  let anyWait = t.guard[i]! >= 0;
  for (let e = edges.predStart[i]!; !anyWait && e < edges.predStart[i + 1]!; e++)
    anyWait = t.kind[edges.predIdx[e]!] === K_WAIT;
  if (!anyWait) return NO_OPS;
  const chain: number[] = [];
  for (let g = t.guard[i]!; g >= 0; g = t.guard[g]!) chain.push(g);
  for (let e = edges.predStart[i]!; e < edges.predStart[i + 1]!; e++) {
    const p = edges.predIdx[e]!;
    if (t.kind[p] === K_WAIT && !chain.includes(p)) chain.push(p);
  }
  return chain.sort((a, b) => a - b);
}

/**
 * Preds of op i that are placed ops (data or notify), including a notify's cover and the
 * placed preds of the waits that guard it (a wait follows the earlier notifies of its flag).
 * Computed once for every placed op into one flat list (start/idx, like the IR's edge lists):
 * steps 3 and 4 both need them, and building small arrays per op twice was a large share of
 * lowering time and garbage for 10^6 ops. May hold duplicates; users don't care.
 */
function placedPreds(
  m: IrModule,
  queueOf: Int32Array,
  notifyIndex: Int32Array,
  notifyCover: readonly (readonly number[])[],
): { start: Int32Array; idx: Int32Array } {
  const n = m.ops.count;
  const edges = m.edges!;
  const start = new Int32Array(n + 1);
  // (The result is made before the loop, and start[n] is written in it: see emitCommands.)
  const out = { start, idx: new Int32Array(Math.max(16, edges.predIdx.length)) };
  let len = 0;
  const push = (p: number): void => {
    if (len === out.idx.length) {
      const grown = new Int32Array(out.idx.length * 2);
      grown.set(out.idx);
      out.idx = grown;
    }
    out.idx[len++] = p;
  };
  for (let i = 0; i <= n; i++) {
    start[i] = len;
    if (i === n || queueOf[i]! < 0) continue;
    const ni = notifyIndex[i]!;
    if (ni >= 0) for (const p of notifyCover[ni]!) push(p);
    const chain = waitChain(m, i);
    for (let x = -1; x < chain.length; x++) {
      const y = x < 0 ? i : chain[x]!;
      for (let e = edges.predStart[y]!; e < edges.predStart[y + 1]!; e++) {
        const p = edges.predIdx[e]!;
        if (queueOf[p]! >= 0 && p !== i) push(p);
      }
    }
  }
  return out;
}

/**
 * Step 3: which (producer op, consumer queue) pairs need a progress signal: for producer p, the
 * consumer queues idx[start[p] .. start[p + 1]) (sorted, unique).
 */
function progressNeeds(
  queueOf: Int32Array,
  pp: { start: Int32Array; idx: Int32Array },
): { start: Int32Array; idx: Int32Array } {
  const n = queueOf.length;
  // No placed op has a placed predecessor (an all-to-all): nothing to count, sort or compact.
  if (pp.start[n] === 0) return { start: new Int32Array(n + 1), idx: new Int32Array(0) };
  const needCount = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const qi = queueOf[i]!;
    if (qi < 0) continue;
    for (let e = pp.start[i]!; e < pp.start[i + 1]!; e++) {
      const p = pp.idx[e]!;
      if (queueOf[p]! !== qi) needCount[p]!++;
    }
  }
  const rawStart = new Int32Array(n + 1);
  for (let p = 0; p < n; p++) rawStart[p + 1] = rawStart[p]! + needCount[p]!;
  const rawIdx = new Int32Array(rawStart[n]!);
  const fillAt = rawStart.slice(0, n);
  for (let i = 0; i < n; i++) {
    const qi = queueOf[i]!;
    if (qi < 0) continue;
    for (let e = pp.start[i]!; e < pp.start[i + 1]!; e++) {
      const p = pp.idx[e]!;
      if (queueOf[p]! !== qi) rawIdx[fillAt[p]!++] = qi;
    }
  }
  // Sort and deduplicate each producer's consumers, compacting into idx.
  const start = new Int32Array(n + 1);
  const idx = new Int32Array(rawIdx.length);
  let len = 0;
  for (let p = 0; p < n; p++) {
    start[p] = len;
    const lo = rawStart[p]!;
    const hi = rawStart[p + 1]!;
    if (hi - lo > 1) rawIdx.subarray(lo, hi).sort();
    for (let e = lo; e < hi; e++) {
      const c = rawIdx[e]!;
      if (len === start[p]! || idx[len - 1] !== c) idx[len++] = c;
    }
  }
  start[n] = len;
  return { start, idx: idx.subarray(0, len) };
}

export function lowerToQueues(m: IrModule, target: Target, opts: LowerOptions): QueueProgram {
  if (!m.edges)
    throw new InternalError("lowerToQueues needs dependency edges (run inferDeps first)");
  const maxCopy = opts.maxCopyBytes ?? target.limits.maxCopyBytes;
  if (!(maxCopy >= 1)) throw new InternalError(`bad maxCopyBytes ${maxCopy}`);
  const engines = target.engines.count;
  const placed = placeOps(m, target);
  const { keys, queueOf } = numberQueues(placed.key, m.ranks * engines);
  const pp = placedPreds(m, queueOf, placed.notifyIndex, placed.notifyCover);
  const need = progressNeeds(queueOf, pp);
  return emitCommands(m, target, opts, { keys, queueOf, pp, need });
}

/** Step 4: the commands, in program order. */
function emitCommands(
  m: IrModule,
  target: Target,
  opts: LowerOptions,
  plan: {
    keys: readonly number[];
    queueOf: Int32Array;
    pp: { start: Int32Array; idx: Int32Array };
    need: { start: Int32Array; idx: Int32Array };
  },
): QueueProgram {
  const t = m.ops;
  const n = t.count;
  const { keys, queueOf, pp, need } = plan;
  const maxCopy = opts.maxCopyBytes ?? target.limits.maxCopyBytes;
  const maxFill = target.limits.maxFillBytes;
  const swapMax = Math.max(64, Math.floor(Math.min(maxCopy, SWAP_MAX_BYTES) / 64) * 64);
  const split: SplitLimits = { maxCopy, swapMax, maxFill };
  const engines = target.engines.count;
  const Q = keys.length;
  // The value producer p's signal for consumer queue need.idx[e] raised (0 = not raised yet).
  const needValue = new Int32Array(need.idx.length);
  const signalledValue = (p: number, q: number): number => {
    for (let e = need.start[p]!; e < need.start[p + 1]!; e++)
      if (need.idx[e] === q) return needValue[e]!;
    return 0;
  };

  const expected = expectedCommands(m, Q, plan, split);
  const out: CmdBuilder[] = Array.from({ length: Q }, (_, q) => new CmdBuilder(expected[q]! + 8));
  const lists = new ListsBuilder(undefined, 2 * n);
  const syncWords: SyncWord[] = [];
  const progressWord = new Map<number, number>(); // producer * Q + consumer -> word id
  const barrierWord = new Int32Array(Q).fill(-1);
  const wordValue: number[] = []; // last value raised per sync word
  const endPos = new Int32Array(n); // out[q].length right after op i's commands
  const lastBarrier = new Int32Array(Q).fill(-1); // index of the latest barrier poll
  const polledWait = new Set<number>(); // wait op * Q + queue
  let completionSlots = 0;
  const pollQueue: number[] = [];
  const pollValue: number[] = [];
  const getProgressWord = (producer: number, consumer: number): number => {
    const k = producer * Q + consumer;
    let w = progressWord.get(k);
    if (w === undefined) {
      w = syncWords.length;
      syncWords.push({
        kind: "progress",
        gpu: Math.floor(keys[consumer]! / engines),
        producer,
        consumer,
      });
      wordValue.push(0);
      progressWord.set(k, w);
    }
    return w;
  };
  // The loops over the ops (here and in the steps above) are functions of their own, with
  // nothing after the loop: V8 compiles a long loop while it runs (on-stack replacement), before
  // the code after it has run, and that code, compiled without type feedback, sends execution
  // back to the interpreter as soon as the loop ends (docs/performance.md).
  const run = (): void => {
    for (let i = 0; i < n; i++) {
      const q = queueOf[i]!;
      if (q < 0) continue;
      const b = out[q]!;
      const kind = t.kind[i]!;
      // One op list per op, shared by all of its commands (one source-map entry).
      const ops = lists.one(i);

      // Waits (`when`), once per (wait, queue).
      const waits = waitChain(m, i);
      for (let x = 0; x < waits.length; x++) {
        const w = waits[x]!;
        const k = w * Q + q;
        if (polledWait.has(k)) continue;
        polledWait.add(k);
        const f = flagPoll(m, w);
        b.poll(
          SPACE.signal,
          t.signal[w]!,
          t.sigRank[w]!,
          f.func,
          f.value,
          f.mask,
          "wait",
          lists.one(w),
        );
      }

      // Dependencies: the value to wait for per producer queue (pollQueue/pollValue, reused
      // scratch arrays kept sorted by queue; an op has few producers).
      if (pollQueue.length > 0) {
        // (Setting a length is a call into the runtime: most ops have nothing to clear.)
        pollQueue.length = 0;
        pollValue.length = 0;
      }
      let needBarrier = false;
      for (let e = pp.start[i]!; e < pp.start[i + 1]!; e++) {
        const p = pp.idx[e]!;
        const qp = queueOf[p]!;
        if (qp === q) {
          if (kind !== K_NOTIFY && lastBarrier[q]! < endPos[p]!) needBarrier = true;
          continue;
        }
        const v = signalledValue(p, q);
        if (v === 0) throw new InternalError(`op ${p} has no progress signal for queue ${q}`);
        let j = 0;
        while (j < pollQueue.length && pollQueue[j]! < qp) j++;
        if (pollQueue[j] === qp) pollValue[j] = Math.max(pollValue[j]!, v);
        else {
          pollQueue.splice(j, 0, qp);
          pollValue.splice(j, 0, v);
        }
      }
      for (let j = 0; j < pollQueue.length; j++) {
        const w = getProgressWord(pollQueue[j]!, q);
        b.poll(SPACE.sync, w, 0, FUNC_GE, pollValue[j]!, MASK_ALL, "dep", ops);
      }
      if (needBarrier) {
        let w = barrierWord[q]!;
        if (w < 0) {
          w = barrierWord[q] = syncWords.length;
          syncWords.push({ kind: "barrier", gpu: Math.floor(keys[q]! / engines), queue: q });
          wordValue.push(0);
        }
        const v = ++wordValue[w]!;
        b.signal(SPACE.sync, w, 0, "fence", v, "barrier", ops);
        lastBarrier[q] = b.length;
        b.poll(SPACE.sync, w, 0, FUNC_EQ, v, MASK_ALL, "barrier", ops);
      }

      // The op itself.
      writeOp(b, m, i, ops, split);
      if (isData(kind)) b.completion(completionSlots++, ops);

      // Progress signals for consumers on other queues.
      for (let e = need.start[i]!; e < need.start[i + 1]!; e++) {
        const w = getProgressWord(q, need.idx[e]!);
        const v = ++wordValue[w]!;
        needValue[e] = v;
        b.signal(SPACE.sync, w, 0, "fence", v, "dep", ops);
      }
      endPos[i] = b.length;
    }
  };
  run();

  const queues: Queue[] = keys.map((k, qi) => ({
    gpu: Math.floor(k / engines),
    engine: k % engines,
    cmds: out[qi]!.done(),
  }));
  return {
    ranks: m.ranks,
    queues,
    syncWords,
    completion: opts.completion,
    completionSlots,
    timestampSlots: 0,
    trigger: null,
    lists: lists.done(),
  };
}

/** Each queue's table sized from a close estimate of its commands (see CmdBuilder.done). */
function expectedCommands(
  m: IrModule,
  Q: number,
  plan: {
    queueOf: Int32Array;
    pp: { start: Int32Array; idx: Int32Array };
    need: { start: Int32Array; idx: Int32Array };
  },
  { maxCopy, swapMax, maxFill }: SplitLimits,
): Float64Array {
  // (Columns in locals: a property load per op costs in the unoptimised code this mostly runs in.)
  const { kind: kinds, len, count } = m.ops;
  const queueOf = plan.queueOf;
  const ppStart = plan.pp.start;
  const needStart = plan.need.start;
  const expected = new Float64Array(Q);
  for (let i = 0; i < count; i++) {
    const q = queueOf[i]!;
    if (q < 0) continue;
    const kind = kinds[i]!;
    const per = kind === K_SWAP ? swapMax : kind === K_FILL ? maxFill : maxCopy;
    const pieces = isData(kind) ? Math.max(1, Math.ceil(len[i]! / per)) + 1 : 1;
    const polls = Math.min(ppStart[i + 1]! - ppStart[i]!, 3);
    expected[q]! += pieces + polls + needStart[i + 1]! - needStart[i]!;
  }
  return expected;
}

/** The most bytes one copy/broadcast, swap and fill command moves (lowering splits at these). */
interface SplitLimits {
  readonly maxCopy: number;
  readonly swapMax: number;
  readonly maxFill: number;
}

/**
 * The commands of op i itself (data ops split at the packet limits; a notify's atomic add) on
 * queue builder b, all with op list `ops`.
 */
export function writeOp(
  b: CmdBuilder,
  m: IrModule,
  i: number,
  ops: number,
  { maxCopy, swapMax, maxFill }: SplitLimits,
): void {
  const t = m.ops;
  const kind = t.kind[i]!;
  const len = t.len[i]!;
  if (kind === K_COPY || kind === K_BCAST) {
    for (let off = 0; off < len; off += maxCopy) {
      const bytes = Math.min(maxCopy, len - off);
      const so = t.srcOff[i]! + off;
      const dOff = t.dstOff[i]! + off;
      if (kind === K_COPY)
        b.copy(t.srcRank[i]!, t.srcBuf[i]!, so, t.dstRank[i]!, t.dstBuf[i]!, dOff, bytes, ops);
      else {
        const d2Off = t.dst2Off[i]! + off;
        const [sr, sb, dr, db] = [t.srcRank[i]!, t.srcBuf[i]!, t.dstRank[i]!, t.dstBuf[i]!];
        b.bcast(sr, sb, so, dr, db, dOff, t.dst2Rank[i]!, t.dst2Buf[i]!, d2Off, bytes, ops);
      }
    }
  } else if (kind === K_SWAP) {
    for (let off = 0; off < len; off += swapMax) {
      const bytes = Math.min(swapMax, len - off);
      const ao = t.srcOff[i]! + off;
      const bo = t.dstOff[i]! + off;
      b.swap(t.srcRank[i]!, t.srcBuf[i]!, ao, t.dstRank[i]!, t.dstBuf[i]!, bo, bytes, ops);
    }
  } else if (kind === K_FILL) {
    for (let off = 0; off < len; off += maxFill) {
      const bytes = Math.min(maxFill, len - off);
      b.fill(t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]! + off, bytes, t.value[i]!, ops);
    }
  } else if (kind === K_NOTIFY) {
    b.signal(SPACE.signal, t.signal[i]!, t.sigRank[i]!, "add", 1, "notify", ops);
  } else {
    throw new InternalError(`op ${i} of kind ${kind} cannot be placed on a queue`);
  }
}
