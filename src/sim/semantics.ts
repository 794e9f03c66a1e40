// The schedule's meaning, checked during the run (not only the final buffers, run.ts
// checkFinalState). When the IR is known and every command says which IR ops it implements (the
// manifest's source map, a trace's `ops`), the executor reports as DMAC6013:
//
// - implementation: every data command does what its ops say (its bytes lie inside their
//   regions, with the same source-to-destination shift, or the same fill byte), and at the end
//   every byte of every data op was moved exactly once (a dropped or duplicated packet, a packet
//   that moves other bytes than its source map says);
// - notify: a user signal is written only by ATOMIC add 1, and only if the schedule notifies it
//   (an external signal is raised by its producer alone); it is raised exactly as many times as
//   the schedule has `notify`s of it; and when it reaches k, every command of every data op
//   before the k-th notify in program order that writes the signal's rank happened before
//   (vector clocks: the word's clock, the join of its writes, covers the command's epoch);
// - `when`: a command of an op inside `when FLAG@r CMP V` (data or notify) runs only after a
//   poll of that word saw a value meeting CMP V, on its own queue or on one ordered before it;
// - completion slots: each is written exactly once, by the queue the manifest gives it, and
//   after every command of every op its packet announces; every data op that ran is announced
//   by some slot (else the host cannot tell when it landed).
//
// The checks use happens-before, never timing, so a stream that is right only because of the
// model's latencies is still reported. The same hooks optionally record a sync trace (what every
// data command did and what it was ordered after), which the fuzzers' equivalence oracle reads.

import { COMPARE_OPS, OP_KIND_BY_CODE, OP_KINDS, type IrModule } from "../ir/ir.js";
import { lineCol } from "../source/source-file.js";
import { assertNever } from "../util/assert-never.js";
import { wordClockAt, wordClockCopy, type Memory } from "./memory.js";
import { commandsOfOps, hasCommands } from "./op-commands.js";
import { REGION_CODE } from "./regions.js";
import {
  ATOMIC,
  BCAST,
  CMD_KINDS,
  COPY,
  FENCE,
  FILL,
  opsAt,
  SWAP,
  type Meaning,
  type PackedProgram,
  type PollFunc,
  type SimCmd,
} from "./program.js";

const K_COPY = OP_KINDS.copy.code;
const K_BCAST = OP_KINDS.bcast.code;
const K_SWAP = OP_KINDS.swap.code;
const K_FILL = OP_KINDS.fill.code;
const K_NOTIFY = OP_KINDS.notify.code;

/** A data command's (destination, source) operand pairs by kind code; -1: no source (a fill). */
const PIECES: (readonly (readonly [number, number])[])[] = [];
PIECES[COPY] = [[1, 0]];
PIECES[BCAST] = [
  [1, 0],
  [2, 0],
];
PIECES[SWAP] = [[0, 1]];
PIECES[FILL] = [[0, -1]];

const kindName = (kind: number): string => CMD_KINDS[kind]!.toUpperCase();

/** Reports past this many are counted, not shown. */
const MAX_REPORTS = 20;

type DataCmd = Extract<SimCmd, { kind: "copy" | "bcast" | "swap" | "fill" }>;

/** One data command as it ran: operands are (gpu, buffer id, offset) triples. */
export interface SyncData {
  readonly queue: number;
  readonly at: number;
  /** The entry's IR ops (as the input says; only the unmutated original's are trustworthy). */
  readonly ops: readonly number[] | undefined;
  readonly kind: DataCmd["kind"];
  readonly operands: readonly (readonly [number, number, number])[];
  readonly bytes: number;
  /** The fill byte (0 for the others). */
  readonly value: number;
  /** Its epoch: the queue's clock value when it ran. */
  readonly clock: number;
  /** Its queue's vector clock when it ran. */
  readonly vc: readonly number[];
}

/** A queue's write to a user signal or a completion slot, when it landed. */
export interface SyncWrite {
  readonly queue: number;
  readonly at: number;
  readonly ops: readonly number[] | undefined;
  readonly addr: number;
  readonly region: "signal" | "completion";
  readonly add: boolean;
  readonly operand: number;
  readonly valueAfter: number;
  /** The word's clock after the write (the join of every write so far). */
  readonly vc: readonly number[];
}

/** A poll of a user signal that was satisfied: the value it saw, and its fresh epoch. */
export interface SyncObservation {
  readonly queue: number;
  readonly addr: number;
  readonly value: number;
  readonly clock: number;
}

