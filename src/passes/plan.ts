// The -O2 auto strategy: enumerate candidate plans, predict each one's time with the executor's
// timing model, keep the fastest one that verifies, and explain the choice (--explain-plan).
//
// A candidate fixes: the engine strategy (affinity, spread:K for K in 2..8 (8: 7 peers + the
// local copy of an all-to-all), single = spread:1),
// broadcast fusion on/off, prelaunch on/off and the completion policy (per-queue unless the user
// asks for per-op with --completion or by disabling batch-completions).
// batch-copies and sync-elision always run (never slower under the model). Options the user
// gave (--engines, --completion, --prelaunch, --disable-pass) narrow the candidate set.
//
// Cost: the placement passes (which re-lower) run once per (engines, fusion) pair; the
// queue-level passes once per full candidate; candidates whose programs print the same are
// simulated once. The fastest plan wins, except that plans within PLAN_TIE (2 %) of it are a
// tie broken towards fewer queues, then fewer commands. Each prediction lays the program out,
// emits the hardware-neutral command trace (no packet encoding) and runs simulate() on it, which also checks the final state against the
// reference semantics, so "verified" means the executor's verdict. A time budget bounds the
// search on huge programs (the best plan found so far is kept; the rest are reported skipped).

import { DEFAULT_LAYOUT, layoutProgram } from "../backend/sdma/layout.js";
import { emitTrace } from "../backend/trace/trace.js";
import type { IrModule } from "../ir/ir.js";
import type { QueueProgram } from "../queues/queue-program.js";
import { simulate } from "../sim/run.js";
import { makeSourceFile } from "../source/source-file.js";
import { InternalError } from "../util/internal-error.js";
import { passesKeepLowering, runPasses, type RunPassesResult } from "./index.js";
import type {
  CompletionPolicy,
  EngineStrategy,
  PassContext,
  PassName,
  PassOptions,
} from "./pass.js";
import { maxOf, minOf } from "../util/arrays.js";

export interface PlanCandidate {
  readonly engines: EngineStrategy;
  readonly bcast: boolean;
  readonly prelaunch: boolean;
  readonly completion: CompletionPolicy;
}

export interface PlanEntry {
  readonly candidate: PlanCandidate;
  readonly label: string;
  /** Predicted time (us); undefined when not evaluated or when it failed to verify. */
  readonly timeUs: number | undefined;
  /** Queues and packets-worth of commands of the candidate's program (the tie-breakers). */
  readonly queues?: number | undefined;
  readonly commands?: number | undefined;
  readonly verified: boolean;
  /** The label of an earlier candidate that produced the same program, if any. */
  readonly sameAs?: string | undefined;
  readonly note?: string | undefined;
}

export interface PlanResult extends RunPassesResult {
  readonly chosen: PlanEntry;
  readonly entries: readonly PlanEntry[];
  readonly searchMs: number;
}

/** Stop simulating new candidates after this long (the best so far is kept). */
export const PLAN_BUDGET_MS = 1500;

/**
 * Predicted times within this fraction of the fastest are a tie: the model is not that exact
 * (docs/model.md reports its error), so the tie goes to the plan with fewer queues (fewer engines
 * kept from other work, fewer completions to watch), then the faster, then fewer commands.
 */
export const PLAN_TIE = 0.02;

/** The entry -O2 picks among the verified ones: fastest, or simplest within PLAN_TIE of it. */
export function pickPlan<E extends PlanEntry>(entries: readonly E[]): E | undefined {
  const ok = entries.filter((e) => e.verified && e.timeUs !== undefined && e.sameAs === undefined);
  if (ok.length === 0) return undefined;
  const fastest = minOf(ok.map((e) => e.timeUs!));
  const tied = ok.filter((e) => e.timeUs! <= fastest * (1 + PLAN_TIE) + 1e-9);
  // Fewer queues first; among as many queues the faster, and commands only on an exact tie (a
  // prelaunch trigger poll adds a command but runs before the clock starts).
  const key = (e: E): [number, number, number] => [e.queues ?? 0, e.timeUs!, e.commands ?? 0];
  return tied.reduce((a, b) => {
    const [x, y] = [key(a), key(b)];
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! <= y[i]! ? a : b;
    return a;
  });
}

