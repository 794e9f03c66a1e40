// The host and the outside world around the engines: submitting the queues (building packets
// and ringing doorbells, or one prelaunch trigger store; on a CUDA target, the stream calls), the
// producer of external signals, and at the end the host's scan of its completion slots.

import { grown } from "../util/arrays.js";
import { externalTarget, type ExternalWait } from "./external-signals.js";
import { regionStepped } from "./memory.js";
import {
  ATOMIC,
  COPY,
  FENCE,
  POLL,
  POLL_FUNC_CODES,
  continuesBatch,
  type PackedProgram,
} from "./program.js";
import type { CudaTarget } from "../target/cuda-target.js";
import type { CopyEngines } from "./copy-engines.js";
import type { Span } from "./execute.js";
import {
  EV_EXT_SIGNAL,
  EV_STEP,
  EV_WORD_WRITE,
  SET,
  W_COMPLETION,
  W_WATCHED,
  type ExecState,
} from "./exec-state.js";
import { applyWrite, halfOf, pendingWrite, read32, regionAtStart, wordAt } from "./words.js";
import { doorbellSpan, HOST_WRITER, recordHostSlot, recordIssue } from "./trace/recorder.js";

/**
 * Doorbells in time order: the host submits queue after queue, so they are known up front and
 * stay out of the heap (the event loop merges this list with it; on a tie in time a doorbell goes
 * first, as it did when they were the first events pushed).
 */
export interface Doorbells {
  readonly queue: Int32Array;
  /** The queue's commands submitted up to (exclusive). */
  readonly upTo: Int32Array;
  /** When the engine sees it. */
  readonly time: Float64Array;
}

/** Doorbells as they are rung (typed columns: there may be one per completion, a million). */
class DoorbellList {
  n = 0;
  queue: Int32Array;
  upTo: Int32Array;
  time: Float64Array;

  /** `expected`: about as many as will be rung (growing past it copies the columns). */
  constructor(expected: number) {
    const cap = Math.max(64, expected);
    this.queue = new Int32Array(cap);
    this.upTo = new Int32Array(cap);
    this.time = new Float64Array(cap);
  }

  push(queue: number, upTo: number, time: number): void {
    if (this.n === this.time.length) {
      this.queue = grown(this.queue, this.n * 2);
      this.upTo = grown(this.upTo, this.n * 2);
      this.time = grown(this.time, this.n * 2);
    }
    this.queue[this.n] = queue;
    this.upTo[this.n] = upTo;
    this.time[this.n++] = time;
  }

  done(): Doorbells {
    const n = this.n;
    return {
      queue: this.queue.subarray(0, n),
      upTo: this.upTo.subarray(0, n),
      time: this.time.subarray(0, n),
    };
  }
}

/**
 * Submission. Without a trigger the host builds each queue's packets (hostPacketUs each) and
 * rings the doorbell (hostDoorbellUs) after every command that signals the host and at the end of
 * the queue; the engine sees the new packets doorbellLatencyUs later. With a prelaunch trigger
 * all queues were submitted ahead; time 0 is when the host stores the trigger word. Returns when
 * the host finished submitting, and the doorbells.
 */
export function submit(x: ExecState): { hostSubmitUs: number; doorbells: Doorbells } {
  if (x.cuda !== undefined) return submitStreams(x, x.cuda);
  const { p, T, timeline } = x;
  // One per completion signal and one per queue, the usual count.
  const doorbells = new DoorbellList(p.trigger ? 0 : p.completions.count + x.Q);
  let hostT = 0;
  if (p.trigger) {
    for (let q = 0; q < x.Q; q++) {
      x.runs[q]!.submitted = p.queues[q]!.count;
      x.heap.push(0, EV_STEP, q);
    }
    hostT = T.triggerStoreUs;
    const tw = wordAt(x, p.trigger.addr);
    if (tw >= 0) {
      const half = halfOf(x, tw, p.trigger.addr);
      const w = pendingWrite(x, tw, half, SET, p.trigger.value, 32, x.HOST);
      x.chk.trigger(w);
      if (timeline) recordIssue(timeline.sync, w, HOST_WRITER, -1, hostT);
      x.heap.push(hostT + T.gpuSignalLatencyUs, EV_WORD_WRITE, w);
    }
    if (timeline)
      timeline.host.push({ queue: -1, name: "trigger store", start: 0, end: hostT, args: {} });
    return { hostSubmitUs: hostT, doorbells: doorbells.done() };
  }
  // A hint per kind: a queue's ATOMICs (completion slots) and FENCEs (sync words) alternate,
  // each at a stride (regionStepped).
  const hints = new Int32Array(2).fill(-1);
  const steps = new Int32Array(2);
  for (let q = 0; q < x.Q; q++) {
    const { name, count } = p.queues[q]!;
    const start = hostT;
    hostT = submitQueue(x, q, hostT, doorbells, hints, steps);
    if (timeline && count > 0)
      timeline.host.push({
        queue: -1,
        name: `submit ${name}`,
        start,
        end: hostT,
        args: { packets: count },
      });
  }
  return { hostSubmitUs: hostT, doorbells: doorbells.done() };
}

