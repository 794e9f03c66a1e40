// The words polls read and FENCE/ATOMIC/TIMESTAMP write: writes in flight (a row each, landing
// after the signal latency), what a write does to the word when it lands (value, clock, the
// host's completion slots, the meaning checks), and waking the polls waiting on it. A word is
// named by its region index; `half` is 4 for the high dword of a 64-bit word.

import { regionGuessed, regionIndex, regionOf } from "./memory.js";
import {
  ADD,
  EV_POLL_CHECK,
  SET,
  W_CLOCK,
  W_POLLED,
  W_WATCHED,
  type ExecState,
} from "./exec-state.js";
import { recordLanding } from "./trace/recorder.js";
import { waitCheck } from "./copy-engines.js";

/** The word region holding [addr, addr + 4), or -1 (hint: see regionOf). */
export function wordAt(x: ExecState, addr: number, hint = -1): number {
  const i = regionOf(x.mem, addr, 4, hint);
  return i >= 0 && x.mem.words.isWord[i] === 1 ? i : -1;
}

export const halfOf = (x: ExecState, i: number, addr: number): number =>
  addr - x.mem.starts[i]! === 4 ? 4 : 0;

/** The 32-bit dword `half` of word i. */
export function read32(x: ExecState, i: number, half: number): number {
  const value = x.mem.words.value[i]!;
  return half === 4 ? Math.floor(value / 4294967296) >>> 0 : (value % 4294967296) >>> 0;
}

/**
 * Index of the region that starts exactly at addr, or -1. `hint`: the region found last (see
 * regionOf); the one after it is tried first (regionGuessed): callers walk the completion slots
 * in address order, which are regions in order.
 */
export function regionAtStart(x: ExecState, addr: number, hint = -1): number {
  const i = regionGuessed(x.mem, addr, 0, hint >= 0 ? hint + 1 : -1, hint);
  const j = i >= 0 ? i : regionIndex(x.mem, addr);
  return j >= 0 && x.mem.starts[j] === addr ? j : -1;
}

/** A write in flight to word `region`; returns its row (the EV_WORD_WRITE event's arg). */
export function pendingWrite(
  x: ExecState,
  region: number,
  half: number,
  kind: number,
  value: number,
  width: number,
  queue: number,
): number {
  const pw = x.pending;
  // (Both read on every write: a read V8 first saw run after it compiled this threw it away.)
  const reused = pw.free.pop();
  const fresh = pw.region.length;
  const i = reused !== undefined ? reused : fresh;
  pw.region[i] = region;
  pw.half[i] = half;
  pw.kind[i] = kind;
  pw.value[i] = value;
  pw.width[i] = width;
  pw.queue[i] = queue;
  return i;
}

/** The write of row w lands now (its row can be reused afterwards). */
export function applyWrite(x: ExecState, w: number): void {
  const pw = x.pending;
  const i = pw.region[w]!;
  const words = x.mem.words;
  let v0 = words.value[i]!;
  const before = v0;
  const value = pw.value[w]!;
  const width = pw.width[w]!;
  if (pw.kind[w] === SET) {
    if (width === 32) {
      const hi = Math.floor(v0 / 4294967296);
      const lo = v0 % 4294967296;
      v0 = pw.half[w] === 4 ? (value >>> 0) * 4294967296 + lo : hi * 4294967296 + (value >>> 0);
    } else v0 = value;
  } else if (width === 32) {
    v0 = (v0 + value) >>> 0;
  } else {
    let v = v0 + value;
    if (v < 0) v += 18446744073709551616;
    // (`%` on doubles is a library call: skipped when it changes nothing, a completion slot's -1.)
    v0 = v >= 18446744073709551616 ? v % 18446744073709551616 : v;
  }
  const queue = pw.queue[w]!;
  words.value[i] = v0;
  const flags = x.wordFlags[i]!;
  if ((flags & W_WATCHED) !== 0) x.completion[2 * i + 1] = v0 === x.completion[2 * i] ? x.now : NaN;
  // (Only a word whose clock is kept matters to the checks: a polled word, a user signal, or
  // every word with the sync trace. A million completion slots are not told of.)
  if ((flags & W_CLOCK) !== 0) x.chk.landed(w, i, queue, pw.kind[w] === ADD, value);
  if (x.timeline) recordLanding(x, x.timeline.sync, w, i);
  if ((flags & W_POLLED) !== 0) {
    if (x.cuda !== undefined) x.cuda.landedAt[i] = x.now;
    if (v0 !== before) wake(x, i);
  }
}

/**
 * Schedules a re-check of every poll waiting on word i, at its next grid point (a CUDA stream's
 * wait checks at once: copy-engines.ts).
 */
function wake(x: ExecState, i: number): void {
  let q = x.waitHead[i]!;
  if (q < 0) return;
  x.waitHead[i] = -1;
  while (q >= 0) {
    const next = x.waitNext[q]!;
    x.waitNext[q] = -1;
    if (x.cuda !== undefined) waitCheck(x, q);
    else {
      const r = x.runs[q]!;
      const k = Math.ceil((x.now - r.pollStart) / r.pollPeriod - 1e-9);
      x.heap.push(r.pollStart + Math.max(0, k) * r.pollPeriod, EV_POLL_CHECK, q);
    }
    q = next;
  }
}

/** Queue q waits for word i to change (after the queues already waiting on it: lists are short). */
export function waitOn(x: ExecState, i: number, q: number): void {
  let tail = x.waitHead[i]!;
  if (tail < 0) {
    x.waitHead[i] = q;
    return;
  }
  while (x.waitNext[tail]! >= 0) tail = x.waitNext[tail]!;
  x.waitNext[tail] = q;
}

/** The queues waiting on word i, in order (tests and reports). */
export function waiters(x: ExecState, i: number): number[] {
  const out: number[] = [];
  for (let q = x.waitHead[i]!; q >= 0; q = x.waitNext[q]!) out.push(q);
  return out;
}