function programSize(prog: QueueProgram): { queues: number; commands: number } {
  let commands = 0;
  for (const q of prog.queues) commands += q.cmds.length;
  return { queues: prog.queues.length, commands };
}

export function engineLabel(e: EngineStrategy): string {
  switch (e.kind) {
    case "affinity":
      return "affinity";
    case "spread":
      return `spread:${e.k}`;
    case "single":
      return e.engines.length > 0 ? `single:${e.engines.join(",")}` : "single";
    default: {
      const never: never = e;
      throw new InternalError(`engine strategy ${JSON.stringify(never)}`);
    }
  }
}

export function candidateLabel(c: PlanCandidate): string {
  return `${engineLabel(c.engines)}${c.bcast ? " +bcast" : ""}${c.prelaunch ? " +prelaunch" : ""} completion ${c.completion}`;
}

/** The candidates the options allow, simplest first (ties go to the earlier one). */
export function planCandidates(o: PassOptions): PlanCandidate[] {
  const off = (n: PassName): boolean => o.disabled?.includes(n) === true;
  const engines: EngineStrategy[] = o.enginesFixed
    ? [o.engines]
    : [
        { kind: "affinity" },
        // K engines per GPU with the copies back to back within each (8: the local block of
        // an all-to-all on an engine of its own); spread:1 is `single` (each GPU's best engine).
        ...[8, 7, 6, 5, 4, 3, 2].map((k): EngineStrategy => ({ kind: "spread", k })),
        { kind: "single", engines: [] },
      ];
  const bcast = off("bcast-fusion") ? [false] : [false, true];
  const prelaunch = o.prelaunch ? [true] : off("prelaunch") ? [false] : [false, true];
  // Per-op completions are never faster under the model than per-queue (the -O1 premise, checked
  // by test/unit/passes/levels.test.ts), so they are a candidate only when the user asks.
  const completion: CompletionPolicy[] =
    o.completion !== undefined
      ? [o.completion]
      : off("batch-completions")
        ? ["per-op"]
        : ["per-queue"];
  const out: PlanCandidate[] = [];
  for (const e of engines)
    for (const b of bcast)
      for (const p of prelaunch)
        for (const c of completion) out.push({ engines: e, bcast: b, prelaunch: p, completion: c });
  return out;
}

/** Predicted time of a program under the executor's model, and whether it verifies. */
export function predict(
  prog: QueueProgram,
  m: IrModule,
  ctx: PassContext,
): { timeUs: number | undefined; verified: boolean; note?: string } {
  const file = ctx.file ?? makeSourceFile("<plan>", "");
  const laid = layoutProgram(m, prog, file, DEFAULT_LAYOUT);
  if (!laid.layout) return { timeUs: undefined, verified: false, note: "layout failed" };
  const trace = emitTrace(m, prog, laid.layout, ctx.target.name);
  const r = simulate(
    { trace, module: m },
    { target: ctx.target, signalPeriodUs: ctx.options.signalPeriodUs },
  );
  if (!r.verified) {
    const d = r.diagnostics.find((x) => x.severity === "error");
    return {
      timeUs: undefined,
      verified: false,
      note: d ? `${d.code} ${d.message}` : "did not verify",
    };
  }
  return { timeUs: r.stats.totalUs, verified: true };
}

