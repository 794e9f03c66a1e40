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
//   on each queue. Waits that are preds in the edge list are treated the same way.
// - `notify` n on rank r: an ATOMIC ADD_RTN_32 of +1 on the flag, on the queue of the latest
//   earlier op that writes rank r (or its preds), after progress polls for every other queue that
//   wrote rank r earlier (or is a pred); with no such op, on rank r's local-copy engine.
// All of this is forward-only in program order, so the polls can never deadlock: every poll waits
// for a signal emitted after an op earlier in program order.

import { COMPARE_OPS, OP_KINDS, type IrModule } from "../ir/ir.js";
import type { Target } from "../target/target.js";
import { InternalError } from "../util/internal-error.js";
import type {
  BufferLoc,
  CompletionProtocol,
  QCmd,
  Queue,
  QueueProgram,
  SyncLoc,
  SyncWord,
} from "./queue-program.js";

export interface LowerOptions {
  readonly completion: CompletionProtocol;
  /** Split copies, broadcasts and swaps at this many bytes (default target.limits.maxCopyBytes). */
  readonly maxCopyBytes?: number | undefined;
}

/** COPY_SWAP: at most 0x3FFFFFE0 bytes and 64-byte granules (sdma-gfx942.md 2.4). */
const SWAP_MAX_BYTES = 0x3fffffc0;

const K_COPY = OP_KINDS.copy.code;
const K_BCAST = OP_KINDS.bcast.code;
const K_SWAP = OP_KINDS.swap.code;
const K_FILL = OP_KINDS.fill.code;
const K_WAIT = OP_KINDS.wait.code;
const K_NOTIFY = OP_KINDS.notify.code;

function isData(kind: number): boolean {
  return kind === K_COPY || kind === K_BCAST || kind === K_SWAP || kind === K_FILL;
}

