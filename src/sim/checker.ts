// The executor's checks that never change its timing: happens-before (vector clocks), data races
// (DMAC6003), the provenance of every byte (ir/provenance.ts) and the schedule's meaning
// (semantics.ts, DMAC6013), then the final state against the reference run. The event loop
// (execute.ts) tells them what happened through a CheckSink, one call per effect:
//
//   data     a data command moved its bytes (operands resolved)
//   signal   a FENCE/ATOMIC/TIMESTAMP was issued (its write is in flight as pending row `row`)
//   trigger  the host stored the prelaunch trigger        produce  the producer raised a signal
//   landed   a pending write landed in its word           poll     a poll was satisfied
//
// Nothing here reads the simulated clock, schedules an event or changes what a poll sees, so
// these calls can be made on this thread (inlineChecks) or replayed in the same order on another
// (check-log.ts: the log of a large run, with the findings merged back in event order): the
// findings are the same either way.

import type { DiagnosticCode } from "../diagnostics/codes.js";
import {
  copyRange,
  fillRange,
  swapRanges,
  withWriters,
  type ProvenanceState,
} from "../ir/provenance.js";
import {
  joinWordClock,
  lastWriter,
  PENDING_ROWS,
  recordAccess,
  wordWriteClock,
  type Conflict,
  type Memory,
} from "./memory.js";
import {
  BCAST,
  COPY,
  FILL,
  STREAM_ORDERED,
  SWAP,
  TIMESTAMP,
  type Commands,
  type PackedProgram,
} from "./program.js";
import { createSemantics, type Semantics, type SyncTrace } from "./semantics.js";

/** What the event loop tells the checks (see the file comment). */
export interface CheckSink {
  /** How many calls were made so far (where the loop's own findings fall among the checks'). */
  readonly calls: number;
  /** Queue q's data command (row cmd) moved its bytes: operands 0 .. n-1 (gpu, buffer, offset). */
  data(
    q: number,
    cmd: number,
    n: number,
    gpu: Int32Array,
    buffer: Int32Array,
    offset: Float64Array,
  ): void;
  /** Queue q's FENCE/ATOMIC/TIMESTAMP (row cmd) to word `region` is in flight as pending `row`. */
  signal(q: number, cmd: number, region: number, row: number): void;
  /** The host stored the prelaunch trigger (pending `row`). */
  trigger(row: number): void;
  /** The external-signal producer stored a value (pending `row`). */
  produce(row: number): void;
  /**
   * Pending `row` landed in word `region`; `queue` wrote it (>= Q: the host or the producer).
   * Only for a word whose clock is kept (Words.clockRead): for any other the checks do nothing.
   */
  landed(row: number, region: number, queue: number, add: boolean, operand: number): void;
  /** Queue q's poll of word `region` was satisfied, reading `raw`. */
  poll(q: number, region: number, raw: number): void;
  /** The event loop ended: races past the limit are counted now. */
  eventsDone(): void;
  /**
   * The end of the run (`completed`: every queue drained and the host saw every completion;
   * `mainErrors`: the event loop reported an error). Returns what the checks found.
   */
  finish(completed: boolean, mainErrors: boolean): CheckResult;
}

/** A finding as report() was given it (made on another thread, formatted here: check-log.ts). */
export interface RawReport {
  readonly code: DiagnosticCode;
  readonly args: readonly string[];
  readonly hint: string | undefined;
}

export interface CheckResult {
  /**
   * Findings made away from the event loop, each with the number of the call that found it
   * (`at`), to be merged with the loop's own in event order (execute.ts). Undefined: they were
   * reported into the loop's list as they were found (inline).
   */
  readonly found?: { readonly reports: RawReport[]; readonly at: number[] } | undefined;
  /** The final state against the reference run: DMAC6001's arguments (undefined: unchecked). */
  readonly finalState: string[] | undefined;
  /** The provenance of every byte (inline only: a thread's stays there). */
  readonly prov: ProvenanceState | undefined;
  readonly syncTrace: SyncTrace | undefined;
}

/** The final-state check (postcondition.ts finalStateProblems, given the IR), run when the run completed. */
export type FinalCheck = (
  prov: ProvenanceState,
  p: PackedProgram,
  where: (q: number, at: number) => string,
) => string[];

