// The modelled producer of an external signal (a user signal no queue of the program writes: in
// reality another process or the host raises it). The producer is a monotonically growing 32-bit
// counter starting at 0. Contract of externalTarget: given every wait on one such word (compare
// function, value, mask), the value the producer raises the word to, which is the smallest value that
// satisfies every wait a monotonic counter can satisfy at the same time:
//   - lower bounds (>, >=, ==) and exclusions (!=) are always honoured;
//   - upper bounds (<, <=, ==) are honoured when they agree with the lower bounds; when they do
//     not (`when f > 0 { when f <= 0 }`), the counter ends above them and those waits deadlock
//     (DMAC6004 at the end of the run: a monotonic producer cannot meet them);
//   - a wait no value satisfies (`< 0`, `> 0xffffffff`) is ignored (it deadlocks as well).
// Masked waits ((word & mask) op value with mask != 0xffffffff) are met by searching upwards from
// that value (at least the bits that `(word & b) == b` waits need) within MASK_SEARCH steps. By default the word jumps to the target at time 0; with
// --signal-period it counts up by one per period until it reaches it (execute.ts).

import type { PollFunc } from "./program.js";

export interface ExternalWait {
  readonly func: PollFunc;
  readonly value: number;
  readonly mask: number;
}

const MAX = 0xffffffff;
const MASK_SEARCH = 1 << 16;

/** Does the 32-bit word `v` satisfy the wait? (The executor's own POLL_REGMEM semantics.) */
export function satisfies(v: number, w: ExternalWait): boolean {
  const x = (v & w.mask) >>> 0;
  const t = w.value >>> 0;
  switch (w.func) {
    case "always":
      return true;
    case "==":
      return x === t;
    case "!=":
      return x !== t;
    case "<":
      return x < t;
    case "<=":
      return x <= t;
    case ">":
      return x > t;
    case ">=":
      return x >= t;
  }
}

/** The value the producer raises the word to (0: it never needs raising). */
export function externalTarget(waits: readonly ExternalWait[]): number {
  let lo = 0;
  let hi = MAX;
  const excluded = new Set<number>();
  const masked: ExternalWait[] = [];
  for (const w of waits) {
    const t = w.value >>> 0;
    if (w.mask >>> 0 !== MAX) {
      if (w.func !== "always") masked.push(w);
      continue;
    }
    switch (w.func) {
      case "always":
        break;
      case "==":
        lo = Math.max(lo, t);
        hi = Math.min(hi, t);
        break;
      case "!=":
        excluded.add(t);
        break;
      case "<":
        if (t > 0) hi = Math.min(hi, t - 1);
        break;
      case "<=":
        hi = Math.min(hi, t);
        break;
      case ">":
        if (t < MAX) lo = Math.max(lo, t + 1);
        break;
      case ">=":
        lo = Math.max(lo, t);
        break;
    }
  }
  const above = (from: number): number | undefined => {
    let v = from;
    while (v <= MAX && excluded.has(v)) v++;
    return v <= MAX ? v : undefined;
  };
  let v = above(lo);
  // Upper bounds that contradict the lower bounds are dropped (those waits deadlock).
  if (v === undefined) return lo;
  if (v > hi) return v;
  if (masked.length === 0) return v;
  // The smallest value from v up that also meets the masked waits (and still the others). A
  // value that meets `(word & b) == b` has the bits b set, so is at least their OR: a thermometer
  // flag's waits on bits 0..V-1 start the search at 2^V - 1, its code for V, which a search
  // from 0 (2^16 steps) could not reach past V = 16.
  const setBits = masked.reduce(
    (b, w) => (w.func === "==" && w.value === w.mask ? b | w.mask : b),
    0,
  );
  for (let c = Math.max(v, setBits >>> 0), n = 0; c <= hi && n < MASK_SEARCH; c++, n++)
    if (!excluded.has(c) && masked.every((w) => satisfies(c, w))) return c;
  return v;
}
