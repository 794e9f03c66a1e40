// The executor's state, shared by its units (execute.ts wires them): the program, the clock, the
// event heap, every queue's engine state, the memory, the words in flight, the flows, and where
// findings go. Every unit is a set of functions over this one record (`x`), so each can be read
// alone and tested with a state built by createExecState.

import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { DiagnosticCode } from "../diagnostics/codes.js";
import { EventHeap } from "./heap.js";
import { createFlowSet, type Flow, type FlowLoad, type FlowSet } from "./flows.js";
import {
  createMemory,
  keepClocks,
  PENDING_ROWS,
  regionOf,
  regionStepped,
  type Memory,
} from "./memory.js";
import { bytesPerUs, type MachineModel } from "./model.js";
import {
  BAD,
  BCAST,
  CMD_KINDS,
  COPY,
  FILL,
  POLL,
  SWAP,
  type Commands,
  type PackedProgram,
} from "./program.js";
import { REGION_CODE, REGION_KINDS } from "./regions.js";

const SYNC = REGION_CODE.sync;
const SIGNAL = REGION_CODE.signal;
const TIMESTAMP_SLOT = REGION_CODE.timestamp;
const COMPLETION = REGION_CODE.completion;
import type { CheckSink } from "./checker.js";
import type { Timeline } from "./execute.js";
import { newSyncRecording } from "./trace/recorder.js";
import { createCopyEngines, type CopyEngines } from "./copy-engines.js";

/** Event kinds: what the event loop dispatches on (the event's arg is in the last column). */
export const EV_STEP = 0; // the engine of queue `arg` fetches its next command
export const EV_FLOW_START = 1; // queue `arg`'s data command starts moving bytes
export const EV_FLOW_DONE = 2; // queue `arg`'s flow may have finished (stale if rescheduled)
export const EV_WORD_WRITE = 3; // pending word write `arg` lands
export const EV_POLL_CHECK = 4; // queue `arg`'s poll re-reads its word
export const EV_DOORBELL = 5; // doorbell `arg` (host.ts) reaches its queue
export const EV_EXT_SIGNAL = 6; // the producer raises external signal `arg` by one
export const EV_ENGINE_SERVE = 7; // CUDA copy engine `arg` takes its next waiting stream

// An engine's state (engine.ts has the transitions), as plain numbers: the event loop reads
// them without a property load. (An enum is an object: V8 compiles a read of one of its members
// only once that read has run, and the first queue to reach a state late in the run threw the
// compiled event loop away.)
/** Nothing submitted to run: waits for a doorbell. */
export const Q_IDLE = 0;
/** Fetching or running a command (a step or flow event is pending). */
export const Q_BUSY = 1;
/** Blocked in POLL_REGMEM until its word meets the condition. */
export const Q_POLLING = 2;
/** Every command ran. */
export const Q_DONE = 3;
/** Stopped at a command it could not run. */
export const Q_FAULTED = 4;
/** The states by name (tests, reports). */
export const QState = {
  Idle: Q_IDLE,
  Busy: Q_BUSY,
  Polling: Q_POLLING,
  Done: Q_DONE,
  Faulted: Q_FAULTED,
} as const;
export type QState = (typeof QState)[keyof typeof QState];

export interface QueueRun {
  pc: number;
  submitted: number;
  state: QState;
  busy: number;
  packets: number;
  /** Start of the running command (for spans and busy time). */
  cmdStart: number;
  /** Current poll: first check time, re-check period, and re-checks allowed (Infinity: forever). */
  pollStart: number;
  pollPeriod: number;
  pollRetries: number;
  /**
   * When the bytes of the queue's previous command started flowing, if that command was a data
   * command that ran back to back with the next one (NaN otherwise): the engine fetches and starts
   * the next data packet while the previous one moves its bytes (docs/model.md, "back-to-back").
   */
  prevFlowStart: number;
  /** When the running data command's bytes started flowing. */
  flowStartedAt: number;
  /** The queue's one Flow object, reused by each of its data commands (one runs at a time). */
  flow: Flow;
  flowActive: boolean;
  flowDue: number;
  flowVer: number;
}

/** The data command a queue is running: its operands (up to three) and its flow's inputs. */
export interface Running {
  n: number;
  readonly gpu: Int32Array;
  readonly buffer: Int32Array;
  readonly offset: Float64Array;
  bytes: number;
  cap: number;
  /** Span name for the timeline (only built when recording). */
  name: string;
}

/**
 * Word writes in flight (FENCE/ATOMIC/TIMESTAMP latency, the trigger, the producer), as rows of
 * parallel arrays; a row is reused once its write landed (the event names the row).
 */
