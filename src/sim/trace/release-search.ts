// Which write released a wait (recorder.ts): the earliest of a word's writes after which the
// condition held on every value up to the last write. Walking back from the last write costs the
// length of that run for every wait: quadratic for a signal raised N times before its N waits
// check it (a 4096-piece ring: 8 x 4096^2 / 2 steps, a minute). So each word keeps, per view of
// its value (the dword and mask a poll reads), what answers any condition in O(log n): the
// stacks of suffix minima and maxima, the start of the trailing run of equal values, and each
// value's last position. Every write enters each view once.

import type { PollFunc } from "../program.js";

export class WriteSuffix {
  /** The viewed value of each write, in landing order. */
  private readonly values: number[] = [];
  /** Positions whose value is below (mins) / above (maxs) every later one: a suffix's minimum
   * (maximum) is the value of the first of them at or after its start. */
  private readonly mins: number[] = [];
  private readonly maxs: number[] = [];
  private readonly lastAt = new Map<number, number>();
  private runStart = 0;

  constructor(readonly view: (value: number) => number) {}

  get size(): number {
    return this.values.length;
  }

  /** Takes in the next write's value (the whole word's). */
  add(value: number): void {
    const v = this.view(value);
    const at = this.values.length;
    const vs = this.values;
    if (at > 0 && vs[at - 1] !== v) this.runStart = at;
    vs.push(v);
    this.lastAt.set(v, at);
    while (this.mins.length > 0 && vs[this.mins[this.mins.length - 1]!]! >= v) this.mins.pop();
    this.mins.push(at);
    while (this.maxs.length > 0 && vs[this.maxs[this.maxs.length - 1]!]! <= v) this.maxs.pop();
    this.maxs.push(at);
  }

  /** The first position from which `v func ref` holds on every value; `size` if the last fails. */
  earliest(func: PollFunc, ref: number): number {
    const n = this.values.length;
    switch (func) {
      case "always":
        return 0;
      case "==":
        return n > 0 && this.values[n - 1] !== ref ? n : this.runStart;
      case "!=":
        return (this.lastAt.get(ref) ?? -1) + 1;
      case ">=":
        return this.after(this.mins, (v) => v < ref);
      case ">":
        return this.after(this.mins, (v) => v <= ref);
      case "<=":
        return this.after(this.maxs, (v) => v > ref);
      case "<":
        return this.after(this.maxs, (v) => v >= ref);
    }
  }

  /** Just after the last of `stack` whose value fails (those that fail come first). */
  private after(stack: readonly number[], fails: (v: number) => boolean): number {
    let lo = 0;
    let hi = stack.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (fails(this.values[stack[mid]!]!)) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? 0 : stack[lo - 1]! + 1;
  }
}