/**
 * A CUDA target's host (streamCalls): every stream steps at its first command's ready time, in
 * stream order; with a prelaunch trigger the host's store of it lands at time 0. No doorbells: a
 * stream that reaches a command before its call let it go steps again then (copy-engines.ts).
 */
function submitStreams(
  x: ExecState,
  cu: CopyEngines,
): { hostSubmitUs: number; doorbells: Doorbells } {
  const { p, timeline } = x;
  for (let q = 0; q < x.Q; q++) {
    const { first, count } = p.queues[q]!;
    x.runs[q]!.submitted = count;
    x.heap.push(count > 0 ? cu.ready[first]! : 0, EV_STEP, q);
  }
  const tw = p.trigger ? wordAt(x, p.trigger.addr) : -1;
  if (p.trigger && tw >= 0) {
    const w = pendingWrite(x, tw, halfOf(x, tw, p.trigger.addr), SET, p.trigger.value, 32, x.HOST);
    x.chk.trigger(w);
    if (timeline) recordIssue(timeline.sync, w, HOST_WRITER, -1, 0);
    x.heap.push(0, EV_WORD_WRITE, w);
  }
  if (timeline && !p.trigger) recordCalls(x, cu, timeline.host);
  return { hostSubmitUs: p.trigger ? 0 : cu.hostUs, doorbells: new DoorbellList(0).done() };
}

/**
 * The host's stream calls as host spans (`call gpu0.stream1 #3`, args: the stream and command
 * index), each from the previous call's return to its own.
 */
function recordCalls(x: ExecState, cu: CopyEngines, host: Span[]): void {
  const C = x.C;
  let returned = 0;
  for (const queue of x.p.queues)
    for (let e = queue.first; e < queue.first + queue.count; e++) {
      if (e > queue.first && C.at[e] === C.at[e - 1]) continue; // (a batch's copies: one call)
      const call = cu.ready[e]! - cu.T.launchUs;
      const command = C.at[e]!;
      const args = { stream: queue.name, command };
      host.push({
        queue: -1,
        name: `call ${queue.name} #${command}`,
        start: returned,
        end: call,
        args,
      });
      returned = call;
    }
}

/**
 * When the host's stream calls let each row of a CUDA target's program start: launchUs after its
 * call returned (0 with prelaunch: every call precedes the clock). One thread makes the calls,
 * stream after stream in program order, each costing hostCallUs (+ hostBatchItemUs per copy of
 * a batch), each stream hostStreamUs more and each change of GPU hostGpuUs more (the first
 * stream's too: the runner sets the device for every stream). A batch's copies share its call.
 */
export function streamCalls(
  p: PackedProgram,
  T: CudaTarget["timing"],
): { ready: Float64Array; hostUs: number } {
  const C = p.cmds;
  const ready = new Float64Array(C.n);
  let host = 0;
  let gpu = -1;
  for (const queue of p.queues) {
    host += T.hostStreamUs + (queue.gpu !== gpu ? T.hostGpuUs : 0);
    gpu = queue.gpu;
    const end = queue.first + queue.count;
    for (let e = queue.first; e < end;) {
      let rows = 1;
      if (C.kind[e] === COPY) while (e + rows < end && continuesBatch(C, e + rows)) rows++;
      host += T.hostCallUs + (rows > 1 ? rows * T.hostBatchItemUs : 0);
      ready.fill(p.trigger ? 0 : host + T.launchUs, e, e + rows);
      e += rows;
    }
  }
  return { ready, hostUs: host };
}

/**
 * A CUDA target's end: the host spin-polls its completion words, so the run ends when the last
 * one got its value.
 */
export function lastCompletion(x: ExecState): number {
  let t = 0;
  let hint = -1;
  const { count, addr } = x.p.completions;
  for (let k = 0; k < count; k++) {
    const i = regionAtStart(x, addr[k]!, hint);
    if (i < 0) continue;
    hint = i;
    const landed = x.completion.length > 0 ? x.completion[2 * i + 1]! : NaN;
    if (landed > t) t = landed;
  }
  return t;
}

/**
 * Queue q's packets built and its doorbells rung, the host starting at `hostT`: when it is done.
 * (A function of its own: the loop over queues, first run before V8 kept feedback for submit,
 * threw away the code it compiled while in this loop.)
 */
function submitQueue(
  x: ExecState,
  q: number,
  hostT: number,
  doorbells: DoorbellList,
  hints: Int32Array,
  steps: Int32Array,
): number {
  const { C, T, timeline } = x;
  const { first, count } = x.p.queues[q]!;
  for (let i = 0; i < count; i++) {
    const e = first + i;
    hostT += T.hostPacketUs * C.packets[e]!;
    if (i === count - 1 || signalsHost(x, e, hints, steps)) {
      hostT += T.hostDoorbellUs;
      if (timeline) timeline.host.push(doorbellSpan(x, q, i + 1, hostT));
      doorbells.push(q, i + 1, hostT + T.doorbellLatencyUs);
    }
  }
  return hostT;
}