/** The checks' state: the clocks, the memory's provenance and accesses, the meaning checks. */
export interface CheckState {
  readonly p: PackedProgram;
  readonly C: Commands;
  readonly Q: number;
  readonly HOST: number;
  readonly PRODUCER: number;
  readonly cmdBase: Int32Array;
  /** Provenance, access maps, epochs and word clocks (memory.ts); word values are not read. */
  readonly mem: Memory;
  /** Per queue: its vector clock (Q + 2 components: then the host's and the producer's). */
  readonly vc: Int32Array[];
  /** Per queue: its own clock (the last epoch it handed out). */
  readonly clock: Int32Array;
  /**
   * Per queue: a copy of vc taken since the last join that changed it, shared by the word writes
   * issued meanwhile (null: take a new one). Only vc[own queue] moves between joins (fences
   * advance it), so a write carries (snapshot, clock) instead of a copy of its own.
   */
  readonly snap: (number[] | null)[];
  /** Per pending-write row: the clock its write carries (snapshot + own component). */
  readonly pendVc: ArrayLike<number>[];
  readonly pendClock: number[];
  /** The producer's clock (its own component counts its stores). */
  readonly producerVc: Int32Array;
  readonly sem: Semantics | undefined;
  races: number;
  readonly maxRaces: number;
  /** The number of the call being checked (replayed: check-log.ts), from 0; -1 before any. */
  call: number;
  readonly report: (code: DiagnosticCode, args: readonly string[], hint?: string) => void;
  /** A queue position as reports show it (exec-state.ts where). */
  readonly where: (q: number, at: number) => string;
  readonly finalCheck: FinalCheck | undefined;
  /**
   * Whether the provenance names each range's writer. Without (a replayed log, whose state stays
   * on that thread), a move writes its sources alone, so a range moved in pieces that continue
   * one another is one segment; the final-state check then takes each range's last writer from
   * the access maps, which record every write too (finalProvenance).
   */
  readonly provWriters: boolean;
}

/** The clock a write to a word whose clock nobody reads carries (never read). */
const NO_CLOCK: readonly number[] = [];

/** Per data-command kind: bit k set when operand k is written (the others are read). */
const WRITES = new Uint8Array(16);
WRITES[COPY] = 0b10;
WRITES[BCAST] = 0b110;
WRITES[SWAP] = 0b11;
WRITES[FILL] = 0b1;

export function createCheckState(opts: {
  readonly p: PackedProgram;
  readonly mem: Memory;
  readonly cmdBase: Int32Array;
  readonly maxRaces: number;
  readonly syncTrace: boolean;
  readonly report: CheckState["report"];
  readonly where: CheckState["where"];
  readonly finalCheck: FinalCheck | undefined;
  /** CheckState.provWriters (default true). */
  readonly provWriters?: boolean | undefined;
}): CheckState {
  const { p, mem, cmdBase, report, where } = opts;
  const Q = p.queues.length;
  return {
    p,
    C: p.cmds,
    Q,
    HOST: Q,
    PRODUCER: Q + 1,
    cmdBase,
    mem,
    vc: p.queues.map(() => new Int32Array(Q + 2)),
    clock: new Int32Array(Q),
    snap: p.queues.map(() => null),
    // (Rows for the writes in flight the run makes up front, exec-state.ts pendingRows: a store
    // past the end, first made after V8 compiled the replay, threw it away.)
    pendVc: Array.from({ length: PENDING_ROWS }, (): ArrayLike<number> => NO_CLOCK),
    pendClock: Array.from({ length: PENDING_ROWS }, () => 0),
    producerVc: new Int32Array(Q + 2),
    // The schedule's meaning (notify, when, completion slots), when the IR is known.
    sem: createSemantics({
      p,
      mem,
      cmdBase,
      report: (at, detail, hint) => report("DMAC6013", [at, detail], hint),
      where,
      meaning: p.meaning,
      record: opts.syncTrace,
    }),
    races: 0,
    maxRaces: opts.maxRaces,
    call: -1,
    report,
    where,
    finalCheck: opts.finalCheck,
    provWriters: opts.provWriters !== false,
  };
}

/** A plain-array copy of a vector clock (allocating a small array is far cheaper than a typed one). */
function snapshot(vc: Int32Array): number[] {
  const out = new Array<number>(vc.length);
  for (let i = 0; i < vc.length; i++) out[i] = vc[i]!;
  return out;
}

