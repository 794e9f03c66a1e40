// The discrete-event core of the executor: runs every queue of a program concurrently on the
// machine model, moving provenance intervals (never bytes), checking every access, detecting data
// races with vector clocks, and timing everything. Returns findings as Diagnostics plus statistics
// and (on request) a timeline for the Chrome trace.
//
// This file is the event loop and the end of the run; the units it drives, each over the one
// ExecState (exec-state.ts):
// - engine.ts: each queue's engine as a state machine (fetch, data, poll, signal, finish);
// - host.ts: submission (doorbells or the prelaunch trigger), the external-signal producer, and
//   the host's completion scan;
// - transfers.ts + flows.ts: the bytes of data commands as flows sharing links and HBM;
// - words.ts: signal writes in flight, landing, and the polls they wake;
// - checks.ts: bounds, rings, overlap and alignment (whether a data command runs);
// - checker.ts: what never changes the timing (races, provenance, the schedule's meaning in
//   semantics.ts, the final state), told through a CheckSink: here, or on another thread
//   replaying a log of the run (check-log.ts).
//
// Model (docs/model.md has every constant):
// - Host: without a trigger it builds each queue's packets (hostPacketUs each) and rings the
//   doorbell (hostDoorbellUs) after every command that signals the host and at the end of the
//   queue; the engine sees the new packets doorbellLatencyUs later. With a prelaunch trigger all
//   queues were submitted ahead; time 0 is when the host stores the trigger word.
// - Engine: one command at a time; each packet costs enginePacketUs; data commands then wait
//   copyStartupUs and move their bytes as a flow whose rate is the max-min fair share of the
//   links / HBM it uses, capped by engineGBps. FENCE/ATOMIC/TIMESTAMP writes land
//   host/gpuSignalLatencyUs later; the queue goes on meanwhile.
// - POLL_REGMEM re-checks on a grid of interval x 16 SDMA clocks + pollRepollUs from its first
//   check; nothing spins: a waiting poll is re-evaluated at the first grid point after the word
//   changes, which is exactly when the spinning engine would see it.
// - The host spin-polls its completion slots every hostPollIntervalUs from the end of submission.
// - A CUDA target (model.cuda): the queues are CUDA streams, with the host's stream calls
//   (host.ts), copy engines shared by streams and waits released on a landing (copy-engines.ts),
//   and the fabric's resources (cuda-fabric.ts): docs/cuda.md, "The timing model".
//
// Happens-before (kept by checker.ts): each queue has a vector clock. A data command's access is
// stamped with a fresh clock value of its queue but ordered only after the queue's last
// FENCE/ATOMIC/TIMESTAMP (consecutive data commands may overlap on the engine); fences publish
// the queue's clock into the word, polls join the clock of the word they read.

import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { ProvenanceState } from "../ir/provenance.js";
import type { Snapshot } from "../forensics/snapshot.js";
import { snapshotOf } from "./snapshot.js";
import { dataDone, doorbell, fetch, pollCheck, pollTimeout } from "./engine.js";
import { serveNext } from "./copy-engines.js";
import {
  createExecState,
  EV_DOORBELL,
  EV_ENGINE_SERVE,
  EV_EXT_SIGNAL,
  EV_FLOW_DONE,
  EV_FLOW_START,
  EV_POLL_CHECK,
  EV_STEP,
  EV_WORD_WRITE,
  Q_DONE,
  Q_FAULTED,
  Q_POLLING,
  report,
  where,
  type ExecState,
} from "./exec-state.js";
import { peerBytesMoved } from "./cuda-fabric.js";
import {
  completionScan,
  lastCompletion,
  producerTick,
  startProducer,
  submit,
  watchCompletions,
  type Producer,
} from "./host.js";
import type { EventHeap } from "./heap.js";
import { hex } from "./memory.js";
import type { MachineModel } from "./model.js";
import { packProgram, POLL_FUNC_CODES, type PackedProgram, type SimProgram } from "./program.js";
import type { SyncTrace } from "./semantics.js";
import type { EarlyChecks } from "./check-thread.js";
import {
  createCheckState,
  inlineChecks,
  type CheckSink,
  type FinalCheck,
  type RawReport,
} from "./checker.js";
import { placeTokens } from "./check-log.js";
import { diag } from "../diagnostics/diagnostic.js";
import { startFlow } from "./transfers.js";
import type { SyncRecording } from "./trace/recorder.js";
import { applyWrite, halfOf, read32, regionAtStart, wordAt } from "./words.js";