export function choosePlan(prog: QueueProgram, m: IrModule, ctx: PassContext): PlanResult {
  const t0 = performance.now();
  const o = ctx.options;
  const off = (n: PassName): boolean => o.disabled?.includes(n) === true;
  const placementCache = new Map<string, RunPassesResult>();
  const seen = new Map<string, PlanEntry>();
  const entries: PlanEntry[] = [];
  const runs = new Map<PlanEntry, RunPassesResult>();
  for (const cand of planCandidates(o)) {
    const label = candidateLabel(cand);
    if (performance.now() - t0 > PLAN_BUDGET_MS) {
      entries.push({
        candidate: cand,
        label,
        timeUs: undefined,
        verified: false,
        note: "skipped (time budget)",
      });
      continue;
    }
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
    const key = JSON.stringify(finish.program);
    const prev = seen.get(key);
    if (prev) {
      entries.push({ ...prev, candidate: cand, label, sameAs: prev.label });
      continue;
    }
    const p = predict(finish.program, m, ctx);
    const entry: PlanEntry = { candidate: cand, label, ...p, ...programSize(finish.program) };
    seen.set(key, entry);
    entries.push(entry);
    if (p.verified)
      runs.set(entry, {
        program: finish.program,
        stats: [...placed.stats, ...finish.stats],
        dumps: [...placed.dumps, ...finish.dumps],
      });
  }
  const chosen = pickPlan(entries);
  const best = chosen && { entry: chosen, run: runs.get(chosen)! };
  if (!best) {
    // Nothing verified under the model: fall back to -O1 (a dmac bug; tests would catch it).
    const fallback = runPasses(prog, m, { ...ctx, options: { ...o, level: 1 } });
    const cand: PlanCandidate = {
      engines: o.engines,
      bcast: false,
      prelaunch: false,
      completion: "per-queue",
    };
    const entry: PlanEntry = {
      candidate: cand,
      label: "-O1 fallback",
      timeUs: undefined,
      verified: false,
      note: "no candidate verified",
    };
    return { ...fallback, chosen: entry, entries, searchMs: performance.now() - t0 };
  }
  return { ...best.run, chosen: best.entry, entries, searchMs: performance.now() - t0 };
}

const fmtUs = (t: number | undefined): string => (t === undefined ? "-" : `${t.toFixed(2)} us`);

/** `--explain-plan`: the chosen plan and the predicted time of every alternative. */
export function formatPlan(r: PlanResult): string {
  const lines = [
    `plan: ${r.chosen.label}, predicted ${fmtUs(r.chosen.timeUs)} (${r.entries.length} candidates, ${r.searchMs.toFixed(0)} ms)`,
  ];
  const width = maxOf(r.entries.map((e) => e.label.length));
  // The chosen plan first (it may be a tie that a faster plan with more queues lost), then the
  // rest fastest first.
  const sorted = [...r.entries].sort(
    (a, b) =>
      Number(b === r.chosen) - Number(a === r.chosen) ||
      (a.timeUs ?? Infinity) - (b.timeUs ?? Infinity),
  );
  for (const e of sorted) {
    const mark =
      e === r.chosen || (e.sameAs === r.chosen.label && e.timeUs === r.chosen.timeUs) ? "*" : " ";
    const rel =
      e.timeUs !== undefined && r.chosen.timeUs !== undefined
        ? ` ${((e.timeUs / r.chosen.timeUs - 1) * 100).toFixed(1).padStart(6)} %`
        : "";
    const tie =
      e !== r.chosen && e.timeUs !== undefined && r.chosen.timeUs !== undefined && !e.sameAs
        ? e.timeUs < r.chosen.timeUs - 1e-9
          ? ` (a tie within ${PLAN_TIE * 100} %: ${e.queues} queues against ${r.chosen.queues})`
          : ""
        : "";
    const extra = e.sameAs ? ` (same program as ${e.sameAs})` : e.note ? ` (${e.note})` : tie;
    lines.push(`${mark} ${e.label.padEnd(width)}  ${fmtUs(e.timeUs).padStart(12)}${rel}${extra}`);
  }
  return lines.join("\n") + "\n";
}

/** The -O1 check predicts both programs only up to this many commands in all (see checkLevel1). */
export const LEVEL1_CHECK_MAX_COMMANDS = 100_000;

