// One SDMA engine running its queue, as a small state machine (QState, exec-state.ts):
//
//   Idle --doorbell--> Busy --fetch--> (by command kind)
//     nop        -> Busy (next command at once; a back-to-back run goes on)
//     bad        -> Faulted (DMAC6007)
//     data       -> Busy: startData (checks, route) -> EV_FLOW_START -> startFlow (transfers.ts)
//                   -> EV_FLOW_DONE -> dataDone (races, provenance, meaning) -> finish
//     poll       -> Polling: EV_POLL_CHECK -> pollCheck -> finish | Polling (waits on the
//                   word) | Faulted (its retries ran out, DMAC6014)
//     fence, atomic, timestamp -> signal: the write lands later (words.ts); finish after the packet
//   finish -> Busy (EV_STEP: fetch the next) ... -> Done when the queue is drained, Idle when it
//   ran past what the host has submitted.
//
// Each packet costs enginePacketUs; data commands then wait copyStartupUs (or run back to back
// behind the previous one) and move their bytes as a flow (docs/model.md). On a CUDA target
// (x.cuda) the queue is a stream: a command waits for the host's call, a copy for its copy
// engine, a poll is a wait-value released at once on a landing (copy-engines.ts).

import {
  dataOperand,
  misaligned,
  oversized,
  overlapping,
  ringHit,
  unsupportedPoll,
  wrongEngine,
} from "./checks.js";
import {
  ADD,
  cmdName,
  EV_FLOW_START,
  EV_POLL_CHECK,
  EV_STEP,
  EV_WORD_WRITE,
  HINTS,
  Q_BUSY,
  Q_DONE,
  Q_FAULTED,
  Q_IDLE,
  Q_POLLING,
  regionNear,
  report,
  SET,
  W_HOST,
  W_HOST_SYNC,
  W_SIGNAL,
  W_TIMESTAMP,
  whereCmd,
  type ExecState,
} from "./exec-state.js";
import { describeRegion, hex, resolve } from "./memory.js";
import {
  ATOMIC,
  BAD,
  BCAST,
  COPY,
  FENCE,
  FILL,
  NOP,
  POLL,
  POLL_FUNC_CODES,
  SWAP,
  TIMESTAMP,
} from "./program.js";
import { holds } from "../target/poll.js";
import { endFlow, loadOf, route } from "./transfers.js";
import { halfOf, pendingWrite, read32, waitOn, wordAt } from "./words.js";
import { recordIssue, recordPollSatisfied, recordPollStart } from "./trace/recorder.js";
import type { FlowLoad } from "./flows.js";
import { copyDone, startCopy, streamReady, streamWait } from "./copy-engines.js";

/**
 * A doorbell: the host submitted queue q's commands up to `upTo`. True when the engine was idle:
 * it wakes, and the caller makes it fetch (execute.ts dispatch, through the call that runs every
 * EV_STEP: a call of its own here, first made when the second queue woke, threw the compiled
 * event loop away).
 */
export function doorbell(x: ExecState, q: number, upTo: number): boolean {
  const r = x.runs[q]!;
  r.submitted = Math.max(r.submitted, upTo);
  const idle = r.state === Q_IDLE;
  // (The state is stored by every doorbell, not only an idle engine's: V8 compiles a store only
  // once it has run, and an engine is idle at a doorbell mostly before V8 keeps feedback at all.)
  r.state = idle ? Q_BUSY : r.state;
  return idle;
}

