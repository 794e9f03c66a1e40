// The IR: a flat, data-oriented list of operations on concrete byte regions, plus the
// happens-before edges between them. One IrModule is one instantiated schedule.
//
// Operations are stored as a structure of typed arrays (OpTable) so that a million operations
// cost a few dozen MB and no per-op objects. Operation i is described by slot i of every array.
// A region is (rank, buffer id, byte offset, byte length); different buffers never share bytes,
// so two regions overlap only if they have the same rank and buffer and intersecting byte ranges.
//
// Program order is index order: the schedule means what running ops 0, 1, 2, ... one at a time
// would do. Edges are the inferred happens-before relation (see ir/deps.ts).

import type { SourceFile, Span } from "../source/source-file.js";
import type { CompareOp, SignalEncoding, TypeName } from "../frontend/ast.js";

/** One table for the operation kinds: the name used in the text form and what each reads/writes. */
export const OP_KINDS = {
  copy: { code: 0, reads: ["src"], writes: ["dst"] },
  bcast: { code: 1, reads: ["src"], writes: ["dst", "dst2"] },
  swap: { code: 2, reads: ["src", "dst"], writes: ["src", "dst"] }, // src = half A, dst = half B
  fill: { code: 3, reads: [], writes: ["dst"] },
  wait: { code: 4, reads: [], writes: [] }, // blocks the ops it guards until signal OP value holds
  notify: { code: 5, reads: [], writes: [] }, // raises signal by one after earlier writes to its rank
} as const;

/** The op codes as constants, for the hot loops that switch on `ops.kind`. */
export const K_COPY = OP_KINDS.copy.code;
export const K_BCAST = OP_KINDS.bcast.code;
export const K_SWAP = OP_KINDS.swap.code;
export const K_FILL = OP_KINDS.fill.code;
export const K_WAIT = OP_KINDS.wait.code;
export const K_NOTIFY = OP_KINDS.notify.code;

export type OpKind = keyof typeof OP_KINDS;
export const OP_KIND_BY_CODE: readonly OpKind[] = (Object.keys(OP_KINDS) as OpKind[]).sort(
  (a, b) => OP_KINDS[a].code - OP_KINDS[b].code,
);

export const COMPARE_OPS: readonly CompareOp[] = ["==", "!=", "<", "<=", ">", ">="];

/**
 * Structure-of-arrays operation storage. Unused fields of an op hold -1 (ids, ranks) or 0.
 * - copy:   src -> dst, len bytes
 * - bcast:  src -> dst and dst2, len bytes
 * - swap:   exchanges src and dst (len bytes each)
 * - fill:   dst (len bytes) := byte `value`
 * - wait:   signal `signal` on rank `sigRank` satisfies `cmp value` (cmp indexes COMPARE_OPS)
 * - notify: signal `signal` on rank `sigRank` += 1
 */
export interface OpTable {
  count: number;
  kind: Uint8Array;
  /** Index into IrModule.stmts: the source statement this op was instantiated from. */
  stmt: Int32Array;
  /** Offset into IrModule.bindValues of this instance's loop-variable values (-1: none). */
  bind: Int32Array;
  /** The GPU whose engine drives the op (`by RANK`; default the source rank, a push). */
  driver: Int16Array;
  /** Pinned engine (`on sdma(E)`), or -1 for "let the compiler choose". */
  engine: Int16Array;
  srcRank: Int16Array;
  srcBuf: Int32Array;
  srcOff: Float64Array;
  dstRank: Int16Array;
  dstBuf: Int32Array;
  dstOff: Float64Array;
  dst2Rank: Int16Array;
  dst2Buf: Int32Array;
  dst2Off: Float64Array;
  len: Float64Array;
  /** fill: the byte; wait: the compare value. */
  value: Float64Array;
  /** wait/notify: the signal id and its rank; cmp: index into COMPARE_OPS. */
  signal: Int32Array;
  sigRank: Int16Array;
  cmp: Uint8Array;
  /** The innermost `wait` op that guards this op (-1: none). */
  guard: Int32Array;
}