export interface SyncTrace {
  readonly data: SyncData[];
  readonly writes: SyncWrite[];
  readonly observations: SyncObservation[];
}

/** What execute.ts calls; see the module comment. */
export interface Semantics {
  /** Whether a satisfied poll of this word region is an observation (gets its own epoch). */
  observes(region: number): boolean;
  observed(q: number, region: number, value: number, clock: number): void;
  /** Queue q's data command `entry` (row `cmd`) moved its bytes (operands resolved). */
  dataDone(
    q: number,
    entry: number,
    cmd: number,
    gpu: Int32Array,
    buffer: Int32Array,
    offset: Float64Array,
    vc: Int32Array,
  ): void;
  /** A FENCE/ATOMIC of queue q to word region `region` was issued (pending-write row `row`). */
  wordWriteIssued(q: number, entry: number, region: number, vc: Int32Array, row: number): void;
  /** The write of row `row` landed (queue >= Q: the host or the producer). */
  wordLanded(row: number, region: number, queue: number, add: boolean, operand: number): void;
  /** Queue q's vector clock (the one its hooks are given) is about to join another clock. */
  joining(q: number): void;
  /** End of the run; `clean`: every queue drained and no error was reported. */
  finish(clean: boolean): void;
  readonly trace: SyncTrace | undefined;
}

export interface SemanticsContext {
  readonly p: PackedProgram;
  readonly mem: Memory;
  /** Global command id of queue q's entry i is cmdBase[q] + i. */
  readonly cmdBase: Int32Array;
  readonly report: (where: string, detail: string, hint?: string) => void;
  readonly where: (q: number, at: number) => string;
  /** The meaning to check (undefined: record only). */
  readonly meaning: Meaning | undefined;
  readonly record: boolean;
}

/** Whether a POLL_REGMEM with `func` against `ref` is satisfied by `v` (the executor's test too). */
export const holds = (func: PollFunc, v: number, ref: number): boolean => {
  switch (func) {
    case "always":
      return true;
    case "<":
      return v < ref;
    case "<=":
      return v <= ref;
    case "==":
      return v === ref;
    case "!=":
      return v !== ref;
    case ">=":
      return v >= ref;
    case ">":
      return v > ref;
    default:
      return assertNever(func, "poll function");
  }
};

export function createSemantics(ctx: SemanticsContext): Semantics | undefined {
  const { p, mem, meaning } = ctx;
  if (!meaning && !ctx.record) return undefined;
  const Q = p.queues.length;
  const R = mem.starts.length;
  const C = p.cmds;

  // Word regions by index: user signals and completion slots.
  const kinds = mem.kind;
  const SIG = REGION_CODE.signal;
  const SLOT = REGION_CODE.completion;
  const regionAt = (addr: number): number => {
    let lo = 0;
    let hi = R - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const a = mem.starts[mid]!;
      if (a === addr) return mid;
      if (a < addr) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };

  // ---- the sync trace (fuzz oracle) --------------------------------------------------------
  const trace: SyncTrace | undefined = ctx.record
    ? { data: [], writes: [], observations: [] }
    : undefined;
  const rowAt: number[] = [];
  const rowOps: (readonly number[] | undefined)[] = [];

  const checker = meaning ? createChecker(ctx, meaning, regionAt) : undefined;

  return {
    trace,
    observes: (region) => kinds[region] === SIG,
    observed(q, region, value, clock) {
      checker?.observed(q, region, value, clock);
      if (trace) trace.observations.push({ queue: q, addr: mem.starts[region]!, value, clock });
    },
    dataDone(q, entry, cmd, gpu, buffer, offset, vc) {
      checker?.dataDone(q, entry, cmd, gpu, buffer, offset, vc);
      if (trace) {
        const kind = C.kind[cmd]!;
        const n = kind === COPY || kind === SWAP ? 2 : kind === BCAST ? 3 : 1;
        const operands: [number, number, number][] = [];
        for (let k = 0; k < n; k++) operands.push([gpu[k]!, buffer[k]!, offset[k]!]);
        trace.data.push({
          queue: q,
          at: C.at[cmd]!,
          ops: opsAt(C, cmd),
          kind: CMD_KINDS[kind] as DataCmd["kind"],
          operands,
          bytes: C.bytes[cmd]!,
          value: kind === FILL ? C.value[cmd]! & 0xff : 0,
          clock: mem.epochClock[cmd]!,
          vc: Array.from(vc),
        });
      }
    },
    wordWriteIssued(q, entry, region, vc, row) {
      checker?.wordWriteIssued(q, entry, region, vc);
      if (trace) {
        const e = p.queues[q]!.first + entry;
        rowAt[row] = C.at[e]!;
        rowOps[row] = opsAt(C, e);
      }
    },
    wordLanded(row, region, queue, add, operand) {
      checker?.wordLanded(region, queue, add, operand);
      if (trace && queue < Q && (kinds[region] === SIG || kinds[region] === SLOT))
        trace.writes.push({
          queue,
          at: rowAt[row] ?? -1,
          ops: rowOps[row],
          addr: mem.starts[region]!,
          region: kinds[region] === SIG ? "signal" : "completion",
          add,
          operand,
          valueAfter: mem.words.value[region]!,
          vc: Array.from(wordClockCopy(mem.words, region, Q + 2)),
        });
    },
    joining(q) {
      checker?.joining(q);
    },
    finish(clean) {
      checker?.finish(clean);
    },
  };
}