export interface PendingWrites {
  readonly region: number[];
  readonly half: number[];
  readonly kind: number[];
  readonly value: number[];
  readonly width: number[];
  readonly queue: number[];
  readonly free: number[];
}

/** Region hints per queue (ExecState.hints). */
export const HINTS = 6;

/** A pending write's kind: SET stores the value, ADD adds it. */
export const SET = 0;
export const ADD = 1;

/** Words a FENCE or ATOMIC may write, by region code (regions.ts). */
const WORD_WRITE_KIND = Uint8Array.from(REGION_KINDS, (k) =>
  k === "signal" || k === "sync" || k === "completion" || k === "trigger" ? 1 : 0,
);

/** Ranges a data command writes and accesses (reads + writes), by command kind. */
const RANGES_WRITTEN = new Uint8Array(CMD_KINDS.length);
const RANGES_ACCESSED = new Uint8Array(CMD_KINDS.length);
RANGES_WRITTEN[COPY] = 1;
RANGES_ACCESSED[COPY] = 2;
RANGES_WRITTEN[BCAST] = 2;
RANGES_ACCESSED[BCAST] = 3;
RANGES_WRITTEN[SWAP] = 2;
RANGES_ACCESSED[SWAP] = 2;
RANGES_WRITTEN[FILL] = 1;
RANGES_ACCESSED[FILL] = 1;

// ExecState.wordFlags bits.
/** A FENCE or ATOMIC may write it (a signal, sync, completion or trigger word). */
export const W_SIGNAL = 1;
/** A timestamp slot (TIMESTAMP writes it). */
export const W_TIMESTAMP = 2;
/** A completion slot. */
export const W_COMPLETION = 4;
/** In host memory (a write lands after hostSignalLatencyUs). */
export const W_HOST = 8;
/** A completion slot the host waits for (ExecState.completion). */
export const W_WATCHED = 16;
/** Some POLL reads it (only these can have waiting queues). */
export const W_POLLED = 32;
/** A sync word in host memory: a poll re-checks it after hostWordPollUs. */
export const W_HOST_SYNC = 64;
/** Its clock is kept (Words.clockRead): a write to any other word needs no snapshot. */
export const W_CLOCK = 128;

export interface ExecState {
  readonly p: PackedProgram;
  readonly C: Commands;
  readonly model: MachineModel;
  readonly T: MachineModel["timing"];
  readonly G: number;
  readonly Q: number;
  /** Vector-clock components of the host and of the external-signal producer. */
  readonly HOST: number;
  readonly PRODUCER: number;
  /** Global command id of queue q's first command (= its first row); cmdBase[Q] = rows. */
  readonly cmdBase: Int32Array;
  readonly mem: Memory;
  readonly heap: EventHeap;
  readonly diagnostics: Diagnostic[];
  /** Per diagnostic: how many calls the checks had been told of then (merging: execute.ts). */
  readonly diagAt: number[];
  readonly timeline: Timeline | undefined;
  /** Where the checks learn what happened (checker.ts); set by execute() before the run. */
  chk: CheckSink;
  /** Simulated time of the event being handled (us). */
  now: number;
  readonly runs: QueueRun[];
  readonly running: Running[];
  /** Per region: its GPU (-1: host memory; mem.gpu). */
  readonly regionGpu: Int32Array;
  /**
   * Per region, the W_* bits: what a signal write, a poll and a landing need to know of a word,
   * in one byte (a million words are each touched a few times, far apart: each column read
   * was a cache miss).
   */
  readonly wordFlags: Uint8Array;
  /**
   * Per queue, HINTS entries: the region each data operand (0-2), the last FENCE or TIMESTAMP
   * write (3), the last poll (4) and the last ATOMIC (5) hit last (regionOf gallops from it).
   */
  readonly hints: Int32Array;
  /** Per hint: how many regions on the last region found from it was (regionNear tries that). */
  readonly hintStep: Int32Array;
  /** The queues whose ring is known (writes into a ring are refused, DMAC6009). */
  readonly rings: readonly PackedProgram["queues"][number][];
  readonly pending: PendingWrites;
  /**
   * The queues polling each word region, in the order they began to wait: a list through
   * `waitNext` (a queue waits on one word at a time) from `waitHead` (-1: none).
   */
  readonly waitHead: Int32Array;
  readonly waitNext: Int32Array;
  /**
   * Per region i (W_WATCHED), side by side: at 2i the value the host waits for, at 2i + 1 when the
   * slot got there (NaN: not yet, or not since it changed again).
   */
  readonly completion: Float64Array;
  // Resources: per-direction links s*G+d (d != s), then HBM of each GPU (at HBM + g), then each
  // GPU's host link, upload at PCIE + 2g, download at PCIE + 2g + 1.
  readonly HBM: number;
  readonly PCIE: number;
  /** Per buffer id: 1 for pinned host memory (`on host`). */
  readonly bufferHost: Uint8Array;
  readonly capacity: Float64Array;
  readonly flows: FlowSet;
  readonly engineCap: number;
  readonly bcastCap: number;
  /** FlowLoad objects are immutable: one per (resource, weight) pair, shared by every flow. */
  readonly loadCache: (FlowLoad | undefined)[];
  /** Each link's last sampled rate (timeline counters). */
  readonly lastSample: Float64Array;
  /** A CUDA target's copy engines and host calls (copy-engines.ts); undefined: SDMA. */
  readonly cuda: CopyEngines | undefined;
  /**
   * How long a FENCE holds its queue after its packet: a CUDA write-value's stream goes on when
   * the write landed (flagUs); an SDMA engine goes on at once (0).
   */
  readonly fenceHoldUs: number;
}

