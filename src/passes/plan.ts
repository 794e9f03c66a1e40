// The -O2 auto strategy: enumerate candidate plans, predict each one's time with the executor's
// timing model, keep the fastest one that verifies, and explain the choice (--explain-plan).
//
// A candidate fixes: the engine strategy (affinity, spread:K for K in 2..8 (8: 7 peers + the
// local copy of an all-to-all), single = spread:1),
// broadcast fusion on/off, prelaunch on/off and the completion policy (per-queue unless the user
// asks for per-op with --completion or by disabling batch-completions).
// batch-copies and sync-elision always run (never slower under the model); order-copies runs
// with each placement and chooses its copies' order by predicting it (order-copies.ts). Options the user
// gave (--engines, --completion, --prelaunch, --disable-pass) narrow the candidate set.
//
// Cost: candidates share what they have in common. bcast-fusion runs once; the placement
// passes (engine-assign, batch-copies: they re-lower) once per distinct placement (strategies
// that put every op on the same engine share one run); batch-completions and sync-elision once
// per (placement, completion policy); only prelaunch per candidate. Candidates whose programs are
// equal (a structural hash, confirmed by comparison: queue-program.ts programHash, programsEqual) are simulated once. The
// fastest plan wins, except that plans within PLAN_TIE (2 %) of it are a tie broken towards fewer
// queues, then the faster, then fewer commands. Each prediction is the cost model's (the
// executor's, which also checks the final state against the reference semantics, so "verified"
// means the executor's verdict).
//
// Predictions go through the cost model's interface (passes/cost-model.ts; PassContext.costModel,
// injected by the compile pipeline: driver/cost-model.ts), so this module needs nothing above
// passes/.
//
// A work budget (PLAN_BUDGET_WORK, `--plan-budget`) bounds the search on huge programs, inside a
// candidate too. Work is counted, never timed, so the plan is a function of the input and the
// options alone, whatever the machine's speed or load: each pass run costs the commands of its
// input, each prediction its set-up (cost-model.ts SETUP_WORK_PER_COMMAND per command) and the executor's events,
// and the executor gets the work left as its event limit (its watchdog, maxEvents). The budget is
// checked between passes and before each prediction. The first candidate's passes always run to
// their end (their program is the fallback: the -O1 passes); everything else stops at the budget
// and is reported skipped or stopped. The best plan found so far is kept, and planDiagnostics
// reports the early stop (DMAC4009, a warning) without --explain-plan.

import type { IrModule } from "../ir/ir.js";
import {
  commandCount,
  programHash,
  programsEqual,
  type QueueProgram,
} from "../queues/queue-program.js";
import { InternalError } from "../util/internal-error.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { assignEngines } from "./engine-assign.js";
import { passesKeepLowering, runPasses, type RunPassesResult } from "./index.js";
import type {
  CompletionPolicy,
  EngineStrategy,
  PassContext,
  PassName,
  PassOptions,
  WorkBudget,
} from "./pass.js";
import { maxOf, minOf } from "../util/arrays.js";
import { predictBounded } from "./cost-model.js";
import { ORDERS, receiverShared, type OrderName } from "./order-copies.js";
import { formatTime } from "../util/format-time.js";

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
  /** Work the search spent (see PlanBudget): the same number on every machine. */
  readonly work: number;
  /** The budget ran out before every candidate was evaluated (see planDiagnostics). */
  readonly stoppedEarly?:
    { readonly evaluated: number; readonly total: number; readonly budget: number } | undefined;
}

/**
 * The plan search's default work budget (the best plan so far is kept when it runs out): 1.3-3.4 s
 * of search on the quiet 2-core bench machine (600-1,560 work/ms, scripts/plan-work.mjs; about half
 * that rate under a load of 6-12). The examples' searches take 0.5k-250k, a 16-piece pipelined
 * ring at 4 MiB about 700k; allToAll(256) (4.1M) stops early.
 */
export const PLAN_BUDGET_WORK = 2_000_000;

/** Notes of the entries the budget left unevaluated. */
export const NOTE_SKIPPED = "skipped (work budget)";
export const NOTE_STOPPED = "stopped (work budget)";

