// Implementation (semantics.ts): every data command does what its ops say (its bytes lie inside
// their regions, with the same source-to-destination shift, or the same fill byte), and at the
// end every byte of every data op was moved exactly once (a dropped or duplicated packet, a
// packet that moves other bytes than its source map says). Over the checks' one record
// (state.ts).

import { BCAST, COPY, FILL, SWAP } from "../program.js";
import { checkGuards } from "./guards.js";
import {
  isData,
  kindName,
  K_BCAST,
  K_COPY,
  K_FILL,
  K_SWAP,
  opName,
  report,
  validOp,
  where,
  type MeaningState,
} from "./state.js";

/** A data command's (destination, source) operand pairs by kind code; -1: no source (a fill). */
const PIECES: (readonly (readonly [number, number])[])[] = [];
PIECES[COPY] = [[1, 0]];
PIECES[BCAST] = [
  [1, 0],
  [2, 0],
];
PIECES[SWAP] = [[0, 1]];
PIECES[FILL] = [[0, -1]];

/** Queue q's data command `entry` (row `cmd`) moved its bytes (operands resolved). */
export function dataDone(
  x: MeaningState,
  q: number,
  entry: number,
  cmd: number,
  gpu: Int32Array,
  buffer: Int32Array,
  offset: Float64Array,
  vc: Int32Array,
): void {
  x.lastData[q] = Math.max(x.lastData[q]!, x.mem.epochClock[cmd]!);
  const kind = x.C.kind[cmd]!;
  const opsLo = x.C.opsLo[cmd]!;
  const opsHi = x.C.opsHi[cmd]!;
  const ops = x.C.ops;
  if (opsLo < 0 || opsHi === opsLo) {
    if (!x.unmapped.has(q)) {
      x.unmapped.add(q);
      report(
        x,
        where(x, q, entry),
        `${kindName(kind)} implements no IR operation the input names (no source map entry); the schedule's meaning cannot be checked`,
        "recompile the schedule: dmac's manifests map every packet to the operations it implements",
      );
    }
    return;
  }
  const bytes = x.C.bytes[cmd]!;
  if (kind === COPY && opsHi === opsLo + 1 && copyOfOne(x, ops[opsLo]!, cmd, gpu, buffer, offset)) {
    const o = ops[opsLo]!;
    if (x.t.guard[o]! >= 0) checkGuards(x, o, q, vc, entry);
    return;
  }
  const pieces = PIECES[kind]!;
  x.nPend = 0;
  let ok = true;
  const fillValue = kind === FILL ? x.C.value[cmd]! & 0xff : 0;
  for (let j = 0; j < pieces.length && ok; j++) {
    const d = pieces[j]![0];
    const s = pieces[j]![1];
    x.nPiece = 0;
    for (let k = opsLo; k < opsHi; k++) {
      const o = ops[k]!;
      if (validOp(x, o) && isData(x.t.kind[o]!))
        matchPiece(
          x,
          o,
          gpu[d]!,
          buffer[d]!,
          offset[d]!,
          s >= 0 ? gpu[s]! : -1,
          s >= 0 ? buffer[s]! : -1,
          s >= 0 ? offset[s]! : 0,
          bytes,
          fillValue,
          kind,
        );
    }
    if (x.nPiece === 0 || !explained(x, bytes)) ok = false;
  }
  if (!ok) {
    const names = Array.from(ops.subarray(opsLo, opsHi))
      .filter((o) => validOp(x, o))
      .slice(0, 3)
      .map((o) => opName(x, o))
      .join(", ");
    report(
      x,
      where(x, q, entry),
      `this ${kindName(kind)} of ${bytes} bytes is not what its source map says it implements (${names || "no valid op"})`,
      "the packet's addresses, size or fill byte do not match the operation; recompile instead of editing the streams",
    );
    return;
  }
  for (let j = 0; j < x.nPend; j++) {
    const o = x.pendOp[j]!;
    cover(x, o, x.pendRole[j]!, x.pendLo[j]!, x.pendHi[j]!);
    if (x.t.guard[o]! >= 0) checkGuards(x, o, q, vc, entry); // (cached per wait and queue)
  }
}

