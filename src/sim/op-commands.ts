// The data commands of each data op of the IR (semantics.ts): which rows implement an op, read
// when a completion or a notify announces the op (each of its commands must have run before).
// Built once per run over every row, so it is most of the meaning checks' set-up: the common
// case, every op implemented by one command (a copy within the packet limit), is one pass and
// one column; any other program gets the general index (CSR).

import { OP_KINDS } from "../ir/ir.js";
import { grown } from "../util/arrays.js";
import { COPY, FILL, isDataKind, type Commands } from "./program.js";

/** Per IR op kind code: 1 for the data ops (copy, bcast, swap, fill). */
const DATA_OP = new Uint8Array(256);
for (const k of [OP_KINDS.copy, OP_KINDS.bcast, OP_KINDS.swap, OP_KINDS.fill]) DATA_OP[k.code] = 1;

/**
 * Op o's data commands: one[o] - 1 when `one` is given (0: none), else cmd[start[o] ..
 * start[o + 1]), by row. Ops outside [0, n) are left out (a hand-edited source map).
 */
export interface OpCommands {
  readonly one: Int32Array | undefined;
  readonly start: Int32Array | undefined;
  readonly cmd: Int32Array | undefined;
}

/** Whether op o has a data command. */
export function hasCommands(x: OpCommands, o: number): boolean {
  return x.one !== undefined ? x.one[o] !== 0 : x.start![o + 1]! > x.start![o]!;
}

/** The data commands of the n ops of `opKind` (see OpCommands). */
export function commandsOfOps(C: Commands, n: number, opKind: Uint8Array): OpCommands {
  return oneEach(C, n, opKind) ?? { one: undefined, ...csr(C, n, opKind) };
}

/** one (see OpCommands) when every op has at most one data command; else undefined. */
function oneEach(C: Commands, n: number, opKind: Uint8Array): OpCommands | undefined {
  const { kind, opsLo, opsHi, ops } = C;
  const one = new Int32Array(n);
  for (let cmd = 0; cmd < C.n; cmd++) {
    const l = opsLo[cmd]!;
    const k = kind[cmd]!;
    if (l < 0 || k < COPY || k > FILL) continue; // (isDataKind: a call, in the cold first pass)
    const h = opsHi[cmd]!;
    for (let j = l; j < h; j++) {
      const o = ops[j]!;
      if (!(o >= 0 && o < n) || DATA_OP[opKind[o]!] !== 1) continue;
      if (one[o] !== 0) return undefined;
      one[o] = cmd + 1;
    }
  }
  return { one, start: undefined, cmd: undefined };
}

/**
 * The index as CSR: one walk of the rows collects the (op, row) pairs, a counting sort orders
 * them (the rows are millions; the pairs are read twice more, in order). No call per row.
 */
function csr(C: Commands, n: number, opKind: Uint8Array): { start: Int32Array; cmd: Int32Array } {
  const kind = C.kind;
  const opsLo = C.opsLo;
  const opsHi = C.opsHi;
  const ops = C.ops;
  // Sized for one op per data row, the usual count (more grows the pairs).
  let rows = 0;
  for (let cmd = 0; cmd < C.n; cmd++) if (isDataKind(kind[cmd]!)) rows++;
  let pairOp = new Int32Array(Math.max(16, rows));
  let pairCmd = new Int32Array(pairOp.length);
  let pairs = 0;
  let lo = -1;
  let hi = -1;
  let from = 0; // the pairs of the last range [lo, hi): its wanted ops, reused by the next row
  let to = 0;
  for (let cmd = 0; cmd < C.n; cmd++) {
    const l = opsLo[cmd]!;
    if (l < 0 || !isDataKind(kind[cmd]!)) continue;
    const h = opsHi[cmd]!;
    const same = l === lo && h === hi;
    const need = same ? to - from : h - l;
    if (pairs + need > pairOp.length) {
      pairOp = grown(pairOp, 2 * (pairs + need));
      pairCmd = grown(pairCmd, 2 * (pairs + need));
    }
    const start = pairs;
    if (same) for (let k = from; k < to; k++) pairOp[pairs++] = pairOp[k]!;
    else
      for (let j = l; j < h; j++) {
        const o = ops[j]!;
        if (o >= 0 && o < n && DATA_OP[opKind[o]!] === 1) pairOp[pairs++] = o;
      }
    for (let k = start; k < pairs; k++) pairCmd[k] = cmd;
    lo = l;
    hi = h;
    from = start;
    to = pairs;
  }
  const opStart = new Int32Array(n + 1);
  for (let k = 0; k < pairs; k++) opStart[pairOp[k]! + 1]!++;
  for (let o = 0; o < n; o++) opStart[o + 1]! += opStart[o]!;
  const opCmd = new Int32Array(pairs);
  const fillAt = opStart.slice(0, n);
  for (let k = 0; k < pairs; k++) opCmd[fillAt[pairOp[k]!]!++] = pairCmd[k]!;
  return { start: opStart, cmd: opCmd };
}
