// The reference semantics: runs an IrModule's operations one at a time, in program order (or in
// a given order, for testing that the inferred edges allow reordering), on provenance intervals.
// This is what "a schedule means what running its operations in program order would do" means
// operationally; verification (ir/verify.ts) checks postconditions against its final state.
//
// copy/bcast move provenance, swap exchanges its halves atomically, fill writes a constant.
// wait has no memory effect (program order already satisfies it, or DMAC3018 reports it);
// notify raises its signal, counted in `raises`.

import { InternalError, invariant } from "../util/internal-error.js";
import { copyRunsOf } from "./copy-runs.js";
import { K_BCAST, K_COPY, K_FILL, K_NOTIFY, K_SWAP, K_WAIT, type IrModule } from "./ir.js";
import {
  copyRange,
  createProvenance,
  fillRange,
  swapRanges,
  type ProvenanceState,
} from "./provenance.js";

export interface ReferenceState extends ProvenanceState {
  /** Raises per (signal, rank): index signal * ranks + rank. */
  readonly raises: Int32Array;
  /**
   * Set when the run stopped early at `maxPieces` (see runReference): the op at which the
   * provenance pieces moved passed the limit. The state is then incomplete.
   */
  overAt?: number;
  /**
   * False for runReferenceSources' state: the sources are the reference's, the writers are not
   * (a merged run's bytes name its first op).
   */
  writersExact: boolean;
}

/**
 * Complete reference runs kept for a later reader, by module: verification runs the reference
 * anyway (ir/verify.ts), and `dmac sim` checks the executor's final state against the same run
 * (its sources only: a kept run may be runReferenceSources').
 */
const kept = new WeakMap<IrModule, ReferenceState>();

/** Keeps `s`, m's complete reference run in program order, for referenceRun. */
export function keepReference(m: IrModule, s: ReferenceState): void {
  if (s.overAt === undefined) kept.set(m, s);
}

/**
 * The final sources of m's reference run in program order (the writers may not be exact:
 * runReferenceSources): the one kept, or a new one.
 */
export function referenceRun(m: IrModule): ReferenceState {
  return kept.get(m) ?? runReferenceSources(m);
}

/**
 * Runs the ops (in program order, or `order`). `maxPieces` bounds the provenance pieces the copies
 * and swaps move (each source piece read counts one): copying a buffer fragmented into n pieces n
 * times moves n^2 of them and keeps them all, so past the limit the run stops and says where
 * (`overAt`) instead of exhausting memory.
 */
export function runReference(
  m: IrModule,
  order?: Int32Array,
  maxPieces = Infinity,
): ReferenceState {
  let pieces = 0;
  // About one row per op and destination (a bcast writes two), plus the initial ones.
  const st = emptyState(m, m.ops.count + m.buffers.length * m.ranks);
  const n = m.ops.count;
  invariant(order === undefined || order.length === n, "order must list every op once");
  for (let k = 0; k < n; k++) {
    const i = order === undefined ? k : order[k]!;
    pieces += runOp(st, m, i);
    if (pieces > maxPieces) {
      st.overAt = i;
      return st;
    }
  }
  return st;
}

/**
 * The reference run's final sources, with each run of copies that continue one another moved as
 * one copy: consecutive copies between the same two buffers, each one's source and destination
 * right after the previous one's, the run's source and destination apart (so no copy of it reads
 * what another wrote). Every byte holds the source runReference gives it and the raises are the
 * same, but a run's bytes read as written by its first op (`writersExact` false): for readers
 * that compare sources only (a postcondition that holds, the executor's final state). A chunked
 * all-to-all of 262,144 copies is 64 such runs.
 *
 * `maxPieces` as runReference's: a coarse run reads at most as many pieces as its copies would
 * have, plus one per copy merged, so while that bound stays within the limit the exact run would
 * not have stopped either; past it, the exact run is made (and says where it stops).
 */