/** The engine of queue q takes its next command (EV_STEP). */
export function fetch(x: ExecState, q: number): void {
  const r = x.runs[q]!;
  const queue = x.p.queues[q]!;
  // Drained, past what the host submitted, or a command to run. (One store for the three: the
  // first queue to drain did so late in the run, and its store, never run before, threw the
  // compiled event loop away.)
  const state = r.pc >= queue.count ? Q_DONE : r.pc >= r.submitted ? Q_IDLE : Q_BUSY;
  r.state = state;
  if (state !== Q_BUSY) return;
  const C = x.C;
  const e = queue.first + r.pc;
  // (A CUDA stream: its host call may not have let this command go yet.)
  const cu = x.cuda;
  if (cu !== undefined && !streamReady(x, cu, q, e)) return;
  r.cmdStart = x.now;
  const prevFlowStart = r.prevFlowStart;
  r.prevFlowStart = NaN;
  const kind = C.kind[e]!;
  switch (kind) {
    case NOP:
      r.prevFlowStart = prevFlowStart; // padding does not break a back-to-back run
      r.packets += C.packets[e]!;
      r.pc++;
      x.heap.push(x.now, EV_STEP, q);
      return;
    case BAD:
      report(x, "DMAC6007", [whereCmd(x, q, e), `${C.detail.get(e)}; the queue stops here`]);
      r.state = Q_FAULTED;
      return;
    case COPY:
    case BCAST:
    case SWAP:
    case FILL:
      startData(x, q, e, kind, prevFlowStart);
      return;
    case POLL:
      startPoll(x, q, e);
      return;
    case FENCE:
    case ATOMIC:
    case TIMESTAMP:
      signal(x, q, e, kind);
      return;
    default:
      throw new Error(`command kind ${kind}`);
  }
}

/** The running command of queue q ends at time t; the engine fetches the next one then. */
export function finish(
  x: ExecState,
  q: number,
  t: number,
  span?: { name: string; args: Record<string, string | number> },
): void {
  const r = x.runs[q]!;
  r.busy += t - r.cmdStart;
  r.packets += x.C.packets[x.cmdBase[q]! + r.pc]!;
  if (x.timeline && span)
    x.timeline.spans.push({
      queue: q,
      name: span.name,
      start: r.cmdStart,
      end: t,
      args: span.args,
    });
  r.pc++;
  r.state = Q_BUSY;
  x.heap.push(t, EV_STEP, q);
}

// ---- data commands ---------------------------------------------------------------------------

