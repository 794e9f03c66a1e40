// The state of the schedule-meaning checks (semantics.ts): one record, `x`, that the check
// families read and write, one module each: guards.ts (`when`), implementation.ts (what each data
// command moved, and that every byte was moved once), words.ts (user signals and completion
// slots). Built once per run by createMeaningState, with the tables each family looks up; the
// helpers every family uses (naming ops and signals in reports, happens-before tests) are here.

import { OP_KIND_BY_CODE, OP_KINDS, type IrModule } from "../../ir/ir.js";
import { lineCol } from "../../source/source-file.js";
import { wordClockAt, type Memory } from "../memory.js";
import { commandsOfOps, type OpCommands } from "../op-commands.js";
import { REGION_CODE } from "../regions.js";
import { CMD_KINDS, type Commands, type Meaning, type PackedProgram } from "../program.js";
import type { SemanticsContext } from "../semantics.js";

export const K_COPY = OP_KINDS.copy.code;
export const K_BCAST = OP_KINDS.bcast.code;
export const K_SWAP = OP_KINDS.swap.code;
export const K_FILL = OP_KINDS.fill.code;
export const K_NOTIFY = OP_KINDS.notify.code;

/** Reports past this many are counted, not shown. */
export const MAX_REPORTS = 20;

export interface MeaningState {
  readonly ctx: SemanticsContext;
  readonly meaning: Meaning;
  readonly p: PackedProgram;
  readonly mem: Memory;
  readonly cmdBase: Int32Array;
  readonly C: Commands;
  readonly m: IrModule;
  readonly t: IrModule["ops"];
  /** Ops, queues, word regions, ranks. */
  readonly n: number;
  readonly Q: number;
  readonly R: number;
  readonly ranks: number;
  reports: number;

  // words.ts: per queue, the clock of its latest data command, and the latest of its clock
  // values that some completion write has published (happens-before, independent of any source
  // map). A data command no completion follows is work the host can never see finish. A queue's
  // clock only grows, so what its completion writes published is its clock at the last one: kept
  // per writing queue and joined at the end. Between two joins of a queue's clock (joining) only
  // its own component moves, so the last write's clock is the live one with that component as it
  // was (slotOwn): copied only when the queue is about to join (a million completion writes made
  // a million copies).
  readonly lastData: Float64Array;
  readonly lastSlotVc: (Int32Array | undefined)[];
  readonly slotLive: (Int32Array | undefined)[];
  readonly slotOwn: Float64Array;
  /**
   * Per word region i, side by side so that a write looks up one cache line (with a million
   * completion slots, separate columns missed the cache and were most of these hooks' time): at
   * 3i its signal key (>= 0), its completion slot k (as -2 - k), or -1; for a slot, at 3i + 1 the
   * command that wrote it first (-1: none yet) and at 3i + 2 its owner queue (-2: the manifest
   * names none).
   */
  readonly info: Int32Array;
  readonly regionOfSig: Int32Array;
  /** Per signal key, its notify ops in program order. */
  readonly notifies: number[][];
  /** The data ops writing each rank, in program order (what a notify of that rank announces). */
  readonly writers: number[][];
  readonly raised: Int32Array;
  readonly overRaised: Uint8Array;
  /** Each data op that ran is named by a completion packet (1): the host learns it landed. */
  readonly announcedOp: Uint8Array;

  // The commands of each data op (CSR), from the entries' ops.
  readonly opCmds: OpCommands;
  readonly one: OpCommands["one"];
  readonly opStart: OpCommands["start"];
  readonly opCmd: OpCommands["cmd"];

  // guards.ts: per user-signal region, value, queue, clock of each observation (a map: a program
  // has few signals and may have a million words); the (wait * Q + queue) pairs found or reported.
  readonly obs: Map<number, number[]>;
  readonly guardOk: Set<number>;
  readonly guardReported: Set<number>;