/**
 * IrBuffer.rank of a buffer declared `on host` (pinned host memory). Its regions carry rank
 * HOST_REGION_RANK, a placeholder that keeps every per-(rank, buffer) table one row per GPU: a
 * buffer id names one buffer, so no GPU buffer's region can be mistaken for it. Code that must
 * know where the bytes live asks isHostBuffer.
 */
export const HOST = -2;
export const HOST_REGION_RANK = 0;

export function isHostBuffer(m: { readonly buffers: readonly IrBuffer[] }, id: number): boolean {
  return m.buffers[id]?.rank === HOST;
}

export interface IrBuffer {
  readonly id: number;
  readonly name: string;
  readonly size: number;
  /** The rank it lives on, -1 for "every rank", or HOST for pinned host memory. */
  readonly rank: number;
  readonly span: Span;
}

export interface IrSignal {
  readonly id: number;
  readonly name: string;
  readonly rank: number;
  /** What outside code stores to raise it to k: k (count) or 2^k - 1 (thermometer). */
  readonly encoding: SignalEncoding;
  readonly span: Span;
}

/** A source statement that ops were instantiated from, with the loop variables in scope there. */
export interface IrStmt {
  readonly span: Span;
  /** Names of the enclosing loop variables, outermost first; bindValues hold their values. */
  readonly loopVars: readonly string[];
}

export interface IrRegion {
  readonly rank: number;
  readonly buffer: number;
  readonly offset: number;
  readonly len: number;
}

/** `ensure dst == src` (final dst equals initial src) or `ensure dst == byte`. */
export interface IrEnsure {
  readonly dst: IrRegion;
  readonly expected:
    | { readonly kind: "region"; readonly region: IrRegion }
    | { readonly kind: "byte"; readonly value: number };
  readonly stmt: number;
  readonly bind: number;
}

export interface IrCollective {
  readonly name: string;
  /** Buffer ids for buffer arguments, plain numbers for int arguments, in source order. */
  readonly args: readonly (
    | { readonly kind: "buffer"; readonly id: number }
    | { readonly kind: "int"; readonly value: number }
  )[];
  readonly span: Span;
}

/** Happens-before edges in CSR form: preds of op i are predIdx[predStart[i] .. predStart[i+1]). */
export interface IrEdges {
  readonly predStart: Int32Array;
  readonly predIdx: Int32Array;
}

export interface IrModule {
  readonly schedule: string;
  readonly doc: string;
  readonly target: string;
  readonly ranks: number;
  readonly params: readonly {
    readonly name: string;
    readonly type: TypeName;
    readonly value: number | boolean;
  }[];
  readonly buffers: readonly IrBuffer[];
  readonly signals: readonly IrSignal[];
  readonly stmts: readonly IrStmt[];
  readonly bindValues: Float64Array;
  readonly ops: OpTable;
  readonly ensures: readonly IrEnsure[];
  readonly collective: IrCollective | undefined;
  /** Undefined until dependency inference has run. */
  readonly edges: IrEdges | undefined;
  /**
   * The source file the spans point into (so the text form can print line:col). Set by
   * instantiation; parseIr sets a synthetic file whose lines reproduce the printed positions.
   */
  readonly file?: SourceFile | undefined;
}

/**
 * An empty table with room for `capacity` ops; `shared`: its columns in shared memory (a module
 * built on a thread for another one to read: sim/session/helper-work.ts).
 */
