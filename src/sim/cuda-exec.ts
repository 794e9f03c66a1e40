// The executor's timing of a CUDA command program (docs/cuda.md, "Timing model"): an event loop
// over the streams, the GPUs' copy engines and the fabric, whose bytes share bandwidth max-min
// fairly (flows.ts) over every resource a copy crosses (cuda-fabric.ts).
//
// - Host: one thread makes the stream calls, stream after stream in program order, each costing
//   hostCallUs (+ hostBatchItemUs per copy of a batch), each stream hostStreamUs more and each
//   change of GPU hostGpuUs more. A call's command may start launchUs after
//   the call returns. With a trigger (prelaunch) every call happens before the clock starts, and
//   the clock starts at the host's trigger store.
// - Streams run their commands one after another. A copy needs its GPU's copy engine for its
//   direction (host-to-device, device-to-host, peer; the driver picks the engine by direction,
//   not by stream). An engine serves one copy (or batch) at a time; when it frees, the waiting
//   stream with the lowest index goes next (measured on 4x H200: copies on separate streams of
//   one GPU do not share the engine fairly, docs/model.md "Fabric"). A copy costs copyStartUs
//   (peerStartUs between GPUs; copyNextUs when the engine takes it the moment it finished the
//   same stream's previous copy: it was queued behind it; peerNextUs for a peer copy), then its
//   bytes flow; a batch's copies flow one after another in their order, batchItemUs apart
//   (peerNextUs for a peer copy).
// - A write-value lands flagUs after the stream reaches it; a wait-value passes waitReleaseUs
//   after its word holds the value (trigger and external signals: stored at time 0).
// - The run ends when the last completion word lands (the host spin-polls them).

import type { CudaCmd, CudaCopy, CudaProgram } from "../backend/cuda/program.js";
import type { CudaTarget } from "../target/cuda-target.js";
import { cudaFabric, copyRoute, type CudaFabric } from "./cuda-fabric.js";
import { addFlow, advance, createFlowSet, finishTime, removeFlow, reshare } from "./flows.js";
import type { Flow, FlowLoad, FlowSet } from "./flows.js";
import { EventHeap } from "./heap.js";

export type CudaRunResult =
  | {
      readonly ok: true;
      readonly timeUs: number;
      /** When the host's last stream call returned (0 with prelaunch: before the clock). */
      readonly hostSubmitUs: number;
      /** With `record`: each stream's commands' start and end (`dmac sim --trace`). */
      readonly spans?: readonly CudaStreamSpans[] | undefined;
    }
  | { readonly ok: false; readonly why: string };

/**
 * One stream's commands' times: command i started (the stream reached it, its start-up
 * included; a wait: began waiting) at start[i] and was done (its bytes landed, its wait passed,
 * its write was issued) at end[i]. NaN: never reached.
 */
export interface CudaStreamSpans {
  readonly start: Float64Array;
  readonly end: Float64Array;
  /** When the host's call for command i returned (NaN with prelaunch: before the clock). */
  readonly call: Float64Array;
}

const EV_STREAM = 0; // stream `arg` tries its next command
const EV_ITEM = 1; // engine `arg` starts the bytes of its current copy
const EV_FLOW = 2; // engine `arg`'s flow may have finished (stale unless due now)
const EV_WORD = 3; // pending write `arg` lands

interface Engine {
  /** Stream being served (-1: idle), its copies and the one flowing. */
  stream: number;
  copies: readonly CudaCopy[];
  item: number;
  readonly flow: Flow;
  due: number;
  /** When it last finished a copy, and for which stream (that stream's next copy, taken then,
   *  had been queued behind it). */
  freeAt: number;
  lastStream: number;
  /** Streams waiting for this engine. */
  readonly waiting: number[];
}

interface State {
  readonly p: CudaProgram;
  readonly t: CudaTarget;
  readonly fabric: CudaFabric;
  readonly heap: EventHeap;
  readonly flows: FlowSet;
  readonly engines: Engine[];
  readonly ready: Float64Array[];
  /** When the host's last call returned. */
  readonly hostUs: number;
  readonly pc: Int32Array;
  readonly wordAt: Float64Array;
  readonly wordValue: Float64Array;
  readonly waiters: number[][];
  readonly pendingWrites: { word: number; value: number }[];
  readonly completion: Set<number>;
  readonly spans: CudaStreamSpans[] | undefined;
  now: number;
  end: number;
}

