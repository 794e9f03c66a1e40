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
import { fillRange, readRange, writeSegments, type ProvenanceState } from "../ir/provenance.js";
import { assertNever } from "../util/assert-never.js";
import { EventHeap } from "./heap.js";
import {
  advance,
  createFlowSet,
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
  recordAccess,
  resolve,
  type Epoch,
  type Memory,
  type WordState,
} from "./memory.js";
import { bytesPerUs, type MachineModel } from "./model.js";
import type { PollFunc, SimCmd, SimEntry, SimProgram, SimRegion } from "./program.js";

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
  readonly timeline: Timeline | undefined;
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
  /** Current poll: first check time and re-check period. */
  pollStart: number;
  pollPeriod: number;
  flow: Flow | null;
  flowDue: number;
  flowVer: number;
}

interface PendingWrite {
  readonly addr: number;
  readonly region: SimRegion;
  readonly half: 0 | 4;
  readonly kind: "set" | "add";
  readonly value: number;
  readonly width: 32 | 64;
  readonly vc: Int32Array;
  readonly queue: number;
}

interface DataAccess {
  readonly gpu: number;
  readonly buffer: number;
  readonly offset: number;
}

const MAX_EVENTS = 200_000_000;
const MAX_SIM_US = 1e9;

export function execute(p: SimProgram, opts: ExecOptions): ExecResult {
  const model = opts.model;
  const T = model.timing;
  const G = p.gpus;
  const Q = p.queues.length;
  const HOST = Q;
  const PRODUCER = Q + 1;
  const mem: Memory = createMemory(p);
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

  const runs: QueueRun[] = p.queues.map(() => ({
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
    flow: null,
    flowDue: 0,
    flowVer: -1,
  }));
  // Global command ids (provenance writers, race reports): queue q's entry i is cmdBase[q] + i.
  const cmdBase = new Int32Array(Q + 1);
  for (let q = 0; q < Q; q++) cmdBase[q + 1] = cmdBase[q]! + p.queues[q]!.entries.length;

  const pendingWrites: (PendingWrite | undefined)[] = [];
  const waiting = new Map<number, number[]>(); // word address -> polling queues
  const completionSeen = new Map<number, number>(); // completion addr -> time it reached done
  const doorbells: { queue: number; upTo: number }[] = [];
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
  const cmdName = (c: SimCmd): string => (c.kind === "bad" ? "packet" : c.kind.toUpperCase());

  // ---- memory checks ---------------------------------------------------------------------
  /** Resolves a data operand to a buffer instance; reports and returns undefined when invalid. */
  const dataOperand = (
    q: number,
    e: SimEntry,
    addr: number,
    bytes: number,
    role: string,
    writes: boolean,
  ): DataAccess | undefined => {
    const r = resolve(mem, addr, bytes);
    if ("error" in r) {
      report("DMAC6002", [where(q, e.at), `${cmdName(e.cmd)} ${role} ${r.error}; not executed`]);
      return undefined;
    }
    if (r.region.kind !== "buffer" || r.region.buffer === undefined || r.region.gpu === null) {
      report("DMAC6002", [
        where(q, e.at),
        `${cmdName(e.cmd)} ${role} [${hex(addr)}, +${bytes}) is in ${describeRegion(r.region)}, not a buffer; not executed`,
      ]);
      return undefined;
    }
    if (writes && ringHit(addr, bytes, q, e)) return undefined;
    return { gpu: r.region.gpu, buffer: r.region.buffer, offset: r.offset };
  };
  const ringHit = (addr: number, bytes: number, q: number, e: SimEntry): boolean => {
    for (let k = 0; k < Q; k++) {
      const ring = p.queues[k]!.ring;
      if (ring && addr < ring.addr + ring.bytes && ring.addr < addr + bytes) {
        report("DMAC6009", [
          where(q, e.at),
          `${cmdName(e.cmd)} writes [${hex(addr)}, +${bytes}) inside the ring of ${p.queues[k]!.name}; not executed`,
        ]);
        return true;
      }
    }
    return false;
  };
  const misaligned = (q: number, e: SimEntry, detail: string): void => {
    report("DMAC6006", [where(q, e.at), `${detail}; not executed`]);
  };

  // ---- vector clocks and races -------------------------------------------------------------
  const race = (
    q: number,
    e: SimEntry,
    who: Epoch,
    acc: DataAccess,
    c: { earlier: Epoch; earlierWrites: boolean; start: number; end: number },
    writes: boolean,
  ): void => {
    races++;
    if (races > maxRaces) return;
    const eq = c.earlier.queue;
    const other =
      eq < Q
        ? where(eq, p.queues[eq]!.entries[c.earlier.cmd - cmdBase[eq]!]!.at)
        : eq === HOST
          ? "the host"
          : "the signal producer";
    const name = p.bufferNames[acc.buffer] ?? `buffer ${acc.buffer}`;
    report(
      "DMAC6003",
      [
        `${where(q, e.at)} ${writes ? "writes" : "reads"} ${name}@${acc.gpu}[${c.start} .. ${c.end}) while ${other} ${c.earlierWrites ? "writes" : "reads"} it, and nothing orders the two`,
      ],
      "order them with a fence on the first queue and a poll on the second, or make them touch different bytes",
    );
    void who;
  };
  const touch = (
    q: number,
    e: SimEntry,
    who: Epoch,
    acc: DataAccess,
    bytes: number,
    writes: boolean,
  ): void => {
    const size = p.bufferSizes[acc.buffer]!;
    const c = recordAccess(
      mem,
      acc.gpu,
      acc.buffer,
      size,
      acc.offset,
      acc.offset + bytes,
      who,
      runs[q]!.vc,
      writes,
    );
    if (c) race(q, e, who, acc, c, writes);
  };

  // ---- flows -------------------------------------------------------------------------------
  const linkLoads = (from: number, to: number, weight: number, out: FlowLoad[]): void => {
    if (from === to) out.push({ resource: HBM + from, weight: 2 * weight });
    else out.push({ resource: from * G + to, weight });
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
  const rescheduleFlows = (changed: Flow, added: boolean): void => {
    if (!reshareAlone(flows, changed, added)) reshare(flows);
    for (const f of flows.active) {
      const q = f.id;
      const r = runs[q]!;
      if (r.flowDue >= 0 && r.flowVer === f.version) continue; // rate unchanged: event still valid
      const due = finishTime(flows, f);
      r.flowVer = f.version;
      if (due !== r.flowDue) {
        r.flowDue = due;
        if (due !== Infinity) heap.push(due, EV_FLOW_DONE, q);
      }
    }
    sampleLinks();
  };

  // ---- words ------------------------------------------------------------------------------
  const wordOf = (
    addr: number,
  ): { state: WordState; region: SimRegion; half: 0 | 4 } | undefined => {
    const r = resolve(mem, addr, 4);
    if ("error" in r) return undefined;
    const state = mem.words.get(r.region.addr);
    if (!state) return undefined;
    return { state, region: r.region, half: r.offset === 4 ? 4 : 0 };
  };
  const read32 = (w: { state: WordState; half: 0 | 4 }): number =>
    w.half === 4
      ? Math.floor(w.state.value / 4294967296) >>> 0
      : (w.state.value % 4294967296) >>> 0;

  const joinInto = (dst: Int32Array, src: Int32Array | null): void => {
    if (!src) return;
    for (let i = 0; i < dst.length; i++) if (src[i]! > dst[i]!) dst[i] = src[i]!;
  };

  const applyWrite = (w: PendingWrite): void => {
    const state = mem.words.get(w.region.addr)!;
    const before = state.value;
    if (w.kind === "set") {
      if (w.width === 32) {
        const hi = Math.floor(state.value / 4294967296);
        const lo = state.value % 4294967296;
        state.value =
          w.half === 4 ? (w.value >>> 0) * 4294967296 + lo : hi * 4294967296 + (w.value >>> 0);
      } else state.value = w.value;
    } else if (w.width === 32) {
      state.value = (state.value + w.value) >>> 0;
    } else {
      let v = state.value + w.value;
      if (v < 0) v += 18446744073709551616;
      state.value = v % 18446744073709551616;
    }
    if (state.vc === null) state.vc = new Int32Array(Q + 2);
    joinInto(state.vc, w.vc);
    if (w.region.kind === "completion") {
      const c = completionByAddr.get(w.region.addr);
      if (c !== undefined) {
        if (state.value === c) completionSeen.set(w.region.addr, now);
        else completionSeen.delete(w.region.addr);
      }
    }
    if (timeline)
      timeline.instants.push({
        queue: w.queue < Q ? w.queue : -1,
        name: `${w.region.name} = ${state.value}`,
        t: now,
      });
    if (state.value !== before) wake(w.region.addr);
  };
  const wake = (regionAddr: number): void => {
    const list = waiting.get(regionAddr);
    if (!list || list.length === 0) return;
    waiting.delete(regionAddr);
    for (const q of list) {
      const r = runs[q]!;
      const k = Math.ceil((now - r.pollStart) / r.pollPeriod - 1e-9);
      heap.push(r.pollStart + Math.max(0, k) * r.pollPeriod, EV_POLL_CHECK, q);
    }
  };
  const completionByAddr = new Map<number, number>();
  for (const c of p.completions) completionByAddr.set(c.addr, c.done);

  const holds = (func: PollFunc, v: number, ref: number): boolean => {
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

  // ---- the engine --------------------------------------------------------------------------
  const finishCmd = (
    q: number,
    t: number,
    span?: { name: string; args: Record<string, string | number> },
  ): void => {
    const r = runs[q]!;
    const e = p.queues[q]!.entries[r.pc]!;
    r.busy += t - r.cmdStart;
    r.packets += e.packets;
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
    if (r.pc >= queue.entries.length) {
      r.state = QState.Done;
      return;
    }
    if (r.pc >= r.submitted) {
      r.state = QState.Idle;
      return;
    }
    const e = queue.entries[r.pc]!;
    const c = e.cmd;
    r.cmdStart = now;
    r.state = QState.Busy;
    const afterPacket = now + T.enginePacketUs;
    switch (c.kind) {
      case "nop":
        r.packets += e.packets;
        r.pc++;
        heap.push(now, EV_STEP, q);
        return;
      case "bad":
        report("DMAC6007", [where(q, e.at), `${c.detail}; the queue stops here`]);
        r.state = QState.Faulted;
        return;
      case "copy":
      case "bcast":
      case "swap":
      case "fill":
        startData(q, e, c);
        return;
      case "poll": {
        const w = wordOf(c.addr);
        if (!w || c.addr % 4 !== 0) {
          const res = resolve(mem, c.addr, 4);
          const detail =
            c.addr % 4 !== 0
              ? `POLL_REGMEM address ${hex(c.addr)} is not dword aligned`
              : "error" in res
                ? `POLL_REGMEM reads ${res.error}`
                : `POLL_REGMEM reads ${describeRegion(res.region)} at ${hex(c.addr)}, which is not a signal, sync or completion word`;
          report(c.addr % 4 !== 0 ? "DMAC6006" : "DMAC6010", [
            where(q, e.at),
            `${detail}; the queue stops here`,
          ]);
          r.state = QState.Faulted;
          return;
        }
        r.pollStart = afterPacket;
        r.pollPeriod = (c.interval * 16) / T.sdmaClockMHz + T.pollRepollUs;
        if (r.pollPeriod <= 0) r.pollPeriod = 1e-3;
        r.state = QState.Polling;
        heap.push(afterPacket, EV_POLL_CHECK, q);
        return;
      }
      case "fence":
      case "atomic":
      case "timestamp": {
        const width = c.kind === "atomic" ? c.width : c.kind === "timestamp" ? 64 : 32;
        const bytes = width / 8;
        const res = resolve(mem, c.addr, bytes);
        const wantRegion =
          c.kind === "timestamp" ? "a timestamp slot" : "a signal, sync or completion word";
        const okKind = (k: SimRegion["kind"]): boolean =>
          c.kind === "timestamp"
            ? k === "timestamp"
            : k === "signal" || k === "sync" || k === "completion" || k === "trigger";
        const align = c.kind === "timestamp" ? 8 : width === 64 ? 8 : 4;
        if (c.addr % align !== 0) {
          misaligned(q, e, `${cmdName(c)} address ${hex(c.addr)} is not ${align}-byte aligned`);
        } else if ("error" in res) {
          report("DMAC6002", [where(q, e.at), `${cmdName(c)} writes ${res.error}; not executed`]);
        } else if (!okKind(res.region.kind)) {
          report("DMAC6002", [
            where(q, e.at),
            `${cmdName(c)} writes ${describeRegion(res.region)} at ${hex(c.addr)}, not ${wantRegion}; not executed`,
          ]);
        } else if (!ringHit(c.addr, bytes, q, e)) {
          // The write waits for all earlier work of the queue (sequential here), so it publishes
          // the queue's whole history: advance the queue's own clock component.
          r.clock++;
          r.vc[q] = r.clock;
          const latency = res.region.gpu === null ? T.hostSignalLatencyUs : T.gpuSignalLatencyUs;
          const w: PendingWrite =
            c.kind === "timestamp"
              ? {
                  addr: c.addr,
                  region: res.region,
                  half: 0,
                  kind: "set",
                  value: Math.floor(afterPacket * 100),
                  width: 64,
                  vc: r.vc.slice(),
                  queue: q,
                }
              : c.kind === "fence"
                ? {
                    addr: c.addr,
                    region: res.region,
                    half: res.offset === 4 ? 4 : 0,
                    kind: "set",
                    value: c.value >>> 0,
                    width: 32,
                    vc: r.vc.slice(),
                    queue: q,
                  }
                : {
                    addr: c.addr,
                    region: res.region,
                    half: 0,
                    kind: "add",
                    value: c.add,
                    width: c.width,
                    vc: r.vc.slice(),
                    queue: q,
                  };
          pendingWrites.push(w);
          heap.push(afterPacket + latency, EV_WORD_WRITE, pendingWrites.length - 1);
        }
        finishCmd(q, afterPacket, {
          name: c.kind === "timestamp" ? "TIMESTAMP" : `${cmdName(c)} ${hex(c.addr)}`,
          args: { at: e.at },
        });
        return;
      }
      default:
        assertNever(c, "command");
    }
  };

  interface Running {
    accesses: { acc: DataAccess; writes: boolean }[];
    loads: FlowLoad[];
    bytes: number;
    cap: number;
    name: string;
  }
  const running: (Running | undefined)[] = new Array(Q);

  const startData = (
    q: number,
    e: SimEntry,
    c: Extract<SimCmd, { kind: "copy" | "bcast" | "swap" | "fill" }>,
  ): void => {
    const queue = p.queues[q]!;
    const skip = (): void => finishCmd(q, now + T.enginePacketUs);
    if (c.bytes <= 0) {
      report("DMAC6007", [where(q, e.at), `${cmdName(c)} of ${c.bytes} bytes`]);
      return skip();
    }
    const drv = queue.gpu;
    const loads: FlowLoad[] = [];
    const accesses: { acc: DataAccess; writes: boolean }[] = [];
    let cap = engineCap;
    let name: string;
    switch (c.kind) {
      case "copy": {
        const s = dataOperand(q, e, c.src, c.bytes, "source", false);
        const d = dataOperand(q, e, c.dst, c.bytes, "destination", true);
        if (!s || !d) return skip();
        accesses.push({ acc: s, writes: false }, { acc: d, writes: true });
        route(s.gpu, d.gpu, drv, 1, loads);
        name = `copy gpu${s.gpu}->gpu${d.gpu}`;
        break;
      }
      case "bcast": {
        if ((c.dst & 31) !== (c.dst2 & 31)) {
          misaligned(
            q,
            e,
            `broadcast destinations ${hex(c.dst)} and ${hex(c.dst2)} differ in their low 5 bits`,
          );
          return skip();
        }
        const s = dataOperand(q, e, c.src, c.bytes, "source", false);
        const d = dataOperand(q, e, c.dst, c.bytes, "destination 1", true);
        const d2 = dataOperand(q, e, c.dst2, c.bytes, "destination 2", true);
        if (!s || !d || !d2) return skip();
        accesses.push(
          { acc: s, writes: false },
          { acc: d, writes: true },
          { acc: d2, writes: true },
        );
        // One read, two writes: each destination's link carries the bytes once.
        route(s.gpu, d.gpu, drv, 1, loads);
        route(s.gpu, d2.gpu, drv, 1, loads);
        name = `bcast gpu${s.gpu}->gpu${d.gpu},gpu${d2.gpu}`;
        break;
      }
      case "swap": {
        if (c.a % 64 !== 0 || c.b % 64 !== 0) {
          misaligned(q, e, `swap addresses ${hex(c.a)} and ${hex(c.b)} must be 64-byte aligned`);
          return skip();
        }
        const a = dataOperand(q, e, c.a, c.bytes, "side A", true);
        const b = dataOperand(q, e, c.b, c.bytes, "side B", true);
        if (!a || !b) return skip();
        accesses.push({ acc: a, writes: true }, { acc: b, writes: true });
        // Both directions of the link carry the bytes; the engine moves 2 x bytes.
        route(a.gpu, b.gpu, drv, 1, loads);
        route(b.gpu, a.gpu, drv, 1, loads);
        cap = engineCap / 2;
        name = `swap gpu${a.gpu}<->gpu${b.gpu}`;
        break;
      }
      case "fill": {
        const d = dataOperand(q, e, c.dst, c.bytes, "destination", true);
        if (!d) return skip();
        accesses.push({ acc: d, writes: true });
        if (d.gpu === drv) loads.push({ resource: HBM + drv, weight: 1 });
        else loads.push({ resource: drv * G + d.gpu, weight: 1 });
        name = `fill gpu${d.gpu}`;
        break;
      }
      default:
        return assertNever(c, "data command");
    }
    running[q] = { accesses, loads, bytes: c.bytes, cap, name };
    heap.push(now + T.enginePacketUs + T.copyStartupUs, EV_FLOW_START, q);
  };

  const flowStart = (q: number): void => {
    const run = running[q]!;
    advance(flows, now);
    const f: Flow = {
      id: q,
      loads: run.loads,
      cap: run.cap,
      remaining: run.bytes,
      rate: 0,
      version: 0,
    };
    runs[q]!.flow = f;
    runs[q]!.flowDue = -1;
    flows.active.push(f);
    rescheduleFlows(f, true);
  };

  const flowDone = (q: number): void => {
    const r = runs[q]!;
    const f = r.flow;
    if (!f || r.flowDue !== now) return; // stale completion event
    advance(flows, now);
    f.remaining = 0;
    flows.active.splice(flows.active.indexOf(f), 1);
    for (const l of f.loads) flows.moved[l.resource]! += running[q]!.bytes * l.weight;
    r.flow = null;
    rescheduleFlows(f, false);
    // Apply the command's effect: race checks, then the provenance move.
    const run = running[q]!;
    running[q] = undefined;
    const e = p.queues[q]!.entries[r.pc]!;
    const c = e.cmd;
    r.clock++;
    const who: Epoch = { queue: q, clock: r.clock, cmd: cmdBase[q]! + r.pc };
    for (const a of run.accesses) if (!a.writes) touch(q, e, who, a.acc, run.bytes, false);
    for (const a of run.accesses) if (a.writes) touch(q, e, who, a.acc, run.bytes, true);
    const st = mem.prov;
    const [x, y, z] = run.accesses;
    switch (c.kind) {
      case "copy": {
        const segs = readRange(st, x!.acc.gpu, x!.acc.buffer, x!.acc.offset, run.bytes);
        writeSegments(st, y!.acc.gpu, y!.acc.buffer, y!.acc.offset, x!.acc.offset, segs, who.cmd);
        break;
      }
      case "bcast": {
        const segs = readRange(st, x!.acc.gpu, x!.acc.buffer, x!.acc.offset, run.bytes);
        writeSegments(st, y!.acc.gpu, y!.acc.buffer, y!.acc.offset, x!.acc.offset, segs, who.cmd);
        writeSegments(st, z!.acc.gpu, z!.acc.buffer, z!.acc.offset, x!.acc.offset, segs, who.cmd);
        break;
      }
      case "swap": {
        const sa = readRange(st, x!.acc.gpu, x!.acc.buffer, x!.acc.offset, run.bytes);
        const sb = readRange(st, y!.acc.gpu, y!.acc.buffer, y!.acc.offset, run.bytes);
        writeSegments(st, x!.acc.gpu, x!.acc.buffer, x!.acc.offset, y!.acc.offset, sb, who.cmd);
        writeSegments(st, y!.acc.gpu, y!.acc.buffer, y!.acc.offset, x!.acc.offset, sa, who.cmd);
        break;
      }
      case "fill":
        fillRange(st, x!.acc.gpu, x!.acc.buffer, x!.acc.offset, run.bytes, c.value & 0xff, who.cmd);
        break;
      default:
        throw new Error(`flow for ${c.kind}`);
    }
    finishCmd(q, now, { name: run.name, args: { bytes: run.bytes, at: e.at } });
  };

  const pollCheck = (q: number): void => {
    const r = runs[q]!;
    if (r.state !== QState.Polling) return;
    const e = p.queues[q]!.entries[r.pc]!;
    const c = e.cmd as Extract<SimCmd, { kind: "poll" }>;
    const w = wordOf(c.addr)!;
    const v = (read32(w) & c.mask) >>> 0;
    if (holds(c.func, v, c.value >>> 0)) {
      joinInto(r.vc, w.state.vc);
      if (timeline)
        timeline.instants.push({
          queue: q,
          name: `poll ${w.region.name} ${c.func} ${c.value} satisfied`,
          t: now,
        });
      // A poll's packet cost is busy time; the wait is not.
      r.cmdStart = now - T.enginePacketUs;
      finishCmd(q, now);
      return;
    }
    const list = waiting.get(w.region.addr);
    if (list) list.push(q);
    else waiting.set(w.region.addr, [q]);
  };

  // ---- the host and the producer -----------------------------------------------------------
  let hostT = 0;
  if (p.trigger) {
    for (let q = 0; q < Q; q++) {
      runs[q]!.submitted = p.queues[q]!.entries.length;
      heap.push(0, EV_STEP, q);
    }
    hostT = T.triggerStoreUs;
    const tw = wordOf(p.trigger.addr);
    if (tw) {
      const vc = new Int32Array(Q + 2);
      vc[HOST] = 1;
      pendingWrites.push({
        addr: p.trigger.addr,
        region: tw.region,
        half: tw.half,
        kind: "set",
        value: p.trigger.value,
        width: 32,
        vc,
        queue: HOST,
      });
      heap.push(hostT + T.gpuSignalLatencyUs, EV_WORD_WRITE, pendingWrites.length - 1);
    }
    if (timeline)
      timeline.host.push({ queue: -1, name: "trigger store", start: 0, end: hostT, args: {} });
  } else {
    for (let q = 0; q < Q; q++) {
      const entries = p.queues[q]!.entries;
      const start = hostT;
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i]!;
        hostT += T.hostPacketUs * e.packets;
        if (i === entries.length - 1 || signalsHost(e.cmd)) {
          hostT += T.hostDoorbellUs;
          doorbells.push({ queue: q, upTo: i + 1 });
          heap.push(hostT + T.doorbellLatencyUs, EV_DOORBELL, doorbells.length - 1);
        }
      }
      if (timeline && entries.length > 0)
        timeline.host.push({
          queue: -1,
          name: `submit ${p.queues[q]!.name}`,
          start,
          end: hostT,
          args: { packets: entries.length },
        });
    }
  }
  const hostSubmitUs = hostT;
  function signalsHost(c: SimCmd): boolean {
    if (c.kind !== "fence" && c.kind !== "atomic") return false;
    const r = resolve(mem, c.addr, 4);
    return !("error" in r) && r.region.kind === "completion";
  }

  // External signals: the value each must reach (the largest any poll needs), raised at time 0 or
  // by one every signalPeriodUs.
  const extNeed = new Map<number, number>();
  for (const addr of p.externalSignals) extNeed.set(addr, 0);
  for (const queue of p.queues)
    for (const e of queue.entries) {
      const c = e.cmd;
      if (c.kind !== "poll" || !extNeed.has(c.addr)) continue;
      const need =
        c.func === ">"
          ? c.value + 1
          : c.func === "<" || c.func === "<=" || c.func === "always"
            ? 0
            : c.value;
      extNeed.set(c.addr, Math.max(extNeed.get(c.addr)!, need >>> 0));
    }
  const extAddrs = [...extNeed.keys()];
  const producerVc = new Int32Array(Q + 2);
  const raiseExternal = (i: number, to: number): void => {
    const addr = extAddrs[i]!;
    const w = wordOf(addr);
    if (!w) return;
    producerVc[PRODUCER]!++;
    pendingWrites.push({
      addr,
      region: w.region,
      half: w.half,
      kind: "set",
      value: to,
      width: 32,
      vc: producerVc.slice(),
      queue: PRODUCER,
    });
    applyWrite(pendingWrites.pop()!);
  };
  const period = opts.signalPeriodUs;
  extAddrs.forEach((addr, i) => {
    const need = extNeed.get(addr)!;
    if (need === 0) return;
    if (period !== undefined && period > 0) heap.push(period, EV_EXT_SIGNAL, i);
    else raiseExternal(i, need);
  });

  // ---- the event loop ----------------------------------------------------------------------
  while (heap.pop()) {
    now = heap.lastTime;
    if (++events > maxEvents) {
      stopped = `more than ${maxEvents} events (raise --max-events if the schedule is really this large)`;
      break;
    }
    if (now > maxSim) {
      stopped = `simulated time passed ${maxSim} us (--max-sim-time)`;
      break;
    }
    const arg = heap.lastArg;
    switch (heap.lastKind) {
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
        const w = pendingWrites[arg]!;
        pendingWrites[arg] = undefined;
        applyWrite(w);
        break;
      }
      case EV_POLL_CHECK:
        pollCheck(arg);
        break;
      case EV_DOORBELL: {
        const d = doorbells[arg]!;
        const r = runs[d.queue]!;
        r.submitted = Math.max(r.submitted, d.upTo);
        if (r.state === QState.Idle) {
          r.state = QState.Busy;
          step(d.queue);
        }
        break;
      }
      case EV_EXT_SIGNAL: {
        const addr = extAddrs[arg]!;
        const w = wordOf(addr)!;
        const next = read32(w) + 1;
        raiseExternal(arg, next);
        if (next < extNeed.get(addr)!) heap.push(now + period!, EV_EXT_SIGNAL, arg);
        break;
      }
      default:
        throw new Error(`unknown event kind ${heap.lastKind}`);
    }
  }
  if (races > maxRaces) report("DMAC6003", [`${races - maxRaces} more races not shown`]);

  // ---- the end: watchdog, deadlock, drain, completion --------------------------------------
  let completed = true;
  if (stopped !== undefined) {
    completed = false;
    const blocked = p.queues.map((_, q) => q).filter((q) => runs[q]!.state === QState.Polling);
    report("DMAC6008", [
      `${stopped}${blocked.length ? `; ${blocked.length} queue(s) were polling` : ""}`,
    ]);
  } else {
    const blocked: string[] = [];
    for (let q = 0; q < Q; q++) {
      const r = runs[q]!;
      if (r.state !== QState.Polling) continue;
      const e = p.queues[q]!.entries[r.pc]!;
      const c = e.cmd as Extract<SimCmd, { kind: "poll" }>;
      const w = wordOf(c.addr)!;
      blocked.push(
        `${where(q, e.at)} waits for ${w.region.name} (${hex(c.addr)}) ${c.func} ${c.value} but it is ${read32(w)}`,
      );
    }
    if (blocked.length > 0) {
      completed = false;
      report(
        "DMAC6004",
        [`${blocked.length} queue(s) blocked forever: ${blocked.join("; ")}`],
        "no queue and no host action left that could raise those words",
      );
    }
    for (let q = 0; q < Q; q++) {
      const r = runs[q]!;
      const entries = p.queues[q]!.entries;
      if (r.state === QState.Faulted) {
        completed = false;
        report("DMAC6005", [
          `${p.queues[q]!.name} stopped at ${where(q, entries[r.pc]!.at)} after an error and did not drain (${entries.length - r.pc} command(s) left)`,
        ]);
      }
    }
    for (const c of p.completions) {
      const state = mem.words.get(c.addr);
      if (state && state.value === c.done) continue;
      const qi = p.queues.findIndex((x) => x.name === c.queue);
      if (qi >= 0 && runs[qi]!.state !== QState.Done) continue; // already reported as stuck
      completed = false;
      report(
        "DMAC6005",
        [
          `the host waits for completion signal ${hex(c.addr)} of ${c.queue} to reach ${c.done}, but it is ${state?.value ?? "unmapped"} after ${c.queue} drained`,
        ],
        "every completion slot in the manifest needs one ATOMIC (or FENCE) packet that signals it",
      );
    }
  }

  // Host detection: the first point of its poll grid at or after the last completion landed.
  let total = now;
  if (completed) {
    let last = hostSubmitUs;
    for (const t of completionSeen.values()) last = Math.max(last, t);
    const P = T.hostPollIntervalUs;
    total = hostSubmitUs + Math.ceil((last - hostSubmitUs) / P - 1e-9) * P;
    if (p.completions.length === 0) total = Math.max(now, hostSubmitUs);
    if (timeline)
      timeline.instants.push({ queue: -1, name: "host saw every completion", t: total });
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
    timeline,
  };
}