export interface ExecOptions {
  readonly model: MachineModel;
  /** Raise each external signal by one every this many microseconds (default: all at time 0). */
  readonly signalPeriodUs?: number | undefined;
  /** Outside code never raises the external signals (`--hold-signals`: hang forensics). */
  readonly holdSignals?: boolean | undefined;
  readonly maxEvents?: number | undefined;
  readonly maxSimTimeUs?: number | undefined;
  /** Record the timeline (spans, instants, link counters) for a Chrome trace. */
  readonly record?: boolean | undefined;
  /** Stop reporting races after this many (default 20). */
  readonly maxRaces?: number | undefined;
  /** Record the sync trace (semantics.ts): for the fuzzers' equivalence oracle. */
  readonly syncTrace?: boolean | undefined;
  /** A CUDA target's run of its engineOrderRuns (copy-engines.ts: the seed of its order draws). */
  readonly engineOrderRun?: number | undefined;
  /**
   * Progress (cli/progress.ts): called with the packets executed so far and the program's total
   * every PROGRESS_EVENTS events. The event loop pays nothing for it per event (see runEvents).
   */
  readonly onProgress?: ((packets: number, total: number) => void) | undefined;
  /** The final state against the reference run (run.ts), checked when the run completed. */
  readonly finalCheck?: FinalCheck | undefined;
  /**
   * The checks somewhere else (check-log.ts: on another thread); undefined: on this thread. Not
   * used with `record` or `syncTrace`, whose hooks need the checks here.
   */
  readonly checks?:
    | ((p: PackedProgram, maxRaces: number, early?: EarlyChecks) => CheckSink | undefined)
    | undefined;
}

export interface Span {
  readonly queue: number;
  readonly name: string;
  readonly start: number;
  readonly end: number;
  readonly args: Readonly<Record<string, string | number>>;
}

export interface Instant {
  /** Queue index, or -1 for the host. */
  readonly queue: number;
  readonly name: string;
  readonly t: number;
}

export interface CounterSample {
  readonly link: string;
  readonly t: number;
  readonly GBps: number;
}

export interface Timeline {
  readonly spans: Span[];
  readonly instants: Instant[];
  readonly counters: CounterSample[];
  /** Host activity (control) as spans with queue -1. */
  readonly host: Span[];
  /** Waits, word writes and which write released each wait (trace/recorder.ts). */
  readonly sync: SyncRecording;
}

export interface EngineStats {
  readonly queue: string;
  readonly gpu: number;
  readonly engine: number;
  readonly busyUs: number;
  readonly packets: number;
}

export interface LinkStats {
  readonly src: number;
  readonly dst: number;
  readonly bytes: number;
  /** bytes / (usable bandwidth x total time). */
  readonly utilisation: number;
}

/** One direction of a GPU's host link (PCIe): bytes moved and their share of its bandwidth. */
export interface PcieStats {
  readonly gpu: number;
  readonly direction: "upload" | "download";
  readonly bytes: number;
  /** bytes / (usable bandwidth x total time). */
  readonly utilisation: number;
}

export interface ExecStats {
  readonly totalUs: number;
  /** When the host finished submitting (stored the last doorbell or the trigger). */
  readonly hostSubmitUs: number;
  readonly events: number;
  readonly packets: number;
  readonly engines: readonly EngineStats[];
  readonly links: readonly LinkStats[];
  /** Host links that carried bytes (uploads from and downloads to buffers `on host`). */
  readonly pcie: readonly PcieStats[];
  /** Bytes that crossed xGMI links (a broadcast to two peers counts twice, a swap both ways). */
  readonly peerBytes: number;
  readonly localBytes: number;
}