/** Whether command row e signals the host (a FENCE/ATOMIC on a completion slot). */
function signalsHost(x: ExecState, e: number, hints: Int32Array, steps: Int32Array): boolean {
  const kind = x.C.kind[e];
  if (kind !== FENCE && kind !== ATOMIC) return false;
  const i = regionStepped(x.mem, x.C.a[e]!, 4, hints, steps, kind === ATOMIC ? 1 : 0);
  return i >= 0 && (x.wordFlags[i]! & W_COMPLETION) !== 0;
}

/**
 * External signals: a monotonic producer raises each to the smallest value meeting every wait a
 * monotonic counter can meet (external-signals.ts), at time 0 or by one every signalPeriodUs.
 */
export interface Producer {
  /** The signals' addresses; an EV_EXT_SIGNAL event's arg indexes them. */
  readonly addrs: readonly number[];
  /** Address -> the value the producer raises it to. */
  readonly need: ReadonlyMap<number, number>;
  readonly period: number | undefined;
}

export function startProducer(x: ExecState, period: number | undefined, hold = false): Producer {
  const C = x.C;
  const waits = new Map<number, ExternalWait[]>();
  for (const addr of x.p.externalSignals) waits.set(addr, []);
  if (waits.size > 0)
    for (let e = 0; e < C.n; e++)
      if (C.kind[e] === POLL)
        waits
          .get(C.a[e]!)
          ?.push({ func: POLL_FUNC_CODES[C.aux[e]!]!, value: C.value[e]!, mask: C.b[e]! });
  const need = new Map<number, number>();
  for (const [addr, list] of waits) need.set(addr, externalTarget(list));
  const pr: Producer = { addrs: [...need.keys()], need, period };
  pr.addrs.forEach((addr, i) => {
    const to = need.get(addr)!;
    if (to === 0 || hold) return;
    if (period !== undefined && period > 0) x.heap.push(period, EV_EXT_SIGNAL, i);
    else raise(x, pr, i, to);
  });
  return pr;
}

/** The producer stores `to` into external signal i (at once: it is the producer's own word). */
function raise(x: ExecState, pr: Producer, i: number, to: number): void {
  const addr = pr.addrs[i]!;
  const w = wordAt(x, addr);
  if (w < 0) return;
  const row = pendingWrite(x, w, halfOf(x, w, addr), SET, to, 32, x.PRODUCER);
  x.chk.produce(row);
  applyWrite(x, row);
  x.pending.free.push(row);
}

/** EV_EXT_SIGNAL: external signal i goes up by one (and again a period later, until done). */
export function producerTick(x: ExecState, pr: Producer, i: number): void {
  const addr = pr.addrs[i]!;
  const w = wordAt(x, addr);
  const next = read32(x, w, halfOf(x, w, addr)) + 1;
  raise(x, pr, i, next);
  if (next < pr.need.get(addr)!) x.heap.push(x.now + pr.period!, EV_EXT_SIGNAL, i);
}

/** Marks the completion slots with the value the host waits for (before the run). */
export function watchCompletions(x: ExecState): void {
  const { count, addr, done } = x.p.completions;
  let lastSlot = -1;
  for (let k = 0; k < count; k++) {
    const i = regionAtStart(x, addr[k]!, lastSlot);
    if (i >= 0) lastSlot = i;
    if (i >= 0 && (x.wordFlags[i]! & W_COMPLETION) !== 0) {
      x.completion[2 * i] = done[k]!;
      x.wordFlags[i]! |= W_WATCHED;
    }
  }
}

/**
 * The host waits for its completion slots one after another, in manifest order (as DMA-Latte
 * does after submitting everything): it spins on a slot every hostPollIntervalUs until the slot
 * holds its final value, and each read of a slot in host memory costs hostSlotReadUs. So a
 * schedule with many queues (many slots) pays for every slot even when all landed long ago.
 * Returns when the host saw the last one.
 */
export function completionScan(x: ExecState, hostSubmitUs: number): number {
  const P = x.T.hostPollIntervalUs;
  let t = hostSubmitUs;
  const { count, addr, done } = x.p.completions;
  let lastSlot = -1;
  for (let k = 0; k < count; k++) {
    const i = regionAtStart(x, addr[k]!, lastSlot);
    if (i >= 0) lastSlot = i;
    const landed = i >= 0 && x.completion.length > 0 ? x.completion[2 * i + 1]! : NaN;
    const from = t;
    if (!Number.isNaN(landed) && landed > t) t += Math.ceil((landed - t) / P - 1e-9) * P;
    t += x.T.hostSlotReadUs;
    if (x.timeline && i >= 0) recordHostSlot(x, x.timeline.sync, i, done[k]!, from, t);
  }
  return t;
}
