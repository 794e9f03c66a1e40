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
  createProvenance,
  fillRange,
  readRange,
  singleSource,
  writeSegments,
  writeSource,
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
    ...createProvenance(
      m.ranks,
      m.buffers.map((b) => b.size),
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
      case "bcast": {
        const from = t.srcOff[i]!;
        // The common case, one source piece: moved without the piece list.
        const one = len > 0 ? singleSource(st, t.srcRank[i]!, t.srcBuf[i]!, from, len) : undefined;
        if (one !== undefined) {
          pieces += 1;
          writeSource(st, t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]!, len, one, i);
          if (kind === "bcast")
            writeSource(st, t.dst2Rank[i]!, t.dst2Buf[i]!, t.dst2Off[i]!, len, one, i);
          break;
        }
        const segs = readRange(st, t.srcRank[i]!, t.srcBuf[i]!, from, len);
        pieces += segs.length;
        writeSegments(st, t.dstRank[i]!, t.dstBuf[i]!, t.dstOff[i]!, from, segs, i);
        if (kind === "bcast")
          writeSegments(st, t.dst2Rank[i]!, t.dst2Buf[i]!, t.dst2Off[i]!, from, segs, i);
        break;
      }
      case "swap": {
        const aOff = t.srcOff[i]!;
        const bOff = t.dstOff[i]!;
        const a = readRange(st, t.srcRank[i]!, t.srcBuf[i]!, aOff, len);
        const b = readRange(st, t.dstRank[i]!, t.dstBuf[i]!, bOff, len);
        pieces += a.length + b.length;
        writeSegments(st, t.srcRank[i]!, t.srcBuf[i]!, aOff, bOff, b, i);
        writeSegments(st, t.dstRank[i]!, t.dstBuf[i]!, bOff, aOff, a, i);
        break;
      }
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