/** `data`: a fresh epoch, the accesses (reads, then writes), the provenance move, the meaning. */
export function checkData(
  s: CheckState,
  q: number,
  cmd: number,
  n: number,
  gpu: Int32Array,
  buffer: Int32Array,
  offset: Float64Array,
): void {
  const kind = s.C.kind[cmd]!;
  // A CUDA stream command: ordered after every access its queue made before it.
  if (s.C.aux[cmd] === STREAM_ORDERED && kind === COPY) s.vc[q]![q] = s.clock[q]!;
  const clock = ++s.clock[q]!;
  s.mem.epochClock[cmd] = clock;
  const writes = WRITES[kind]!;
  for (let k = 0; k < n; k++)
    if (((writes >> k) & 1) === 0) touch(s, q, cmd, k, false, gpu, buffer, offset);
  for (let k = 0; k < n; k++)
    if (((writes >> k) & 1) === 1) touch(s, q, cmd, k, true, gpu, buffer, offset);
  moveBytes(s, cmd, kind, gpu, buffer, offset);
  s.sem?.dataDone(q, cmd - s.cmdBase[q]!, cmd, gpu, buffer, offset, s.vc[q]!);
}

/** Records operand k's access; reports a race with an earlier access nothing orders it after. */
function touch(
  s: CheckState,
  q: number,
  cmd: number,
  k: number,
  writes: boolean,
  gpu: Int32Array,
  buffer: Int32Array,
  offset: Float64Array,
): void {
  const b = buffer[k]!;
  const lo = offset[k]!;
  const c = recordAccess(
    s.mem,
    gpu[k]!,
    b,
    s.p.bufferSizes[b]!,
    lo,
    lo + s.C.bytes[cmd]!,
    cmd,
    s.vc[q]!,
    writes,
  );
  if (c) race(s, q, cmd, gpu[k]!, b, c, writes);
}

function race(
  s: CheckState,
  q: number,
  cmd: number,
  gpu: number,
  buffer: number,
  c: Conflict,
  writes: boolean,
): void {
  s.races++;
  if (s.races > s.maxRaces) return;
  const eq = c.earlier.queue;
  const other =
    eq < s.Q
      ? s.where(eq, s.C.at[c.earlier.cmd]!)
      : eq === s.HOST
        ? "the host"
        : "the signal producer";
  const name = s.p.bufferNames[buffer] ?? `buffer ${buffer}`;
  s.report(
    "DMAC6003",
    [
      `${s.where(q, s.C.at[cmd]!)} ${writes ? "writes" : "reads"} ${name}@${gpu}[${c.start} .. ${c.end}) while ${other} ${c.earlierWrites ? "writes" : "reads"} it, and nothing orders the two`,
    ],
    "order them with a fence on the first queue and a poll on the second, or make them touch different bytes",
  );
}

/** The provenance move of data command `cmd` (operands resolved). */
function moveBytes(
  s: CheckState,
  cmd: number,
  kind: number,
  g: Int32Array,
  b: Int32Array,
  o: Float64Array,
): void {
  const st = s.mem.prov;
  const n = s.C.bytes[cmd]!;
  const w = s.provWriters ? cmd : -1;
  switch (kind) {
    case COPY:
      copyRange(st, g[0]!, b[0]!, o[0]!, n, g[1]!, b[1]!, o[1]!, w);
      break;
    case BCAST:
      copyRange(st, g[0]!, b[0]!, o[0]!, n, g[1]!, b[1]!, o[1]!, w, g[2]!, b[2]!, o[2]!);
      break;
    case SWAP:
      swapRanges(st, g[0]!, b[0]!, o[0]!, g[1]!, b[1]!, o[1]!, n, w);
      break;
    case FILL:
      fillRange(st, g[0]!, b[0]!, o[0]!, n, s.C.value[cmd]! & 0xff, w);
      break;
    default:
      throw new Error(`flow for ${kind}`);
  }
}

/**
 * `signal`: the write waits for all earlier work of the queue (sequential here), so it publishes
 * the queue's whole history: the queue's own clock component advances. The write carries the
 * queue's clock only to a word whose clock is kept (memory.ts Words.clockRead).
 */