export interface ExecResult {
  readonly diagnostics: Diagnostic[];
  readonly stats: ExecStats;
  /** The provenance of every byte, when the checks ran on this thread. */
  readonly prov: ProvenanceState | undefined;
  /** The final state against the reference run (ExecOptions.finalCheck); undefined: unchecked. */
  readonly finalState: Diagnostic[] | undefined;
  /** True if every queue drained and the host saw every completion. */
  readonly completed: boolean;
  /**
   * True if the run deadlocked (DMAC6004) and every blocked queue waits on an external signal:
   * waits a monotonic producer cannot meet (external-signals.ts), not a fault of the streams.
   */
  readonly deadlockOnExternal: boolean;
  readonly timeline: Timeline | undefined;
  /** With ExecOptions.syncTrace: what every data command and signal write was ordered after. */
  readonly syncTrace: SyncTrace | undefined;
  /** A deadlock or the watchdog ended the run: what a host could read then (sim --snapshot). */
  readonly snapshot: Snapshot | undefined;
  /** A CUDA run with order draws: how many times streams tied for an engine (copy-engines.ts). */
  readonly engineTies: number;
}

const MAX_EVENTS = 200_000_000;
/** Races reported before the rest are only counted (ExecOptions.maxRaces). */
export const MAX_RACES = 20;
/** Events between two onProgress calls (a power of two; about 20 ms of a large run). */
const PROGRESS_EVENTS = 1 << 16;
const MAX_SIM_US = 1e9;

export function execute(program: SimProgram, opts: ExecOptions): ExecResult {
  const p = packProgram(program);
  // (Asked before the state is built: the checks' thread builds its own meanwhile.)
  const away =
    opts.record === true || opts.syncTrace === true
      ? undefined
      : opts.checks?.(p, opts.maxRaces ?? MAX_RACES);
  const x = createExecState(p, opts.model, opts);
  x.chk = away ?? inlineChecksOf(x, opts);
  watchCompletions(x);
  const { hostSubmitUs, doorbells } = submit(x);
  const producer = startProducer(x, opts.signalPeriodUs, opts.holdSignals === true);
  const { events, stopped } = runEvents(x, doorbells, producer, opts);
  x.chk.eventsDone();
  const { completed, deadlockOnExternal } = endOfRun(x, stopped, producer);
  const hung = x.diagnostics.some((d) => d.code === "DMAC6004" || d.code === "DMAC6008");
  const snapshot = hung
    ? snapshotOf(x, stopped !== undefined ? "watchdog" : "deadlock")
    : undefined;
  // Host detection: the first point of its poll grid at or after the last completion landed.
  // (Before the checks' end: it needs only the run, and the checks' thread may still be busy.)
  let total = x.now;
  if (completed) {
    if (x.cuda !== undefined) total = lastCompletion(x);
    else {
      total = completionScan(x, hostSubmitUs);
      if (p.completions.count === 0) total = Math.max(x.now, hostSubmitUs);
    }
    if (x.timeline)
      x.timeline.instants.push({ queue: -1, name: "host saw every completion", t: total });
  }
  // What only the end can tell: notifies missing, operations not moved exactly once; the final
  // state. Findings made elsewhere join the loop's in event order (check-log.ts).
  const checked = x.chk.finish(
    completed,
    x.diagnostics.some((d) => d.severity === "error"),
  );
  // (Positions the checks' thread stands in tokens for are placed here: check-log.ts.)
  const place = (s: string) => placeTokens(s, (q, at) => where(x, q, at));
  const diagnostics = checked.found ? mergeFound(x, checked.found, place) : x.diagnostics;
  const finalState = checked.finalState?.map((a) => diag("DMAC6001", undefined, [place(a)]));
  return {
    diagnostics,
    stats: statsOf(x, total, hostSubmitUs, events),
    prov: checked.prov,
    finalState,
    completed,
    deadlockOnExternal,
    timeline: x.timeline,
    syncTrace: checked.syncTrace,
    snapshot,
    engineTies: x.cuda?.order?.ties ?? 0,
  };
}

