// The optimisation passes: one table (PASSES, in the order they run), the ordering constraints
// between them (PASS_ORDER, checked when this module loads: a misordered table is a dmac bug and
// throws InternalError), which passes an option set enables, and runPasses, which runs them.
// Each pass is a pure QueueProgram -> QueueProgram function with its own file (pass.ts has the
// contract); -O2's plan search lives in plan.ts and calls runPasses once per candidate.

import { verifyQueueProgram } from "../queues/verify.js";
import { commandCount, type QueueProgram } from "../queues/queue-program.js";
import type { IrModule } from "../ir/ir.js";
import { InternalError } from "../util/internal-error.js";
import batchCompletions from "./batch-completions.js";
import batchCopies from "./batch-copies.js";
import bcastFusion from "./bcast-fusion.js";
import engineAssign from "./engine-assign.js";
import type { Pass, PassContext, PassName, PassOptions, PassStats } from "./pass.js";
import { PASS_NAMES } from "./pass.js";
import orderCopies from "./order-copies.js";
import prelaunch from "./prelaunch.js";
import { printQueues } from "./print-queues.js";
import syncElision from "./sync-elision.js";

export type { Pass, PassContext, PassName, PassOptions, PassStats } from "./pass.js";

/** Every pass, in the order runPasses runs them. */
export const PASSES: readonly Pass[] = [
  bcastFusion,
  engineAssign,
  batchCopies,
  orderCopies,
  batchCompletions,
  syncElision,
  prelaunch,
];

/** [earlier, later, why]: `earlier` must come before `later` in PASSES. */
export const PASS_ORDER: readonly (readonly [PassName, PassName, string])[] = [
  [
    "bcast-fusion",
    "engine-assign",
    "engine assignment balances the broadcasts, not the copies they replace",
  ],
  [
    "engine-assign",
    "batch-copies",
    "copies merge only when they share a queue, which engine assignment decides",
  ],
  [
    "batch-copies",
    "order-copies",
    "the order is chosen among the commands as merged (a merge keeps its first op's place)",
  ],
  [
    "order-copies",
    "batch-completions",
    "order-copies re-lowers, which would bring back one completion per op",
  ],
  [
    "batch-completions",
    "sync-elision",
    "elision then sees the final command list (completions order nothing, but keep one view)",
  ],
  [
    "sync-elision",
    "prelaunch",
    "the trigger poll must stay the first command of each queue; elision must not see it as sync",
  ],
];

/** Throws InternalError if PASSES breaks PASS_ORDER or a re-lowering pass follows a queue-level one. */
export function checkPassOrder(
  passes: readonly Pass[],
  order: readonly (readonly [PassName, PassName, string])[],
): void {
  const at = (n: PassName): number => {
    const i = passes.findIndex((p) => p.name === n);
    if (i < 0) throw new InternalError(`pass order names unknown pass '${n}'`);
    return i;
  };
  for (const [a, b, why] of order)
    if (at(a) >= at(b)) throw new InternalError(`pass '${a}' must run before '${b}': ${why}`);
  const names = new Set(passes.map((p) => p.name));
  if (names.size !== passes.length || PASS_NAMES.some((n) => !names.has(n)))
    throw new InternalError("PASSES must list every pass name exactly once");
  const firstQueueLevel = passes.findIndex((p) => !p.relowers);
  passes.forEach((p, i) => {
    if (p.relowers && firstQueueLevel >= 0 && i > firstQueueLevel)
      throw new InternalError(
        `pass '${p.name}' re-lowers and would discard '${passes[firstQueueLevel]!.name}'`,
      );
  });
}

checkPassOrder(PASSES, PASS_ORDER);

export function passByName(name: string): Pass | undefined {
  return PASSES.find((p) => p.name === name);
}

/** Whether the options run pass `p`. */
export function passEnabled(p: Pass, o: PassOptions): boolean {
  const explicit = o.enable?.[p.name];
  if (explicit !== undefined) return explicit; // the -O2 plan's own staging
  if (o.disabled?.includes(p.name) && !p.required) return false;
  if (p.name === "batch-completions" && o.completion !== undefined)
    return o.completion === "per-queue";
  if (p.name === "prelaunch" && o.prelaunch === true) return true;
  return p.levels.includes(o.level);
}

export interface RunPassesResult {
  readonly program: QueueProgram;
  readonly stats: PassStats[];
  /** printQueues after each pass named in options.dumpAfter, in pass order. */
  readonly dumps: { readonly pass: PassName; readonly text: string }[];
  /** ctx.budget was over before this pass could start: `program` is unfinished. */
  readonly stoppedBefore?: PassName | undefined;
}

/**
 * Runs the enabled passes in table order (verifying after each when ctx.verify is set). With
 * ctx.budget, charges each pass the commands of its input and stops before the first pass that
 * would start over budget (stoppedBefore).
 */
export function runPasses(prog: QueueProgram, m: IrModule, ctx: PassContext): RunPassesResult {
  if (ctx.module !== m) ctx = { ...ctx, module: m };
  const stats: PassStats[] = [];
  const dumps: { pass: PassName; text: string }[] = [];
  let cur = prog;
  const enabled = PASSES.filter((p) => passEnabled(p, ctx.options));
  for (const [k, p] of enabled.entries()) {
    if (ctx.budget?.over()) return { program: cur, stats, dumps, stoppedBefore: p.name };
    ctx.budget?.spend(commandCount(cur));
    const later = enabled.slice(k + 1);
    // The program as the later passes, then the caller's (ctx.finalForm), will leave it.
    const finalForm = (q: QueueProgram): QueueProgram => {
      const done = later.reduce((x, l) => l.run(x, { ...ctx, finalForm: undefined }).program, q);
      return ctx.finalForm ? ctx.finalForm(done) : done;
    };
    const r = p.run(cur, { ...ctx, finalForm });
    cur = r.program;
    stats.push({ pass: p.name, counters: r.counters });
    if (ctx.verify) {
      try {
        verifyQueueProgram(cur, m, ctx.target.engines.count);
      } catch (e) {
        throw new InternalError(`after pass '${p.name}': ${(e as Error).message}`, { cause: e });
      }
    }
    if (ctx.options.dumpAfter?.includes(p.name))
      dumps.push({ pass: p.name, text: printQueues(cur, m) });
  }
  return { program: cur, stats, dumps };
}

/** `--stats`: one line per pass that ran, with its counters. */
export function formatStats(stats: readonly PassStats[]): string {
  return stats
    .map(
      (s) =>
        `${s.pass.padEnd(18)} ${Object.entries(s.counters)
          .map(([k, v]) => `${k} ${v}`)
          .join(", ")}`,
    )
    .join("\n");
}

/**
 * Whether optimise() with these options returns the -O0 lowering unchanged, so a caller that
 * wants no pass report may skip it: only engine-assign runs, with the affinity strategy, which
 * re-lowers with the placement the lowering itself chose. Skipping matters at scale: the
 * re-lowering is about two thirds of a 10^6-op -O0 compile (docs/performance.md).
 * test/unit/passes/identity.test.ts checks the claim on every example with both protocols.
 */
export function passesKeepLowering(o: PassOptions): boolean {
  if (o.level === 2 || o.engines.kind !== "affinity" || (o.dumpAfter?.length ?? 0) > 0)
    return false;
  return PASSES.every((p) => p.name === "engine-assign" || !passEnabled(p, o));
}
