// Dependency inference: the happens-before edges that make any execution consistent with them
// equal to program order (DESIGN section 1). Nothing but these gives an edge:
// - memory: two ops that touch overlapping bytes of one (rank, buffer), at least one writing
//   (read-after-write, write-after-read, write-after-write);
// - guards: an op inside `when` depends on its wait op (whose own guard chains to outer waits);
// - notify: raises its signal only after every earlier op that writes to the signal's rank;
// - the signal word: a wait depends on the earlier notifies of its (signal, rank), and a notify
//   on the earlier waits and notifies of it, so the waits see the counts of program order.
//
// Near-linear in the ops and the edges: per (rank, buffer) an interval map (int-interval-map.ts)
// records each byte range's last writer, and a ReadSet (read-set.ts, an interval tree) the reads
// since the last write to their bytes. A read visits the writer pieces it overlaps and adds one record; a write
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
import { HOST, K_NOTIFY, opKind, type IrEdges, type IrModule } from "./ir.js";
import {
  assign,
  createIntIntervalMap,
  nextPiece,
  pieceEnd,
  pieceStart,
  pieceValue,
  seek,
  setPieceValue,
  type IntIntervalMap,
} from "./int-interval-map.js";
import { ReadSet } from "./read-set.js";
import { writesDisjoint } from "./disjoint-writes.js";

/** What dependency inference knows of one (rank, buffer). */
interface Access {
  /**
   * The last writer of each byte range, and whether some op read bytes of the range since:
   * value (writer + 1) * 2 + read, writer -1 for never written (see writerOf, READ_SINCE).
   */
  readonly writers: IntIntervalMap;
  /** The reads since the last write to their bytes. */
  readonly reads: ReadSet;
}

/**
 * The "read since written" bit of a writer-map value. A read sets it on every piece it overlaps;
 * a write's own piece starts without it; a piece that is split keeps it. So every record in the
 * read set lies on pieces with the bit, and a write whose pieces all lack it has no readers to
 * look up: the read set is not searched (the common case: a buffer written, then read, once).
 */
const READ_SINCE = 1;
const NEVER_WRITTEN = 0;
const writerOf = (v: number): number => (v >> 1) - 1;
const writtenBy = (op: number): number => (op + 1) * 2;

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

/** Growable Float64 list (the covered ranges of a write). */
interface NumList {
  data: Float64Array;
  length: number;
}