/**
 * No checks: what a state built alone (in tests) has until execute() sets its checks, and what a
 * caller that wants only the time gives execute() (cuda-time.ts).
 */
export const NO_CHECKS: CheckSink = {
  calls: 0,
  data: () => {},
  signal: () => {},
  trigger: () => {},
  produce: () => {},
  landed: () => {},
  poll: () => {},
  eventsDone: () => {},
  finish: () => ({ finalState: undefined, prov: undefined, syncTrace: undefined }),
};

export function createExecState(
  p: PackedProgram,
  model: MachineModel,
  opts: {
    readonly record?: boolean | undefined;
    readonly maxRaces?: number | undefined;
    readonly syncTrace?: boolean | undefined;
    readonly engineOrderRun?: number | undefined;
  },
): ExecState {
  const C = p.cmds;
  const T = model.timing;
  const G = p.gpus;
  const Q = p.queues.length;
  const { cmdBase, mem } = memoryOf(p);
  const R = mem.starts.length;
  const HBM = G * G;
  const PCIE = G * G + G;
  const cuda = model.cuda && createCopyEngines(p, model.cuda, R, opts.engineOrderRun);
  // (A CUDA target's flows load the resources of its fabric: cuda-fabric.ts.)
  const capacity = cuda ? cuda.fabric.capacity : sdmaCapacity(model, G);
  // (From the program's named regions, the memory map's BUFFER regions: a branch for them in the
  // loop below, first taken after V8 had compiled it, threw that code away.)
  const bufferHost = new Uint8Array(p.bufferSizes.length);
  for (const r of p.regions)
    if (r.kind === "buffer" && r.host && r.buffer !== undefined) bufferHost[r.buffer] = 1;
  const wordFlags = new Uint8Array(R);
  for (let i = 0; i < R; i++) {
    const kind = mem.kind[i]!;
    const host = mem.gpu[i] === -1;
    wordFlags[i] =
      (WORD_WRITE_KIND[kind] === 1 ? W_SIGNAL : 0) |
      (kind === TIMESTAMP_SLOT ? W_TIMESTAMP : 0) |
      (kind === COMPLETION ? W_COMPLETION : 0) |
      (host ? W_HOST : 0) |
      (kind === SYNC && host ? W_HOST_SYNC : 0);
  }
  markClocksRead(mem, C, wordFlags, opts.syncTrace === true);
  return {
    p,
    C,
    model,
    T,
    G,
    Q,
    HOST: Q,
    PRODUCER: Q + 1,
    cmdBase,
    mem,
    heap: new EventHeap(),
    diagnostics: [],
    diagAt: [],
    timeline:
      opts.record === true
        ? { spans: [], instants: [], counters: [], host: [], sync: newSyncRecording() }
        : undefined,
    chk: NO_CHECKS,
    now: 0,
    runs: p.queues.map((_, q) => newRun(q)),
    running: p.queues.map(() =>
      asDoubles(
        {
          n: 0,
          gpu: new Int32Array(3),
          buffer: new Int32Array(3),
          offset: new Float64Array(3),
          bytes: DOUBLE,
          cap: DOUBLE,
          name: "",
        },
        ["bytes", "cap"],
      ),
    ),
    regionGpu: mem.gpu,
    wordFlags,
    hints: new Int32Array(Q * HINTS).fill(-1),
    hintStep: new Int32Array(Q * HINTS),
    rings: p.queues.filter((queue) => queue.ring !== undefined),
    pending: pendingRows(),
    waitHead: new Int32Array(R).fill(-1),
    waitNext: new Int32Array(Q).fill(-1),
    completion: new Float64Array(p.completions.count > 0 ? 2 * R : 0).fill(NaN),
    HBM,
    PCIE,
    bufferHost,
    capacity,
    flows: createFlowSet(capacity),
    engineCap: bytesPerUs(T.engineGBps),
    bcastCap: bytesPerUs(T.broadcastGBps),
    // Every (resource, weight) slot up front (weights 1 and 2, resource * 4 + weight): a read
    // past the end of a growing array throws compiled code away, as a fraction does (DOUBLE).
    loadCache: new Array<FlowLoad | undefined>((G * G + 3 * G) * 4).fill(undefined),
    lastSample: new Float64Array(G * G + 3 * G),
    cuda,
    fenceHoldUs: model.cuda ? model.cuda.timing.flagUs : 0,
  };
}

