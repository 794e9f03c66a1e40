// The optimiser's command-line options, shared by `compile`, `golden`, `sim` and `sweep` so the
// four commands spell and check them the same way: -O/--opt, --engines, --completion (a protocol
// and/or a policy), --prelaunch, --disable-pass, --dump-after, --stats, --explain-plan. Parsing
// turns them into the PassOptions of src/passes (via parsePassOptions) plus the completion
// protocol the lowering takes; bad values are DMAC5004 diagnostics, never exceptions.

import type { Command } from "commander";
import { Option } from "./commander.js";
import type { OptimiseReport } from "../passes/optimise-report.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { formatStats } from "../passes/index.js";
import { parsePassOptions } from "../passes/options.js";
import type { CompletionPolicy, OptLevel, PassOptions } from "../passes/pass.js";
import { formatLevelCheck, formatPlan, PLAN_BUDGET_WORK } from "../passes/plan.js";
import type { CompletionProtocol } from "../queues/queue-program.js";
import type { SyncMode, Target } from "../target/target.js";
import { parseSync, SYNC_HELP } from "./options.js";

/** The optimiser options as commander delivers them. */
export interface OptCommandOptions {
  readonly opt?: string | undefined;
  readonly engines?: string | undefined;
  readonly completion?: string | undefined;
  readonly prelaunch?: boolean | undefined;
  readonly disablePass?: string[] | undefined;
  readonly dumpAfter?: string[] | undefined;
  readonly stats?: boolean | undefined;
  readonly explainPlan?: boolean | undefined;
  /** `--sync conservative|aggressive` (default: the target's, docs/runtime.md section 6). */
  readonly sync?: string | undefined;
  /** `dmac sim --signal-period` (sim parses and reports it): the optimiser predicts with it. */
  readonly signalPeriod?: string | undefined;
  /** `--plan-budget N|unlimited`: the -O2 search's work budget. */
  readonly planBudget?: string | undefined;
}

export interface AddOptOptions {
  /** `-O` takes a comma-separated list of levels (`sweep -O 0,1,2`). */
  readonly levelList?: boolean | undefined;
  /** Add --dump-after and --stats (commands that print one compilation's passes). */
  readonly passReports?: boolean | undefined;
  /** Default of -O (compile: "0"; sim and sweep leave it unset so an explicit -O is visible). */
  readonly defaultLevel?: string | undefined;
}

const collect = (v: string, prev: string[] | undefined): string[] => [...(prev ?? []), v];

/** Adds the optimiser options to a command. */
export function addOptOptions(cmd: Command, how: AddOptOptions = {}): Command {
  const level = new Option(
    how.levelList ? "-O, --opt <levels>" : "-O, --opt <level>",
    how.levelList
      ? "optimisation levels to compare, comma-separated, e.g. -O 0,1,2 (0: DMA-Latte baseline, 1: never slower, 2: cost model)"
      : "optimisation level: 0 (DMA-Latte baseline), 1 (never slower), 2 (cost model)",
  );
  if (how.defaultLevel !== undefined) level.default(how.defaultLevel);
  cmd
    .addOption(level)
    .option("--engines <strategy>", "engine assignment: affinity, spread:K, single[:E,...]")
    .addOption(
      new Option(
        "--completion <list>",
        "completion signals: atomic (ATOMIC add64 -1) or fence (FENCE 0); per-op or per-queue (one per command or one per queue); comma-separated",
      ),
    )
    .option(
      "--prelaunch",
      "each queue waits on a host trigger word; one store releases the schedule",
    )
    .option("--disable-pass <pass>", "turn a pass off (repeatable, or comma-separated)", collect)
    .option("--sync <mode>", SYNC_HELP);
  if (how.passReports)
    cmd
      .option("--dump-after <pass>", "print the queue program after a pass (repeatable)", collect)
      .option("--stats", "print what each pass changed");
  cmd.option(
    "--explain-plan",
    "-O2: print the chosen plan and the predicted time of each alternative; -O1: the check against -O0",
  );
  cmd.option(
    "--plan-budget <work>",
    `-O2: the plan search's work budget in executor events (counted, not timed: the same plan on every machine), or 'unlimited' (default ${PLAN_BUDGET_WORK})`,
  );
  return cmd;
}

/** `--completion atomic|fence[,per-op|per-queue]` in any order: the protocol and the policy. */
export function parseCompletion(text: string | undefined): {
  protocol: CompletionProtocol;
  policy: CompletionPolicy | undefined;
  diagnostics: Diagnostic[];
} {
  const items = (text ?? "atomic").split(",").map((x) => x.trim());
  const protocols = items.filter((x) => x === "atomic" || x === "fence");
  const policies = items.filter((x): x is CompletionPolicy => x === "per-op" || x === "per-queue");
  // Every item names one of the four, and at most one of each kind: `atomic,fence` is no choice.
  const ok = protocols.length + policies.length === items.length;
  const diagnostics =
    !ok || protocols.length > 1 || policies.length > 1
      ? [
          diag("DMAC5004", undefined, [
            "--completion",
            `'${text}': choose atomic or fence (protocol) and/or per-op or per-queue (policy), at most one of each`,
          ]),
        ]
      : [];
  return { protocol: protocols[0] ?? "atomic", policy: policies[0], diagnostics };
}