export function allocOpTable(capacity: number, shared = false): OpTable {
  const col = <T>(make: new (b: ArrayBufferLike) => T, bytes: number): T =>
    new make(shared ? new SharedArrayBuffer(bytes * capacity) : new ArrayBuffer(bytes * capacity));
  return {
    count: 0,
    kind: col(Uint8Array, 1),
    stmt: col(Int32Array, 4),
    bind: col(Int32Array, 4),
    driver: col(Int16Array, 2),
    engine: col(Int16Array, 2),
    srcRank: col(Int16Array, 2),
    srcBuf: col(Int32Array, 4),
    srcOff: col(Float64Array, 8),
    dstRank: col(Int16Array, 2),
    dstBuf: col(Int32Array, 4),
    dstOff: col(Float64Array, 8),
    dst2Rank: col(Int16Array, 2),
    dst2Buf: col(Int32Array, 4),
    dst2Off: col(Float64Array, 8),
    len: col(Float64Array, 8),
    value: col(Float64Array, 8),
    signal: col(Int32Array, 4),
    sigRank: col(Int16Array, 2),
    cmp: col(Uint8Array, 1),
    guard: col(Int32Array, 4),
  };
}

/** Returns a table with room for at least `need` ops, copying the existing ones (amortised doubling). */
export function growOpTable(t: OpTable, need: number): OpTable {
  if (need <= t.kind.length) return t;
  return resizeOpTable(t, Math.max(need, t.kind.length * 2, 64));
}

/**
 * A copy of `t` with room for exactly `capacity` ops (at least t.count). Instantiation uses it
 * directly to keep the table within its --max-ops bound instead of doubling past it.
 */
export function resizeOpTable(t: OpTable, capacity: number): OpTable {
  // (In the memory t is in.)
  const next = allocOpTable(capacity, t.kind.buffer instanceof SharedArrayBuffer);
  next.count = t.count;
  for (const key of Object.keys(t) as (keyof OpTable)[]) {
    if (key === "count") continue;
    (next[key] as { set(a: ArrayLike<number>): void }).set(t[key] as ArrayLike<number>);
  }
  return next;
}

/** Writes `r` as the source of op i; the op's length is the region's. */
export function setOpSrc(t: OpTable, i: number, r: IrRegion): void {
  t.srcRank[i] = r.rank;
  t.srcBuf[i] = r.buffer;
  t.srcOff[i] = r.offset;
  t.len[i] = r.len;
}

/** Writes `r` as the destination of op i; the op's length is the region's. */
export function setOpDst(t: OpTable, i: number, r: IrRegion): void {
  t.dstRank[i] = r.rank;
  t.dstBuf[i] = r.buffer;
  t.dstOff[i] = r.offset;
  t.len[i] = r.len;
}

/** Writes `r` as the second destination of a broadcast op i (its length is the source's). */
export function setOpDst2(t: OpTable, i: number, r: IrRegion): void {
  t.dst2Rank[i] = r.rank;
  t.dst2Buf[i] = r.buffer;
  t.dst2Off[i] = r.offset;
}

export function opKind(t: OpTable, i: number): OpKind {
  return OP_KIND_BY_CODE[t.kind[i]!]!;
}

export function srcRegion(t: OpTable, i: number): IrRegion {
  return { rank: t.srcRank[i]!, buffer: t.srcBuf[i]!, offset: t.srcOff[i]!, len: t.len[i]! };
}
export function dstRegion(t: OpTable, i: number): IrRegion {
  return { rank: t.dstRank[i]!, buffer: t.dstBuf[i]!, offset: t.dstOff[i]!, len: t.len[i]! };
}
export function dst2Region(t: OpTable, i: number): IrRegion {
  return { rank: t.dst2Rank[i]!, buffer: t.dst2Buf[i]!, offset: t.dst2Off[i]!, len: t.len[i]! };
}

/** `when r = 7, p = 3` for diagnostics; "" outside loops. */
export function describeBinding(m: IrModule, stmt: number, bind: number): string {
  const vars = m.stmts[stmt]?.loopVars ?? [];
  if (vars.length === 0 || bind < 0) return "";
  return "when " + vars.map((v, k) => `${v} = ${m.bindValues[bind + k]}`).join(", ");
}