/** The (gpu, engine) an op runs on, as gpu * engines + engine; -1 for ops that are not placed. */
function chooseQueueKey(m: IrModule, target: Target, i: number): number {
  const t = m.ops;
  const kind = t.kind[i]!;
  const driver = t.driver[i]!;
  const count = target.engines.count;
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
  const engine =
    other === driver ? target.engines.localCopy : target.recommendedEngine.map[driver]?.[other];
  if (engine === undefined || engine < 0) {
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
  let packets = 0;
  for (let i = 0; i < t.count; i++) {
    const kind = t.kind[i]!;
    if (!isData(kind)) continue;
    const len = t.len[i]!;
    const per = kind === K_SWAP ? swapMax : kind === K_FILL ? maxFill : maxCopy;
    packets += Math.max(1, Math.ceil(len / per));
    if (packets > limit) return { packets, over: i };
  }
  return { packets, over: undefined };
}

export function lowerToQueues(m: IrModule, target: Target, opts: LowerOptions): QueueProgram {
  const t = m.ops;
  const n = t.count;
  const edges = m.edges;
  if (!edges) throw new InternalError("lowerToQueues needs dependency edges (run inferDeps first)");
  const maxCopy = opts.maxCopyBytes ?? target.limits.maxCopyBytes;
  const maxFill = target.limits.maxFillBytes;
  if (!(maxCopy >= 1)) throw new InternalError(`bad maxCopyBytes ${maxCopy}`);
  const swapMax = Math.max(64, Math.floor(Math.min(maxCopy, SWAP_MAX_BYTES) / 64) * 64);
  const engines = target.engines.count;

  // 1. Place every data op and every notify on a queue key.
  const key = new Int32Array(n).fill(-1);
  // lastWriter[rank * Q + queueKey]: the latest op so far on that queue key writing that rank.
  const keySpace = m.ranks * engines;
  const lastWriter = new Map<number, number>();
  const notifyCover: number[][] = []; // per notify (by order of appearance): ops it must follow
  const notifyIndex = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const kind = t.kind[i]!;
    if (isData(kind)) {
      const k = (key[i] = chooseQueueKey(m, target, i));
      lastWriter.set(t.dstRank[i]! * keySpace + k, i);
      if (kind === K_BCAST) lastWriter.set(t.dst2Rank[i]! * keySpace + k, i);
      if (kind === K_SWAP) lastWriter.set(t.srcRank[i]! * keySpace + k, i);
    } else if (kind === K_NOTIFY) {
      const r = t.sigRank[i]!;
      const cover: number[] = [];
      for (const [k, op] of lastWriter) if (Math.floor(k / keySpace) === r) cover.push(op);
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

  // 2. Queue indices: sorted by (gpu, engine) = by key.
  // (Loops over typed arrays rather than Array.from/filter/Map: this runs per op.)
  const keySet = new Set<number>();
  for (let i = 0; i < n; i++) if (key[i]! >= 0) keySet.add(key[i]!);
  const keys = [...keySet].sort((a, b) => a - b);
  const queueOfKey = new Int32Array(keySpace).fill(-1);
  keys.forEach((k, qi) => (queueOfKey[k] = qi));
  const Q = keys.length;
  const queueOf = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) if (key[i]! >= 0) queueOf[i] = queueOfKey[key[i]!]!;

  const NO_OPS: readonly number[] = [];
  const waitChain = (i: number): readonly number[] => {
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
  };

  // Preds of op i that are placed ops (data or notify), including a notify's cover and the
  // placed preds of the waits that guard it (a wait follows the earlier notifies of its flag).
  // Computed once for every placed op into one flat list (ppStart/ppIdx, like the IR's edge
  // lists): steps 3 and 4 both need them, and building small arrays per op twice was a large
  // share of lowering time and garbage for 10^6 ops. May hold duplicates; users don't care.
  const ppStart = new Int32Array(n + 1);
  let ppIdx = new Int32Array(Math.max(16, edges.predIdx.length));
  let ppLen = 0;
  const pushPred = (p: number): void => {
    if (ppLen === ppIdx.length) {
      const grown = new Int32Array(ppIdx.length * 2);
      grown.set(ppIdx);
      ppIdx = grown;
    }
    ppIdx[ppLen++] = p;
  };
  for (let i = 0; i < n; i++) {
    ppStart[i] = ppLen;
    if (queueOf[i]! < 0) continue;
    const ni = notifyIndex[i]!;
    if (ni >= 0) for (const p of notifyCover[ni]!) pushPred(p);
    const chain = waitChain(i);
    for (let x = -1; x < chain.length; x++) {
      const y = x < 0 ? i : chain[x]!;
      for (let e = edges.predStart[y]!; e < edges.predStart[y + 1]!; e++) {
        const p = edges.predIdx[e]!;
        if (queueOf[p]! >= 0 && p !== i) pushPred(p);
      }
    }
  }
  ppStart[n] = ppLen;

  // 3. Which (producer op, consumer queue) pairs need a progress signal: for producer p, the
  // consumer queues needIdx[needStart[p] .. needStart[p + 1]) (sorted, unique); the value the
  // signal raised goes to needValue at the same index (0 = not raised yet).
  const needCount = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const qi = queueOf[i]!;
    if (qi < 0) continue;
    for (let e = ppStart[i]!; e < ppStart[i + 1]!; e++) {
      const p = ppIdx[e]!;
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
    for (let e = ppStart[i]!; e < ppStart[i + 1]!; e++) {
      const p = ppIdx[e]!;
      if (queueOf[p]! !== qi) rawIdx[fillAt[p]!++] = qi;
    }
  }
  // Sort and deduplicate each producer's consumers, compacting into needIdx.
  const needStart = new Int32Array(n + 1);
  const needIdx = new Int32Array(rawIdx.length);
  let needLen = 0;
  for (let p = 0; p < n; p++) {
    needStart[p] = needLen;
    const lo = rawStart[p]!;
    const hi = rawStart[p + 1]!;
    if (hi - lo > 1) rawIdx.subarray(lo, hi).sort();
    for (let e = lo; e < hi; e++) {
      const c = rawIdx[e]!;
      if (needLen === needStart[p]! || needIdx[needLen - 1] !== c) needIdx[needLen++] = c;
    }
  }
  needStart[n] = needLen;
  const needValue = new Int32Array(needLen);
  /** The value producer p's signal for queue q raised (0 if none yet). */
  const signalledValue = (p: number, q: number): number => {
    for (let e = needStart[p]!; e < needStart[p + 1]!; e++)
      if (needIdx[e] === q) return needValue[e]!;
    return 0;
  };

  // 4. Emit in program order.
  const cmds: QCmd[][] = Array.from({ length: Q }, () => []);
  const syncWords: SyncWord[] = [];
  const progressWord = new Map<number, number>(); // producer * Q + consumer -> word id
  const barrierWord = new Int32Array(Q).fill(-1);
  const wordValue: number[] = []; // last value raised per sync word
  const endPos = new Int32Array(n); // cmds[q].length right after op i's commands
  const lastBarrier = new Int32Array(Q).fill(-1); // cmds index of the latest barrier poll
  const polledWait = new Set<number>(); // wait op * Q + queue
  let completionSlots = 0;
  const pollQueue: number[] = [];
  const pollValue: number[] = [];

  const bufLoc = (rank: number, buffer: number, offset: number): BufferLoc => ({
    space: "buffer",
    rank,
    buffer,
    offset,
  });
  // One location object per sync word, shared by its polls and signals (queue programs are
  // immutable data): a million fewer small objects at 10^6 operations.
  const syncLocs: SyncLoc[] = [];
  const syncLoc = (w: number): SyncLoc => (syncLocs[w] ??= { space: "sync", word: w });
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
  for (let i = 0; i < n; i++) {
    const q = queueOf[i]!;
    if (q < 0) continue;
    const out = cmds[q]!;
    const kind = t.kind[i]!;
    const ops = [i];

    // Waits (`when`), once per (wait, queue).
    for (const w of waitChain(i)) {
      const k = w * Q + q;
      if (polledWait.has(k)) continue;
      polledWait.add(k);
      out.push({
        kind: "poll",
        at: { space: "signal", signal: t.signal[w]!, rank: t.sigRank[w]! },
        func: COMPARE_OPS[t.cmp[w]!]!,
        value: t.value[w]!,
        mask: 0xffffffff,
        why: "wait",
        ops: [w],
      });
    }

    // Dependencies: the value to wait for per producer queue (pollQueue/pollValue, reused
    // scratch arrays kept sorted by queue; an op has few producers).
    pollQueue.length = 0;
    pollValue.length = 0;
    let needBarrier = false;
    for (let e = ppStart[i]!; e < ppStart[i + 1]!; e++) {
      const p = ppIdx[e]!;
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
      const qp = pollQueue[j]!;
      out.push({
        kind: "poll",
        at: syncLoc(getProgressWord(qp, q)),
        func: ">=",
        value: pollValue[j]!,
        mask: 0xffffffff,
        why: "dep",
        ops,
      });
    }
    if (needBarrier) {
      let w = barrierWord[q]!;
      if (w < 0) {
        w = barrierWord[q] = syncWords.length;
        syncWords.push({ kind: "barrier", gpu: Math.floor(keys[q]! / engines), queue: q });
        wordValue.push(0);
      }
      const v = ++wordValue[w]!;
      out.push({
        kind: "signal",
        at: syncLoc(w),
        how: "fence",
        value: v,
        why: "barrier",
        ops,
      });
      lastBarrier[q] = out.length;
      out.push({
        kind: "poll",
        at: syncLoc(w),
        func: "==",
        value: v,
        mask: 0xffffffff,
        why: "barrier",
        ops,
      });
    }

    // The op itself.
    const len = t.len[i]!;
    if (kind === K_COPY || kind === K_BCAST) {
      for (let off = 0; off < len; off += maxCopy) {
        const bytes = Math.min(maxCopy, len - off);
        const src = bufLoc(t.srcRank[i]!, t.srcBuf[i]!, t.srcOff[i]! + off);
        const dst = bufLoc(t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]! + off);
        if (kind === K_COPY) out.push({ kind: "copy", src, dst, bytes, ops });
        else
          out.push({
            kind: "bcast",
            src,
            dst,
            dst2: bufLoc(t.dst2Rank[i]!, t.dst2Buf[i]!, t.dst2Off[i]! + off),
            bytes,
            ops,
          });
      }
    } else if (kind === K_SWAP) {
      for (let off = 0; off < len; off += swapMax) {
        const bytes = Math.min(swapMax, len - off);
        out.push({
          kind: "swap",
          a: bufLoc(t.srcRank[i]!, t.srcBuf[i]!, t.srcOff[i]! + off),
          b: bufLoc(t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]! + off),
          bytes,
          ops,
        });
      }
    } else if (kind === K_FILL) {
      for (let off = 0; off < len; off += maxFill) {
        const bytes = Math.min(maxFill, len - off);
        out.push({
          kind: "fill",
          dst: bufLoc(t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]! + off),
          bytes,
          value: t.value[i]!,
          ops,
        });
      }
    } else if (kind === K_NOTIFY) {
      out.push({
        kind: "signal",
        at: { space: "signal", signal: t.signal[i]!, rank: t.sigRank[i]! },
        how: "add",
        value: 1,
        why: "notify",
        ops,
      });
    } else {
      throw new InternalError(`op ${i} of kind ${kind} cannot be placed on a queue`);
    }
    if (isData(kind)) out.push({ kind: "completion", slot: completionSlots++, ops });

    // Progress signals for consumers on other queues.
    for (let e = needStart[i]!; e < needStart[i + 1]!; e++) {
      const c = needIdx[e]!;
      const w = getProgressWord(q, c);
      const v = ++wordValue[w]!;
      needValue[e] = v;
      out.push({
        kind: "signal",
        at: syncLoc(w),
        how: "fence",
        value: v,
        why: "dep",
        ops,
      });
    }
    endPos[i] = out.length;
  }

  const queues: Queue[] = keys.map((k, qi) => ({
    gpu: Math.floor(k / engines),
    engine: k % engines,
    cmds: cmds[qi]!,
  }));
  return {
    ranks: m.ranks,
    queues,
    syncWords,
    completion: opts.completion,
    completionSlots,
    timestampSlots: 0,
    trigger: null,
  };
}
