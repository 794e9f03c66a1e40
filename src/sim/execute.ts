// The discrete-event core of the executor: runs every queue of a SimProgram concurrently on the
// machine model, moving provenance intervals (never bytes), checking every access, detecting data
// races with vector clocks, and timing everything. Returns findings as Diagnostics plus statistics
// and (on request) a timeline for the Chrome trace.
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
//
// Happens-before: each queue keeps a vector clock. A data command's access is stamped with a
// fresh clock value of its queue but ordered only after the queue's last FENCE/ATOMIC/TIMESTAMP
// (consecutive data commands may overlap on the engine); fences publish the queue's clock into
// the word, polls join the clock of the word they read.

import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { DiagnosticCode } from "../diagnostics/codes.js";
import {
  fillRange,
  readRange,
  singleSource,
  writeSegments,
  writeSource,
  type ProvenanceState,
} from "../ir/provenance.js";
import { EventHeap } from "./heap.js";
import { externalTarget, type ExternalWait } from "./external-signals.js";
import {
  addFlow,
  advance,
  createFlowSet,
  removeFlow,
  finishTime,
  reshare,
  reshareAlone,
  type Flow,
  type FlowLoad,
  type FlowSet,
} from "./flows.js";
import {
  createMemory,
  describeRegion,
  hex,
  joinWordClock,
  recordAccess,
  regionIndex,
  regionOf,
  resolve,
  wordWriteClock,
  type Conflict,
  type Memory,
} from "./memory.js";
import { bytesPerUs, type MachineModel } from "./model.js";
import { createSemantics, holds, type SyncTrace } from "./semantics.js";
import {
  ATOMIC,
  BAD,
  BCAST,
  CMD_KINDS,
  COPY,
  FENCE,
  FILL,
  NOP,
  packProgram,
  POLL,
  POLL_FUNC_CODES,
  SWAP,
  TIMESTAMP,
  type SimProgram,
  type SimRegion,
} from "./program.js";