/** The checks of this run on this thread. */
function inlineChecksOf(x: ExecState, opts: ExecOptions): CheckSink {
  return inlineChecks(
    createCheckState({
      p: x.p,
      mem: x.mem,
      cmdBase: x.cmdBase,
      maxRaces: opts.maxRaces ?? MAX_RACES,
      syncTrace: opts.syncTrace === true,
      report: (code, args, hint) => report(x, code, args, hint),
      where: (q, at) => where(x, q, at),
      finalCheck: opts.finalCheck,
    }),
  );
}

/**
 * The loop's findings and those made elsewhere, in event order: a finding of the loop made after
 * `k` calls to the checks comes before what the checks found in call k (x.diagAt: check-log.ts).
 */
function mergeFound(
  x: ExecState,
  found: { readonly reports: readonly RawReport[]; readonly at: readonly number[] },
  place: (s: string) => string,
): Diagnostic[] {
  const theirs = (j: number): Diagnostic => {
    const r = found.reports[j]!;
    return diag(r.code as "DMAC6002", undefined, r.args.map(place) as [string, string], {
      hint: r.hint,
    });
  };
  const out: Diagnostic[] = [];
  const mine = x.diagnostics;
  let j = 0;
  for (let i = 0; i < mine.length; i++) {
    const at = x.diagAt[i]!;
    while (j < found.reports.length && found.at[j]! < at) out.push(theirs(j++));
    out.push(mine[i]!);
  }
  while (j < found.reports.length) out.push(theirs(j++));
  return out;
}

/**
 * The event loop: the earliest event (doorbells merged in from their own list) is dispatched to
 * its unit, until none is left or a watchdog stops the run (`stopped` says why). The loop itself
 * is eventSlice; it returns here at each progress point (every PROGRESS_EVENTS events) and at the
 * event watchdog. (Within one loop, that branch was first taken at event 65,537, after V8 had
 * compiled the loop without it: the compiled loop was thrown away and compiled again.)
 */
function runEvents(
  x: ExecState,
  db: ReturnType<typeof submit>["doorbells"],
  producer: Producer,
  opts: ExecOptions,
): { events: number; stopped: string | undefined } {
  const maxEvents = opts.maxEvents ?? MAX_EVENTS;
  const maxSim = opts.maxSimTimeUs ?? MAX_SIM_US;
  const late = `simulated time passed ${maxSim} us (--max-sim-time)`;
  // The one per-event test is `events > limit`, as without progress: the limit is the next
  // progress point when that comes before maxEvents.
  const progress = opts.onProgress;
  const packetsTotal = progress ? sumPackets(x) : 0;
  let limit = progress ? Math.min(maxEvents, PROGRESS_EVENTS) : maxEvents;
  const at: EventCursor = { events: 0, nextDb: 0, kind: 0, arg: 0 };
  for (;;) {
    const end = eventSlice(x, x.heap, db, producer, at, limit, maxSim);
    if (end === SLICE_DONE) return { events: at.events, stopped: undefined };
    if (end === SLICE_LATE) return { events: at.events, stopped: late };
    // Past the limit: the event taken (at.kind, at.arg) is counted and has not run.
    if (at.events > maxEvents)
      return {
        events: at.events,
        stopped: `more than ${maxEvents} events (raise --max-events if the schedule is really this large)`,
      };
    limit = Math.min(maxEvents, limit + PROGRESS_EVENTS);
    progress!(packetsDone(x), packetsTotal);
    if (x.now > maxSim) return { events: at.events, stopped: late };
    dispatch(x, db, producer, at.kind, at.arg);
  }
}

/** Where the event loop is: events taken, the next doorbell of the list, the last event taken. */
interface EventCursor {
  events: number;
  nextDb: number;
  kind: number;
  arg: number;
}

/** How eventSlice ended: past its limit (the event taken has not run), no event left, or late. */
const SLICE_LIMIT = 0;
const SLICE_DONE = 1;
const SLICE_LATE = 2;

/**
 * Takes and runs events until one takes the count past `limit` or is later than maxSim (both
 * counted, not run), or none is left. The cursor is written as it goes, so that the exits write
 * nothing: code V8 has never seen run (such as a store on the way out) ends compiled code.
 */