/** Checks a data command's operands, routes its bytes and schedules its flow (or skips it). */
function startData(x: ExecState, q: number, e: number, kind: number, prevFlowStart: number): void {
  // (A CUDA stream's copy waits for its copy engine: copy-engines.ts.)
  if (x.cuda !== undefined) {
    if (!startCopy(x, q, e)) skipData(x, q);
    return;
  }
  const C = x.C;
  const T = x.T;
  const now = x.now;
  const bytes = sized(x, q, e, kind);
  if (bytes < 0) return skipData(x, q);
  const drv = x.p.queues[q]!.gpu;
  const r = x.runs[q]!;
  const run = x.running[q]!;
  const loads: FlowLoad[] = r.flow.loads;
  while (loads.length > 0) loads.pop(); // (no allocation, unlike a new array)
  let cap = x.engineCap;
  const g = run.gpu;
  switch (kind) {
    case COPY: {
      const s = dataOperand(x, q, e, C.a[e]!, bytes, "source", false, 0);
      const d = dataOperand(x, q, e, C.b[e]!, bytes, "destination", true, 1);
      if (!s || !d) return skipData(x, q);
      if (overlapping(x, q, e, 0, 1, "source and destination")) return skipData(x, q);
      run.n = 2;
      if (x.bufferHost[run.buffer[0]!]) loads.push(loadOf(x, x.PCIE + 2 * drv, 1));
      else if (x.bufferHost[run.buffer[1]!]) loads.push(loadOf(x, x.PCIE + 2 * drv + 1, 1));
      else route(x, g[0]!, g[1]!, drv, 1, loads);
      if (x.timeline) run.name = `copy gpu${g[0]!}->gpu${g[1]!}`;
      break;
    }
    case BCAST: {
      const dst = C.b[e]!;
      const dst2 = C.c[e]!;
      if ((dst & 31) !== (dst2 & 31)) {
        misaligned(
          x,
          q,
          e,
          `broadcast destinations ${hex(dst)} and ${hex(dst2)} differ in their low 5 bits`,
        );
        return skipData(x, q);
      }
      const s = dataOperand(x, q, e, C.a[e]!, bytes, "source", false, 0);
      const d = dataOperand(x, q, e, dst, bytes, "destination 1", true, 1);
      const d2 = dataOperand(x, q, e, dst2, bytes, "destination 2", true, 2);
      if (!s || !d || !d2) return skipData(x, q);
      if (
        overlapping(x, q, e, 1, 2, "destinations") ||
        overlapping(x, q, e, 0, 1, "source and destination 1") ||
        overlapping(x, q, e, 0, 2, "source and destination 2")
      )
        return skipData(x, q);
      run.n = 3;
      // One read, two writes: each destination's link carries the bytes once; the engine
      // writes 2 x bytes at most at broadcastGBps in all.
      route(x, g[0]!, g[1]!, drv, 1, loads);
      route(x, g[0]!, g[2]!, drv, 1, loads);
      cap = Math.min(x.engineCap, x.bcastCap) / 2;
      if (x.timeline) run.name = `bcast gpu${g[0]!}->gpu${g[1]!},gpu${g[2]!}`;
      break;
    }
    case SWAP: {
      const sa = C.a[e]!;
      const sb = C.b[e]!;
      if (sa % 64 !== 0 || sb % 64 !== 0) {
        misaligned(x, q, e, `swap addresses ${hex(sa)} and ${hex(sb)} must be 64-byte aligned`);
        return skipData(x, q);
      }
      const a = dataOperand(x, q, e, sa, bytes, "side A", true, 0);
      const b = dataOperand(x, q, e, sb, bytes, "side B", true, 1);
      if (!a || !b) return skipData(x, q);
      if (overlapping(x, q, e, 0, 1, "halves")) return skipData(x, q);
      run.n = 2;
      // Both directions of the link carry the bytes; the engine moves 2 x bytes.
      route(x, g[0]!, g[1]!, drv, 1, loads);
      route(x, g[1]!, g[0]!, drv, 1, loads);
      cap = x.engineCap / 2;
      if (x.timeline) run.name = `swap gpu${g[0]!}<->gpu${g[1]!}`;
      break;
    }
    case FILL: {
      const d = dataOperand(x, q, e, C.a[e]!, bytes, "destination", true, 0);
      if (!d) return skipData(x, q);
      run.n = 1;
      if (g[0] === drv) loads.push(loadOf(x, x.HBM + drv, 1));
      else loads.push(loadOf(x, drv * x.G + g[0]!, 1));
      if (x.timeline) run.name = `fill gpu${g[0]!}`;
      break;
    }
    default:
      throw new Error(`data command kind ${kind}`);
  }
  if (wrongEngine(x, q, e)) return skipData(x, q);
  run.bytes = bytes;
  run.cap = cap;
  // Back to back after another data packet, this packet was fetched and started while that
  // one moved its bytes: its bytes flow as soon as the engine is free, but no sooner than
  // backToBackUs after the previous packet's bytes began (the engine's issue rate).
  const start = Number.isNaN(prevFlowStart)
    ? now + T.enginePacketUs + T.copyStartupUs
    : Math.max(now, prevFlowStart + T.backToBackUs);
  x.heap.push(start, EV_FLOW_START, q);
}

/** Row e's bytes, or -1 where it has none or more than the part takes (reported). */
function sized(x: ExecState, q: number, e: number, kind: number): number {
  const bytes = x.C.bytes[e]!;
  if (bytes <= 0) {
    report(x, "DMAC6007", [whereCmd(x, q, e), `${cmdName(x, e)} of ${bytes} bytes`]);
    return -1;
  }
  return oversized(x, q, e, kind, bytes) ? -1 : bytes;
}

/**
 * A CUDA stream's copy (row e): its operands resolved and checked (running[q]: operands, bytes);
 * false where it is not executed (reported).
 */
export function copyOperands(x: ExecState, q: number, e: number): boolean {
  const C = x.C;
  if (C.kind[e] !== COPY) throw new Error(`a CUDA stream's data command of kind ${C.kind[e]}`);
  const bytes = sized(x, q, e, COPY);
  if (bytes < 0) return false;
  const s = dataOperand(x, q, e, C.a[e]!, bytes, "source", false, 0);
  const d = dataOperand(x, q, e, C.b[e]!, bytes, "destination", true, 1);
  if (!s || !d || overlapping(x, q, e, 0, 1, "source and destination")) return false;
  const run = x.running[q]!;
  run.n = 2;
  if (wrongEngine(x, q, e)) return false;
  run.bytes = bytes;
  if (x.timeline) run.name = `copy gpu${run.gpu[0]!}->gpu${run.gpu[1]!}`;
  return true;
}

