// The copy engines of a CUDA target (docs/cuda.md, "The timing model"), where its queues are
// CUDA streams (from-cuda.ts) and engine.ts starts and ends their commands:
//
// - A copy needs its GPU's copy engine for its direction (host-to-device, device-to-host, peer;
//   the driver picks the engine by direction, not by stream). An engine serves one stream command
//   (a copy, or a batch's copies one after another) at a time, never several at once: one stream
//   per peer, prelaunched, all-gather at 1 GiB per rank on 4 GPUs (256 MiB copies, ~706 us
//   each) took 3, 4, 5 or 6 copy-times from one iteration to the next (2169, 2845, 3510-3550,
//   4215-4250 us on H200 and H100), never a time between as shared service would give.
// - Which waiting stream goes next (docs/model.md "Fabric", "Copy engines of one GPU"): with
//   the target's engineOrderRuns 0, the lowest stream index. Otherwise the one that asked first
//   (the same program submitted by the host, one call after another, took the ascending order's
//   6 copy-times at every iteration), and among streams that asked at the same instant (released
//   by one trigger), their copies going different ways, a pseudo-random one, drawn from the run's
//   seed: the hardware's order among them changes from one iteration to the next, and a
//   program's time is the median of the target's engineOrderRuns runs, each drawing its own
//   orders (cuda-time.ts medianOrderRun; 4 GPUs: 5 of the fixed order's 6 copy-times, measured
//   3496-3636 us at 1 GiB on H100 where the fixed order predicts 4212 and the median 3520).
// - A copy's start-up: copyStartUs (peerStartUs between GPUs) on an idle engine or after another
//   stream's copy; copyNextUs (peerNextUs) when the engine takes it the moment it finished the
//   same stream's previous copy (it was queued behind it); a batch's next copy batchItemUs
//   (peerNextUs) after the previous one's bytes landed. Then its bytes flow (transfers.ts) over
//   the fabric's resources (cuda-fabric.ts).
// - A wait-value passes waitReleaseUs after its word got the value: the stream checks it when it
//   reaches it and again the moment a write lands in the word (nothing spins).

import { cudaFabric, routeBetween, type CopyRoute, type CudaFabric } from "./cuda-fabric.js";
import {
  EV_ENGINE_SERVE,
  EV_FLOW_START,
  EV_STEP,
  HINTS,
  Q_POLLING,
  type ExecState,
} from "./exec-state.js";
import { copyOperands, finish } from "./engine.js";
import { streamCalls } from "./host.js";
import { continuesBatch, POLL_FUNC_CODES, type PackedProgram } from "./program.js";
import type { CudaTarget } from "../target/cuda-target.js";
import { holds } from "../target/poll.js";
import { halfOf, read32, waitOn, wordAt } from "./words.js";
import { recordPollSatisfied, recordPollStart } from "./trace/recorder.js";

/** An engine's `serving` when it serves no queue, and when it takes one at this instant. */
const IDLE = -1;
const TAKING = -2;

export interface CopyEngines {
  readonly fabric: CudaFabric;
  readonly T: CudaTarget["timing"];
  /** Per row: when the host's call lets its stream start it (host.ts streamCalls). */
  readonly ready: Float64Array;
  /** When the host's last call returned. */
  readonly hostUs: number;
  /** Per region: when a write last landed in it (-Infinity: never; its value held from the start). */
  readonly landedAt: Float64Array;
  /**
   * Per engine: the queue it serves (-1: idle; TAKING: it takes one at this instant), and when it
   * last finished and whose copy.
   */
  readonly serving: Int32Array;
  readonly freeAt: Float64Array;
  readonly lastQueue: Int32Array;
  /** Per engine: the queues waiting for it, in the order they asked. */
  readonly waiting: number[][];
  /** Per queue: the engine of its current command, and whether its current copy is a peer's. */
  readonly engineOf: Int32Array;
  readonly peer: Uint8Array;
  /** Per queue: 1 while its current command is a batch (its first copy, a peer's, pays batchStartUs). */
  readonly batch: Uint8Array;
  /** Routes by (src + 1) * (G + 1) + dst + 1 (GPU -1: host memory), each made once. */
  readonly routes: (CopyRoute | undefined)[];
  /** Per queue: when its current copy asked for its engine, and its route's key (`routes`). */
  readonly askedAt: Float64Array;
  readonly routeOf: Int32Array;
  /** The order draw's state (engineOrderRuns > 0), and how many times streams tied for an engine. */
  readonly order: { seed: number; ties: number } | undefined;
}