  // implementation.ts: the common case is one interval per op and role, grown in order
  // (covNext; a broadcast's second destination in covNext2, made by the first such piece); any
  // other shape lists its intervals in covMore (o * 2 + role -> [lo, hi, lo, hi, ...]), flagged
  // in hasMore, so the common case never looks it up.
  readonly covNext: Float64Array;
  covNext2: Float64Array | undefined;
  readonly covMore: Map<number, number[]>;
  readonly hasMore: Uint8Array;
  // Scratch (reused, no allocation per command): per piece, the command-relative intervals found
  // (pieceLo/Hi[0 .. nPiece)), and the coverage to record (pend*[0 .. nPend)).
  readonly pieceLo: number[];
  readonly pieceHi: number[];
  nPiece: number;
  readonly pendOp: number[];
  readonly pendRole: number[];
  readonly pendLo: number[];
  readonly pendHi: number[];
  nPend: number;
  /** Queues already reported for a missing source map. */
  readonly unmapped: Set<number>;
}

export function createMeaningState(
  ctx: SemanticsContext,
  meaning: Meaning,
  regionAt: (addr: number) => number,
): MeaningState {
  const { p, mem, cmdBase } = ctx;
  const m = meaning.module;
  const t = m.ops;
  const n = t.count;
  const Q = p.queues.length;
  const R = mem.starts.length;
  const ranks = m.ranks;
  const opCmds = commandsOfOps(p.cmds, n, t.kind);
  const x: MeaningState = {
    ctx,
    meaning,
    p,
    mem,
    cmdBase,
    C: p.cmds,
    m,
    t,
    n,
    Q,
    R,
    ranks,
    reports: 0,
    lastData: new Float64Array(Q),
    lastSlotVc: new Array<Int32Array | undefined>(Q),
    slotLive: new Array<Int32Array | undefined>(Q),
    slotOwn: new Float64Array(Q),
    info: new Int32Array(3 * R).fill(-1),
    regionOfSig: new Int32Array(m.signals.length * ranks).fill(-1),
    notifies: Array.from({ length: m.signals.length * ranks }, () => []),
    writers: Array.from({ length: ranks }, () => []),
    raised: new Int32Array(m.signals.length * ranks),
    overRaised: new Uint8Array(m.signals.length * ranks),
    announcedOp: new Uint8Array(n),
    opCmds,
    one: opCmds.one,
    opStart: opCmds.start,
    opCmd: opCmds.cmd,
    obs: new Map(),
    guardOk: new Set(),
    guardReported: new Set(),
    covNext: new Float64Array(n),
    covNext2: undefined,
    covMore: new Map(),
    hasMore: new Uint8Array(2 * n),
    pieceLo: [],
    pieceHi: [],
    nPiece: 0,
    pendOp: [],
    pendRole: [],
    pendLo: [],
    pendHi: [],
    nPend: 0,
    unmapped: new Set(),
  };
  signalTables(x, regionAt);
  slotTable(x, regionAt);
  return x;
}

/** The signals' words, their notifies, and the writes each notify announces. */
function signalTables(x: MeaningState, regionAt: (addr: number) => number): void {
  for (const s of x.meaning.signals) {
    const i = regionAt(s.addr);
    if (
      i < 0 ||
      x.mem.kind[i] !== REGION_CODE.signal ||
      s.signal < 0 ||
      s.signal >= x.m.signals.length
    )
      continue;
    if (s.rank < 0 || s.rank >= x.ranks) continue;
    x.info[3 * i] = s.signal * x.ranks + s.rank;
    x.regionOfSig[s.signal * x.ranks + s.rank] = i;
  }
  let anyNotify = false;
  // (No signal, no notify: not a pass over every op.)
  if (x.m.signals.length > 0)
    for (let o = 0; o < x.n; o++)
      if (x.t.kind[o] === K_NOTIFY) {
        x.notifies[sigKeyOf(x, o)]?.push(o);
        anyNotify = true;
      }
  // The data ops writing each rank, in program order (what a notify of that rank announces).
  if (anyNotify)
    for (let o = 0; o < x.n; o++) {
      const k = x.t.kind[o]!;
      if (!isData(k)) continue;
      const d = x.t.dstRank[o]!;
      x.writers[d]?.push(o);
      const d2 = k === K_BCAST ? x.t.dst2Rank[o]! : k === K_SWAP ? x.t.srcRank[o]! : d;
      if (d2 !== d) x.writers[d2]?.push(o);
    }
}