function eventSlice(
  x: ExecState,
  heap: EventHeap,
  db: ReturnType<typeof submit>["doorbells"],
  producer: Producer,
  at: EventCursor,
  limit: number,
  maxSim: number,
): number {
  // (The heap is an argument: a read of x.heap here, first made before V8 kept feedback for this
  // function, threw its compiled code away when the second slice entered it.)
  for (;;) {
    let kind: number;
    let arg: number;
    if (at.nextDb < db.time.length && heap.atOrBefore(db.time[at.nextDb]!)) {
      x.now = db.time[at.nextDb]!;
      kind = EV_DOORBELL;
      arg = at.nextDb++;
    } else if (heap.pop()) {
      x.now = heap.lastTime;
      kind = heap.lastKind;
      arg = heap.lastArg;
    } else return SLICE_DONE;
    at.kind = kind;
    at.arg = arg;
    if (++at.events > limit) return SLICE_LIMIT;
    if (x.now > maxSim) return SLICE_LATE;
    dispatch(x, db, producer, kind, arg);
  }
}

/** Runs one event: its unit takes it. */
function dispatch(
  x: ExecState,
  db: ReturnType<typeof submit>["doorbells"],
  producer: Producer,
  kind: number,
  arg: number,
): void {
  // A doorbell that wakes its engine is a step of that queue.
  let k = kind;
  let a = arg;
  if (k === EV_DOORBELL) {
    a = db.queue[arg]!;
    if (!doorbell(x, a, db.upTo[arg]!)) return;
    k = EV_STEP;
  }
  switch (k) {
    case EV_STEP:
      fetch(x, a);
      return;
    case EV_FLOW_START:
      startFlow(x, arg);
      return;
    case EV_FLOW_DONE:
      dataDone(x, arg);
      return;
    case EV_WORD_WRITE:
      applyWrite(x, arg);
      x.pending.free.push(arg);
      return;
    case EV_POLL_CHECK:
      pollCheck(x, arg);
      return;
    case EV_EXT_SIGNAL:
      producerTick(x, producer, arg);
      return;
    case EV_ENGINE_SERVE:
      serveNext(x, x.cuda!, arg);
      return;
    default:
      throw new Error(`unknown event kind ${k}`);
  }
}

/** Packets of the whole program (progress's total). */
function sumPackets(x: ExecState): number {
  let n = 0;
  for (let e = 0; e < x.C.n; e++) n += x.C.packets[e]!;
  return n;
}

/** Packets executed so far, over every queue. */
function packetsDone(x: ExecState): number {
  let n = 0;
  for (const r of x.runs) n += r.packets;
  return n;
}