/** What a command hands to compileToQueues: the lowering's protocol and the passes' options. */
export interface ParsedOptOptions {
  readonly protocol: CompletionProtocol;
  /** --sync; undefined: the target's default. */
  readonly sync: SyncMode | undefined;
  readonly passes: PassOptions | undefined;
  readonly diagnostics: Diagnostic[];
}

/**
 * Parses the optimiser options. `level` overrides `opts.opt` (sweep parses one level of its
 * list at a time; `prelaunch` likewise overrides --prelaunch for one sweep variant).
 */
export function parseOptOptions(
  opts: OptCommandOptions,
  target: Target | undefined,
  override: { readonly level?: string | undefined; readonly prelaunch?: boolean | undefined } = {},
): ParsedOptOptions {
  const completion = parseCompletion(opts.completion);
  const passes = parsePassOptions(
    {
      opt: override.level ?? opts.opt,
      engines: opts.engines,
      completion: completion.policy,
      prelaunch: override.prelaunch ?? opts.prelaunch,
      disablePass: opts.disablePass,
      dumpAfter: opts.dumpAfter,
    },
    target,
  );
  // A bad --signal-period is sim's to report (DMAC5004, parseMicros: a positive number, `us`
  // allowed); only a usable one reaches the passes.
  const period =
    opts.signalPeriod === undefined ? NaN : Number(opts.signalPeriod.replace(/us$/, ""));
  const budget = parsePlanBudget(opts.planBudget);
  const sync = parseSync(opts.sync);
  return {
    protocol: completion.protocol,
    sync: sync.mode,
    passes: passes.options && {
      ...passes.options,
      ...(Number.isFinite(period) && period > 0 ? { signalPeriodUs: period } : {}),
      ...(budget.work !== undefined ? { planBudget: budget.work } : {}),
    },
    diagnostics: [
      ...completion.diagnostics,
      ...passes.diagnostics,
      ...sync.diagnostics,
      ...budget.diagnostics,
    ],
  };
}

/** `--plan-budget N|unlimited` (N: an integer >= 0, `_` separators allowed); unset: the default. */
export function parsePlanBudget(text: string | undefined): {
  work: number | undefined;
  diagnostics: Diagnostic[];
} {
  if (text === undefined) return { work: undefined, diagnostics: [] };
  const t = text.trim();
  if (t === "unlimited") return { work: Infinity, diagnostics: [] };
  if (/^\d[\d_]*$/.test(t) && Number.isSafeInteger(Number(t.replace(/_/g, ""))))
    return { work: Number(t.replace(/_/g, "")), diagnostics: [] };
  return {
    work: undefined,
    diagnostics: [
      diag("DMAC5004", undefined, [
        "--plan-budget",
        `'${text}': a whole number of executor events (e.g. ${PLAN_BUDGET_WORK}) or 'unlimited'`,
      ]),
    ],
  };
}

/** `-O 0,1,2` (also `O2`, `-O2`): the distinct levels in the order given. */
export function parseOptLevels(text: string | undefined): {
  levels: OptLevel[];
  diagnostics: Diagnostic[];
} {
  const levels: OptLevel[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const item of (text ?? "0").split(",").map((s) => s.trim())) {
    const n = /^-?O?([012])$/.exec(item);
    if (!n) {
      diagnostics.push(diag("DMAC5004", undefined, ["-O", `'${item}': choose 0, 1 or 2`]));
      continue;
    }
    const level = Number(n[1]) as OptLevel;
    if (!levels.includes(level)) levels.push(level);
  }
  return { levels, diagnostics };
}

/** --dump-after, --explain-plan and --stats text of one compilation (undefined when empty). */
export function optimiserReport(
  r: OptimiseReport | undefined,
  opts: OptCommandOptions,
): string | undefined {
  if (!r) return undefined;
  const parts: string[] = [];
  for (const d of r.dumps) parts.push(`# after ${d.pass}\n${d.text}`);
  if (opts.explainPlan && r.plan) parts.push(formatPlan(r.plan));
  if ((opts.explainPlan || opts.stats) && r.levelCheck) parts.push(formatLevelCheck(r.levelCheck));
  if (opts.stats) parts.push(formatStats(r.stats) + "\n");
  return parts.length > 0 ? parts.join("") : undefined;
}
