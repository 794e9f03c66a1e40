// The dependency inference dmac used before read-set.ts (per-byte-range reader lists: quadratic
// for reads of growing prefixes), kept as an oracle: test/unit/ir/deps-oracle.test.ts checks that
// src/ir/deps.ts gives exactly its edges. Original header follows.
//
// Dependency inference: the happens-before edges that make any execution consistent with them
// equal to program order (DESIGN section 1). Nothing but these gives an edge:
// - memory: two ops that touch overlapping bytes of one (rank, buffer), at least one writing
//   (read-after-write, write-after-read, write-after-write);
// - guards: an op inside `when` depends on its wait op (whose own guard chains to outer waits);
// - notify: raises its signal only after every earlier op that writes to the signal's rank;
// - the signal word: a wait depends on the earlier notifies of its (signal, rank), and a notify
//   on the earlier waits and notifies of it, so the waits see the counts of program order.
//
// Near-linear: one interval map per (rank, buffer) records, for each byte range, its last writer
// and the readers since that write (a shared immutable list). An op's edges come from the pieces
// it overlaps, never from pairwise comparison. Edges implied by others are skipped where that is
// free: a read depends only on the last writer (earlier writers are ordered before it); a write
// depends on the readers since the last write, and on the last writer only if there are none
// (each reader already follows it); a notify skips writers that a later pending writer directly
// depends on.

import { assertNever } from "../../../src/util/assert-never.js";
import { opKind, type IrEdges, type IrModule } from "../../../src/ir/ir.js";
import {
  createIntervalMap,
  updateRange,
  type IntervalMap,
  type IntervalValueOps,
} from "../../../src/ir/interval-map.js";

/** An immutable list of reader ops, newest first; split segments share it. */
interface Readers {
  readonly op: number;
  readonly next: Readers | null;
}

interface Access {
  readonly writer: number;
  readonly readers: Readers | null;
}

const NEVER: Access = { writer: -1, readers: null };

const ACCESS_OPS: IntervalValueOps<Access> = {
  shift: (v) => v,
  continues: (a, b) => a.writer === b.writer && a.readers === b.readers,
};

/** Growable Int32 list (edge targets, pending writers). */
interface IntList {
  data: Int32Array;
  length: number;
}

function intList(): IntList {
  return { data: new Int32Array(16), length: 0 };
}

function pushInt(list: IntList, v: number): void {
  if (list.length === list.data.length) {
    const next = new Int32Array(list.data.length * 2);
    next.set(list.data);
    list.data = next;
  }
  list.data[list.length++] = v;
}

