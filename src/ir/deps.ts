// Dependency inference: the happens-before edges that make any execution consistent with them
// equal to program order (DESIGN section 1). Nothing but these gives an edge:
// - memory: two ops that touch overlapping bytes of one (rank, buffer), at least one writing
//   (read-after-write, write-after-read, write-after-write);
// - guards: an op inside `when` depends on its wait op (whose own guard chains to outer waits);
// - notify: raises its signal only after every earlier op that writes to the signal's rank;
// - the signal word: a wait depends on the earlier notifies of its (signal, rank), and a notify
//   on the earlier waits and notifies of it, so the waits see the counts of program order.
//
// Near-linear in the ops and the edges: per (rank, buffer) an interval map records each byte
// range's last writer, and a ReadSet (read-set.ts, an interval tree) the reads since the last
// write to their bytes. A read visits the writer pieces it overlaps and adds one record; a write
// takes the records it overlaps out of the set (putting back the parts outside its range) and
// visits the writer pieces under it. So a read costs the writers it depends on, not the readers
// before it: 20,000 copies reading growing prefixes of one buffer used to give every byte range
// its own list of readers (quadratic, out of memory) and now cost 20,000 records. An op's edges
// come from the pieces and records it overlaps, never from pairwise comparison. Edges implied by
// others are skipped where that is free: a read depends only on the last writer (earlier writers
// are ordered before it); a write depends on the readers since the last write, and on the last
// writer of a piece only where no other op read it since (each reader already follows it); a
// notify skips writers that a later pending writer directly depends on.

import { assertNever } from "../util/assert-never.js";
import { opKind, type IrEdges, type IrModule } from "./ir.js";
import {
  assignOne,
  createIntervalMap,
  forEachPiece,
  type IntervalMap,
  type IntervalValueOps,
} from "./interval-map.js";
import { ReadSet } from "./read-set.js";

/** The last writer of each byte range (-1: never written). */
const WRITER_OPS: IntervalValueOps<number> = {
  shift: (v) => v,
  continues: (a, b) => a === b,
};

interface Access {
  readonly writers: IntervalMap<number>;
  readonly reads: ReadSet;
}

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

/**
 * The union of the ranges [lo[i], hi[i]) as sorted, disjoint, non-adjacent-merged pairs
 * [start, end, start, end, ...].
 */
function mergeRanges(lo: readonly number[], hi: readonly number[]): number[] {
  const order = lo.map((_, i) => i).sort((x, y) => lo[x]! - lo[y]!);
  const out: number[] = [];
  for (const i of order) {
    const n = out.length;
    if (n > 0 && lo[i]! <= out[n - 1]!) {
      if (hi[i]! > out[n - 1]!) out[n - 1] = hi[i]!;
    } else out.push(lo[i]!, hi[i]!);
  }
  return out;
}

export function inferDeps(m: IrModule): IrModule {
  return { ...m, edges: computeEdges(m) };
}

export function computeEdges(m: IrModule): IrEdges {
  const r = edgesWithin(m, Infinity);
  if ("over" in r) throw new Error("unreachable: no edge limit");
  return r.edges;
}

/**
 * inferDeps with a limit on the number of edges (`maxEdges`): past it, the op whose edges
 * crossed it (`over`) instead of the module. The edges are what the later phases keep and walk;
 * a schedule can make them quadratic (10^4 fills fragmenting a buffer, then 10^4 copies of the
 * whole buffer: 10^8 edges), so the pipeline stops there with a located diagnostic (DMAC3024).
 */
export function inferDepsWithin(
  m: IrModule,
  maxEdges: number,
): { module: IrModule } | { over: number; edges: number } {
  const r = edgesWithin(m, maxEdges);
  return "over" in r ? r : { module: { ...m, edges: r.edges } };
}

function edgesWithin(
  m: IrModule,
  maxEdges: number,
): { edges: IrEdges } | { over: number; edges: number } {
  const t = m.ops;
  const n = t.count;
  const nb = m.buffers.length;
  const maps = new Map<number, Access>();
  const mapFor = (rank: number, buffer: number): Access => {
    const k = rank * nb + buffer;
    let map = maps.get(k);
    if (map === undefined) {
      map = {
        writers: createIntervalMap(m.buffers[buffer]!.size, -1, WRITER_OPS),
        reads: new ReadSet(),
      };
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
    if (len <= 0) return;
    const a = mapFor(rank, buffer);
    forEachPiece(a.writers, off, off + len, (_s, _e, writer) => addPred(writer));
    a.reads.add(off, off + len, cur);
  };
  // Scratch for write(): the records a write takes out, and the ranges other ops read in it.
  const taken: number[] = [];
  const keep: number[] = [];
  const readLo: number[] = [];
  const readHi: number[] = [];
  const write = (rank: number, buffer: number, off: number, len: number): void => {
    if (len <= 0) return;
    const a = mapFor(rank, buffer);
    const lo = off;
    const hi = off + len;
    a.reads.takeOverlapping(lo, hi, taken);
    // Each reader since the last write is a predecessor; their parts outside [lo, hi) stay.
    keep.length = 0;
    readLo.length = 0;
    readHi.length = 0;
    for (const n of taken) {
      const rlo = a.reads.recordLo(n);
      const rhi = a.reads.recordHi(n);
      const op = a.reads.recordOp(n);
      // The op's own read (a swap, a copy within one buffer) does not stand for the writer.
      if (op !== cur) {
        addPred(op);
        readLo.push(Math.max(rlo, lo));
        readHi.push(Math.min(rhi, hi));
      }
      if (rlo < lo) keep.push(rlo, lo, op);
      if (rhi > hi) keep.push(hi, rhi, op);
    }
    for (let k = 0; k < keep.length; k += 3) a.reads.add(keep[k]!, keep[k + 1]!, keep[k + 2]!);
    // The last writer of a piece is a predecessor only where no other op read the piece since.
    const covered = mergeRanges(readLo, readHi);
    let c = 0;
    forEachPiece(a.writers, lo, hi, (s, e, writer) => {
      if (writer < 0 || writer === cur) return;
      // Is [s, e) inside the union of the covered ranges (sorted, disjoint, merged)?
      while (c < covered.length && covered[c + 1]! <= s) c += 2;
      if (!(c < covered.length && covered[c]! <= s && covered[c + 1]! >= e)) addPred(writer);
    });
    assignOne(a.writers, lo, hi, cur);
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
    if (predIdx.length > maxEdges) return { over: i, edges: predIdx.length };
  }
  return { edges: { predStart, predIdx: predIdx.data.slice(0, predIdx.length) } };
}