/** At the end of a clean run: every byte of every data op moved exactly once. */
export function coverageAtEnd(x: MeaningState): void {
  if (x.unmapped.size > 0) return;
  for (let o = 0; o < x.n; o++) {
    if (!isData(x.t.kind[o]!)) continue;
    const len = x.t.len[o]!;
    for (let role = 0; role < roles(x, o); role++) {
      const next = (role === 0 ? x.covNext : x.covNext2)?.[o] ?? 0;
      // (The common case, one interval grown to the end, without a lookup.)
      if (x.hasMore[o * 2 + role] === 0 && next === len) continue;
      const problem = coverageProblem(x.covMore.get(o * 2 + role), next, len);
      if (problem)
        report(
          x,
          "end of run",
          `${opName(x, o)}${roles(x, o) > 1 ? ` (destination ${role + 1})` : ""}: ${problem}`,
          "every byte of every operation is moved by exactly one packet",
        );
    }
  }
}

export function roles(x: MeaningState, o: number): number {
  return x.t.kind[o] === K_BCAST ? 2 : 1;
}

export function cover(x: MeaningState, o: number, role: number, lo: number, hi: number): void {
  const key = o * 2 + role;
  const next = role === 0 ? x.covNext : (x.covNext2 ??= new Float64Array(x.n));
  if (x.hasMore[key] === 1) {
    x.covMore.get(key)!.push(lo, hi);
    return;
  }
  if (lo === next[o]) {
    next[o] = hi;
    return;
  }
  x.covMore.set(key, next[o]! > 0 ? [0, next[o]!, lo, hi] : [lo, hi]);
  x.hasMore[key] = 1;
}
export function explained(x: MeaningState, bytes: number): boolean {
  if (x.nPiece === 1) return x.pieceLo[0] === 0 && x.pieceHi[0] === bytes;
  const idx: number[] = [];
  for (let i = 0; i < x.nPiece; i++) idx.push(i);
  idx.sort((a, b) => x.pieceLo[a]! - x.pieceLo[b]!);
  let at = 0;
  for (const i of idx) {
    if (x.pieceLo[i]! > at) return false;
    at = Math.max(at, x.pieceHi[i]!);
  }
  return at >= bytes;
}
/** Records that [lo, hi) of the current piece (destination offsets) is role `role` of op o. */
export function found(
  x: MeaningState,
  o: number,
  role: number,
  base: number,
  opBase: number,
  lo: number,
  hi: number,
) {
  x.pieceLo[x.nPiece] = lo - base;
  x.pieceHi[x.nPiece++] = hi - base;
  x.pendOp[x.nPend] = o;
  x.pendRole[x.nPend] = role;
  x.pendLo[x.nPend] = lo - opBase;
  x.pendHi[x.nPend++] = hi - opBase;
}
/**
 * Matches a destination operand (rank dg, buffer db, offset doff) and its source (sg, sb, soff;
 * or the fill byte) against op o's roles: the same buffers, the same source-to-destination
 * shift (or fill byte), overlapping bytes.
 */
