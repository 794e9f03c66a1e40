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
  const notifyIndex = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const kind = t.kind[i]!;
    if (isData(kind)) {
      key[i] = chooseQueueKey(m, target, i);
      const written = [t.dstRank[i]!];
      if (kind === K_BCAST) written.push(t.dst2Rank[i]!);
      if (kind === K_SWAP) written.push(t.srcRank[i]!);
      for (const r of written) lastWriter.set(r * keySpace + key[i]!, i);
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
      notifyIndex.set(i, notifyCover.length);
      notifyCover.push(cover);
      // The notify's own queue now holds a command ordered after every covered op.
    }
  }

  // 2. Queue indices: sorted by (gpu, engine) = by key.
  const keys = [...new Set(Array.from(key).filter((k) => k >= 0))].sort((a, b) => a - b);
  const queueOfKey = new Map<number, number>();
  keys.forEach((k, qi) => queueOfKey.set(k, qi));
  const Q = keys.length;
  const queueOf = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) if (key[i]! >= 0) queueOf[i] = queueOfKey.get(key[i]!)!;

  const waitChain = (i: number): number[] => {
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
  const placedPreds = (i: number): number[] => {
    const ni = notifyIndex.get(i);
    const out: number[] = ni !== undefined ? [...notifyCover[ni]!] : [];
    for (const x of [i, ...waitChain(i)]) {
      for (let e = edges.predStart[x]!; e < edges.predStart[x + 1]!; e++) {
        const p = edges.predIdx[e]!;
        if (queueOf[p]! >= 0 && p !== i) out.push(p);
      }
    }
    return out;
  };

  // 3. Which (producer op, consumer queue) pairs need a progress signal.
  const needs = new Map<number, number[]>(); // producer op -> consumer queues (sorted, unique)
  for (let i = 0; i < n; i++) {
    const qi = queueOf[i]!;
    if (qi < 0) continue;
    for (const p of placedPreds(i)) {
      const qp = queueOf[p]!;
      if (qp === qi) continue;
      let list = needs.get(p);
      if (!list) needs.set(p, (list = []));
      if (!list.includes(qi)) list.push(qi);
    }
  }
  for (const list of needs.values()) list.sort((a, b) => a - b);

  // 4. Emit in program order.
  const cmds: QCmd[][] = Array.from({ length: Q }, () => []);
  const syncWords: SyncWord[] = [];
  const progressWord = new Map<number, number>(); // producer * Q + consumer -> word id
  const barrierWord = new Int32Array(Q).fill(-1);
  const wordValue: number[] = []; // last value raised per sync word
  const signalled = new Map<number, number>(); // producer op * Q + consumer queue -> value
  const endPos = new Int32Array(n); // cmds[q].length right after op i's commands
  const lastBarrier = new Int32Array(Q).fill(-1); // cmds index of the latest barrier poll
  const polledWait = new Set<number>(); // wait op * Q + queue
  let completionSlots = 0;

  const bufLoc = (rank: number, buffer: number, offset: number): BufferLoc => ({
    space: "buffer",
    rank,
    buffer,
    offset,
  });
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

    // Dependencies.
    const preds = placedPreds(i);
    const pollValue = new Map<number, number>(); // producer queue -> value to wait for
    let needBarrier = false;
    for (const p of preds) {
      const qp = queueOf[p]!;
      if (qp === q) {
        if (kind !== K_NOTIFY && lastBarrier[q]! < endPos[p]!) needBarrier = true;
        continue;
      }
      const v = signalled.get(p * Q + q);
      if (v === undefined) throw new InternalError(`op ${p} has no progress signal for queue ${q}`);
      pollValue.set(qp, Math.max(pollValue.get(qp) ?? 0, v));
    }
    for (const qp of [...pollValue.keys()].sort((a, b) => a - b)) {
      out.push({
        kind: "poll",
        at: { space: "sync", word: getProgressWord(qp, q) },
        func: ">=",
        value: pollValue.get(qp)!,
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
        at: { space: "sync", word: w },
        how: "fence",
        value: v,
        why: "barrier",
        ops,
      });
      lastBarrier[q] = out.length;
      out.push({
        kind: "poll",
        at: { space: "sync", word: w },
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
    for (const c of needs.get(i) ?? []) {
      const w = getProgressWord(q, c);
      const v = ++wordValue[w]!;
      signalled.set(i * Q + c, v);
      out.push({
        kind: "signal",
        at: { space: "sync", word: w },
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