function pushNum(list: NumList, v: number): void {
  if (list.length === list.data.length) {
    const next = new Float64Array(list.data.length * 2);
    next.set(list.data);
    list.data = next;
  }
  list.data[list.length++] = v;
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

/**
 * The memory side of inference, one op at a time (`begin`, then its reads and writes): the
 * per-(rank, buffer) state and the op's predecessors so far. Plain functions over this record
 * rather than closures, so that the per-op path allocates nothing.
 */
interface MemoryDeps {
  readonly m: IrModule;
  /** Indexed by rank * buffers + buffer; created on first access. */
  readonly access: (Access | undefined)[];
  /** The op being inferred. */
  cur: number;
  /** seen[p] === cur + 1 when p is already a predecessor of cur. */
  readonly seen: Int32Array;
  /** The predecessors of cur so far, in the order found. */
  readonly preds: IntList;
  /** Scratch of write(): the union of the ranges other ops read in it, as [lo, hi) pairs. */
  readonly covered: NumList;
}

function memoryDeps(m: IrModule): MemoryDeps {
  return {
    m,
    access: new Array<Access | undefined>(m.ranks * m.buffers.length).fill(undefined),
    cur: 0,
    seen: new Int32Array(m.ops.count),
    preds: intList(),
    covered: { data: new Float64Array(16), length: 0 },
  };
}

function accessOf(d: MemoryDeps, rank: number, buffer: number): Access {
  const k = rank * d.m.buffers.length + buffer;
  let a = d.access[k];
  if (a === undefined) {
    a = {
      writers: createIntIntervalMap(d.m.buffers[buffer]!.size, NEVER_WRITTEN),
      reads: new ReadSet(),
    };
    d.access[k] = a;
  }
  return a;
}

function addPred(d: MemoryDeps, p: number): void {
  if (p < 0 || p === d.cur || d.seen[p] === d.cur + 1) return;
  d.seen[p] = d.cur + 1;
  pushInt(d.preds, p);
}

/** The op reads [off, off + len): it follows the last writer of every piece. */
function read(d: MemoryDeps, rank: number, buffer: number, off: number, len: number): void {
  if (len <= 0) return;
  const a = accessOf(d, rank, buffer);
  const hi = off + len;
  const w = a.writers;
  seek(w, off);
  for (;;) {
    const v = pieceValue(w);
    addPred(d, writerOf(v));
    if ((v & READ_SINCE) === 0) setPieceValue(w, v | READ_SINCE);
    if (pieceEnd(w) >= hi || !nextPiece(w)) break;
  }
  a.reads.add(off, hi, d.cur);
}

/**
 * The op writes [off, off + len): it follows the readers since the last write there, and the
 * last writer of each piece that no other op read since.
 */
function write(d: MemoryDeps, rank: number, buffer: number, off: number, len: number): void {
  if (len <= 0) return;
  const a = accessOf(d, rank, buffer);
  const lo = off;
  const hi = off + len;
  const w = a.writers;
  if (!readSince(w, lo, hi)) {
    // No reads to look up: every last writer under [lo, hi) is a predecessor.
    seek(w, lo);
    for (;;) {
      addPred(d, writerOf(pieceValue(w)));
      if (pieceEnd(w) >= hi || !nextPiece(w)) break;
    }
    assign(w, lo, hi, writtenBy(d.cur));
    return;
  }
  const reads = a.reads;
  reads.takeOverlapping(lo, hi);
  // Each reader since the last write is a predecessor; their parts outside [lo, hi) stay. The
  // records come in order of their starts, so the ranges they cover merge as they come.
  const covered = d.covered;
  covered.length = 0;
  for (let k = 0; k < reads.taken; k++) {
    const rlo = reads.takenLo(k);
    const rhi = reads.takenHi(k);
    const op = reads.takenOp(k);
    // The op's own read (a swap, a copy within one buffer) does not stand for the writer.
    if (op !== d.cur) {
      addPred(d, op);
      const clo = rlo > lo ? rlo : lo;
      const chi = rhi < hi ? rhi : hi;
      const c = covered.length;
      if (c > 0 && clo <= covered.data[c - 1]!) {
        if (chi > covered.data[c - 1]!) covered.data[c - 1] = chi;
      } else {
        pushNum(covered, clo);
        pushNum(covered, chi);
      }
    }
    if (rlo < lo) reads.add(rlo, lo, op);
    if (rhi > hi) reads.add(hi, rhi, op);
  }
  // The last writer of a piece is a predecessor only where no other op read the piece since.
  const cov = covered.data;
  const ncov = covered.length;
  let c = 0;
  seek(w, lo);
  for (;;) {
    const writer = writerOf(pieceValue(w));
    const end = pieceEnd(w);
    if (writer >= 0 && writer !== d.cur) {
      const start = pieceStart(w);
      const s = start > lo ? start : lo;
      const e = end < hi ? end : hi;
      // Is [s, e) inside the union of the covered ranges (sorted, disjoint, merged)?
      while (c < ncov && cov[c + 1]! <= s) c += 2;
      if (!(c < ncov && cov[c]! <= s && cov[c + 1]! >= e)) addPred(d, writer);
    }
    if (end >= hi || !nextPiece(w)) break;
  }
  assign(w, lo, hi, writtenBy(d.cur));
}

/** True if some piece of [lo, hi) was read since its last write. */
function readSince(w: IntIntervalMap, lo: number, hi: number): boolean {
  seek(w, lo);
  for (;;) {
    if ((pieceValue(w) & READ_SINCE) !== 0) return true;
    if (pieceEnd(w) >= hi || !nextPiece(w)) return false;
  }
}

/** Sorts list[from, to) ascending in place (insertion sort: an op has a few predecessors). */
function sortRange(list: Int32Array, from: number, to: number): void {
  if (to - from > 32) {
    list.subarray(from, to).sort();
    return;
  }
  for (let i = from + 1; i < to; i++) {
    const v = list[i]!;
    let k = i - 1;
    while (k >= from && list[k]! > v) {
      list[k + 1] = list[k]!;
      k--;
    }
    list[k + 1] = v;
  }
}

function edgesWithin(
  m: IrModule,
  maxEdges: number,
): { edges: IrEdges } | { over: number; edges: number } {
  const t = m.ops;
  const n = t.count;
  // Ops that share no written byte (and wait for no signal) have no edge at all.
  if (writesDisjoint(m))
    return { edges: { predStart: new Int32Array(n + 1), predIdx: new Int32Array(0) } };
  const d = memoryDeps(m);

  // Notify bookkeeping, only when the module has notifies.
  let hasNotify = false;
  for (let i = 0; i < n && !hasNotify; i++) hasNotify = t.kind[i] === K_NOTIFY;
  const pending: IntList[] = [];
  const lastNotifyOnRank = new Int32Array(m.ranks).fill(-1);
  if (hasNotify) for (let r = 0; r < m.ranks; r++) pending.push(intList());
  // Writes to host memory (ir.ts HOST) are on no rank: no notify waits for them.
  const pendWrite = (rank: number, buf: number): void => {
    if (!hasNotify || m.buffers[buf]!.rank === HOST) return;
    const list = pending[rank]!;
    if (list.length === 0 || list.data[list.length - 1] !== d.cur) pushInt(list, d.cur);
  };
  const covered = new Int32Array(hasNotify ? n : 0);
  // Signal word per (signal, rank): last notify and the waits since it.
  const sigKey = (i: number): number => t.signal[i]! * m.ranks + t.sigRank[i]!;
  const lastNotify = new Map<number, number>();
  const waitsSince = new Map<number, number[]>();

  const predStart = new Int32Array(n + 1);
  const predIdx = intList();
  const preds = d.preds;

  for (let i = 0; i < n; i++) {
    d.cur = i;
    preds.length = 0;
    if (t.guard[i]! >= 0) addPred(d, t.guard[i]!);
    const len = t.len[i]!;
    const kind = opKind(t, i);
    switch (kind) {
      case "copy":
        read(d, t.srcRank[i]!, t.srcBuf[i]!, t.srcOff[i]!, len);
        write(d, t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]!, len);
        pendWrite(t.dstRank[i]!, t.dstBuf[i]!);
        break;
      case "bcast":
        read(d, t.srcRank[i]!, t.srcBuf[i]!, t.srcOff[i]!, len);
        write(d, t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]!, len);
        write(d, t.dst2Rank[i]!, t.dst2Buf[i]!, t.dst2Off[i]!, len);
        pendWrite(t.dstRank[i]!, t.dstBuf[i]!);
        if (t.dst2Rank[i] !== t.dstRank[i]) pendWrite(t.dst2Rank[i]!, t.dst2Buf[i]!);
        break;
      case "swap":
        read(d, t.srcRank[i]!, t.srcBuf[i]!, t.srcOff[i]!, len);
        read(d, t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]!, len);
        write(d, t.srcRank[i]!, t.srcBuf[i]!, t.srcOff[i]!, len);
        write(d, t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]!, len);
        pendWrite(t.srcRank[i]!, t.srcBuf[i]!);
        if (t.dstRank[i] !== t.srcRank[i]) pendWrite(t.dstRank[i]!, t.dstBuf[i]!);
        break;
      case "fill":
        write(d, t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]!, len);
        pendWrite(t.dstRank[i]!, t.dstBuf[i]!);
        break;
      case "wait": {
        const k = sigKey(i);
        addPred(d, lastNotify.get(k) ?? -1);
        const ws = waitsSince.get(k);
        if (ws === undefined) waitsSince.set(k, [i]);
        else ws.push(i);
        break;
      }
      case "notify": {
        const k = sigKey(i);
        const ws = waitsSince.get(k);
        if (ws !== undefined && ws.length > 0) for (const w of ws) addPred(d, w);
        else addPred(d, lastNotify.get(k) ?? -1);
        lastNotify.set(k, i);
        waitsSince.delete(k);
        const rank = t.sigRank[i]!;
        addPred(d, lastNotifyOnRank[rank]!);
        lastNotifyOnRank[rank] = i;
        // Writers to this rank since its previous notify (that one covers the earlier ones),
        // newest first, skipping those a later pending writer directly depends on.
        const list = pending[rank]!;
        const stamp = i + 1;
        for (let q = list.length - 1; q >= 0; q--) {
          const w = list.data[q]!;
          if (covered[w] !== stamp) addPred(d, w);
          for (let e = predStart[w]!; e < predStart[w + 1]!; e++) covered[predIdx.data[e]!] = stamp;
        }
        list.length = 0;
        break;
      }
      default:
        assertNever(kind, "op kind");
    }
    sortRange(preds.data, 0, preds.length);
    for (let k = 0; k < preds.length; k++) pushInt(predIdx, preds.data[k]!);
    predStart[i + 1] = predIdx.length;
    if (predIdx.length > maxEdges) return { over: i, edges: predIdx.length };
  }
  return { edges: { predStart, predIdx: predIdx.data.slice(0, predIdx.length) } };
}