export function matchPiece(
  x: MeaningState,
  o: number,
  dg: number,
  db: number,
  doff: number,
  sg: number,
  sb: number,
  soff: number,
  bytes: number,
  fillValue: number,
  kind: number,
): void {
  const k = x.t.kind[o]!;
  const len = x.t.len[o]!;
  if (kind === FILL) {
    if (k !== K_FILL || (x.t.value[o]! & 0xff) !== fillValue) return;
    if (x.t.dstRank[o] !== dg || x.t.dstBuf[o] !== db) return;
    const off = x.t.dstOff[o]!;
    const lo = Math.max(doff, off);
    const hi = Math.min(doff + bytes, off + len);
    if (hi > lo) found(x, o, 0, doff, off, lo, hi);
    return;
  }
  if (kind === SWAP) {
    if (k !== K_SWAP) return;
    // a <-> the op's A side and b <-> its B side, or the other way round; coverage on A.
    const aO = x.t.srcOff[o]!;
    const bO = x.t.dstOff[o]!;
    const sameA = x.t.srcRank[o] === dg && x.t.srcBuf[o] === db;
    const sameB = x.t.dstRank[o] === sg && x.t.dstBuf[o] === sb;
    if (sameA && sameB && soff - doff === bO - aO) {
      const lo = Math.max(doff, aO);
      const hi = Math.min(doff + bytes, aO + len);
      if (hi > lo) found(x, o, 0, doff, aO, lo, hi);
      return;
    }
    const revA = x.t.srcRank[o] === sg && x.t.srcBuf[o] === sb;
    const revB = x.t.dstRank[o] === dg && x.t.dstBuf[o] === db;
    if (revA && revB && doff - soff === bO - aO) {
      // The piece's destination is the op's B side: coverage is counted on A (= soff ...).
      const lo = Math.max(soff, aO);
      const hi = Math.min(soff + bytes, aO + len);
      if (hi > lo) found(x, o, 0, soff, aO, lo, hi);
    }
    return;
  }
  if (k !== K_COPY && k !== K_BCAST) return;
  if (x.t.srcRank[o] !== sg || x.t.srcBuf[o] !== sb) return;
  const srcOff = x.t.srcOff[o]!;
  for (let role = 0; role < (k === K_BCAST ? 2 : 1); role++) {
    const r = role === 0 ? x.t.dstRank[o]! : x.t.dst2Rank[o]!;
    const b = role === 0 ? x.t.dstBuf[o]! : x.t.dst2Buf[o]!;
    const off = role === 0 ? x.t.dstOff[o]! : x.t.dst2Off[o]!;
    if (r !== dg || b !== db || srcOff - off !== soff - doff) continue;
    const lo = Math.max(doff, off);
    const hi = Math.min(doff + bytes, off + len);
    if (hi > lo) found(x, o, role, doff, off, lo, hi);
  }
}
/**
 * The common case of dataDone without its lists: a COPY whose source map names one copy op o
 * and whose bytes lie inside it with its shift. Records the coverage (as dataDone would) and
 * says true; false: the general path decides (and reports).
 */
export function copyOfOne(
  x: MeaningState,
  o: number,
  cmd: number,
  gpu: Int32Array,
  buffer: Int32Array,
  offset: Float64Array,
): boolean {
  if (!(o >= 0 && o < x.n) || x.t.kind[o] !== K_COPY) return false;
  if (x.t.srcRank[o] !== gpu[0] || x.t.srcBuf[o] !== buffer[0]) return false;
  if (x.t.dstRank[o] !== gpu[1] || x.t.dstBuf[o] !== buffer[1]) return false;
  const off = x.t.dstOff[o]!;
  const doff = offset[1]!;
  if (x.t.srcOff[o]! - off !== offset[0]! - doff) return false;
  const lo = doff - off;
  const hi = lo + x.C.bytes[cmd]!;
  if (lo < 0 || hi > x.t.len[o]! || !(hi > lo)) return false;
  cover(x, o, 0, lo, hi);
  return true;
}

/** Why the intervals an op's commands moved do not tile [0, len) exactly once, or undefined. */
function coverageProblem(
  more: number[] | undefined,
  next: number,
  len: number,
): string | undefined {
  if (more === undefined) {
    if (next === len) return undefined;
    return next === 0 ? "no packet moved its bytes" : `bytes [${next} .. ${len}) were never moved`;
  }
  const idx: number[] = [];
  for (let i = 0; i < more.length; i += 2) idx.push(i);
  idx.sort((a, b) => more[a]! - more[b]! || more[a + 1]! - more[b + 1]!);
  let at = 0;
  for (const i of idx) {
    const lo = more[i]!;
    const hi = more[i + 1]!;
    if (lo > at) return `bytes [${at} .. ${lo}) were never moved`;
    if (lo < at) return `bytes [${lo} .. ${Math.min(at, hi)}) were moved more than once`;
    at = hi;
  }
  return at < len ? `bytes [${at} .. ${len}) were never moved` : undefined;
}