/**
 * The resources of an SDMA node: per-direction links s*G+d (d != s), then HBM of each GPU (at
 * HBM + g), then each GPU's host link, upload at PCIE + 2g, download at PCIE + 2g + 1.
 */
function sdmaCapacity(model: MachineModel, G: number): Float64Array {
  const HBM = G * G;
  const PCIE = G * G + G;
  const capacity = new Float64Array(G * G + 3 * G);
  for (let s = 0; s < G; s++)
    for (let d = 0; d < G; d++)
      capacity[s * G + d] = s === d ? 0 : bytesPerUs(model.links.usableGBps);
  for (let g = 0; g < G; g++) capacity[HBM + g] = bytesPerUs(model.timing.localCopyGBps);
  // A target without a "pcie" section gets no host-link capacity: run.ts refuses host buffers
  // for it before the run starts, so 0 here is never a flow's only bound.
  const pcieCap = model.pcie ? bytesPerUs(model.pcie.usableGBps) : 0;
  for (let k = 0; k < 2 * G; k++) capacity[PCIE + k] = pcieCap;
  return capacity;
}

/**
 * A value that makes a new object's number field a double from the start (asDoubles then sets
 * it to 0). V8 first types a field set to 0 as a small integer; the first fraction stored there
 * changes the object's shape, and every optimised function that read the old shape is thrown
 * away and compiled again: on the 262,144-copy all-to-all the event loop was compiled four times
 * (~15 ms of a compiler thread each, on a machine whose two cores the run's threads already
 * fill).
 */
const DOUBLE = 0.5;

/** o with each of `fields` (made with DOUBLE) set to 0, its double representation kept. */
function asDoubles<T extends object>(o: T, fields: readonly (keyof T)[]): T {
  for (const f of fields) (o as Record<keyof T, unknown>)[f] = 0;
  return o;
}

/**
 * The table of writes in flight with PENDING_ROWS rows made and free, taken in the order a table
 * growing from empty would have numbered them (0, 1, ...: the free list pops its last). A row
 * appended past the end, first made after V8 had compiled the engine's signal, threw it away
 * ("out of bounds"); the values are made doubles (DOUBLE) where a write's value may be one.
 */
function pendingRows(): PendingWrites {
  // (Push loops: Array.from's generic path cost more than the run of a small program.)
  const rows = (v: number): number[] => {
    const a: number[] = [];
    for (let k = 0; k < PENDING_ROWS; k++) a.push(v);
    return a;
  };
  const value = rows(DOUBLE);
  value.fill(0);
  return {
    region: rows(0),
    half: rows(0),
    kind: rows(0),
    value,
    width: rows(0),
    queue: rows(0),
    free: rows(0).map((_, k) => PENDING_ROWS - 1 - k),
  };
}

/** Queue q's engine before its first doorbell. */
function newRun(q: number): QueueRun {
  // (loads made to hold objects from the start: an empty literal holds small integers, and the
  // first load pushed into each queue's array changed it, which threw away the compiled routing.)
  const loads: FlowLoad[] = [{ resource: 0, weight: 0 }];
  loads.pop();
  const flow = asDoubles(
    { id: q, loads, cap: DOUBLE, remaining: DOUBLE, rate: DOUBLE, version: 0 },
    ["cap", "remaining", "rate"],
  );
  const run: QueueRun = {
    pc: 0,
    submitted: 0,
    state: Q_IDLE,
    busy: DOUBLE,
    packets: 0,
    cmdStart: DOUBLE,
    pollStart: DOUBLE,
    pollPeriod: DOUBLE,
    pollRetries: Infinity,
    prevFlowStart: NaN,
    flowStartedAt: DOUBLE,
    flow,
    flowActive: false,
    flowDue: DOUBLE,
    flowVer: -1,
  };
  return asDoubles(run, [
    "busy",
    "cmdStart",
    "pollStart",
    "pollPeriod",
    "flowStartedAt",
    "flowDue",
  ]);
}