/**
 * The search's work counter, in executor events and their equivalents: a pass run costs the
 * commands of its input, a prediction's set-up (layout, command trace, the executor's program:
 * it cannot be interrupted) SETUP_WORK_PER_COMMAND per command (cost-model.ts), its event loop one per event.
 * Counting work rather than time makes the search a function of its input.
 */
export class PlanBudget implements WorkBudget {
  spent = 0;
  constructor(readonly limit: number) {}
  left(): number {
    return this.limit - this.spent;
  }
  over(): boolean {
    return this.spent > this.limit;
  }
  spend(work: number): void {
    this.spent += work;
  }
}

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
  return { queues: prog.queues.length, commands: commandCount(prog) };
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

/** The label of a candidate; `order`: the order order-copies chose for its placement. */
export function candidateLabel(c: PlanCandidate, order: OrderName = "program"): string {
  const rotated = order === "program" ? "" : ` +${order}`;
  return `${engineLabel(c.engines)}${c.bcast ? " +bcast" : ""}${rotated}${c.prelaunch ? " +prelaunch" : ""} completion ${c.completion}`;
}

/** The order order-copies chose in a pass run (program order where it did not run). */
const orderOf = (run: RunPassesResult): OrderName =>
  ORDERS[run.stats.find((s) => s.pass === "order-copies")?.counters["order"] ?? 0]!.name;

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

/**
 * Predicted time of a program under the executor's model, and whether it verifies. With a
 * budget, stops (`stopped`, note NOTE_STOPPED) where the work runs out (see PlanBudget).
 */
export function predict(
  prog: QueueProgram,
  m: IrModule,
  ctx: PassContext,
  budget?: PlanBudget,
): { timeUs: number | undefined; verified: boolean; note?: string; stopped?: boolean } {
  const model = ctx.costModel;
  if (!model) throw new InternalError("a prediction needs a cost model (PassContext.costModel)");
  const request = {
    target: ctx.target,
    signalPeriodUs: ctx.options.signalPeriodUs,
    file: ctx.file,
  };
  const p = predictBounded(model, prog, m, request, programSize(prog).commands, budget);
  return p.stopped ? { ...p, note: NOTE_STOPPED } : p;
}

/** The budget's counter without its limit (the first candidate's passes always run). */
const countOnly = (b: PlanBudget): WorkBudget => ({
  over: () => false,
  spend: (w) => b.spend(w),
  left: () => b.left(),
});

/** Concatenates pass runs that follow each other. */
function chain(...rs: RunPassesResult[]): RunPassesResult {
  return {
    program: rs[rs.length - 1]!.program,
    stats: rs.flatMap((r) => r.stats),
    dumps: rs.flatMap((r) => r.dumps),
  };
}