/** What the -O1 check found: both predictions and the program it kept. */
export interface LevelCheck {
  /** Predicted times (us) of the -O0 and the -O1 program; undefined where none was made. */
  readonly o0Us: number | undefined;
  readonly o1Us: number | undefined;
  /** The program -O1 returns: its passes' ("O1"), or the -O0 program because that was faster. */
  readonly kept: "O1" | "O0";
  readonly note: string;
}

/**
 * -O1 promises "never slower than -O0" and checks it for the program at hand: the executor
 * predicts the -O0 program (the same options at level 0) and the -O1 program under the options
 * the user gave (--signal-period included), and -O1 keeps the -O0 program when its own would be
 * slower. The passes are rarely slower, but can be: one completion per queue, or one poll fewer,
 * shifts where the host's and the engines' poll grids meet the last signal. Two programs of
 * more than LEVEL1_CHECK_MAX_COMMANDS commands together are not predicted (that costs seconds:
 * ~4 s for 170k): -O1 then keeps its passes' program and says so.
 */
function checkLevel1(
  prog: QueueProgram,
  m: IrModule,
  ctx: PassContext,
  o1: RunPassesResult,
): { program: QueueProgram; check: LevelCheck } {
  const o0Options: PassOptions = { ...ctx.options, level: 0, dumpAfter: [] };
  const o0 = passesKeepLowering(o0Options)
    ? prog
    : runPasses(prog, m, { ...ctx, options: o0Options }).program;
  const commands = programSize(o0).commands + programSize(o1.program).commands;
  const keep = (note: string, o0Us?: number, o1Us?: number) => ({
    program: o1.program,
    check: { o0Us, o1Us, kept: "O1" as const, note },
  });
  if (commands > LEVEL1_CHECK_MAX_COMMANDS)
    return keep(`not checked: ${commands} commands, more than ${LEVEL1_CHECK_MAX_COMMANDS}`);
  if (JSON.stringify(o0) === JSON.stringify(o1.program)) return keep("same program as -O0");
  const t0 = predict(o0, m, ctx);
  const t1 = predict(o1.program, m, ctx);
  if (!t0.verified || !t1.verified || t0.timeUs === undefined || t1.timeUs === undefined)
    return keep("not checked: a program did not verify under the model", t0.timeUs, t1.timeUs);
  if (t1.timeUs <= t0.timeUs + 1e-9) return keep("not slower than -O0", t0.timeUs, t1.timeUs);
  return {
    program: o0,
    check: { o0Us: t0.timeUs, o1Us: t1.timeUs, kept: "O0", note: "kept the -O0 program" },
  };
}

/** `--stats` / `--explain-plan` at -O1: what the check found. */
export function formatLevelCheck(c: LevelCheck): string {
  const times =
    c.o0Us !== undefined && c.o1Us !== undefined
      ? `: -O0 predicted ${fmtUs(c.o0Us)}, -O1 ${fmtUs(c.o1Us)}`
      : "";
  return `-O1 check: ${c.note}${times}\n`;
}

/**
 * The optimiser's entry point: -O0 runs the level's passes, -O1 its passes checked against -O0
 * (checkLevel1), -O2 searches for a plan.
 */
export function optimise(
  prog: QueueProgram,
  m: IrModule,
  ctx: PassContext,
): RunPassesResult & {
  readonly plan?: PlanResult | undefined;
  readonly levelCheck?: LevelCheck | undefined;
} {
  if (ctx.options.level === 2) {
    const plan = choosePlan(prog, m, ctx);
    return { program: plan.program, stats: plan.stats, dumps: plan.dumps, plan };
  }
  const r = runPasses(prog, m, ctx);
  if (ctx.options.level !== 1) return r;
  const checked = checkLevel1(prog, m, ctx, r);
  return { ...r, program: checked.program, levelCheck: checked.check };
}
