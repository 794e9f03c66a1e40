// The -O2 plan search: incremental evaluation gives exactly what evaluating every candidate from
// scratch gave (the original search is kept here as the reference); the work budget holds inside
// a candidate (between passes, before and inside a prediction through the executor's event
// watchdog) and counts the same work on every run; an early stop is reported as DMAC4009. Also
// the structural program key that replaced JSON.stringify.

import { SIMULATED_COST_MODEL } from "../../../src/driver/cost-model.js";
import { describe, expect, it } from "vitest";
import { forwardProgram } from "../../../bench/gen.js";
import { compileToQueues } from "../../../src/driver/compile.js";
import type { IrModule } from "../../../src/ir/ir.js";
import { runPasses, type RunPassesResult } from "../../../src/passes/index.js";
import type { PassContext, PassName, PassOptions } from "../../../src/passes/pass.js";
import {
  candidateLabel,
  choosePlan,
  engineLabel,
  NOTE_SKIPPED,
  NOTE_STOPPED,
  pickPlan,
  planCandidates,
  planDiagnostics,
  PlanBudget,
  predict,
  type PlanEntry,
} from "../../../src/passes/plan.js";
import type { CostModel } from "../../../src/passes/cost-model.js";
import {
  commandCount,
  programHash,
  programsEqual,
  type QueueProgram,
} from "../../../src/queues/queue-program.js";
import { toReadable } from "../../../src/queues/readable.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { exampleText, O } from "./helpers.js";

function compiled(name: string, text: string) {
  const file = makeSourceFile(name, text);
  const q = compileToQueues(file, { sync: "aggressive" }); // the passes' input forms
  if (!q.compiled) throw new Error(q.diagnostics.map((d) => d.message).join("\n"));
  return { file, ...q.compiled };
}

const ctxOf = (c: ReturnType<typeof compiled>, options: PassOptions): PassContext => ({
  target: c.target,
  module: c.module,
  options,
  lower: { completion: "atomic" },
  costModel: SIMULATED_COST_MODEL,
  file: c.file,
});

/** The search before issue 13: every candidate from scratch, JSON texts as dedupe keys. */
function choosePlanRef(prog: QueueProgram, m: IrModule, ctx: PassContext) {
  const o = ctx.options;
  const off = (n: PassName): boolean => o.disabled?.includes(n) === true;
  const placementCache = new Map<string, RunPassesResult>();
  const seen = new Map<string, PlanEntry>();
  const entries: PlanEntry[] = [];
  const runs = new Map<PlanEntry, RunPassesResult>();
  for (const cand of planCandidates(o)) {
    const label = candidateLabel(cand);
    const pkey = `${engineLabel(cand.engines)}|${cand.bcast}`;
    let placed = placementCache.get(pkey);
    if (!placed) {
      const options: PassOptions = {
        ...o,
        engines: cand.engines,
        enable: {
          "bcast-fusion": cand.bcast,
          "engine-assign": true,
          "batch-copies": !off("batch-copies"),
          "batch-completions": false,
          "sync-elision": false,
          prelaunch: false,
        },
      };
      placed = runPasses(prog, m, { ...ctx, options });
      placementCache.set(pkey, placed);
    }
    const finish = runPasses(placed.program, m, {
      ...ctx,
      options: {
        ...o,
        enable: {
          "bcast-fusion": false,
          "engine-assign": false,
          "batch-copies": false,
          "batch-completions": cand.completion === "per-queue",
          "sync-elision": !off("sync-elision"),
          prelaunch: cand.prelaunch,
        },
      },
    });
    const key = JSON.stringify(toReadable(finish.program));
    const prev = seen.get(key);
    if (prev) {
      entries.push({ ...prev, candidate: cand, label, sameAs: prev.label });
      continue;
    }
    const p = predict(finish.program, m, ctx);
    const q = finish.program.queues;
    const entry: PlanEntry = {
      candidate: cand,
      label,
      ...p,
      queues: q.length,
      commands: q.reduce((a, x) => a + x.cmds.length, 0),
    };
    seen.set(key, entry);
    entries.push(entry);
    if (p.verified)
      runs.set(entry, {
        program: finish.program,
        stats: [...placed.stats, ...finish.stats],
        dumps: [...placed.dumps, ...finish.dumps],
      });
  }
  const chosen = pickPlan(entries)!;
  return { ...runs.get(chosen)!, chosen, entries };
}