export function choosePlan(prog: QueueProgram, m: IrModule, ctx: PassContext): PlanResult {
  const o = ctx.options;
  const budget = new PlanBudget(o.planBudget ?? PLAN_BUDGET_WORK);
  const off = (n: PassName): boolean => o.disabled?.includes(n) === true;
  // Pass runs are made of runPasses calls with only some passes enabled.
  const only = (enable: Partial<Record<PassName, boolean>>, engines = o.engines): PassOptions => ({
    ...o,
    engines,
    enable: {
      "bcast-fusion": false,
      "engine-assign": false,
      "batch-copies": false,
      "order-copies": false,
      "batch-completions": false,
      "sync-elision": false,
      prelaunch: false,
      ...enable,
    },
  });
  // The first candidate's passes run to their end (their work is counted, never refused): their
  // program is the result when nothing could be predicted within the budget.
  const passes = (
    input: QueueProgram,
    options: PassOptions,
    first: boolean,
    finalForm?: (p: QueueProgram) => QueueProgram,
  ): RunPassesResult =>
    runPasses(input, m, { ...ctx, options, budget: first ? countOnly(budget) : budget, finalForm });

  // bcast-fusion's program (the same for every engine strategy), made on first use.
  let fused: RunPassesResult | undefined;
  // Placement runs (engine-assign + batch-copies + order-copies) by fusion and prelaunch, with
  // the engine of every op. order-copies judges each order in the candidate's final form
  // (completions, elision, prelaunch): without the trigger, host submission staggers the GPUs'
  // starts and can make a rotation slower that is faster once prelaunched.
  const placements: {
    bcast: boolean;
    prelaunch: boolean;
    engine: Int16Array;
    run: RunPassesResult;
  }[] = [];
  const placedBy = new Map<string, RunPassesResult>(); // by engineLabel|bcast|prelaunch
  // Queue-level runs by the run they continue and the completion policy; prelaunch likewise.
  const finishes = new Map<RunPassesResult, Map<CompletionPolicy, RunPassesResult>>();
  const launched = new Map<RunPassesResult, RunPassesResult>();
  // Distinct programs by hash: the first entry that had it.
  const hashes = new WeakMap<QueueProgram, string>();
  const seen = new Map<string, { program: QueueProgram; entry: PlanEntry }[]>();
  const entries: PlanEntry[] = [];
  const runs = new Map<PlanEntry, RunPassesResult>();
  let firstRun: { entry: PlanEntry; run: RunPassesResult } | undefined;

  const ordered = !off("order-copies") && receiverShared(ctx.target);
  /** The queue-level passes that finish a candidate's placement (prelaunch apart). */
  const finishing = (cand: PlanCandidate): Partial<Record<PassName, boolean>> => ({
    "batch-completions": cand.completion === "per-queue",
    "sync-elision": !off("sync-elision"),
  });

  /** bcast-fusion + engine-assign + batch-copies + order-copies; undefined: out of time. */
  const placementOf = (cand: PlanCandidate, first: boolean): RunPassesResult | undefined => {
    // Only where order-copies may reorder does the placement depend on prelaunch.
    const prelaunch = ordered && cand.prelaunch;
    const key = `${engineLabel(cand.engines)}|${cand.bcast}|${prelaunch}`;
    const known = placedBy.get(key);
    if (known) return known;
    if (cand.bcast && !fused) {
      const r = passes(prog, only({ "bcast-fusion": true }), first);
      if (r.stoppedBefore) return undefined;
      fused = r;
    }
    const input = cand.bcast ? fused : undefined;
    const base = input?.program ?? prog;
    // Strategies that put every op on the same engine make the same placement: run it once.
    const engine = assignEngines(base, m, ctx.target, cand.engines).placement.engine;
    let run = placements.find(
      (p) =>
        p.bcast === cand.bcast &&
        p.prelaunch === prelaunch &&
        p.engine.every((e, i) => e === engine[i]),
    )?.run;
    if (!run) {
      const enable = {
        "engine-assign": true,
        "batch-copies": !off("batch-copies"),
        "order-copies": !off("order-copies"),
      };
      const finish = only({ ...finishing(cand), prelaunch });
      const finalForm = (q: QueueProgram): QueueProgram =>
        runPasses(q, m, { ...ctx, options: finish }).program;
      const r = passes(base, only(enable, cand.engines), first, finalForm);
      if (r.stoppedBefore) return undefined;
      run = input ? chain(input, r) : r;
      placements.push({ bcast: cand.bcast, prelaunch, engine, run });
    }
    placedBy.set(key, run);
    return run;
  };

  /** The candidate's program and pass report; undefined when the budget stopped it. */
  const programOf = (cand: PlanCandidate, first: boolean): RunPassesResult | undefined => {
    const placed = placementOf(cand, first);
    if (!placed) return undefined;
    let byPolicy = finishes.get(placed);
    if (!byPolicy) finishes.set(placed, (byPolicy = new Map()));
    let finish = byPolicy.get(cand.completion);
    if (!finish) {
      const r = passes(placed.program, only(finishing(cand)), first);
      if (r.stoppedBefore) return undefined;
      finish = chain(placed, r);
      byPolicy.set(cand.completion, finish);
    }
    if (!cand.prelaunch) return finish;
    let launch = launched.get(finish);
    if (!launch) {
      const r = passes(finish.program, only({ prelaunch: true }), first);
      if (r.stoppedBefore) return undefined;
      launch = chain(finish, r);
      launched.set(finish, launch);
    }
    return launch;
  };

  const candidates = planCandidates(o);
  candidates.forEach((cand, ci) => {
    const first = ci === 0;
    ctx.onCandidate?.(ci, candidates.length, candidateLabel(cand));
    const skipped = (note: string): void => {
      const label = candidateLabel(cand);
      entries.push({ candidate: cand, label, timeUs: undefined, verified: false, note });
    };
    if (!first && budget.over()) return skipped(NOTE_SKIPPED);
    const run = programOf(cand, first);
    if (!run) return skipped(NOTE_STOPPED);
    const label = candidateLabel(cand, orderOf(run));
    let key = hashes.get(run.program);
    if (key === undefined) hashes.set(run.program, (key = programHash(run.program)));
    const prev = seen.get(key)?.find((x) => programsEqual(x.program, run.program))?.entry;
    if (prev) {
      entries.push({ ...prev, candidate: cand, label, sameAs: prev.label });
      return;
    }
    const p = predict(run.program, m, ctx, budget);
    const entry: PlanEntry = {
      candidate: cand,
      label,
      timeUs: p.timeUs,
      verified: p.verified,
      ...(p.note !== undefined ? { note: p.note } : {}),
      ...programSize(run.program),
    };
    entries.push(entry);
    if (first) firstRun = { entry, run };
    if (p.stopped) return;
    let list = seen.get(key);
    if (!list) seen.set(key, (list = []));
    list.push({ program: run.program, entry });
    if (p.verified) runs.set(entry, run);
  });
  const budgetNotes = entries.filter((e) => e.note === NOTE_SKIPPED || e.note === NOTE_STOPPED);
  const stoppedEarly =
    budgetNotes.length > 0
      ? {
          evaluated: entries.length - budgetNotes.length,
          total: entries.length,
          budget: budget.limit,
        }
      : undefined;
  const chosen = pickPlan(entries);
  const best = chosen && { entry: chosen, run: runs.get(chosen)! };
  if (best) return { ...best.run, chosen: best.entry, entries, work: budget.spent, stoppedEarly };
  if (firstRun && firstRun.entry.note === NOTE_STOPPED) {
    // The budget ran out before any prediction finished: the first candidate's program (the
    // -O1 passes), unpredicted.
    return { ...firstRun.run, chosen: firstRun.entry, entries, work: budget.spent, stoppedEarly };
  }
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
  return { ...fallback, chosen: entry, entries, work: budget.spent, stoppedEarly };
}