/** Predicts the run time of `p` on target `t`; `record`: with every command's times. */
export function runCuda(p: CudaProgram, t: CudaTarget, record = false): CudaRunResult {
  const x = createState(p, t, record);
  for (let s = 0; s < p.streams.length; s++) schedule(x, s, x.ready[s]![0] ?? 0);
  while (x.heap.pop()) {
    x.now = x.heap.lastTime;
    const arg = x.heap.lastArg;
    switch (x.heap.lastKind) {
      case EV_STREAM:
        step(x, arg);
        break;
      case EV_ITEM:
        startItem(x, arg);
        break;
      case EV_FLOW:
        flowDone(x, arg);
        break;
      case EV_WORD:
        land(x, arg);
        break;
    }
  }
  for (let s = 0; s < p.streams.length; s++)
    if (x.pc[s]! < p.streams[s]!.commands.length) {
      const st = p.streams[s]!;
      return { ok: false, why: `stream gpu${st.gpu}.${st.stream} never passes command ${x.pc[s]}` };
    }
  const hostSubmitUs = p.trigger ? 0 : x.hostUs;
  return { ok: true, timeUs: x.end, hostSubmitUs, ...(x.spans ? { spans: x.spans } : {}) };
}

function createState(p: CudaProgram, t: CudaTarget, record: boolean): State {
  const sub = submission(p, t);
  const fabric = cudaFabric(t, p.gpus);
  const flows = createFlowSet(fabric.capacity);
  const engines: Engine[] = [];
  for (let e = 0; e < fabric.engines; e++)
    engines.push({
      stream: -1,
      copies: [],
      item: 0,
      flow: { id: e, loads: [], cap: 0, remaining: 0, rate: 0, version: 0 },
      due: -1,
      freeAt: -1,
      lastStream: -1,
      waiting: [],
    });
  const wordAt = new Float64Array(p.words.length).fill(Infinity);
  const wordValue = new Float64Array(p.words.length);
  for (const w of [...(p.trigger ? [p.trigger] : []), ...p.external]) {
    wordAt[w.word] = 0;
    wordValue[w.word] = w.value;
  }
  return {
    p,
    t,
    fabric,
    heap: new EventHeap(),
    flows,
    engines,
    ...sub,
    pc: new Int32Array(p.streams.length),
    wordAt,
    wordValue,
    waiters: p.words.map(() => []),
    pendingWrites: [],
    completion: new Set(p.completions.map((c) => c.word)),
    spans: record
      ? p.streams.map((st, s) => ({
          start: new Float64Array(st.commands.length).fill(NaN),
          end: new Float64Array(st.commands.length).fill(NaN),
          call: sub.ready[s]!.map((r) => (p.trigger ? NaN : r - t.timing.launchUs)),
        }))
      : undefined,
    now: 0,
    end: 0,
  };
}

/**
 * When each command may start: launchUs after the host's call for it returns (0: prelaunch). The
 * host goes stream after stream, paying hostStreamUs per stream and hostGpuUs each time the
 * stream's GPU is not the previous stream's (the first stream's too: the runner sets the device
 * for every stream).
 */
function submission(p: CudaProgram, t: CudaTarget): { ready: Float64Array[]; hostUs: number } {
  const T = t.timing;
  let host = 0;
  let gpu = -1;
  const ready = p.streams.map((s) => {
    host += T.hostStreamUs + (s.gpu !== gpu ? T.hostGpuUs : 0);
    gpu = s.gpu;
    const r = new Float64Array(s.commands.length);
    s.commands.forEach((c, i) => {
      host += T.hostCallUs + (c.op === "batch" ? c.copies.length * T.hostBatchItemUs : 0);
      r[i] = p.trigger ? 0 : host + T.launchUs;
    });
    return r;
  });
  return { ready, hostUs: host };
}

function schedule(x: State, s: number, at: number): void {
  x.heap.push(Math.max(at, x.now), EV_STREAM, s);
}

/** Stream s at its next command, now. */
function step(x: State, s: number): void {
  const cmds = x.p.streams[s]!.commands;
  const i = x.pc[s]!;
  if (i >= cmds.length) return;
  const ready = x.ready[s]![i]!;
  if (ready > x.now) return schedule(x, s, ready);
  const c = cmds[i]!;
  const T = x.t.timing;
  const span = x.spans?.[s];
  if (span && Number.isNaN(span.start[i]!)) span.start[i] = x.now;
  switch (c.op) {
    case "wait":
      if (!holds(x, c)) {
        x.waiters[c.word]!.push(s);
        return;
      }
      return next(x, s, Math.max(x.now, x.wordAt[c.word]! + T.waitReleaseUs));
    case "write": {
      x.pendingWrites.push({ word: c.word, value: c.value });
      x.heap.push(x.now + T.flagUs, EV_WORD, x.pendingWrites.length - 1);
      return next(x, s, x.now + T.flagUs);
    }
    case "timestamp":
      return next(x, s, x.now);
    case "copy":
    case "batch":
      return request(x, s, c.op === "copy" ? [c] : c.copies);
  }
}