export function checkSignal(
  s: CheckState,
  q: number,
  cmd: number,
  region: number,
  row: number,
): void {
  const clock = ++s.clock[q]!;
  const vc = s.vc[q]!;
  vc[q] = clock;
  let carried: ArrayLike<number> = NO_CLOCK;
  if (s.mem.words.clockRead[region] === 1) carried = s.snap[q] ??= snapshot(vc);
  s.pendVc[row] = carried;
  s.pendClock[row] = clock;
  if (s.sem && s.C.kind[cmd] !== TIMESTAMP)
    s.sem.wordWriteIssued(q, cmd - s.cmdBase[q]!, region, vc, row);
}

/** `trigger`: the host's store, ordered after nothing but the host's own first step. */
export function checkTrigger(s: CheckState, row: number): void {
  const vc = new Int32Array(s.Q + 2);
  vc[s.HOST] = 1;
  s.pendVc[row] = vc;
  s.pendClock[row] = 0;
}

/** `produce`: each store of the producer is a step of its own clock. */
export function checkProduce(s: CheckState, row: number): void {
  s.producerVc[s.PRODUCER]!++;
  s.pendVc[row] = s.producerVc.slice();
  s.pendClock[row] = 0;
}

/** `landed`: the word's clock joins the write's; the meaning checks see the landing. */
export function checkLanded(
  s: CheckState,
  row: number,
  region: number,
  queue: number,
  add: boolean,
  operand: number,
): void {
  wordWriteClock(s.mem.words, region, s.pendVc[row]!, queue, s.pendClock[row]!);
  s.pendVc[row] = NO_CLOCK; // (the row is reused; its snapshot need not outlive the write)
  s.sem?.wordLanded(row, region, queue, add, operand);
}

/** `poll`: the queue's clock joins the word's; seeing a user signal is a fresh epoch. */
export function checkPoll(s: CheckState, q: number, region: number, raw: number): void {
  s.sem?.joining(q);
  if (joinWordClock(s.vc[q]!, s.mem.words, region)) s.snap[q] = null;
  if (s.sem?.observes(region)) {
    // An event `when` guards are ordered after.
    const clock = ++s.clock[q]!;
    s.sem.observed(q, region, raw, clock);
  }
}

/** The end of the event loop: how many races were not shown. */
export function checkEventsDone(s: CheckState): void {
  if (s.races > s.maxRaces) s.report("DMAC6003", [`${s.races - s.maxRaces} more races not shown`]);
}

/**
 * The end of the run: what only the end can tell (notifies missing, operations not moved exactly
 * once), then the final state against the reference run. `clean`: every queue drained and no
 * error was reported; `completed`: the final state is checked.
 */
export function checkEnd(
  s: CheckState,
  completed: boolean,
  clean: boolean,
): Pick<CheckResult, "finalState" | "syncTrace"> {
  s.sem?.finish(clean);
  return {
    finalState:
      completed && s.finalCheck ? s.finalCheck(finalProvenance(s), s.p, s.where) : undefined,
    syncTrace: s.sem?.trace,
  };
}

/**
 * The provenance at the end with its writers: as kept, or (provWriters false) each segment
 * named after the last writer of its first byte, from the access maps. The final-state check
 * reads segments with their sources continuing one another merged and names the writer of the
 * first byte of each: the same in both forms.
 */
function finalProvenance(s: CheckState): ProvenanceState {
  if (s.provWriters) return s.mem.prov;
  return withWriters(s.mem.prov, (rank, buffer, at) => lastWriter(s.mem, rank, buffer, at));
}

/** The checks run on the event loop's own thread: each call is the check itself. */
export function inlineChecks(s: CheckState): CheckSink {
  return {
    calls: 0, // (unused: findings go straight into the loop's list)
    data: (q, cmd, n, gpu, buffer, offset) => checkData(s, q, cmd, n, gpu, buffer, offset),
    signal: (q, cmd, region, row) => checkSignal(s, q, cmd, region, row),
    trigger: (row) => checkTrigger(s, row),
    produce: (row) => checkProduce(s, row),
    landed: (row, region, queue, add, operand) => checkLanded(s, row, region, queue, add, operand),
    poll: (q, region, raw) => checkPoll(s, q, region, raw),
    eventsDone: () => checkEventsDone(s),
    finish(completed, mainErrors) {
      // (The checks report into the loop's own list here: mainErrors counts theirs too.)
      return { ...checkEnd(s, completed, completed && !mainErrors), prov: s.mem.prov };
    },
  };
}