/** The end of the run: the watchdog, deadlocks, queues that did not drain, missing completions. */
function endOfRun(
  x: ExecState,
  stopped: string | undefined,
  producer: Producer,
): { completed: boolean; deadlockOnExternal: boolean } {
  const { p, C, runs, Q } = x;
  if (stopped !== undefined) {
    const blocked = p.queues.map((_, q) => q).filter((q) => runs[q]!.state === Q_POLLING);
    report(x, "DMAC6008", [
      `${stopped}${blocked.length ? `; ${blocked.length} queue(s) were polling` : ""}`,
    ]);
    return { completed: false, deadlockOnExternal: false };
  }
  let completed = true;
  let deadlockOnExternal = false;
  const blocked: string[] = [];
  const blockedOn: number[] = [];
  for (let q = 0; q < Q; q++) {
    const r = runs[q]!;
    if (r.state !== Q_POLLING) continue;
    const e = x.cmdBase[q]! + r.pc;
    const addr = C.a[e]!;
    if (r.pollRetries !== Infinity) {
      // Nothing changed its word again: it gave up after its retries, before the end.
      pollTimeout(x, q, e);
      continue;
    }
    blockedOn.push(addr);
    const w = wordAt(x, addr);
    blocked.push(
      `${where(x, q, C.at[e]!)} waits for ${x.mem.region(w).name} (${hex(addr)}) ${POLL_FUNC_CODES[C.aux[e]!]!} ${C.value[e]!} but it is ${read32(x, w, halfOf(x, w, addr))}`,
    );
  }
  if (blocked.length > 0) {
    completed = false;
    deadlockOnExternal = blockedOn.every((addr) => producer.need.has(addr));
    report(
      x,
      "DMAC6004",
      [`${blocked.length} queue(s) blocked forever: ${blocked.join("; ")}`],
      deadlockOnExternal
        ? "the producer of an external signal is modelled as a counter that only grows (docs/model.md); these waits need it to stay low or go down"
        : "no queue and no host action left that could raise those words",
    );
  }
  for (let q = 0; q < Q; q++) {
    const r = runs[q]!;
    const { first, count } = p.queues[q]!;
    if (r.state === Q_FAULTED) {
      completed = false;
      report(x, "DMAC6005", [
        `${p.queues[q]!.name} stopped at ${where(x, q, C.at[first + r.pc]!)} after an error and did not drain (${count - r.pc} command(s) left)`,
      ]);
    }
  }
  let hint = -1;
  const cs = p.completions;
  const words = x.mem.words;
  for (let k = 0; k < cs.count; k++) {
    const wi = regionAtStart(x, cs.addr[k]!, hint);
    if (wi >= 0) hint = wi;
    const value = wi < 0 || words.isWord[wi] !== 1 ? undefined : words.value[wi];
    if (value === cs.done[k]) continue;
    const qi = cs.queue[k]!;
    if (qi >= 0 && runs[qi]!.state !== Q_DONE) continue; // already reported as stuck
    completed = false;
    const queue = p.queues[qi]?.name ?? "no queue";
    report(
      x,
      "DMAC6005",
      [
        `the host waits for completion signal ${hex(cs.addr[k]!)} of ${queue} to reach ${cs.done[k]!}, but it is ${value ?? "unmapped"} after ${queue} drained`,
      ],
      "every completion slot in the manifest needs one ATOMIC (or FENCE) packet that signals it",
    );
  }
  return { completed, deadlockOnExternal };
}

function statsOf(x: ExecState, total: number, hostSubmitUs: number, events: number): ExecStats {
  const { p, runs, flows, G, HBM, capacity } = x;
  if (x.cuda !== undefined) {
    // A CUDA target: its commands, and the bytes between GPUs (the engines, links and host links
    // are the fabric's, cuda-fabric.ts, not listed).
    let packets = 0;
    for (const r of runs) packets += r.packets;
    const peerBytes = peerBytesMoved(x.cuda.fabric, flows.moved);
    const none = { engines: [], links: [], pcie: [], localBytes: 0 };
    return { totalUs: total, hostSubmitUs, events, packets, peerBytes, ...none };
  }
  const engines: EngineStats[] = p.queues.map((queue, q) => ({
    queue: queue.name,
    gpu: queue.gpu,
    engine: queue.engine,
    busyUs: runs[q]!.busy,
    packets: runs[q]!.packets,
  }));
  const links: LinkStats[] = [];
  let peerBytes = 0;
  let localBytes = 0;
  for (let s = 0; s < G; s++) {
    localBytes += flows.moved[HBM + s]! / 2;
    for (let d = 0; d < G; d++) {
      if (s === d) continue;
      const bytes = flows.moved[s * G + d]!;
      peerBytes += bytes;
      if (bytes > 0)
        links.push({
          src: s,
          dst: d,
          bytes,
          utilisation: total > 0 ? bytes / (capacity[s * G + d]! * total) : 0,
        });
    }
  }
  const pcie: PcieStats[] = [];
  for (let g = 0; g < G; g++)
    for (const [k, direction] of [
      [0, "upload"],
      [1, "download"],
    ] as const) {
      const r = x.PCIE + 2 * g + k;
      const bytes = flows.moved[r]!;
      const cap = capacity[r]!;
      if (bytes > 0)
        pcie.push({
          gpu: g,
          direction,
          bytes,
          utilisation: total > 0 && cap > 0 ? bytes / (cap * total) : 0,
        });
    }
  return {
    totalUs: total,
    hostSubmitUs,
    events,
    packets: engines.reduce((a, e) => a + e.packets, 0),
    engines,
    links,
    pcie,
    peerBytes,
    localBytes,
  };
}