/** A data command that is not executed (reported): it costs its packet, and the queue goes on. */
function skipData(x: ExecState, q: number): void {
  finish(x, q, x.now + x.T.enginePacketUs);
}

/**
 * Queue q's flow-done event (EV_FLOW_DONE): unless stale, the data command's effect applies (the
 * checks: races, the provenance move, the meaning; checker.ts) and the command finishes.
 */
export function dataDone(x: ExecState, q: number): void {
  if (!endFlow(x, q)) return;
  const r = x.runs[q]!;
  const run = x.running[q]!;
  const cmd = x.cmdBase[q]! + r.pc;
  x.chk.data(q, cmd, run.n, run.gpu, run.buffer, run.offset);
  const span = x.timeline && { name: run.name, args: { bytes: run.bytes, at: x.C.at[cmd]! } };
  if (x.cuda !== undefined) return copyDone(x, q, cmd, span);
  r.prevFlowStart = r.flowStartedAt; // the next command, if a data packet, ran back to back
  finish(x, q, x.now, span);
}

// ---- polls -----------------------------------------------------------------------------------

/** POLL_REGMEM: checks its word once the packet is fetched, then on its grid. */
function startPoll(x: ExecState, q: number, e: number): void {
  const r = x.runs[q]!;
  const T = x.T;
  const addr = x.C.a[e]!;
  const i = regionNear(x, q * HINTS + 4, addr, 4);
  const w = i >= 0 && x.mem.words.isWord[i] === 1 ? i : -1; // (wordAt)
  if (w < 0 || addr % 4 !== 0) {
    const res = resolve(x.mem, addr, 4);
    const detail =
      addr % 4 !== 0
        ? `POLL_REGMEM address ${hex(addr)} is not dword aligned`
        : "error" in res
          ? `POLL_REGMEM reads ${res.error}`
          : `POLL_REGMEM reads ${describeRegion(res.region)} at ${hex(addr)}, which is not a signal, sync or completion word`;
    report(x, addr % 4 !== 0 ? "DMAC6006" : "DMAC6010", [
      whereCmd(x, q, e),
      `${detail}; the queue stops here`,
    ]);
    r.state = Q_FAULTED;
    return;
  }
  if (unsupportedPoll(x, q, e)) {
    r.state = Q_FAULTED;
    return;
  }
  if (x.cuda !== undefined) return streamWait(x, q, e, w);
  const afterPacket = x.now + T.enginePacketUs;
  r.pollStart = afterPacket;
  const repoll = (x.wordFlags[w]! & W_HOST_SYNC) !== 0 ? x.model.hostWordPollUs : T.pollRepollUs;
  r.pollPeriod = (x.C.bytes[e]! * 16) / T.sdmaClockMHz + repoll;
  if (r.pollPeriod <= 0) r.pollPeriod = 1e-3;
  r.pollRetries = x.C.c[e]! < 0 ? Infinity : x.C.c[e]!;
  r.state = Q_POLLING;
  if (x.timeline) recordPollStart(x, x.timeline.sync, q, e, w, afterPacket);
  x.heap.push(afterPacket, EV_POLL_CHECK, q);
}

/** Queue q's poll reads its word (EV_POLL_CHECK): satisfied, waits on, or gives up. */
export function pollCheck(x: ExecState, q: number): void {
  const r = x.runs[q]!;
  if (r.state !== Q_POLLING) return;
  const C = x.C;
  const e = x.cmdBase[q]! + r.pc;
  const addr = C.a[e]!;
  const w = wordAt(x, addr, x.hints[q * HINTS + 4]!);
  // The poll gives up after its retries (grid point `retries` was its last check).
  const k = Math.round((x.now - r.pollStart) / r.pollPeriod);
  if (k > r.pollRetries) return pollTimeout(x, q, e);
  const raw = read32(x, w, halfOf(x, w, addr));
  const v = (raw & C.b[e]!) >>> 0;
  const func = POLL_FUNC_CODES[C.aux[e]!]!;
  if (holds(func, v, C.value[e]! >>> 0)) {
    x.chk.poll(q, w, raw);
    if (x.timeline) recordPollSatisfied(x, x.timeline.sync, q, e, w, halfOf(x, w, addr));
    // A poll's packet cost is busy time; the wait is not.
    r.cmdStart = x.now - x.T.enginePacketUs;
    finish(x, q, x.now);
    return;
  }
  if (k >= r.pollRetries) return pollTimeout(x, q, e);
  waitOn(x, w, q);
}