describe("-O2 plan search: incremental evaluation", () => {
  const cases: [string, Partial<PassOptions>][] = [
    ["all_to_all_pcpy.dmac", {}],
    ["all_gather_pcpy.dmac", { dumpAfter: ["engine-assign", "prelaunch"] }],
    ["pipelined_all_gather.dmac", {}],
    ["broadcast.dmac", { completion: "per-op" }],
    ["ring_all_gather.dmac", { disabled: ["sync-elision", "batch-copies"] }],
  ];
  for (const [name, extra] of cases)
    it(`${name} ${JSON.stringify(extra)}: the same entries, choice, program and report`, () => {
      const c = compiled(name, exampleText(name));
      const options = O(2, extra);
      const got = choosePlan(c.program, c.module, ctxOf(c, options));
      const want = choosePlanRef(c.program, c.module, ctxOf(c, options));
      expect(got.stoppedEarly).toBeUndefined();
      expect(got.entries).toEqual(want.entries);
      expect(got.chosen.label).toBe(want.chosen.label);
      expect(JSON.stringify(toReadable(got.program))).toBe(
        JSON.stringify(toReadable(want.program)),
      );
      expect(got.stats).toEqual(want.stats);
      expect(got.dumps).toEqual(want.dumps);
      expect(planDiagnostics(got)).toEqual([]);
    });
});

describe("-O2 plan search: the work budget", () => {
  it("with no work at all: the first candidate's program (the -O1 passes), and DMAC4009", () => {
    const c = compiled("a2a", exampleText("all_to_all_pcpy.dmac"));
    const plan = choosePlan(c.program, c.module, ctxOf(c, O(2, { planBudget: 0 })));
    expect(plan.stoppedEarly).toEqual({
      evaluated: 0,
      total: planCandidates(O(2)).length,
      budget: 0,
    });
    expect(plan.chosen.label).toBe(plan.entries[0]!.label);
    expect(plan.chosen.note).toBe(NOTE_STOPPED);
    expect(plan.entries.slice(1).every((e) => e.note === NOTE_SKIPPED)).toBe(true);
    const o1 = runPasses(c.program, c.module, ctxOf(c, O(1)));
    expect(JSON.stringify(toReadable(plan.program))).toBe(JSON.stringify(toReadable(o1.program)));
    expect(plan.stats).toEqual(o1.stats);
    const d = planDiagnostics(plan);
    expect(d.map((x) => [x.code, x.severity])).toEqual([["DMAC4009", "warning"]]);
    expect(d[0]!.message).toMatch(/stopped at its work budget \(0 events\): 0 of \d+ candidates/);
  });

  it("a budget that runs out midway stops at the same candidate, with the same work, every run", () => {
    const c = compiled("ring", exampleText("pipelined_all_gather.dmac"));
    const full = choosePlan(c.program, c.module, ctxOf(c, O(2)));
    expect(full.stoppedEarly).toBeUndefined();
    const half = Math.floor(full.work / 2);
    const runs = [0, 1].map(() =>
      choosePlan(c.program, c.module, ctxOf(c, O(2, { planBudget: half }))),
    );
    const [a, b] = runs.map((r) => ({
      entries: r.entries,
      work: r.work,
      stoppedEarly: r.stoppedEarly,
      program: JSON.stringify(toReadable(r.program)),
    }));
    expect(a).toEqual(b);
    expect(a!.stoppedEarly!.evaluated).toBeGreaterThan(0);
    expect(a!.stoppedEarly!.evaluated).toBeLessThan(a!.stoppedEarly!.total);
    // The work counted never passes the budget by more than the unit that crossed it.
    expect(a!.work).toBeGreaterThan(half);
  });

  it("compileToQueues reports DMAC4009 as a warning and still compiles", () => {
    const file = makeSourceFile("a2a", exampleText("all_to_all_pcpy.dmac"));
    const q = compileToQueues(file, { passes: O(2, { planBudget: 0 }) });
    expect(q.compiled).toBeDefined();
    expect(q.diagnostics.map((x) => `${x.code} ${x.severity}`)).toEqual(["DMAC4009 warning"]);
    const full = compileToQueues(file, { passes: O(2) });
    expect(full.diagnostics).toEqual([]);
  });

  it("runPasses charges each pass its input's commands and starts none over budget", () => {
    const c = compiled("a2a", exampleText("all_to_all_pcpy.dmac"));
    const counted = new PlanBudget(Infinity);
    runPasses(c.program, c.module, { ...ctxOf(c, O(1)), budget: counted });
    expect(counted.spent).toBeGreaterThanOrEqual(commandCount(c.program));
    const spent = new PlanBudget(0);
    spent.spend(1);
    const r = runPasses(c.program, c.module, { ...ctxOf(c, O(1)), budget: spent });
    expect(r.stoppedBefore).toBe("engine-assign");
    expect(r.program).toBe(c.program);
    expect(r.stats).toEqual([]);
  });

  it("a prediction stops at the executor's event limit: the work left", () => {
    const c = compiled("fwd", forwardProgram(4096));
    const ctx = ctxOf(c, O(2));
    const full = predict(c.program, c.module, ctx);
    expect(full.verified).toBe(true);
    // Work for the set-up, but only the minimum of 10,000 events.
    const commands = commandCount(c.program);
    const short = new PlanBudget(commands + 1);
    expect(predict(c.program, c.module, ctx, short)).toEqual({
      timeUs: undefined,
      verified: false,
      note: NOTE_STOPPED,
      stopped: true,
    });
    // No work left for the set-up: nothing is started, nothing spent.
    const none = new PlanBudget(commands - 1);
    expect(predict(c.program, c.module, ctx, none).stopped).toBe(true);
    expect(none.spent).toBe(0);
    // Work enough: the same prediction as without a budget; set-up and events are charged.
    const ample = new PlanBudget(1e9);
    expect(predict(c.program, c.module, ctx, ample)).toEqual(full);
    expect(ample.spent).toBeGreaterThan(commands);
  }, 30_000);
});