/** `run`: which of the target's engineOrderRuns draws orders for tied streams (its seed). */
export function createCopyEngines(
  p: PackedProgram,
  t: CudaTarget,
  regions: number,
  run = 0,
): CopyEngines {
  const fabric = cudaFabric(t, p.gpus);
  const E = fabric.engines;
  return {
    fabric,
    T: t.timing,
    ...streamCalls(p, t.timing),
    landedAt: new Float64Array(regions).fill(-Infinity),
    serving: new Int32Array(E).fill(IDLE),
    freeAt: new Float64Array(E).fill(-1),
    lastQueue: new Int32Array(E).fill(-1),
    waiting: Array.from({ length: E }, () => []),
    engineOf: new Int32Array(p.queues.length).fill(-1),
    peer: new Uint8Array(p.queues.length),
    batch: new Uint8Array(p.queues.length),
    routes: new Array<CopyRoute | undefined>((p.gpus + 1) * (p.gpus + 1)).fill(undefined),
    askedAt: new Float64Array(p.queues.length),
    routeOf: new Int32Array(p.queues.length),
    order: t.timing.engineOrderRuns > 0 ? { seed: mix32(run + 1), ties: 0 } : undefined,
  };
}

/**
 * Whether queue q may start row e now: false (and a step when it may) before the host's call
 * for it let it go.
 */
export function streamReady(x: ExecState, cu: CopyEngines, q: number, e: number): boolean {
  const ready = cu.ready[e]!;
  if (ready <= x.now) return true;
  x.heap.push(ready, EV_STEP, q);
  return false;
}

/** Queue q's copy (row e) asks for its copy engine, its operands checked; false: not run. */
export function startCopy(x: ExecState, q: number, e: number): boolean {
  if (!copyOperands(x, q, e)) return false;
  const cu = x.cuda!;
  const engine = routeCopy(x, cu, q).engine;
  cu.engineOf[q] = engine;
  cu.askedAt[q] = x.now;
  cu.batch[q] = e + 1 < x.cmdBase[q + 1]! && continuesBatch(x.C, e + 1) ? 1 : 0;
  cu.waiting[engine]!.push(q);
  if (cu.serving[engine] !== IDLE) return true;
  if (cu.order === undefined) serveNext(x, cu, engine);
  else {
    // After the instant's other events: streams released with this one ask for the engine too.
    cu.serving[engine] = TAKING;
    x.heap.push(x.now, EV_ENGINE_SERVE, engine);
  }
  return true;
}

/** Queue q's copy (operands resolved: running[q]) gets its flow's resources and top rate. */
function routeCopy(x: ExecState, cu: CopyEngines, q: number): CopyRoute {
  const run = x.running[q]!;
  const G = x.G;
  const src = x.bufferHost[run.buffer[0]!] === 1 ? -1 : run.gpu[0]!;
  const dst = x.bufferHost[run.buffer[1]!] === 1 ? -1 : run.gpu[1]!;
  const k = (src + 1) * (G + 1) + dst + 1;
  const route = (cu.routes[k] ??= routeBetween(cu.fabric, src, dst));
  cu.routeOf[q] = k;
  const loads = x.runs[q]!.flow.loads;
  loads.length = 0;
  for (const l of route.loads) loads.push(l);
  run.cap = route.cap;
  cu.peer[q] = route.peer ? 1 : 0;
  return route;
}

/** The idle engine takes the next waiting queue (nextWaiting). */
export function serveNext(x: ExecState, cu: CopyEngines, engine: number): void {
  const waiting = cu.waiting[engine]!;
  cu.serving[engine] = IDLE;
  if (waiting.length === 0) return;
  const q = waiting.splice(nextWaiting(cu, waiting), 1)[0]!;
  cu.serving[engine] = q;
  const T = cu.T;
  const peer = cu.peer[q] === 1;
  const queued = cu.freeAt[engine] === x.now && cu.lastQueue[engine] === q;
  const startUp = queued
    ? peer
      ? T.peerNextUs
      : T.copyNextUs
    : peer
      ? T.peerStartUs
      : T.copyStartUs;
  // (batchStartUs was measured on batches of peer copies; batches of host copies are measured
  // faster than predicted without it: bench/hardware/2026-11-28-h100-batch.)
  const batchStart = peer && cu.batch[q] === 1 ? T.batchStartUs : 0;
  x.heap.push(x.now + startUp + batchStart, EV_FLOW_START, q);
}