/** Each queue's first row (cmdBase[Q] = rows) and the program's memory (createMemory). */
function memoryOf(p: PackedProgram): { cmdBase: Int32Array; mem: Memory } {
  const C = p.cmds;
  const Q = p.queues.length;
  const cmdBase = new Int32Array(Q + 1);
  for (let q = 0; q < Q; q++) cmdBase[q] = p.queues[q]!.first;
  cmdBase[Q] = C.n;
  const commandQueue = new Int32Array(C.n);
  for (let q = 0; q < Q; q++) commandQueue.fill(q, cmdBase[q]!, cmdBase[q]! + p.queues[q]!.count);
  let writes = 0;
  let accesses = 0;
  for (let e = 0; e < C.n; e++) {
    writes += RANGES_WRITTEN[C.kind[e]!]!;
    accesses += RANGES_ACCESSED[C.kind[e]!]!;
  }
  return { cmdBase, mem: createMemory(p, commandQueue, writes, accesses) };
}

/**
 * The memory the checks keep on another thread (check-thread.ts): as createExecState's, with
 * the clocks of the same words kept.
 */
export function checkMemory(p: PackedProgram): { cmdBase: Int32Array; mem: Memory } {
  const m = memoryOf(p);
  markClocksRead(m.mem, p.cmds, new Uint8Array(m.mem.starts.length), false);
  return m;
}

/**
 * The words whose clock anything reads (Words.clockRead): those a POLL row reads (W_POLLED too),
 * user signals (the meaning checks) and, with the sync trace, every word.
 */
function markClocksRead(mem: Memory, C: Commands, flags: Uint8Array, all: boolean): void {
  // (A function per loop: a loop reached after V8 compiled the one before it, for a function run
  // once, has no feedback yet, and threw the compiled code away.)
  const read = mem.words.clockRead;
  for (let i = 0; i < read.length; i++)
    if (all || mem.kind[i] === SIGNAL) read[i] = mem.words.isWord[i]!;
  markPolled(mem, C, flags);
  if (markClocks(read, flags)) keepClocks(mem.words);
}

/** The words POLL rows read: clockRead and W_POLLED. */
function markPolled(mem: Memory, C: Commands, flags: Uint8Array): void {
  const read = mem.words.clockRead;
  let hint = -1;
  for (let e = 0; e < C.n; e++) {
    if (C.kind[e] !== POLL) continue;
    const i = regionOf(mem, C.a[e]!, 4, hint);
    if (i < 0) continue;
    hint = i;
    read[i] = 1;
    flags[i]! |= W_POLLED;
  }
}

/** W_CLOCK on every word whose clock is read; false: none. */
function markClocks(read: Uint8Array, flags: Uint8Array): boolean {
  let kept = false;
  for (let i = 0; i < read.length; i++)
    if (read[i] === 1) {
      flags[i]! |= W_CLOCK;
      kept = true;
    }
  return kept;
}

/** regionOf(addr, bytes) from hint h (x.hints, x.hintStep): regionStepped. */
export function regionNear(x: ExecState, h: number, addr: number, bytes: number): number {
  return regionStepped(x.mem, addr, bytes, x.hints, x.hintStep, h);
}

// ---- reporting ---------------------------------------------------------------------------------

/** A queue position as reports show it: `gpu0.sdma2 +0x1c (file.dmac:3:5)`. */
export function where(x: ExecState, q: number, at: number): string {
  const queue = x.p.queues[q]!;
  const pos = queue.position === "byte" ? `+0x${at.toString(16)}` : `#${at}`;
  const src = x.p.locate?.(q, at);
  return `${queue.name} ${pos}${src ? ` (${src})` : ""}`;
}

/** The position of command row e of queue q. */
export const whereCmd = (x: ExecState, q: number, e: number): string => where(x, q, x.C.at[e]!);

export function report(
  x: ExecState,
  code: DiagnosticCode,
  args: readonly string[],
  hint?: string,
): void {
  x.diagnostics.push(diag(code as "DMAC6002", undefined, args as [string, string], { hint }));
  x.diagAt.push(x.chk.calls);
}

/** The command of row e as reports name it. */
export const cmdName = (x: ExecState, e: number): string =>
  x.C.kind[e] === BAD ? "packet" : CMD_KINDS[x.C.kind[e]!]!.toUpperCase();