/** Stream s is done with its command at `at` and goes on to the next. */
function next(x: State, s: number, at: number): void {
  const span = x.spans?.[s];
  if (span) span.end[x.pc[s]!] = at;
  x.pc[s]!++;
  schedule(x, s, at);
}

function holds(x: State, c: Extract<CudaCmd, { op: "wait" }>): boolean {
  const v = x.wordValue[c.word]!;
  return c.cmp === "geq" ? v >= c.value : v === c.value;
}

function land(x: State, k: number): void {
  const w = x.pendingWrites[k]!;
  x.wordAt[w.word] = x.now;
  x.wordValue[w.word] = w.value;
  if (x.completion.has(w.word)) x.end = Math.max(x.end, x.now);
  const waiting = x.waiters[w.word]!;
  x.waiters[w.word] = [];
  for (const s of waiting) {
    step(x, s);
  }
}

/** Stream s needs the copy engine of its copies' direction. */
function request(x: State, s: number, copies: readonly CudaCopy[]): void {
  const e = copyRoute(x.fabric, copies[0]!).engine;
  const eng = x.engines[e]!;
  eng.waiting.push(s);
  if (eng.stream < 0) serveNext(x, e);
}

/** The idle engine e takes the waiting stream with the lowest index. */
function serveNext(x: State, e: number): void {
  const eng = x.engines[e]!;
  if (eng.waiting.length === 0) return;
  let at = 0;
  for (let k = 1; k < eng.waiting.length; k++) if (eng.waiting[k]! < eng.waiting[at]!) at = k;
  const s = eng.waiting.splice(at, 1)[0]!;
  const c = x.p.streams[s]!.commands[x.pc[s]!]!;
  eng.stream = s;
  eng.copies = c.op === "copy" ? [c] : c.op === "batch" ? c.copies : [];
  eng.item = 0;
  const queued = eng.freeAt === x.now && eng.lastStream === s;
  x.heap.push(x.now + startUp(x, eng.copies[0]!, queued ? "queued" : "idle"), EV_ITEM, e);
}

/**
 * A copy's start-up on its engine: on an idle engine (or after another stream's copy), queued
 * behind the same stream's copy the engine just finished, or as a batch's next item. Measured on
 * 4x H200 (docs/cuda.md, "The timing model"): a peer copy's next start-up is the same queued or
 * batched; host-link copies batch almost for free but queue at a cost.
 */
function startUp(x: State, c: CudaCopy, how: "idle" | "queued" | "item"): number {
  const T = x.t.timing;
  const peer = copyRoute(x.fabric, c).peer;
  if (how === "idle") return peer ? T.peerStartUs : T.copyStartUs;
  if (peer) return T.peerNextUs;
  return how === "queued" ? T.copyNextUs : T.batchItemUs;
}

/** Engine e's current copy starts moving its bytes. */
function startItem(x: State, e: number): void {
  const eng = x.engines[e]!;
  const copy = eng.copies[eng.item]!;
  const r = copyRoute(x.fabric, copy);
  const f = eng.flow;
  advance(x.flows, x.now);
  f.loads = r.loads as FlowLoad[];
  f.cap = r.cap;
  f.remaining = copy.bytes;
  f.rate = 0;
  addFlow(x.flows, f);
  reshareAll(x);
}

function flowDone(x: State, e: number): void {
  const eng = x.engines[e]!;
  if (eng.due !== x.now || eng.stream < 0) return;
  advance(x.flows, x.now);
  removeFlow(x.flows, eng.flow);
  eng.due = -1;
  reshareAll(x);
  eng.item++;
  if (eng.item < eng.copies.length) {
    x.heap.push(x.now + startUp(x, eng.copies[eng.item]!, "item"), EV_ITEM, e);
    return;
  }
  const s = eng.stream;
  eng.stream = -1;
  eng.freeAt = x.now;
  eng.lastStream = s;
  next(x, s, x.now);
  serveNext(x, e);
}

/** New max-min fair rates; every active flow's finish event moved to match. */
function reshareAll(x: State): void {
  reshare(x.flows);
  for (const f of x.flows.active) {
    const eng = x.engines[f.id]!;
    const due = finishTime(x.flows, f);
    if (due !== eng.due) {
      eng.due = due;
      if (due !== Infinity) x.heap.push(due, EV_FLOW, f.id);
    }
  }
}