export interface ExecOptions {
  readonly model: MachineModel;
  /** Raise each external signal by one every this many microseconds (default: all at time 0). */
  readonly signalPeriodUs?: number | undefined;
  readonly maxEvents?: number | undefined;
  readonly maxSimTimeUs?: number | undefined;
  /** Record the timeline (spans, instants, link counters) for a Chrome trace. */
  readonly record?: boolean | undefined;
  /** Stop reporting races after this many (default 20). */
  readonly maxRaces?: number | undefined;
  /** Record the sync trace (semantics.ts): for the fuzzers' equivalence oracle. */
  readonly syncTrace?: boolean | undefined;
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

export interface ExecStats {
  readonly totalUs: number;
  /** When the host finished submitting (stored the last doorbell or the trigger). */
  readonly hostSubmitUs: number;
  readonly events: number;
  readonly packets: number;
  readonly engines: readonly EngineStats[];
  readonly links: readonly LinkStats[];
  /** Bytes that crossed xGMI links (a broadcast to two peers counts twice, a swap both ways). */
  readonly peerBytes: number;
  readonly localBytes: number;
}

export interface ExecResult {
  readonly diagnostics: Diagnostic[];
  readonly stats: ExecStats;
  readonly prov: ProvenanceState;
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
}

const EV_STEP = 0;
const EV_FLOW_START = 1;
const EV_FLOW_DONE = 2;
const EV_WORD_WRITE = 3;
const EV_POLL_CHECK = 4;
const EV_DOORBELL = 5;
const EV_EXT_SIGNAL = 6;

const enum QState {
  Idle,
  Busy,
  Polling,
  Done,
  Faulted,
}

interface QueueRun {
  pc: number;
  submitted: number;
  state: QState;
  vc: Int32Array;
  clock: number;
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
  /**
   * A copy of vc taken since the last join that changed it, shared by the word writes issued
   * meanwhile (null: take a new one). Only vc[own queue] moves between joins (fences advance
   * it), so a write carries (snapshot, clock) instead of a copy of its own.
   */
  snap: number[] | null;
}

/** The data command a queue is running: its operands (up to three) and its flow's inputs. */
interface Running {
  n: number;
  readonly gpu: Int32Array;
  readonly buffer: Int32Array;
  readonly offset: Float64Array;
  readonly writes: Uint8Array;
  bytes: number;
  cap: number;
  /** Span name for the timeline (only built when recording). */
  name: string;
}

/** A plain-array copy of a vector clock (allocating a small array is far cheaper than a typed one). */
function snapshot(vc: Int32Array): number[] {
  const out = new Array<number>(vc.length);
  for (let i = 0; i < vc.length; i++) out[i] = vc[i]!;
  return out;
}

const SET = 0;
const ADD = 1;

const WORD_WRITE_KINDS: ReadonlySet<SimRegion["kind"]> = new Set([
  "signal",
  "sync",
  "completion",
  "trigger",
]);

const MAX_EVENTS = 200_000_000;
const MAX_SIM_US = 1e9;

export function execute(program: SimProgram, opts: ExecOptions): ExecResult {
  const p = packProgram(program);
  const C = p.cmds;
  const model = opts.model;
  const T = model.timing;
  const G = p.gpus;
  const Q = p.queues.length;
  const HOST = Q;
  const PRODUCER = Q + 1;
  // Global command ids (provenance writers, race reports): queue q's entry i is cmdBase[q] + i.
  const cmdBase = new Int32Array(Q + 1);
  for (let q = 0; q < Q; q++) cmdBase[q] = p.queues[q]!.first;
  cmdBase[Q] = C.n;
  const commandQueue = new Int32Array(cmdBase[Q]!);
  for (let q = 0; q < Q; q++) commandQueue.fill(q, cmdBase[q]!, cmdBase[q + 1]!);
  const mem: Memory = createMemory(p, commandQueue);
  const heap = new EventHeap();
  const diagnostics: Diagnostic[] = [];
  const maxEvents = opts.maxEvents ?? MAX_EVENTS;
  const maxSim = opts.maxSimTimeUs ?? MAX_SIM_US;
  const maxRaces = opts.maxRaces ?? 20;
  const record = opts.record === true;
  const timeline: Timeline | undefined = record
    ? { spans: [], instants: [], counters: [], host: [] }
    : undefined;

  // Resources: per-direction links s*G+d (d != s), then HBM of each GPU.
  const HBM = G * G;
  const capacity = new Float64Array(G * G + G);
  for (let s = 0; s < G; s++)
    for (let d = 0; d < G; d++)
      capacity[s * G + d] = s === d ? 0 : bytesPerUs(model.links.usableGBps);
  for (let g = 0; g < G; g++) capacity[HBM + g] = bytesPerUs(T.localCopyGBps);
  const flows: FlowSet = createFlowSet(capacity);
  const engineCap = bytesPerUs(T.engineGBps);
  const bcastCap = bytesPerUs(T.broadcastGBps);

  const runs: QueueRun[] = p.queues.map((_, q) => ({
    pc: 0,
    submitted: 0,
    state: QState.Idle,
    vc: new Int32Array(Q + 2),
    clock: 0,
    busy: 0,
    packets: 0,
    cmdStart: 0,
    pollStart: 0,
    pollPeriod: 0,
    pollRetries: Infinity,
    prevFlowStart: NaN,
    flowStartedAt: 0,
    flow: { id: q, loads: [], cap: 0, remaining: 0, rate: 0, version: 0 },
    flowActive: false,
    flowDue: 0,
    flowVer: -1,
    snap: null,
  }));
  const running: Running[] = p.queues.map(() => ({
    n: 0,
    gpu: new Int32Array(3),
    buffer: new Int32Array(3),
    offset: new Float64Array(3),
    writes: new Uint8Array(3),
    bytes: 0,
    cap: 0,
    name: "",
  }));

  // Word writes in flight (FENCE/ATOMIC/TIMESTAMP latency, the trigger), as rows of parallel
  // arrays; a row is reused once its write landed (the event names the row).
  const pwRegion: number[] = [];
  const pwHalf: number[] = [];
  const pwKind: number[] = [];
  const pwValue: number[] = [];
  const pwWidth: number[] = [];
  const pwVc: ArrayLike<number>[] = [];
  const pwClock: number[] = [];
  const pwQueue: number[] = [];
  const pwFree: number[] = [];
  const pendingWrite = (
    region: number,
    half: number,
    kind: number,
    value: number,
    width: number,
    vc: ArrayLike<number>,
    clock: number,
    queue: number,
  ): number => {
    const i = pwFree.length > 0 ? pwFree.pop()! : pwRegion.length;
    pwRegion[i] = region;
    pwHalf[i] = half;
    pwKind[i] = kind;
    pwValue[i] = value;
    pwWidth[i] = width;
    pwVc[i] = vc;
    pwClock[i] = clock;
    pwQueue[i] = queue;
    return i;
  };
  const R = mem.regions.length;
  const waiting: (number[] | undefined)[] = new Array<number[] | undefined>(R); // polling queues
  const completionDone = new Float64Array(R).fill(NaN); // value the host waits for
  const completionSeen = new Float64Array(R).fill(NaN); // time it reached that value
  // Doorbells are known up front and in time order (the host submits queue after queue), so
  // they stay out of the heap: the loop merges this list with it. They were the first events
  // scheduled, so on a tie in time a doorbell goes before any heap event (as it did when pushed).
  const dbQueue: number[] = [];
  const dbUpTo: number[] = [];
  const dbTime: number[] = [];
  let events = 0;
  let now = 0;
  let races = 0;
  let stopped: string | undefined;

  // ---- reporting -------------------------------------------------------------------------
  const where = (q: number, at: number): string => {
    const queue = p.queues[q]!;
    const pos = queue.position === "byte" ? `+0x${at.toString(16)}` : `#${at}`;
    const src = p.locate?.(q, at);
    return `${queue.name} ${pos}${src ? ` (${src})` : ""}`;
  };
  const report = (code: DiagnosticCode, args: readonly string[], hint?: string): void => {
    diagnostics.push(diag(code as "DMAC6002", undefined, args as [string, string], { hint }));
  };
  /** The command of row i as reports name it. */
  const cmdName = (i: number): string =>
    C.kind[i] === BAD ? "packet" : CMD_KINDS[C.kind[i]!]!.toUpperCase();
  // The schedule's meaning (notify, when, completion slots: semantics.ts), when the IR is known.
  const sem = createSemantics({
    p,
    mem,
    cmdBase,
    report: (at, detail, hint) => report("DMAC6013", [at, detail], hint),
    where,
    meaning: p.meaning,
    record: opts.syncTrace === true,
  });

  // ---- memory checks ---------------------------------------------------------------------
  /**
   * Resolves operand `k` of the data command queue q is starting to a buffer instance (into
   * running[q]); reports and returns false when invalid.
   */
  const dataOperand = (
    q: number,
    e: number,
    addr: number,
    bytes: number,
    role: string,
    writes: boolean,
    k: number,
  ): boolean => {
    const i = regionOf(mem, addr, bytes, hints[q * 4 + k]!);
    if (i >= 0 && mem.bufferOf[i]! >= 0 && (!writes || rings.length === 0)) {
      // The common case, without touching the region object.
      hints[q * 4 + k] = i;
      const run = running[q]!;
      run.gpu[k] = regionGpu[i]!;
      run.buffer[k] = mem.bufferOf[i]!;
      run.offset[k] = addr - mem.starts[i]!;
      run.writes[k] = writes ? 1 : 0;
      return true;
    }
    const region = i < 0 ? undefined : mem.regions[i]!;
    if (region === undefined) {
      const r = resolve(mem, addr, bytes);
      const error = "error" in r ? r.error : "?";
      report("DMAC6002", [where(q, C.at[e]!), `${cmdName(e)} ${role} ${error}; not executed`]);
      return false;
    }
    if (region.kind !== "buffer" || region.buffer === undefined || region.gpu === null) {
      report("DMAC6002", [
        where(q, C.at[e]!),
        `${cmdName(e)} ${role} [${hex(addr)}, +${bytes}) is in ${describeRegion(region)}, not a buffer; not executed`,
      ]);
      return false;
    }
    if (writes && ringHit(addr, bytes, q, e)) return false;
    hints[q * 4 + k] = i;
    const run = running[q]!;
    run.gpu[k] = region.gpu;
    run.buffer[k] = region.buffer;
    run.offset[k] = addr - region.addr;
    run.writes[k] = writes ? 1 : 0;
    return true;
  };
  const regionGpu = new Int32Array(mem.regions.length);
  // Per region: its GPU (-1: host memory), whether FENCE/ATOMIC may write it, is it a timestamp slot.
  const signalWord = new Uint8Array(mem.regions.length);
  const timestampSlot = new Uint8Array(mem.regions.length);
  for (let i = 0; i < mem.regions.length; i++) {
    const r = mem.regions[i]!;
    regionGpu[i] = r.gpu ?? -1;
    if (WORD_WRITE_KINDS.has(r.kind)) signalWord[i] = 1;
    if (r.kind === "timestamp") timestampSlot[i] = 1;
  }
  /** Per queue: the region each data operand (0-2) and the last signal write (3) hit last. */
  const hints = new Int32Array(Q * 4).fill(-1);
  const rings = p.queues.filter((queue) => queue.ring !== undefined);
  const ringHit = (addr: number, bytes: number, q: number, e: number): boolean => {
    for (const queue of rings) {
      const ring = queue.ring!;
      if (addr < ring.addr + ring.bytes && ring.addr < addr + bytes) {
        report("DMAC6009", [
          where(q, C.at[e]!),
          `${cmdName(e)} writes [${hex(addr)}, +${bytes}) inside the ring of ${queue.name}; not executed`,
        ]);
        return true;
      }
    }
    return false;
  };
  const misaligned = (q: number, e: number, detail: string): void => {
    report("DMAC6006", [where(q, C.at[e]!), `${detail}; not executed`]);
  };

  // ---- vector clocks and races -------------------------------------------------------------
  const race = (q: number, e: number, k: number, c: Conflict, writes: boolean): void => {
    races++;
    if (races > maxRaces) return;
    const run = running[q]!;
    const eq = c.earlier.queue;
    const other =
      eq < Q ? where(eq, C.at[c.earlier.cmd]!) : eq === HOST ? "the host" : "the signal producer";
    const buffer = run.buffer[k]!;
    const name = p.bufferNames[buffer] ?? `buffer ${buffer}`;
    report(
      "DMAC6003",
      [
        `${where(q, C.at[e]!)} ${writes ? "writes" : "reads"} ${name}@${run.gpu[k]!}[${c.start} .. ${c.end}) while ${other} ${c.earlierWrites ? "writes" : "reads"} it, and nothing orders the two`,
      ],
      "order them with a fence on the first queue and a poll on the second, or make them touch different bytes",
    );
  };
  /** Records the access of operand k of the command `cmd` queue q runs; reports a race. */
  const touch = (q: number, e: number, cmd: number, k: number, writes: boolean): void => {
    const run = running[q]!;
    const buffer = run.buffer[k]!;
    const lo = run.offset[k]!;
    const c = recordAccess(
      mem,
      run.gpu[k]!,
      buffer,
      p.bufferSizes[buffer]!,
      lo,
      lo + run.bytes,
      cmd,
      runs[q]!.vc,
      writes,
    );
    if (c) race(q, e, k, c, writes);
  };

  // ---- flows -------------------------------------------------------------------------------
  // FlowLoad objects are immutable: one per (resource, weight) pair, shared by every flow.
  const loadCache: (FlowLoad | undefined)[] = [];
  const loadOf = (resource: number, weight: number): FlowLoad => {
    const key = resource * 4 + weight;
    let l = loadCache[key];
    if (l === undefined) {
      l = { resource, weight };
      loadCache[key] = l;
    }
    return l;
  };
  const linkLoads = (from: number, to: number, weight: number, out: FlowLoad[]): void => {
    if (from === to) out.push(loadOf(HBM + from, 2 * weight));
    else out.push(loadOf(from * G + to, weight));
  };
  /** Resources a transfer src -> dst driven by GPU drv uses (data passes through the driver). */
  const route = (src: number, dst: number, drv: number, weight: number, out: FlowLoad[]): void => {
    if (src === dst || drv === src || drv === dst) linkLoads(src, dst, weight, out);
    else {
      linkLoads(src, drv, weight, out);
      linkLoads(drv, dst, weight, out);
    }
  };
  const sampleLinks = (): void => {
    if (!timeline) return;
    for (let s = 0; s < G; s++)
      for (let d = 0; d < G; d++) {
        if (s === d) continue;
        const r = s * G + d;
        const gbps = flows.load[r]! / 1e3;
        const prev = lastSample[r]!;
        if (prev !== gbps) {
          lastSample[r] = gbps;
          timeline.counters.push({ link: `gpu${s}->gpu${d}`, t: now, GBps: gbps });
        }
      }
  };
  const lastSample = new Float64Array(G * G);
  const rescheduleFlow = (f: Flow): void => {
    const q = f.id;
    const r = runs[q]!;
    if (r.flowDue >= 0 && r.flowVer === f.version) return; // rate unchanged: event still valid
    const due = finishTime(flows, f);
    r.flowVer = f.version;
    if (due !== r.flowDue) {
      r.flowDue = due;
      if (due !== Infinity) heap.push(due, EV_FLOW_DONE, q);
    }
  };
  const rescheduleFlows = (changed: Flow, added: boolean): void => {
    if (reshareAlone(flows, changed, added)) {
      // Only the changed flow's rate can have moved (and only if it was just added).
      if (added) rescheduleFlow(changed);
    } else {
      reshare(flows);
      const active = flows.active;
      for (let i = 0; i < active.length; i++) rescheduleFlow(active[i]!);
    }
    sampleLinks();
  };

  // ---- words ------------------------------------------------------------------------------
  // A word is named by its region index; `half` is 4 for the high dword of a 64-bit word.
  /** The word region holding [addr, addr + 4), or -1. */
  const wordAt = (addr: number): number => {
    const i = regionOf(mem, addr, 4);
    return i >= 0 && mem.words.isWord[i] === 1 ? i : -1;
  };
  const halfOf = (i: number, addr: number): number => (addr - mem.regions[i]!.addr === 4 ? 4 : 0);
  const read32 = (i: number, half: number): number => {
    const value = mem.words.value[i]!;
    return half === 4 ? Math.floor(value / 4294967296) >>> 0 : (value % 4294967296) >>> 0;
  };

  const applyWrite = (w: number): void => {
    const i = pwRegion[w]!;
    const region = mem.regions[i]!;
    const words = mem.words;
    let v0 = words.value[i]!;
    const before = v0;
    const value = pwValue[w]!;
    const width = pwWidth[w]!;
    if (pwKind[w] === SET) {
      if (width === 32) {
        const hi = Math.floor(v0 / 4294967296);
        const lo = v0 % 4294967296;
        v0 = pwHalf[w] === 4 ? (value >>> 0) * 4294967296 + lo : hi * 4294967296 + (value >>> 0);
      } else v0 = value;
    } else if (width === 32) {
      v0 = (v0 + value) >>> 0;
    } else {
      let v = v0 + value;
      if (v < 0) v += 18446744073709551616;
      v0 = v % 18446744073709551616;
    }
    const queue = pwQueue[w]!;
    words.value[i] = v0;
    wordWriteClock(words, i, pwVc[w]!, queue, pwClock[w]!);
    const c = completionDone[i]!; // NaN unless a completion slot
    if (!Number.isNaN(c)) completionSeen[i] = v0 === c ? now : NaN;
    sem?.wordLanded(w, i, queue, pwKind[w] === ADD, value);
    if (timeline)
      timeline.instants.push({
        queue: queue < Q ? queue : -1,
        name: `${region.name} = ${v0}`,
        t: now,
      });
    if (v0 !== before) wake(i);
  };
  const wake = (i: number): void => {
    const list = waiting[i];
    if (!list || list.length === 0) return;
    waiting[i] = undefined;
    for (const q of list) {
      const r = runs[q]!;
      const k = Math.ceil((now - r.pollStart) / r.pollPeriod - 1e-9);
      heap.push(r.pollStart + Math.max(0, k) * r.pollPeriod, EV_POLL_CHECK, q);
    }
  };
  /** Index of the region that starts exactly at addr, or -1 (hint: see regionOf). */
  const regionAtStart = (addr: number, hint = -1): number => {
    const i = regionOf(mem, addr, 0, hint);
    const j = i >= 0 ? i : regionIndex(mem, addr);
    return j >= 0 && mem.regions[j]!.addr === addr ? j : -1;
  };
  let lastSlot = -1;
  for (const c of p.completions) {
    const i = regionAtStart(c.addr, lastSlot);
    if (i >= 0) lastSlot = i;
    if (i >= 0 && mem.regions[i]!.kind === "completion") completionDone[i] = c.done;
  }

  // ---- the engine --------------------------------------------------------------------------
  const finishCmd = (
    q: number,
    t: number,
    span?: { name: string; args: Record<string, string | number> },
  ): void => {
    const r = runs[q]!;
    r.busy += t - r.cmdStart;
    r.packets += C.packets[cmdBase[q]! + r.pc]!;
    if (timeline && span)
      timeline.spans.push({
        queue: q,
        name: span.name,
        start: r.cmdStart,
        end: t,
        args: span.args,
      });
    r.pc++;
    r.state = QState.Busy;
    heap.push(t, EV_STEP, q);
  };

  const step = (q: number): void => {
    const r = runs[q]!;
    const queue = p.queues[q]!;
    if (r.pc >= queue.count) {
      r.state = QState.Done;
      return;
    }
    if (r.pc >= r.submitted) {
      r.state = QState.Idle;
      return;
    }
    const e = queue.first + r.pc;
    const addr = C.a[e]!;
    r.cmdStart = now;
    r.state = QState.Busy;
    const afterPacket = now + T.enginePacketUs;
    const prevFlowStart = r.prevFlowStart;
    r.prevFlowStart = NaN;
    const kind = C.kind[e]!;
    switch (kind) {
      case NOP:
        r.prevFlowStart = prevFlowStart; // padding does not break a back-to-back run
        r.packets += C.packets[e]!;
        r.pc++;
        heap.push(now, EV_STEP, q);
        return;
      case BAD:
        report("DMAC6007", [where(q, C.at[e]!), `${C.detail.get(e)}; the queue stops here`]);
        r.state = QState.Faulted;
        return;
      case COPY:
      case BCAST:
      case SWAP:
      case FILL:
        startData(q, e, kind, prevFlowStart);
        return;
      case POLL: {
        const w = wordAt(addr);
        if (w < 0 || addr % 4 !== 0) {
          const res = resolve(mem, addr, 4);
          const detail =
            addr % 4 !== 0
              ? `POLL_REGMEM address ${hex(addr)} is not dword aligned`
              : "error" in res
                ? `POLL_REGMEM reads ${res.error}`
                : `POLL_REGMEM reads ${describeRegion(res.region)} at ${hex(addr)}, which is not a signal, sync or completion word`;
          report(addr % 4 !== 0 ? "DMAC6006" : "DMAC6010", [
            where(q, C.at[e]!),
            `${detail}; the queue stops here`,
          ]);
          r.state = QState.Faulted;
          return;
        }
        r.pollStart = afterPacket;
        r.pollPeriod = (C.bytes[e]! * 16) / T.sdmaClockMHz + T.pollRepollUs;
        if (r.pollPeriod <= 0) r.pollPeriod = 1e-3;
        r.pollRetries = C.c[e]! < 0 ? Infinity : C.c[e]!;
        r.state = QState.Polling;
        heap.push(afterPacket, EV_POLL_CHECK, q);
        return;
      }
      case FENCE:
      case ATOMIC:
      case TIMESTAMP: {
        const width = kind === ATOMIC ? C.aux[e]! : kind === TIMESTAMP ? 64 : 32;
        const bytes = width / 8;
        const i = regionOf(mem, addr, bytes, hints[q * 4 + 3]!);
        if (i >= 0) hints[q * 4 + 3] = i;
        const align = kind === TIMESTAMP ? 8 : width === 64 ? 8 : 4;
        const okKind = i >= 0 && (kind === TIMESTAMP ? timestampSlot[i] : signalWord[i]) === 1;
        if (addr % align !== 0) {
          misaligned(q, e, `${cmdName(e)} address ${hex(addr)} is not ${align}-byte aligned`);
        } else if (i < 0) {
          const res = resolve(mem, addr, bytes);
          const error = "error" in res ? res.error : "?";
          report("DMAC6002", [where(q, C.at[e]!), `${cmdName(e)} writes ${error}; not executed`]);
        } else if (!okKind) {
          const wantRegion =
            kind === TIMESTAMP ? "a timestamp slot" : "a signal, sync or completion word";
          report("DMAC6002", [
            where(q, C.at[e]!),
            `${cmdName(e)} writes ${describeRegion(mem.regions[i]!)} at ${hex(addr)}, not ${wantRegion}; not executed`,
          ]);
        } else if (!ringHit(addr, bytes, q, e)) {
          // The write waits for all earlier work of the queue (sequential here), so it publishes
          // the queue's whole history: advance the queue's own clock component.
          r.clock++;
          r.vc[q] = r.clock;
          if (r.snap === null) r.snap = snapshot(r.vc);
          const latency = regionGpu[i] === -1 ? T.hostSignalLatencyUs : T.gpuSignalLatencyUs;
          const w =
            kind === TIMESTAMP
              ? pendingWrite(i, 0, SET, Math.floor(afterPacket * 100), 64, r.snap, r.clock, q)
              : kind === FENCE
                ? pendingWrite(i, halfOf(i, addr), SET, C.value[e]! >>> 0, 32, r.snap, r.clock, q)
                : pendingWrite(i, 0, ADD, C.value[e]!, width, r.snap, r.clock, q);
          if (sem && kind !== TIMESTAMP) sem.wordWriteIssued(q, r.pc, i, r.vc, w);
          heap.push(afterPacket + latency, EV_WORD_WRITE, w);
        }
        finishCmd(
          q,
          afterPacket,
          timeline && {
            name: kind === TIMESTAMP ? "TIMESTAMP" : `${cmdName(e)} ${hex(addr)}`,
            args: { at: C.at[e]! },
          },
        );
        return;
      }
      default:
        throw new Error(`command kind ${kind}`);
    }
  };

  /** Reports (DMAC6012) operands j and k of queue q's data command if their bytes overlap. */
  const overlapping = (q: number, e: number, j: number, k: number, what: string): boolean => {
    const bytes = C.bytes[e]!;
    const run = running[q]!;
    if (run.gpu[j] !== run.gpu[k] || run.buffer[j] !== run.buffer[k]) return false;
    const a = run.offset[j]!;
    const b = run.offset[k]!;
    if (a + bytes <= b || b + bytes <= a) return false;
    const buffer = run.buffer[j]!;
    const name = `${p.bufferNames[buffer] ?? `buffer ${buffer}`}@${run.gpu[j]!}`;
    report(
      "DMAC6012",
      [
        where(q, C.at[e]!),
        `${cmdName(e)} ${what} overlap: ${name}[${a} +: ${bytes}] and ${name}[${b} +: ${bytes}]; not executed`,
      ],
      "the engine's result is undefined when a packet's ranges overlap; split the transfer so they are disjoint",
    );
    return true;
  };

  const startData = (q: number, e: number, kind: number, prevFlowStart: number): void => {
    const queue = p.queues[q]!;
    const skip = (): void => finishCmd(q, now + T.enginePacketUs);
    const bytes = C.bytes[e]!;
    if (bytes <= 0) {
      report("DMAC6007", [where(q, C.at[e]!), `${cmdName(e)} of ${bytes} bytes`]);
      return skip();
    }
    const drv = queue.gpu;
    const r = runs[q]!;
    const run = running[q]!;
    const loads: FlowLoad[] = r.flow.loads;
    while (loads.length > 0) loads.pop(); // (no allocation, unlike a new array)
    let cap = engineCap;
    const g = run.gpu;
    switch (kind) {
      case COPY: {
        const s = dataOperand(q, e, C.a[e]!, bytes, "source", false, 0);
        const d = dataOperand(q, e, C.b[e]!, bytes, "destination", true, 1);
        if (!s || !d) return skip();
        if (overlapping(q, e, 0, 1, "source and destination")) return skip();
        run.n = 2;
        route(g[0]!, g[1]!, drv, 1, loads);
        if (timeline) run.name = `copy gpu${g[0]!}->gpu${g[1]!}`;
        break;
      }
      case BCAST: {
        const dst = C.b[e]!;
        const dst2 = C.c[e]!;
        if ((dst & 31) !== (dst2 & 31)) {
          misaligned(
            q,
            e,
            `broadcast destinations ${hex(dst)} and ${hex(dst2)} differ in their low 5 bits`,
          );
          return skip();
        }
        const s = dataOperand(q, e, C.a[e]!, bytes, "source", false, 0);
        const d = dataOperand(q, e, dst, bytes, "destination 1", true, 1);
        const d2 = dataOperand(q, e, dst2, bytes, "destination 2", true, 2);
        if (!s || !d || !d2) return skip();
        if (
          overlapping(q, e, 1, 2, "destinations") ||
          overlapping(q, e, 0, 1, "source and destination 1") ||
          overlapping(q, e, 0, 2, "source and destination 2")
        )
          return skip();
        run.n = 3;
        // One read, two writes: each destination's link carries the bytes once; the engine
        // writes 2 x bytes at most at broadcastGBps in all.
        route(g[0]!, g[1]!, drv, 1, loads);
        route(g[0]!, g[2]!, drv, 1, loads);
        cap = Math.min(engineCap, bcastCap) / 2;
        if (timeline) run.name = `bcast gpu${g[0]!}->gpu${g[1]!},gpu${g[2]!}`;
        break;
      }
      case SWAP: {
        const sa = C.a[e]!;
        const sb = C.b[e]!;
        if (sa % 64 !== 0 || sb % 64 !== 0) {
          misaligned(q, e, `swap addresses ${hex(sa)} and ${hex(sb)} must be 64-byte aligned`);
          return skip();
        }
        const a = dataOperand(q, e, sa, bytes, "side A", true, 0);
        const b = dataOperand(q, e, sb, bytes, "side B", true, 1);
        if (!a || !b) return skip();
        if (overlapping(q, e, 0, 1, "halves")) return skip();
        run.n = 2;
        // Both directions of the link carry the bytes; the engine moves 2 x bytes.
        route(g[0]!, g[1]!, drv, 1, loads);
        route(g[1]!, g[0]!, drv, 1, loads);
        cap = engineCap / 2;
        if (timeline) run.name = `swap gpu${g[0]!}<->gpu${g[1]!}`;
        break;
      }
      case FILL: {
        const d = dataOperand(q, e, C.a[e]!, bytes, "destination", true, 0);
        if (!d) return skip();
        run.n = 1;
        if (g[0] === drv) loads.push(loadOf(HBM + drv, 1));
        else loads.push(loadOf(drv * G + g[0]!, 1));
        if (timeline) run.name = `fill gpu${g[0]!}`;
        break;
      }
      default:
        throw new Error(`data command kind ${kind}`);
    }
    run.bytes = bytes;
    run.cap = cap;
    // Back to back after another data packet, this packet was fetched and started while that
    // one moved its bytes: its bytes flow as soon as the engine is free, but no sooner than
    // backToBackUs after the previous packet's bytes began (the engine's issue rate).
    const start = Number.isNaN(prevFlowStart)
      ? now + T.enginePacketUs + T.copyStartupUs
      : Math.max(now, prevFlowStart + T.backToBackUs);
    heap.push(start, EV_FLOW_START, q);
  };

  const flowStart = (q: number): void => {
    const run = running[q]!;
    const r = runs[q]!;
    advance(flows, now);
    const f = r.flow;
    r.flowStartedAt = now;
    f.cap = run.cap;
    f.remaining = run.bytes;
    f.rate = 0;
    r.flowActive = true;
    r.flowDue = -1;
    addFlow(flows, f);
    rescheduleFlows(f, true);
  };

  const flowDone = (q: number): void => {
    const r = runs[q]!;
    const f = r.flow;
    if (!r.flowActive || r.flowDue !== now) return; // stale completion event
    const run = running[q]!;
    advance(flows, now);
    f.remaining = 0;
    removeFlow(flows, f);
    for (const l of f.loads) flows.moved[l.resource]! += run.bytes * l.weight;
    r.flowActive = false;
    rescheduleFlows(f, false);
    // Apply the command's effect: race checks, then the provenance move.
    const cmd = cmdBase[q]! + r.pc;
    const e = cmd;
    r.clock++;
    mem.epochClock[cmd] = r.clock;
    for (let k = 0; k < run.n; k++) if (!run.writes[k]) touch(q, e, cmd, k, false);
    for (let k = 0; k < run.n; k++) if (run.writes[k]) touch(q, e, cmd, k, true);
    const st = mem.prov;
    const g = run.gpu;
    const b = run.buffer;
    const o = run.offset;
    const n = run.bytes;
    const kind = C.kind[cmd]!;
    switch (kind) {
      case COPY: {
        // Usually the source range is one segment: move it without the temporary lists.
        const one = singleSource(st, g[0]!, b[0]!, o[0]!, n);
        if (one !== undefined) writeSource(st, g[1]!, b[1]!, o[1]!, n, one, cmd);
        else
          writeSegments(st, g[1]!, b[1]!, o[1]!, o[0]!, readRange(st, g[0]!, b[0]!, o[0]!, n), cmd);
        break;
      }
      case BCAST: {
        const one = singleSource(st, g[0]!, b[0]!, o[0]!, n);
        if (one !== undefined) {
          writeSource(st, g[1]!, b[1]!, o[1]!, n, one, cmd);
          writeSource(st, g[2]!, b[2]!, o[2]!, n, one, cmd);
          break;
        }
        const segs = readRange(st, g[0]!, b[0]!, o[0]!, n);
        writeSegments(st, g[1]!, b[1]!, o[1]!, o[0]!, segs, cmd);
        writeSegments(st, g[2]!, b[2]!, o[2]!, o[0]!, segs, cmd);
        break;
      }
      case SWAP: {
        const sa = readRange(st, g[0]!, b[0]!, o[0]!, n);
        const sb = readRange(st, g[1]!, b[1]!, o[1]!, n);
        writeSegments(st, g[0]!, b[0]!, o[0]!, o[1]!, sb, cmd);
        writeSegments(st, g[1]!, b[1]!, o[1]!, o[0]!, sa, cmd);
        break;
      }
      case FILL:
        fillRange(st, g[0]!, b[0]!, o[0]!, n, C.value[cmd]! & 0xff, cmd);
        break;
      default:
        throw new Error(`flow for ${kind}`);
    }
    sem?.dataDone(q, r.pc, cmd, g, b, o, r.vc);
    r.prevFlowStart = r.flowStartedAt; // the next command, if a data packet, ran back to back
    finishCmd(q, now, timeline && { name: run.name, args: { bytes: n, at: C.at[e]! } });
  };

  const pollCheck = (q: number): void => {
    const r = runs[q]!;
    if (r.state !== QState.Polling) return;
    const e = cmdBase[q]! + r.pc;
    const addr = C.a[e]!;
    const w = wordAt(addr);
    // The poll gives up after its retries (grid point `retries` was its last check).
    const k = Math.round((now - r.pollStart) / r.pollPeriod);
    if (k > r.pollRetries) return pollTimeout(q, e);
    const raw = read32(w, halfOf(w, addr));
    const v = (raw & C.b[e]!) >>> 0;
    if (holds(POLL_FUNC_CODES[C.aux[e]!]!, v, C.value[e]! >>> 0)) {
      if (joinWordClock(r.vc, mem.words, w)) r.snap = null;
      if (sem?.observes(w)) {
        // Seeing a user signal is an event `when` guards are ordered after: a fresh epoch.
        r.clock++;
        sem.observed(q, w, raw, r.clock);
      }
      if (timeline)
        timeline.instants.push({
          queue: q,
          name: `poll ${mem.regions[w]!.name} ${POLL_FUNC_CODES[C.aux[e]!]!} ${C.value[e]!} satisfied`,
          t: now,
        });
      // A poll's packet cost is busy time; the wait is not.
      r.cmdStart = now - T.enginePacketUs;
      finishCmd(q, now);
      return;
    }
    if (k >= r.pollRetries) return pollTimeout(q, e);
    const list = waiting[w];
    if (list) list.push(q);
    else waiting[w] = [q];
  };

  const pollTimeout = (q: number, e: number): void => {
    const addr = C.a[e]!;
    const w = wordAt(addr);
    report(
      "DMAC6014",
      [
        where(q, C.at[e]!),
        `POLL_REGMEM on ${mem.regions[w]!.name} (${hex(addr)}) ${POLL_FUNC_CODES[C.aux[e]!]!} ${C.value[e]!} gave up after its ${runs[q]!.pollRetries} retries (the word is ${read32(w, halfOf(w, addr))})`,
      ],
      "a retry count of 0xFFF polls forever; any other count is a timeout, and the queue stops",
    );
    runs[q]!.state = QState.Faulted;
  };

  // ---- the host and the producer -----------------------------------------------------------
  let hostT = 0;
  let hostHint = -1;
  if (p.trigger) {
    for (let q = 0; q < Q; q++) {
      runs[q]!.submitted = p.queues[q]!.count;
      heap.push(0, EV_STEP, q);
    }
    hostT = T.triggerStoreUs;
    const tw = wordAt(p.trigger.addr);
    if (tw >= 0) {
      const vc = new Int32Array(Q + 2);
      vc[HOST] = 1;
      const w = pendingWrite(tw, halfOf(tw, p.trigger.addr), SET, p.trigger.value, 32, vc, 0, HOST);
      heap.push(hostT + T.gpuSignalLatencyUs, EV_WORD_WRITE, w);
    }
    if (timeline)
      timeline.host.push({ queue: -1, name: "trigger store", start: 0, end: hostT, args: {} });
  } else {
    for (let q = 0; q < Q; q++) {
      const { first, count } = p.queues[q]!;
      const start = hostT;
      for (let i = 0; i < count; i++) {
        const e = first + i;
        hostT += T.hostPacketUs * C.packets[e]!;
        if (i === count - 1 || signalsHost(e)) {
          hostT += T.hostDoorbellUs;
          dbQueue.push(q);
          dbUpTo.push(i + 1);
          dbTime.push(hostT + T.doorbellLatencyUs);
        }
      }
      if (timeline && count > 0)
        timeline.host.push({
          queue: -1,
          name: `submit ${p.queues[q]!.name}`,
          start,
          end: hostT,
          args: { packets: count },
        });
    }
  }
  const hostSubmitUs = hostT;
  function signalsHost(e: number): boolean {
    if (C.kind[e] !== FENCE && C.kind[e] !== ATOMIC) return false;
    const i = regionOf(mem, C.a[e]!, 4, hostHint);
    if (i >= 0) hostHint = i;
    return i >= 0 && mem.regions[i]!.kind === "completion";
  }

  // External signals: a monotonic producer raises each to the smallest value meeting every
  // wait a monotonic counter can meet (external-signals.ts), at time 0 or by one every
  // signalPeriodUs.
  const extWaits = new Map<number, ExternalWait[]>();
  for (const addr of p.externalSignals) extWaits.set(addr, []);
  if (extWaits.size > 0)
    for (let e = 0; e < C.n; e++)
      if (C.kind[e] === POLL)
        extWaits
          .get(C.a[e]!)
          ?.push({ func: POLL_FUNC_CODES[C.aux[e]!]!, value: C.value[e]!, mask: C.b[e]! });
  const extNeed = new Map<number, number>();
  for (const [addr, waits] of extWaits) extNeed.set(addr, externalTarget(waits));
  const extAddrs = [...extNeed.keys()];
  const producerVc = new Int32Array(Q + 2);
  const raiseExternal = (i: number, to: number): void => {
    const addr = extAddrs[i]!;
    const w = wordAt(addr);
    if (w < 0) return;
    producerVc[PRODUCER]!++;
    const row = pendingWrite(w, halfOf(w, addr), SET, to, 32, producerVc.slice(), 0, PRODUCER);
    applyWrite(row);
    pwFree.push(row);
  };
  const period = opts.signalPeriodUs;
  extAddrs.forEach((addr, i) => {
    const need = extNeed.get(addr)!;
    if (need === 0) return;
    if (period !== undefined && period > 0) heap.push(period, EV_EXT_SIGNAL, i);
    else raiseExternal(i, need);
  });

  // ---- the event loop ----------------------------------------------------------------------
  let nextDb = 0;
  for (;;) {
    let kind: number;
    let arg: number;
    if (nextDb < dbTime.length && dbTime[nextDb]! <= heap.peekTime()) {
      now = dbTime[nextDb]!;
      kind = EV_DOORBELL;
      arg = nextDb++;
    } else if (heap.pop()) {
      now = heap.lastTime;
      kind = heap.lastKind;
      arg = heap.lastArg;
    } else break;
    if (++events > maxEvents) {
      stopped = `more than ${maxEvents} events (raise --max-events if the schedule is really this large)`;
      break;
    }
    if (now > maxSim) {
      stopped = `simulated time passed ${maxSim} us (--max-sim-time)`;
      break;
    }
    switch (kind) {
      case EV_STEP:
        step(arg);
        break;
      case EV_FLOW_START:
        flowStart(arg);
        break;
      case EV_FLOW_DONE:
        flowDone(arg);
        break;
      case EV_WORD_WRITE: {
        applyWrite(arg);
        pwFree.push(arg);
        break;
      }
      case EV_POLL_CHECK:
        pollCheck(arg);
        break;
      case EV_DOORBELL: {
        const dq = dbQueue[arg]!;
        const r = runs[dq]!;
        r.submitted = Math.max(r.submitted, dbUpTo[arg]!);
        if (r.state === QState.Idle) {
          r.state = QState.Busy;
          step(dq);
        }
        break;
      }
      case EV_EXT_SIGNAL: {
        const addr = extAddrs[arg]!;
        const w = wordAt(addr);
        const next = read32(w, halfOf(w, addr)) + 1;
        raiseExternal(arg, next);
        if (next < extNeed.get(addr)!) heap.push(now + period!, EV_EXT_SIGNAL, arg);
        break;
      }
      default:
        throw new Error(`unknown event kind ${kind}`);
    }
  }
  if (races > maxRaces) report("DMAC6003", [`${races - maxRaces} more races not shown`]);

  // ---- the end: watchdog, deadlock, drain, completion --------------------------------------
  let completed = true;
  let deadlockOnExternal = false;
  if (stopped !== undefined) {
    completed = false;
    const blocked = p.queues.map((_, q) => q).filter((q) => runs[q]!.state === QState.Polling);
    report("DMAC6008", [
      `${stopped}${blocked.length ? `; ${blocked.length} queue(s) were polling` : ""}`,
    ]);
  } else {
    const blocked: string[] = [];
    const blockedOn: number[] = [];
    for (let q = 0; q < Q; q++) {
      const r = runs[q]!;
      if (r.state !== QState.Polling) continue;
      const e = cmdBase[q]! + r.pc;
      const addr = C.a[e]!;
      if (r.pollRetries !== Infinity) {
        // Nothing changed its word again: it gave up after its retries, before the end.
        pollTimeout(q, e);
        continue;
      }
      blockedOn.push(addr);
      const w = wordAt(addr);
      blocked.push(
        `${where(q, C.at[e]!)} waits for ${mem.regions[w]!.name} (${hex(addr)}) ${POLL_FUNC_CODES[C.aux[e]!]!} ${C.value[e]!} but it is ${read32(w, halfOf(w, addr))}`,
      );
    }
    if (blocked.length > 0) {
      completed = false;
      deadlockOnExternal = blockedOn.every((addr) => extNeed.has(addr));
      report(
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
      if (r.state === QState.Faulted) {
        completed = false;
        report("DMAC6005", [
          `${p.queues[q]!.name} stopped at ${where(q, C.at[first + r.pc]!)} after an error and did not drain (${count - r.pc} command(s) left)`,
        ]);
      }
    }
    for (const c of p.completions) {
      const wi = regionAtStart(c.addr);
      const value = wi < 0 || mem.words.isWord[wi] !== 1 ? undefined : mem.words.value[wi];
      if (value === c.done) continue;
      const qi = p.queues.findIndex((x) => x.name === c.queue);
      if (qi >= 0 && runs[qi]!.state !== QState.Done) continue; // already reported as stuck
      completed = false;
      report(
        "DMAC6005",
        [
          `the host waits for completion signal ${hex(c.addr)} of ${c.queue} to reach ${c.done}, but it is ${value ?? "unmapped"} after ${c.queue} drained`,
        ],
        "every completion slot in the manifest needs one ATOMIC (or FENCE) packet that signals it",
      );
    }
  }
  // What only the end can tell: notifies missing, operations not moved exactly once.
  sem?.finish(completed && !diagnostics.some((d) => d.severity === "error"));

  // Host detection: the first point of its poll grid at or after the last completion landed.
  let total = now;
  if (completed) {
    total = hostCompletionScan();
    if (p.completions.length === 0) total = Math.max(now, hostSubmitUs);
    if (timeline)
      timeline.instants.push({ queue: -1, name: "host saw every completion", t: total });
  }

  /**
   * The host waits for its completion slots one after another, in manifest order (as DMA-Latte
   * does after submitting everything): it spins on a slot every hostPollIntervalUs until the slot
   * holds its final value, and each read of a slot in host memory costs hostSlotReadUs. So a
   * schedule with many queues (many slots) pays for every slot even when all landed long ago.
   */
  function hostCompletionScan(): number {
    const P = T.hostPollIntervalUs;
    let t = hostSubmitUs;
    let lastSlot = -1;
    for (const c of p.completions) {
      const i = regionAtStart(c.addr, lastSlot);
      if (i >= 0) lastSlot = i;
      const landed = i >= 0 ? completionSeen[i]! : NaN;
      if (!Number.isNaN(landed) && landed > t) t += Math.ceil((landed - t) / P - 1e-9) * P;
      t += T.hostSlotReadUs;
    }
    return t;
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
  return {
    diagnostics,
    stats: {
      totalUs: total,
      hostSubmitUs,
      events,
      packets: engines.reduce((a, e) => a + e.packets, 0),
      engines,
      links,
      peerBytes,
      localBytes,
    },
    prov: mem.prov,
    completed,
    deadlockOnExternal,
    timeline,
    syncTrace: sem?.trace,
  };
}
