// The reference semantics: runs an IrModule's operations one at a time, in program order (or in
// a given order, for testing that the inferred edges allow reordering), on provenance intervals.
// This is what "a schedule means what running its operations in program order would do" means
// operationally; verification (ir/verify.ts) checks postconditions against its final state.
//
// copy/bcast move provenance, swap exchanges its halves atomically, fill writes a constant.
// wait has no memory effect (program order already satisfies it, or DMAC3018 reports it);
// notify raises its signal, counted in `raises`.

import { assertNever } from "../util/assert-never.js";
import { invariant } from "../util/internal-error.js";
import { opKind, type IrModule } from "./ir.js";
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
}

/**
 * Complete reference runs kept for a later reader, by module: verification runs the reference
 * anyway (ir/verify.ts), and `dmac sim` checks the executor's final state against the same run.
 */
const kept = new WeakMap<IrModule, ReferenceState>();

/** Keeps `s`, m's complete reference run in program order, for referenceRun. */
export function keepReference(m: IrModule, s: ReferenceState): void {
  if (s.overAt === undefined) kept.set(m, s);
}

/** The reference run of m in program order: the one kept, or a new one. */
export function referenceRun(m: IrModule): ReferenceState {
  return kept.get(m) ?? runReference(m);
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
  const st: ReferenceState = {
    // About one row per op and destination (a bcast writes two), plus the initial ones.
    ...createProvenance(
      m.ranks,
      m.buffers.map((b) => b.size),
      m.ops.count + m.buffers.length * m.ranks,
    ),
    raises: new Int32Array(m.signals.length * m.ranks),
  };
  const t = m.ops;
  const n = t.count;
  invariant(order === undefined || order.length === n, "order must list every op once");
  for (let k = 0; k < n; k++) {
    const i = order === undefined ? k : order[k]!;
    const len = t.len[i]!;
    const kind = opKind(t, i);
    switch (kind) {
      case "copy":
        pieces += copyRange(
          st,
          t.srcRank[i]!,
          t.srcBuf[i]!,
          t.srcOff[i]!,
          len,
          t.dstRank[i]!,
          t.dstBuf[i]!,
          t.dstOff[i]!,
          i,
        );
        break;
      case "bcast":
        pieces += copyRange(
          st,
          t.srcRank[i]!,
          t.srcBuf[i]!,
          t.srcOff[i]!,
          len,
          t.dstRank[i]!,
          t.dstBuf[i]!,
          t.dstOff[i]!,
          i,
          t.dst2Rank[i]!,
          t.dst2Buf[i]!,
          t.dst2Off[i]!,
        );
        break;
      case "swap":
        pieces += swapRanges(
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
        break;
      case "fill":
        fillRange(st, t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]!, len, t.value[i]!, i);
        break;
      case "wait":
        break;
      case "notify":
        st.raises[t.signal[i]! * m.ranks + t.sigRank[i]!]! += 1;
        break;
      default:
        assertNever(kind, "op kind");
    }
    if (pieces > maxPieces) {
      st.overAt = i;
      return st;
    }
  }
  return st;
}
