// The event heap pops in (time, insertion order), whatever mix of pushes and pops came before:
// with its front slot (the earliest event when it was pushed last), against a sorted list.

import { describe, expect, it } from "vitest";
import { EventHeap } from "../../../src/sim/heap.js";

/** A small deterministic generator (xorshift32). */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 2 ** 32;
  };
}

describe("EventHeap", () => {
  it("pops by time, ties in push order, with pushes between pops", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const r = rng(seed);
      const heap = new EventHeap();
      const ref: { time: number; seq: number; arg: number }[] = [];
      let seq = 0;
      let now = 0;
      for (let step = 0; step < 2000; step++) {
        if (ref.length === 0 || r() < 0.55) {
          // Times at or after the last pop, few distinct values: many ties and many new minima.
          const time = now + Math.floor(r() * 4);
          heap.push(time, 1, seq);
          ref.push({ time, seq, arg: seq });
          seq++;
        } else {
          ref.sort((a, b) => a.time - b.time || a.seq - b.seq);
          const want = ref.shift()!;
          expect(heap.peekTime()).toBe(want.time);
          for (const d of [-1, 0, 1]) expect(heap.atOrBefore(want.time + d)).toBe(d <= 0);
          expect(heap.pop()).toBe(true);
          expect([heap.lastTime, heap.lastArg]).toEqual([want.time, want.arg]);
          now = want.time;
        }
        expect(heap.size).toBe(ref.length);
      }
    }
  });

  it("is empty when made (its warm-up leaves nothing) and after its last pop", () => {
    const heap = new EventHeap();
    expect(heap.size).toBe(0);
    expect(heap.pop()).toBe(false);
    // Ties go in push order from the first push on (the sequence starts again after the warm-up).
    heap.push(5, 1, 1);
    heap.push(5, 2, 2);
    expect(heap.pop() && heap.lastArg).toBe(1);
    expect(heap.pop() && heap.lastArg).toBe(2);
    heap.push(5, 2, 7);
    expect(heap.peekTime()).toBe(5);
    expect(heap.pop()).toBe(true);
    expect(heap.lastKind).toBe(2);
    expect(heap.pop()).toBe(false);
    expect(heap.peekTime()).toBe(Infinity);
    expect(heap.atOrBefore(1e300)).toBe(true);
  });
});