export function runReferenceSources(m: IrModule, maxPieces = Infinity): ReferenceState {
  const t = m.ops;
  const n = t.count;
  const st = emptyState(m, m.buffers.length * m.ranks + 1024);
  // Runs instantiation knows continue themselves (copy-runs.ts): each is taken whole when the
  // move it joins stays apart at its end (the overlap only grows with the move), not op by op.
  const known = copyRunsOf(t);
  let k = 0; // the first known run not before the op being read
  const knownEnd = (j: number): number => {
    if (known === undefined) return -1;
    while (k < known.length && known[k]! < j) k += 2;
    return k < known.length && known[k] === j ? known[k + 1]! : -1;
  };
  let bound = 0;
  for (let i = 0; i < n;) {
    let j = i + 1;
    if (t.kind[i] === K_COPY && t.len[i]! > 0) {
      const sr = t.srcRank[i]!;
      const sb = t.srcBuf[i]!;
      const so = t.srcOff[i]!;
      const dr = t.dstRank[i]!;
      const db = t.dstBuf[i]!;
      const dOff = t.dstOff[i]!;
      const same = sr === dr && sb === db;
      let len = t.len[i]!;
      for (let at = i; ; j++) {
        // Op `at` joined the move: a known run starting there joins it whole.
        const e = knownEnd(at);
        if (e > at + 1) {
          const rest = (e - at - 1) * t.len[at]!;
          if (!(same && so < dOff + len + rest && dOff < so + len + rest)) {
            len += rest;
            j = e;
          }
        }
        if (j >= n) break;
        const l = t.len[j]!;
        if (t.kind[j] !== K_COPY || !(l > 0)) break;
        if (t.srcOff[j] !== so + len || t.dstOff[j] !== dOff + len) break;
        if (t.srcRank[j] !== sr || t.srcBuf[j] !== sb) break;
        if (t.dstRank[j] !== dr || t.dstBuf[j] !== db) break;
        if (same && so < dOff + len + l && dOff < so + len + l) break;
        len += l;
        at = j;
      }
      bound += copyRange(st, sr, sb, so, len, dr, db, dOff, i) + (j - i - 1);
    } else bound += runOp(st, m, i);
    if (bound > maxPieces) return runReference(m, undefined, maxPieces);
    i = j;
  }
  st.writersExact = false;
  return st;
}

function emptyState(m: IrModule, rows: number): ReferenceState {
  return {
    ...createProvenance(
      m.ranks,
      m.buffers.map((b) => b.size),
      rows,
    ),
    raises: new Int32Array(m.signals.length * m.ranks),
    writersExact: true,
  };
}

/** Runs op i on st; returns the provenance pieces it read. */
function runOp(st: ReferenceState, m: IrModule, i: number): number {
  const t = m.ops;
  const len = t.len[i]!;
  switch (t.kind[i]) {
    case K_COPY:
    case K_BCAST: {
      const two = t.kind[i] === K_BCAST; // (else copyRange's "no second destination")
      return copyRange(
        st,
        t.srcRank[i]!,
        t.srcBuf[i]!,
        t.srcOff[i]!,
        len,
        t.dstRank[i]!,
        t.dstBuf[i]!,
        t.dstOff[i]!,
        i,
        two ? t.dst2Rank[i]! : -1,
        two ? t.dst2Buf[i]! : -1,
        two ? t.dst2Off[i]! : 0,
      );
    }
    case K_SWAP:
      return swapRanges(
        st,
        t.srcRank[i]!,
        t.srcBuf[i]!,
        t.srcOff[i]!,
        t.dstRank[i]!,
        t.dstBuf[i]!,
        t.dstOff[i]!,
        len,
        i,
      );
    case K_FILL:
      fillRange(st, t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]!, len, t.value[i]!, i);
      return 0;
    case K_WAIT:
      return 0;
    case K_NOTIFY:
      st.raises[t.signal[i]! * m.ranks + t.sigRank[i]!]! += 1;
      return 0;
    default:
      throw new InternalError(`op kind ${t.kind[i]}`);
  }
}