/** The completion slots' words, with their owner queues. */
function slotTable(x: MeaningState, regionAt: (addr: number) => number): void {
  // Slots come in address order, each the region after the last: tried before a binary search.
  let lastSlot = -1;
  for (let k = 0; k < x.p.completions.count; k++) {
    const addr = x.p.completions.addr[k]!;
    const i = x.mem.starts[lastSlot + 1] === addr ? lastSlot + 1 : regionAt(addr);
    if (i >= 0) lastSlot = i;
    if (i < 0 || x.mem.kind[i] !== REGION_CODE.completion) continue;
    x.info[3 * i] = -2 - k;
    x.info[3 * i + 2] = x.meaning.slotOwner?.[k] ?? -2;
  }
}

/** A command kind's name as reports spell it (COPY, FENCE...). */
export const kindName = (kind: number): string => CMD_KINDS[kind]!.toUpperCase();

export const isData = (k: number): boolean =>
  k === K_COPY || k === K_BCAST || k === K_SWAP || k === K_FILL;

export function validOp(x: MeaningState, o: number): boolean {
  return Number.isInteger(o) && o >= 0 && o < x.n;
}

export function report(x: MeaningState, where: string, detail: string, hint?: string): void {
  if (++x.reports <= MAX_REPORTS) x.ctx.report(where, detail, hint);
}

export function where(x: MeaningState, q: number, entry: number): string {
  return x.ctx.where(q, x.C.at[x.cmdBase[q]! + entry]!);
}

export function opName(x: MeaningState, o: number): string {
  const kind = OP_KIND_BY_CODE[x.t.kind[o]!] ?? "op";
  const span = x.m.stmts[x.t.stmt[o]!]?.span;
  const file = x.m.file;
  let loc = "";
  if (span && file) {
    const lc = lineCol(file, span.start);
    loc = ` (${file.name}:${lc.line}:${lc.col})`;
  }
  return `${kind} op ${o}${loc}`;
}

export function opShort(x: MeaningState, o: number): string {
  return `${OP_KIND_BY_CODE[x.t.kind[o]!] ?? "op"} op ${o}`;
}

export function sigName(x: MeaningState, key: number): string {
  return `${x.m.signals[Math.floor(key / x.ranks)]?.name ?? "signal"}@${key % x.ranks}`;
}

export function sigKeyOf(x: MeaningState, o: number): number {
  return x.t.signal[o]! * x.ranks + x.t.sigRank[o]!;
}

/** Whether command c did not run or is not ordered before `vc` (null: word `word`'s clock). */
export function late(
  x: MeaningState,
  c: number,
  vc: ArrayLike<number> | null,
  word: number,
): boolean {
  const clock = x.mem.epochClock[c]!;
  const queue = x.mem.epochQueue[c]!;
  const seen = vc !== null ? vc[queue]! : wordClockAt(x.mem.words, word, queue);
  return clock === 0 || seen < clock;
}
/**
 * The first command of op o that did not run or is not ordered before the clock `vc` (or,
 * with vc null, word region `word`'s clock); -1 if none.
 */
export function opBefore(
  x: MeaningState,
  o: number,
  vc: ArrayLike<number> | null,
  word: number,
): number {
  if (x.one !== undefined) {
    const c = x.one[o]! - 1;
    return c >= 0 && late(x, c, vc, word) ? c : -1;
  }
  for (let j = x.opStart![o]!; j < x.opStart![o + 1]!; j++)
    if (late(x, x.opCmd![j]!, vc, word)) return x.opCmd![j]!;
  return -1;
}
export function cmdWhere(x: MeaningState, c: number): string {
  let q = 0;
  while (q + 1 < x.Q && x.cmdBase[q + 1]! <= c) q++;
  return where(x, q, c - x.cmdBase[q]!);
}