describe("program keys", () => {
  it("programsEqual is equality of the readable JSON, and equal programs hash alike", () => {
    // Every pass run of every candidate of two examples: many equal and many different programs.
    const programs: QueueProgram[] = [];
    for (const name of ["all_gather_pcpy.dmac", "pipelined_all_gather.dmac"]) {
      const c = compiled(name, exampleText(name));
      programs.push(c.program);
      for (const cand of planCandidates(O(2))) {
        const options: PassOptions = {
          ...O(2),
          engines: cand.engines,
          prelaunch: cand.prelaunch,
          enable: { "bcast-fusion": cand.bcast, prelaunch: cand.prelaunch },
        };
        programs.push(runPasses(c.program, c.module, ctxOf(c, options)).program);
      }
    }
    const texts = programs.map((p) => JSON.stringify(toReadable(p)));
    let equalPairs = 0;
    let differentPairs = 0;
    for (let i = 0; i < programs.length; i++)
      for (let j = i; j < programs.length; j++) {
        const same = texts[i] === texts[j];
        expect(programsEqual(programs[i]!, programs[j]!), `${i} vs ${j}`).toBe(same);
        if (same) {
          equalPairs++;
          expect(programHash(programs[i]!)).toBe(programHash(programs[j]!));
        } else differentPairs++;
      }
    expect(equalPairs).toBeGreaterThan(programs.length);
    expect(differentPairs).toBeGreaterThan(programs.length);
  });
});

describe("the cost model interface", () => {
  it("the plan search predicts only through the injected model, and keeps its fastest plan", () => {
    const c = compiled("all_gather_pcpy.dmac", exampleText("all_gather_pcpy.dmac"));
    let calls = 0;
    // A model that likes few queues and, among those, few commands.
    const model: CostModel = {
      predict(p) {
        calls++;
        return { kind: "predicted", timeUs: 100 * p.queues.length + commandCount(p), events: 0 };
      },
    };
    const plan = choosePlan(c.program, c.module, { ...ctxOf(c, O(2)), costModel: model });
    const evaluated = plan.entries.filter((e) => e.timeUs !== undefined && !e.sameAs);
    expect(calls).toBe(evaluated.length);
    expect(plan.chosen.timeUs).toBe(Math.min(...evaluated.map((e) => e.timeUs!)));
    expect(plan.program.queues.length).toBe(8); // one engine per GPU wins
    const noModel = { ...ctxOf(c, O(2)), costModel: undefined };
    expect(() => choosePlan(c.program, c.module, noModel)).toThrow(/cost model/);
  });
});