/** DMAC4009 (a warning) when the plan search stopped at its budget; none otherwise. */
export function planDiagnostics(plan: PlanResult | undefined): Diagnostic[] {
  const s = plan?.stoppedEarly;
  if (!plan || !s) return [];
  const kept =
    plan.chosen.timeUs !== undefined
      ? `kept the fastest of those, ${plan.chosen.label}`
      : plan.chosen.note === NOTE_STOPPED
        ? `none was predicted in time: kept the first, ${plan.chosen.label} (the -O1 passes)`
        : `kept ${plan.chosen.label}`;
  return [
    diag("DMAC4009", undefined, [`${formatWork(s.budget)} events`, s.evaluated, s.total, kept]),
  ];
}

/** A work count for people: 2.0M, 350k, 900. */
export function formatWork(work: number): string {
  if (work >= 1e6) return `${(work / 1e6).toFixed(1)}M`;
  if (work >= 1e4) return `${Math.round(work / 1e3)}k`;
  return String(Math.round(work));
}

const fmtUs = (t: number | undefined): string => (t === undefined ? "-" : formatTime(t));

/** `--explain-plan`: the chosen plan and the predicted time of every alternative. */
export function formatPlan(r: PlanResult): string {
  const lines = [
    `plan: ${r.chosen.label}, predicted ${fmtUs(r.chosen.timeUs)} (${r.entries.length} candidates, work ${formatWork(r.work)})`,
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
      e.timeUs !== undefined && r.chosen.timeUs !== undefined && r.chosen.timeUs > 0
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
  if (programsEqual(o0, o1.program)) return keep("same program as -O0");
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