/**
 * Where in `waiting` (queues in the order they asked) the engine's next queue is: the lowest
 * index, or with an order draw the first to ask, a pseudo-random one of those that asked with it
 * where their copies go different ways (the same way, e.g. one GPU's downloads, the order moves
 * the same bytes over the same link: the first to ask, and no other runs needed).
 */
function nextWaiting(cu: CopyEngines, waiting: readonly number[]): number {
  const order = cu.order;
  if (order === undefined) {
    let at = 0;
    for (let k = 1; k < waiting.length; k++) if (waiting[k]! < waiting[at]!) at = k;
    return at;
  }
  const first = waiting[0]!;
  let tied = 1;
  let ways = false;
  for (; tied < waiting.length && cu.askedAt[waiting[tied]!] === cu.askedAt[first]; tied++)
    ways ||= cu.routeOf[waiting[tied]!] !== cu.routeOf[first];
  if (!ways) return 0;
  order.ties++;
  order.seed = nextSeed(order.seed);
  return (order.seed >>> 0) % tied;
}

/** A run's seed: murmur3's finaliser, so that runs 1, 2, 3 ... draw unrelated sequences. */
function mix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 1;
}

/** xorshift32: the order draws' pseudo-random sequence (deterministic: one seed per run). */
function nextSeed(s: number): number {
  s ^= s << 13;
  s ^= s >>> 17;
  return s ^ (s << 5);
}

/**
 * Queue q's copy (row `cmd`) landed its bytes (the checks told): the engine goes on with the
 * batch's next copy, or frees, and the stream goes on.
 */
export function copyDone(
  x: ExecState,
  q: number,
  cmd: number,
  span: { name: string; args: Record<string, string | number> } | undefined,
): void {
  const cu = x.cuda!;
  const C = x.C;
  const end = x.cmdBase[q + 1]!;
  let row = cmd;
  while (row + 1 < end && continuesBatch(C, row + 1)) {
    retire(x, q, row++);
    if (!copyOperands(x, q, row)) continue; // (reported; the batch goes on without it)
    routeCopy(x, cu, q);
    x.heap.push(x.now + (cu.peer[q] === 1 ? cu.T.peerNextUs : cu.T.batchItemUs), EV_FLOW_START, q);
    return;
  }
  const engine = cu.engineOf[q]!;
  cu.freeAt[engine] = x.now;
  cu.lastQueue[engine] = q;
  finish(x, q, x.now, span);
  serveNext(x, cu, engine);
}

/**
 * A batch's copy is done and the next one its queue's current row: finish without the step (the
 * batch is one command: its busy time and its span run from its start to its last copy's end).
 */
function retire(x: ExecState, q: number, row: number): void {
  const r = x.runs[q]!;
  r.packets += x.C.packets[row]!;
  r.pc++;
}

/** Queue q's wait-value (row e) on word w: checked now, and whenever a write lands in w. */
export function streamWait(x: ExecState, q: number, e: number, w: number): void {
  const r = x.runs[q]!;
  r.state = Q_POLLING;
  r.pollRetries = Infinity;
  r.pollStart = x.now;
  if (x.timeline) recordPollStart(x, x.timeline.sync, q, e, w, x.now);
  waitCheck(x, q);
}

/** Queue q's wait reads its word: it passes waitReleaseUs after the word got there, or waits. */
export function waitCheck(x: ExecState, q: number): void {
  const r = x.runs[q]!;
  const C = x.C;
  const e = x.cmdBase[q]! + r.pc;
  const addr = C.a[e]!;
  const w = wordAt(x, addr, x.hints[q * HINTS + 4]!);
  const raw = read32(x, w, halfOf(x, w, addr));
  if (!holds(POLL_FUNC_CODES[C.aux[e]!]!, (raw & C.b[e]!) >>> 0, C.value[e]! >>> 0)) {
    waitOn(x, w, q);
    return;
  }
  x.chk.poll(q, w, raw);
  if (x.timeline) recordPollSatisfied(x, x.timeline.sync, q, e, w, halfOf(x, w, addr));
  const cu = x.cuda!;
  const at = Math.max(x.now, cu.landedAt[w]! + cu.T.waitReleaseUs);
  finish(x, q, at, x.timeline && { name: "wait", args: { at: C.at[e]! } });
}