/** The meaning checks: the Semantics hooks, without the pending-write rows only the trace uses. */
type Checker = Pick<Semantics, "observed" | "dataDone" | "finish" | "joining"> & {
  wordWriteIssued(q: number, entry: number, region: number, vc: Int32Array): void;
  wordLanded(region: number, queue: number, add: boolean, operand: number): void;
};

function createChecker(
  ctx: SemanticsContext,
  meaning: Meaning,
  regionAt: (addr: number) => number,
): Checker {
  const { p, mem, cmdBase } = ctx;
  const C = p.cmds;
  const m: IrModule = meaning.module;
  const t = m.ops;
  const n = t.count;
  const Q = p.queues.length;
  const R = mem.starts.length;
  const ranks = m.ranks;
  const isData = (k: number): boolean =>
    k === K_COPY || k === K_BCAST || k === K_SWAP || k === K_FILL;
  const validOp = (o: number): boolean => Number.isInteger(o) && o >= 0 && o < n;

  // Per queue: the clock of its latest data command, and the latest of its clock values that some
  // completion write has published (happens-before, independent of any source map). A data
  // command no completion follows is work the host can never see finish. A queue's clock only
  // grows, so what its completion writes published is its clock at the last one: kept per
  // writing queue and joined at the end. Between two joins of a queue's clock (joining) only its
  // own component moves, so the last write's clock is the live one with that component as it
  // was (slotOwn): copied only when the queue is about to join (a million completion writes
  // made a million copies).
  const lastData = new Float64Array(Q);
  const lastSlotVc: (Int32Array | undefined)[] = new Array<Int32Array | undefined>(Q);
  const slotLive: (Int32Array | undefined)[] = new Array<Int32Array | undefined>(Q);
  const slotOwn = new Float64Array(Q);
  const keepSlotVc = (q: number): void => {
    const live = slotLive[q];
    if (live === undefined) return;
    const kept = (lastSlotVc[q] ??= new Int32Array(live.length));
    kept.set(live);
    kept[q] = slotOwn[q]!;
    slotLive[q] = undefined;
  };
  const published = (): Float64Array => {
    const out = new Float64Array(Q);
    for (let q = 0; q < Q; q++) keepSlotVc(q);
    for (const vc of lastSlotVc)
      if (vc) for (let r = 0; r < Q; r++) out[r] = Math.max(out[r]!, vc[r]!);
    return out;
  };
  let reports = 0;
  const report = (where: string, detail: string, hint?: string): void => {
    if (++reports <= MAX_REPORTS) ctx.report(where, detail, hint);
  };
  const where = (q: number, entry: number): string => ctx.where(q, C.at[cmdBase[q]! + entry]!);
  const opName = (o: number): string => {
    const kind = OP_KIND_BY_CODE[t.kind[o]!] ?? "op";
    const span = m.stmts[t.stmt[o]!]?.span;
    const file = m.file;
    let loc = "";
    if (span && file) {
      const lc = lineCol(file, span.start);
      loc = ` (${file.name}:${lc.line}:${lc.col})`;
    }
    return `${kind} op ${o}${loc}`;
  };
  const opShort = (o: number): string => `${OP_KIND_BY_CODE[t.kind[o]!] ?? "op"} op ${o}`;
  const sigName = (key: number): string =>
    `${m.signals[Math.floor(key / ranks)]?.name ?? "signal"}@${key % ranks}`;

  // ---- signals: words, notifies, the writes each notify announces ------------------------
  // Per word region i, side by side so that a write looks up one cache line (with a million
  // completion slots, separate columns missed the cache and were most of these hooks' time):
  // at 3i its signal key (>= 0), its completion slot k (as -2 - k), or -1; for a slot, at 3i + 1
  // the command that wrote it first (-1: none yet) and at 3i + 2 its owner queue (-2: the
  // manifest names none).
  const info = new Int32Array(3 * R).fill(-1);
  const regionOfSig = new Int32Array(m.signals.length * ranks).fill(-1);
  for (const s of meaning.signals) {
    const i = regionAt(s.addr);
    if (i < 0 || mem.kind[i] !== REGION_CODE.signal || s.signal < 0 || s.signal >= m.signals.length)
      continue;
    if (s.rank < 0 || s.rank >= ranks) continue;
    info[3 * i] = s.signal * ranks + s.rank;
    regionOfSig[s.signal * ranks + s.rank] = i;
  }
  const sigKeyOf = (o: number): number => t.signal[o]! * ranks + t.sigRank[o]!;
  const notifies: number[][] = Array.from({ length: m.signals.length * ranks }, () => []);
  let anyNotify = false;
  // (No signal, no notify: not a pass over every op.)
  if (m.signals.length > 0)
    for (let o = 0; o < n; o++)
      if (t.kind[o] === K_NOTIFY) {
        notifies[sigKeyOf(o)]?.push(o);
        anyNotify = true;
      }
  // The data ops writing each rank, in program order (what a notify of that rank announces).
  const writers: number[][] = Array.from({ length: ranks }, () => []);
  if (anyNotify)
    for (let o = 0; o < n; o++) {
      const k = t.kind[o]!;
      if (!isData(k)) continue;
      const d = t.dstRank[o]!;
      writers[d]?.push(o);
      const d2 = k === K_BCAST ? t.dst2Rank[o]! : k === K_SWAP ? t.srcRank[o]! : d;
      if (d2 !== d) writers[d2]?.push(o);
    }
  const raised = new Int32Array(notifies.length);
  const overRaised = new Uint8Array(notifies.length);

  // ---- commands of each data op (CSR), from the entries' ops --------------------------------
  const opCmds = commandsOfOps(C, n, t.kind);
  const { one, start: opStart, cmd: opCmd } = opCmds;

  /** Whether command c did not run or is not ordered before `vc` (null: word `word`'s clock). */
  const late = (c: number, vc: ArrayLike<number> | null, word: number): boolean => {
    const clock = mem.epochClock[c]!;
    const queue = mem.epochQueue[c]!;
    const seen = vc !== null ? vc[queue]! : wordClockAt(mem.words, word, queue);
    return clock === 0 || seen < clock;
  };
  /**
   * The first command of op o that did not run or is not ordered before the clock `vc` (or,
   * with vc null, word region `word`'s clock); -1 if none.
   */
  const opBefore = (o: number, vc: ArrayLike<number> | null, word: number): number => {
    if (one !== undefined) {
      const c = one[o]! - 1;
      return c >= 0 && late(c, vc, word) ? c : -1;
    }
    for (let j = opStart![o]!; j < opStart![o + 1]!; j++)
      if (late(opCmd![j]!, vc, word)) return opCmd![j]!;
    return -1;
  };
  const cmdWhere = (c: number): string => {
    let q = 0;
    while (q + 1 < Q && cmdBase[q + 1]! <= c) q++;
    return where(q, c - cmdBase[q]!);
  };

  // ---- guards -------------------------------------------------------------------------------
  // Per user-signal region: value, queue, clock of each observation (a map: a program has few
  // signals and may have a million words).
  const obs = new Map<number, number[]>();
  const guardOk = new Set<number>(); // wait * Q + queue
  const guardReported = new Set<number>();
  /** Checks every `when` around op o for a command of queue q with clock vc; reports. */
  const checkGuards = (o: number, q: number, vc: Int32Array, entry: number): void => {
    for (let w = t.guard[o]!; w >= 0 && w < n; w = t.guard[w]!) {
      const key = w * Q + q;
      if (guardOk.has(key)) continue;
      const region = regionOfSig[sigKeyOf(w)] ?? -1;
      const func = COMPARE_OPS[t.cmp[w]!] ?? "==";
      const ref = t.value[w]!;
      const list = region >= 0 ? obs.get(region) : undefined;
      let ok = false;
      if (list)
        for (let j = 0; j < list.length && !ok; j += 3)
          ok =
            holds(func, list[j]!, ref) && (list[j + 1] === q || vc[list[j + 1]!]! >= list[j + 2]!);
      if (ok) {
        guardOk.add(key);
        continue;
      }
      if (guardReported.has(key)) continue;
      guardReported.add(key);
      report(
        where(q, entry),
        `${opName(o)} runs inside \`when ${sigName(sigKeyOf(w))} ${func} ${ref}\`, but no poll of that signal saw it ${func} ${ref} before this command`,
        "a `when` is a POLL of its flag on the queue (or one ordered before it) ahead of every guarded command",
      );
    }
  };

  // ---- implementation: which bytes of which op each data command moved ---------------------
  const roles = (o: number): number => (t.kind[o] === K_BCAST ? 2 : 1);
  const covNext = new Float64Array(n);
  // (A broadcast's second destination: made by the first such piece.)
  let covNext2: Float64Array | undefined;
  // The common case is one interval per op and role, grown in order (covNext); any other shape
  // lists its intervals in covMore (flagged in hasMore, so the common case never looks it up).
  const covMore = new Map<number, number[]>(); // o * 2 + role -> [lo, hi, lo, hi, ...]
  const hasMore = new Uint8Array(2 * n);
  const cover = (o: number, role: number, lo: number, hi: number): void => {
    const key = o * 2 + role;
    const next = role === 0 ? covNext : (covNext2 ??= new Float64Array(n));
    if (hasMore[key] === 1) {
      covMore.get(key)!.push(lo, hi);
      return;
    }
    if (lo === next[o]) {
      next[o] = hi;
      return;
    }
    covMore.set(key, next[o]! > 0 ? [0, next[o]!, lo, hi] : [lo, hi]);
    hasMore[key] = 1;
  };
  // Scratch (reused, no allocation per command): per piece, the command-relative intervals
  // found (pieceLo/Hi[0 .. nPiece)), and the coverage to record (pend*[0 .. nPend)).
  const pieceLo: number[] = [];
  const pieceHi: number[] = [];
  let nPiece = 0;
  const pendOp: number[] = [];
  const pendRole: number[] = [];
  const pendLo: number[] = [];
  const pendHi: number[] = [];
  let nPend = 0;
  const explained = (bytes: number): boolean => {
    if (nPiece === 1) return pieceLo[0] === 0 && pieceHi[0] === bytes;
    const idx: number[] = [];
    for (let i = 0; i < nPiece; i++) idx.push(i);
    idx.sort((a, b) => pieceLo[a]! - pieceLo[b]!);
    let at = 0;
    for (const i of idx) {
      if (pieceLo[i]! > at) return false;
      at = Math.max(at, pieceHi[i]!);
    }
    return at >= bytes;
  };
  /** Records that [lo, hi) of the current piece (destination offsets) is role `role` of op o. */
  const found = (o: number, role: number, base: number, opBase: number, lo: number, hi: number) => {
    pieceLo[nPiece] = lo - base;
    pieceHi[nPiece++] = hi - base;
    pendOp[nPend] = o;
    pendRole[nPend] = role;
    pendLo[nPend] = lo - opBase;
    pendHi[nPend++] = hi - opBase;
  };
  /**
   * Matches a destination operand (rank dg, buffer db, offset doff) and its source (sg, sb, soff;
   * or the fill byte) against op o's roles: the same buffers, the same source-to-destination
   * shift (or fill byte), overlapping bytes.
   */
  const matchPiece = (
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
  ): void => {
    const k = t.kind[o]!;
    const len = t.len[o]!;
    if (kind === FILL) {
      if (k !== K_FILL || (t.value[o]! & 0xff) !== fillValue) return;
      if (t.dstRank[o] !== dg || t.dstBuf[o] !== db) return;
      const off = t.dstOff[o]!;
      const lo = Math.max(doff, off);
      const hi = Math.min(doff + bytes, off + len);
      if (hi > lo) found(o, 0, doff, off, lo, hi);
      return;
    }
    if (kind === SWAP) {
      if (k !== K_SWAP) return;
      // a <-> the op's A side and b <-> its B side, or the other way round; coverage on A.
      const aO = t.srcOff[o]!;
      const bO = t.dstOff[o]!;
      const sameA = t.srcRank[o] === dg && t.srcBuf[o] === db;
      const sameB = t.dstRank[o] === sg && t.dstBuf[o] === sb;
      if (sameA && sameB && soff - doff === bO - aO) {
        const lo = Math.max(doff, aO);
        const hi = Math.min(doff + bytes, aO + len);
        if (hi > lo) found(o, 0, doff, aO, lo, hi);
        return;
      }
      const revA = t.srcRank[o] === sg && t.srcBuf[o] === sb;
      const revB = t.dstRank[o] === dg && t.dstBuf[o] === db;
      if (revA && revB && doff - soff === bO - aO) {
        // The piece's destination is the op's B side: coverage is counted on A (= soff ...).
        const lo = Math.max(soff, aO);
        const hi = Math.min(soff + bytes, aO + len);
        if (hi > lo) found(o, 0, soff, aO, lo, hi);
      }
      return;
    }
    if (k !== K_COPY && k !== K_BCAST) return;
    if (t.srcRank[o] !== sg || t.srcBuf[o] !== sb) return;
    const srcOff = t.srcOff[o]!;
    for (let role = 0; role < (k === K_BCAST ? 2 : 1); role++) {
      const r = role === 0 ? t.dstRank[o]! : t.dst2Rank[o]!;
      const b = role === 0 ? t.dstBuf[o]! : t.dst2Buf[o]!;
      const off = role === 0 ? t.dstOff[o]! : t.dst2Off[o]!;
      if (r !== dg || b !== db || srcOff - off !== soff - doff) continue;
      const lo = Math.max(doff, off);
      const hi = Math.min(doff + bytes, off + len);
      if (hi > lo) found(o, role, doff, off, lo, hi);
    }
  };
  const unmapped = new Set<number>(); // queues already reported for a missing source map
  /**
   * The common case of dataDone without its lists: a COPY whose source map names one copy op o
   * and whose bytes lie inside it with its shift. Records the coverage (as dataDone would) and
   * says true; false: the general path decides (and reports).
   */
  const copyOfOne = (
    o: number,
    cmd: number,
    gpu: Int32Array,
    buffer: Int32Array,
    offset: Float64Array,
  ): boolean => {
    if (!(o >= 0 && o < n) || t.kind[o] !== K_COPY) return false;
    if (t.srcRank[o] !== gpu[0] || t.srcBuf[o] !== buffer[0]) return false;
    if (t.dstRank[o] !== gpu[1] || t.dstBuf[o] !== buffer[1]) return false;
    const off = t.dstOff[o]!;
    const doff = offset[1]!;
    if (t.srcOff[o]! - off !== offset[0]! - doff) return false;
    const lo = doff - off;
    const hi = lo + C.bytes[cmd]!;
    if (lo < 0 || hi > t.len[o]! || !(hi > lo)) return false;
    cover(o, 0, lo, hi);
    return true;
  };

  // ---- what the completion slots announce -----------------------------------------------------
  // Each data op that ran is named by a completion packet: the host learns from that slot that
  // its bytes landed (a packet whose source map names another op leaves it unannounced).
  const announcedOp = new Uint8Array(n);
  const unannounced = (): void => {
    for (let o = 0; o < n; o++)
      if (hasCommands(opCmds, o) && announcedOp[o] === 0)
        report(
          "end of run",
          `${opName(o)} is announced by no completion slot: the host cannot tell when its bytes have landed`,
          "each data operation is named in the source map of the completion packet that follows it",
        );
  };

  // ---- completion slots ----------------------------------------------------------------------
  // Slots come in address order, each the region after the last: tried before a binary search.
  let lastSlot = -1;
  for (let k = 0; k < p.completions.count; k++) {
    const addr = p.completions.addr[k]!;
    const i = mem.starts[lastSlot + 1] === addr ? lastSlot + 1 : regionAt(addr);
    if (i >= 0) lastSlot = i;
    if (i < 0 || mem.kind[i] !== REGION_CODE.completion) continue;
    info[3 * i] = -2 - k;
    info[3 * i + 2] = meaning.slotOwner?.[k] ?? -2;
  }

  return {
    observed(q, region, value, clock) {
      if (info[3 * region]! < 0) return;
      let list = obs.get(region);
      if (!list) obs.set(region, (list = []));
      list.push(value, q, clock);
    },

    dataDone(q, entry, cmd, gpu, buffer, offset, vc) {
      lastData[q] = Math.max(lastData[q]!, mem.epochClock[cmd]!);
      const kind = C.kind[cmd]!;
      const opsLo = C.opsLo[cmd]!;
      const opsHi = C.opsHi[cmd]!;
      const ops = C.ops;
      if (opsLo < 0 || opsHi === opsLo) {
        if (!unmapped.has(q)) {
          unmapped.add(q);
          report(
            where(q, entry),
            `${kindName(kind)} implements no IR operation the input names (no source map entry); the schedule's meaning cannot be checked`,
            "recompile the schedule: dmac's manifests map every packet to the operations it implements",
          );
        }
        return;
      }
      const bytes = C.bytes[cmd]!;
      if (
        kind === COPY &&
        opsHi === opsLo + 1 &&
        copyOfOne(ops[opsLo]!, cmd, gpu, buffer, offset)
      ) {
        const o = ops[opsLo]!;
        if (t.guard[o]! >= 0) checkGuards(o, q, vc, entry);
        return;
      }
      const pieces = PIECES[kind]!;
      nPend = 0;
      let ok = true;
      const fillValue = kind === FILL ? C.value[cmd]! & 0xff : 0;
      for (let j = 0; j < pieces.length && ok; j++) {
        const d = pieces[j]![0];
        const s = pieces[j]![1];
        nPiece = 0;
        for (let k = opsLo; k < opsHi; k++) {
          const o = ops[k]!;
          if (validOp(o) && isData(t.kind[o]!))
            matchPiece(
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
        if (nPiece === 0 || !explained(bytes)) ok = false;
      }
      if (!ok) {
        const names = Array.from(ops.subarray(opsLo, opsHi))
          .filter(validOp)
          .slice(0, 3)
          .map(opName)
          .join(", ");
        report(
          where(q, entry),
          `this ${kindName(kind)} of ${bytes} bytes is not what its source map says it implements (${names || "no valid op"})`,
          "the packet's addresses, size or fill byte do not match the operation; recompile instead of editing the streams",
        );
        return;
      }
      for (let j = 0; j < nPend; j++) {
        const o = pendOp[j]!;
        cover(o, pendRole[j]!, pendLo[j]!, pendHi[j]!);
        if (t.guard[o]! >= 0) checkGuards(o, q, vc, entry); // (cached per wait and queue)
      }
    },

    wordWriteIssued(q, entry, region, vc) {
      const e = cmdBase[q]! + entry;
      const kind = C.kind[e]!;
      const sig = info[3 * region]!;
      if (sig >= 0) {
        const name = sigName(sig);
        if (notifies[sig]!.length === 0) {
          report(
            where(q, entry),
            `${kindName(kind)} writes ${name}, an external signal: only its producer outside the schedule raises it`,
            "the schedule never notifies it, so no queue may write it",
          );
          return;
        }
        if (kind !== ATOMIC || C.aux[e] !== 32 || C.value[e] !== 1) {
          report(
            where(q, entry),
            `${kind === FENCE ? `FENCE of ${C.value[e]!}` : `ATOMIC add${C.aux[e]!} of ${C.value[e]!}`} on ${name}: a notify raises its signal by one (ATOMIC add32 of 1)`,
          );
          return;
        }
        let n0: number | undefined;
        for (let k = C.opsLo[e]!; k < C.opsHi[e]! && n0 === undefined; k++) {
          const o = C.ops[k]!;
          if (validOp(o) && t.kind[o] === K_NOTIFY && sigKeyOf(o) === sig) n0 = o;
        }
        if (n0 === undefined) {
          report(
            where(q, entry),
            `this ATOMIC raises ${name}, but its source map names no \`notify ${name}\``,
          );
          return;
        }
        if (t.guard[n0]! >= 0) checkGuards(n0, q, vc, entry);
        return;
      }
      if (sig === -1) return;
      const slot = -2 - sig;
      slotLive[q] = vc;
      slotOwn[q] = vc[q]!;
      const prev = info[3 * region + 1]!;
      if (prev >= 0) {
        report(
          where(q, entry),
          `writes completion slot ${slot} again (first written by ${cmdWhere(prev)}): each slot reaches its final value exactly once`,
        );
        return;
      }
      info[3 * region + 1] = cmdBase[q]! + entry;
      const owner = info[3 * region + 2]!;
      if (owner !== -2 && owner !== q) {
        report(
          where(q, entry),
          `writes completion slot ${slot}, which the manifest gives to ${owner >= 0 ? p.queues[owner]!.name : "no queue"}`,
          "a completion slot is signalled only by its own queue",
        );
        return;
      }
      let announced = 0;
      for (let k = C.opsLo[e]!; k < C.opsHi[e]!; k++) {
        const o = C.ops[k]!;
        if (!validOp(o) || !isData(t.kind[o]!)) continue;
        announced++;
        announcedOp[o] = 1;
        const late = opBefore(o, vc, -1);
        if (late >= 0) {
          report(
            where(q, entry),
            `completion slot ${slot} is signalled before ${cmdWhere(late)} (${opShort(o)}) that it announces has completed`,
            "a completion follows all the data it reports",
          );
          return;
        }
      }
      if (announced === 0)
        report(
          where(q, entry),
          `completion slot ${slot}: the source map names no data operation this completion announces`,
        );
    },

    wordLanded(region, queue, add, operand) {
      const sig = info[3 * region]!;
      if (sig < 0 || queue >= Q || !add || operand !== 1) return;
      const list = notifies[sig]!;
      if (list.length === 0) return;
      const k = ++raised[sig]!;
      if (k > list.length) {
        if (!overRaised[sig]) {
          overRaised[sig] = 1;
          report(
            p.queues[queue]!.name,
            `${sigName(sig)} is raised ${k} times, but the schedule notifies it ${list.length} time(s)`,
            "each `notify` is one ATOMIC add of 1, exactly once",
          );
        }
        return;
      }
      // Every data op writing the rank between the previous notify and this one (earlier ones
      // were checked at lower values; the word's clock only grows).
      const r = sig % ranks;
      const from = k >= 2 ? list[k - 2]! : -1;
      const to = list[k - 1]!;
      const ws = writers[r]!;
      let lo = 0;
      let hi = ws.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (ws[mid]! <= from) lo = mid + 1;
        else hi = mid;
      }
      for (let j = lo; j < ws.length && ws[j]! < to; j++) {
        const o = ws[j]!;
        const late = opBefore(o, null, region);
        if (late >= 0) {
          report(
            p.queues[queue]!.name,
            `${sigName(sig)} reaches ${k} (${opName(to)}) before ${cmdWhere(late)} (${opShort(o)}) has completed; a notify announces every earlier write to rank ${r}`,
            "the ATOMIC of a notify follows (on its queue or through a poll) every earlier command writing its rank",
          );
          return;
        }
      }
    },

    joining: keepSlotVc,

    finish(clean) {
      if (clean && p.completions.count > 0 && unmapped.size === 0) unannounced();
      const seen = clean && p.completions.count > 0 ? published() : undefined;
      if (seen)
        for (let q = 0; q < Q; q++)
          if (lastData[q]! > seen[q]!)
            report(
              p.queues[q]!.name,
              "data commands of this queue finish after every completion signal: the host can see the schedule complete before they do",
              "every data command is followed, on its queue or through a fence another queue polls, by a completion signal",
            );
      if (clean) {
        for (let s = 0; s < notifies.length; s++) {
          const want = notifies[s]!.length;
          if (want > 0 && raised[s]! < want)
            report(
              "end of run",
              `${sigName(s)} was raised ${raised[s]} time(s), but the schedule notifies it ${want} time(s)`,
              "each `notify` needs one ATOMIC add of 1 on its signal",
            );
        }
        if (unmapped.size === 0)
          for (let o = 0; o < n; o++) {
            if (!isData(t.kind[o]!)) continue;
            const len = t.len[o]!;
            for (let role = 0; role < roles(o); role++) {
              const next = (role === 0 ? covNext : covNext2)?.[o] ?? 0;
              // (The common case, one interval grown to the end, without a lookup.)
              if (hasMore[o * 2 + role] === 0 && next === len) continue;
              const problem = coverageProblem(covMore.get(o * 2 + role), next, len);
              if (problem)
                report(
                  "end of run",
                  `${opName(o)}${roles(o) > 1 ? ` (destination ${role + 1})` : ""}: ${problem}`,
                  "every byte of every operation is moved by exactly one packet",
                );
            }
          }
      }
      if (reports > MAX_REPORTS)
        ctx.report("end of run", `${reports - MAX_REPORTS} more schedule-meaning errors not shown`);
    },
  };
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
