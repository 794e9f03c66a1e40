// Reads a Chrome trace the way Perfetto's JSON importer does, for the trace tests: events in file
// order (which must be time order), one stack of open slices per (pid, tid) track, closed lazily
// when a later slice starts on the track; a flow's `s` binds to the slice on top of its track's
// stack, an `f` with `bp: "e"` likewise. Stricter than Perfetto, each endpoint must also lie inside
// the slice it binds to (chrome://tracing binds by containment), and every flow id must have one
// `s` before one `f`. Returns each slice's incoming flows by their source slice.

import { expect } from "vitest";
import { validateDocument } from "../../../src/schemas.js";
import type { ChromeEvent, ChromeTrace } from "../../../src/sim/chrome-trace.js";

export type Slice = Extract<ChromeEvent, { ph: "X" }>;

export interface ReadTrace {
  readonly slices: Slice[];
  /** For each slice with incoming flows: their source slices. */
  readonly incoming: Map<Slice, Slice[]>;
  /** Flows out of each source slice, by count. */
  readonly outgoing: Map<Slice, number>;
  readonly instants: Extract<ChromeEvent, { ph: "i" }>[];
}

export function readTrace(doc: ChromeTrace): ReadTrace {
  expect(validateDocument("chrome-trace", doc)).toEqual([]);
  const stacks = new Map<string, Slice[]>();
  const starts = new Map<number, Slice>();
  const ended = new Set<number>();
  const incoming = new Map<Slice, Slice[]>();
  const outgoing = new Map<Slice, number>();
  const slices: Slice[] = [];
  const instants: ReadTrace["instants"] = [];
  let last = -Infinity;
  const bound = (e: { pid: number; tid: number; ts: number }): Slice => {
    const top = stacks.get(`${e.pid}:${e.tid}`)?.at(-1);
    expect(top, `a flow event at ${e.ts} on ${e.pid}:${e.tid} has no slice`).toBeDefined();
    expect(e.ts).toBeGreaterThanOrEqual(top!.ts);
    expect(e.ts).toBeLessThanOrEqual(top!.ts + top!.dur);
    return top!;
  };
  for (const e of doc.traceEvents) {
    if (e.ph === "M") {
      expect(last, "metadata comes first").toBe(-Infinity);
      continue;
    }
    expect(e.ts, "events are in time order").toBeGreaterThanOrEqual(last);
    last = e.ts;
    switch (e.ph) {
      case "X": {
        const key = `${e.pid}:${e.tid}`;
        const stack = stacks.get(key) ?? [];
        stacks.set(key, stack);
        while (stack.length > 0 && stack.at(-1)!.ts + stack.at(-1)!.dur <= e.ts) stack.pop();
        // Slices on one track nest: a child ends within its parent.
        const parent = stack.at(-1);
        if (parent) expect(e.ts + e.dur).toBeLessThanOrEqual(parent.ts + parent.dur + 1e-9);
        stack.push(e);
        slices.push(e);
        break;
      }
      case "s": {
        expect(starts.has(e.id), `flow ${e.id} starts once`).toBe(false);
        starts.set(e.id, bound(e));
        break;
      }
      case "f": {
        const from = starts.get(e.id);
        expect(from, `flow ${e.id} ends after it starts`).toBeDefined();
        expect(ended.has(e.id), `flow ${e.id} ends once`).toBe(false);
        ended.add(e.id);
        const to = bound(e);
        incoming.set(to, [...(incoming.get(to) ?? []), from!]);
        outgoing.set(from!, (outgoing.get(from!) ?? 0) + 1);
        break;
      }
      case "i":
        // Thread-scoped instants would become slices on the track and catch flow ends.
        expect(e.s).not.toBe("t");
        instants.push(e);
        break;
      case "C":
        break;
    }
  }
  expect(
    [...starts.keys()].filter((id) => !ended.has(id)),
    "every flow ends",
  ).toEqual([]);
  return { slices, incoming, outgoing, instants };
}