/** Queue q's poll (row e) ran out of retries: DMAC6014, and the queue stops. */
export function pollTimeout(x: ExecState, q: number, e: number): void {
  const addr = x.C.a[e]!;
  const w = wordAt(x, addr);
  report(
    x,
    "DMAC6014",
    [
      whereCmd(x, q, e),
      `POLL_REGMEM on ${x.mem.region(w).name} (${hex(addr)}) ${POLL_FUNC_CODES[x.C.aux[e]!]!} ${x.C.value[e]!} gave up after its ${x.runs[q]!.pollRetries} retries (the word is ${read32(x, w, halfOf(x, w, addr))})`,
    ],
    "a retry count of 0xFFF polls forever; any other count is a timeout, and the queue stops",
  );
  x.runs[q]!.state = Q_FAULTED;
}

// ---- signals ---------------------------------------------------------------------------------

/**
 * FENCE, ATOMIC, TIMESTAMP: after the packet, the write is in flight (it lands a signal latency
 * later, words.ts); the queue goes on at once.
 */
function signal(x: ExecState, q: number, e: number, kind: number): void {
  const C = x.C;
  const T = x.T;
  const mem = x.mem;
  const addr = C.a[e]!;
  const afterPacket = x.now + T.enginePacketUs;
  const width = kind === ATOMIC ? C.aux[e]! : kind === TIMESTAMP ? 64 : 32;
  const bytes = width / 8;
  // ATOMICs (completion slots) and FENCEs (sync words) of a queue alternate: a hint each.
  const h = q * HINTS + (kind === ATOMIC ? 5 : 3);
  const i = regionNear(x, h, addr, bytes);
  const align = kind === TIMESTAMP ? 8 : width === 64 ? 8 : 4;
  const flags = i >= 0 ? x.wordFlags[i]! : 0;
  const okKind = (flags & (kind === TIMESTAMP ? W_TIMESTAMP : W_SIGNAL)) !== 0;
  if (addr % align !== 0) {
    misaligned(x, q, e, `${cmdName(x, e)} address ${hex(addr)} is not ${align}-byte aligned`);
  } else if (i < 0) {
    const res = resolve(mem, addr, bytes);
    const error = "error" in res ? res.error : "?";
    report(x, "DMAC6002", [whereCmd(x, q, e), `${cmdName(x, e)} writes ${error}; not executed`]);
  } else if (!okKind) {
    const wantRegion =
      kind === TIMESTAMP ? "a timestamp slot" : "a signal, sync or completion word";
    report(x, "DMAC6002", [
      whereCmd(x, q, e),
      `${cmdName(x, e)} writes ${describeRegion(mem.region(i))} at ${hex(addr)}, not ${wantRegion}; not executed`,
    ]);
  } else if (!ringHit(x, addr, bytes, q, e)) {
    const latency = (flags & W_HOST) !== 0 ? T.hostSignalLatencyUs : T.gpuSignalLatencyUs;
    const w =
      kind === TIMESTAMP
        ? pendingWrite(x, i, 0, SET, Math.floor(afterPacket * 100), 64, q)
        : kind === FENCE
          ? pendingWrite(x, i, halfOf(x, i, addr), SET, C.value[e]! >>> 0, 32, q)
          : pendingWrite(x, i, 0, ADD, C.value[e]!, width, q);
    x.chk.signal(q, e, i, w);
    if (x.timeline) recordIssue(x.timeline.sync, w, q, e, afterPacket);
    x.heap.push(afterPacket + latency, EV_WORD_WRITE, w);
  }
  finish(
    x,
    q,
    kind === FENCE ? afterPacket + x.fenceHoldUs : afterPacket,
    x.timeline && {
      name: kind === TIMESTAMP ? "TIMESTAMP" : `${cmdName(x, e)} ${hex(addr)}`,
      args: { at: C.at[e]! },
    },
  );
}