export function referenceEdges(m: IrModule): IrEdges {
  const t = m.ops;
  const n = t.count;
  const nb = m.buffers.length;
  const maps = new Map<number, IntervalMap<Access>>();
  const mapFor = (rank: number, buffer: number): IntervalMap<Access> => {
    const k = rank * nb + buffer;
    let map = maps.get(k);
    if (map === undefined) {
      map = createIntervalMap(m.buffers[buffer]!.size, NEVER, ACCESS_OPS);
      maps.set(k, map);
    }
    return map;
  };

  // Per-op dedupe of predecessors: seen[p] === i + 1 when p is already a pred of op i.
  const seen = new Int32Array(n);
  const preds: number[] = [];
  let cur = 0;
  const addPred = (p: number): void => {
    if (p < 0 || p === cur || seen[p] === cur + 1) return;
    seen[p] = cur + 1;
    preds.push(p);
  };

  const read = (rank: number, buffer: number, off: number, len: number): void => {
    updateRange(mapFor(rank, buffer), off, off + len, (v) => {
      if (v.readers !== null && v.readers.op === cur) return v;
      addPred(v.writer);
      return { writer: v.writer, readers: { op: cur, next: v.readers } };
    });
  };
  const write = (rank: number, buffer: number, off: number, len: number): void => {
    const mine: Access = { writer: cur, readers: null };
    updateRange(mapFor(rank, buffer), off, off + len, (v) => {
      if (v.readers === null || (v.readers.op === cur && v.readers.next === null)) {
        addPred(v.writer);
      } else {
        for (let r: Readers | null = v.readers; r !== null; r = r.next) addPred(r.op);
      }
      return mine;
    });
  };

  // Notify bookkeeping, only when the module has notifies.
  let hasNotify = false;
  for (let i = 0; i < n; i++) if (opKind(t, i) === "notify") hasNotify = true;
  const pending: IntList[] = [];
  const lastNotifyOnRank = new Int32Array(m.ranks).fill(-1);
  if (hasNotify) for (let r = 0; r < m.ranks; r++) pending.push(intList());
  const pendWrite = (rank: number): void => {
    if (!hasNotify) return;
    const list = pending[rank]!;
    if (list.length === 0 || list.data[list.length - 1] !== cur) pushInt(list, cur);
  };
  const covered = new Int32Array(hasNotify ? n : 0);
  // Signal word per (signal, rank): last notify and the waits since it.
  const sigKey = (i: number): number => t.signal[i]! * m.ranks + t.sigRank[i]!;
  const lastNotify = new Map<number, number>();
  const waitsSince = new Map<number, number[]>();

  const predStart = new Int32Array(n + 1);
  const predIdx = intList();

  for (let i = 0; i < n; i++) {
    cur = i;
    preds.length = 0;
    if (t.guard[i]! >= 0) addPred(t.guard[i]!);
    const len = t.len[i]!;
    const kind = opKind(t, i);
    switch (kind) {
      case "copy":
        read(t.srcRank[i]!, t.srcBuf[i]!, t.srcOff[i]!, len);
        write(t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]!, len);
        pendWrite(t.dstRank[i]!);
        break;
      case "bcast":
        read(t.srcRank[i]!, t.srcBuf[i]!, t.srcOff[i]!, len);
        write(t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]!, len);
        write(t.dst2Rank[i]!, t.dst2Buf[i]!, t.dst2Off[i]!, len);
        pendWrite(t.dstRank[i]!);
        if (t.dst2Rank[i] !== t.dstRank[i]) pendWrite(t.dst2Rank[i]!);
        break;
      case "swap":
        read(t.srcRank[i]!, t.srcBuf[i]!, t.srcOff[i]!, len);
        read(t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]!, len);
        write(t.srcRank[i]!, t.srcBuf[i]!, t.srcOff[i]!, len);
        write(t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]!, len);
        pendWrite(t.srcRank[i]!);
        if (t.dstRank[i] !== t.srcRank[i]) pendWrite(t.dstRank[i]!);
        break;
      case "fill":
        write(t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]!, len);
        pendWrite(t.dstRank[i]!);
        break;
      case "wait": {
        const k = sigKey(i);
        addPred(lastNotify.get(k) ?? -1);
        const ws = waitsSince.get(k);
        if (ws === undefined) waitsSince.set(k, [i]);
        else ws.push(i);
        break;
      }
      case "notify": {
        const k = sigKey(i);
        const ws = waitsSince.get(k);
        if (ws !== undefined && ws.length > 0) for (const w of ws) addPred(w);
        else addPred(lastNotify.get(k) ?? -1);
        lastNotify.set(k, i);
        waitsSince.delete(k);
        const rank = t.sigRank[i]!;
        addPred(lastNotifyOnRank[rank]!);
        lastNotifyOnRank[rank] = i;
        // Writers to this rank since its previous notify (that one covers the earlier ones),
        // newest first, skipping those a later pending writer directly depends on.
        const list = pending[rank]!;
        const stamp = i + 1;
        for (let q = list.length - 1; q >= 0; q--) {
          const w = list.data[q]!;
          if (covered[w] !== stamp) addPred(w);
          for (let e = predStart[w]!; e < predStart[w + 1]!; e++) covered[predIdx.data[e]!] = stamp;
        }
        list.length = 0;
        break;
      }
      default:
        assertNever(kind, "op kind");
    }
    preds.sort((a, b) => a - b);
    for (const p of preds) pushInt(predIdx, p);
    predStart[i + 1] = predIdx.length;
  }
  return { predStart, predIdx: predIdx.data.slice(0, predIdx.length) };
}
