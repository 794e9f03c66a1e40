// The contract of an optimisation pass: a pure function QueueProgram -> QueueProgram that may
// consult the IR (op kinds, regions, happens-before edges) and the target, and reports what it
// changed as named counters. Passes never mutate their input (queue programs are plain data).
//
// Two families (see docs/optimisations.md):
// - placement passes (bcast-fusion, engine-assign, batch-copies) decide which IR ops share one
//   command and on which engine it runs (order-copies: in which order), then RE-LOWER the IR with that placement
//   (passes/relower.ts), so the cross-queue synchronisation is always the lowering's, which is
//   correct by construction; they must run before every queue-level pass (PASS_ORDER);
// - queue-level passes (batch-completions, sync-elision, prelaunch) rewrite commands in place.

import type { IrModule } from "../ir/ir.js";
import type { CostModel } from "./cost-model.js";
import type { LowerOptions } from "../queues/lower.js";
import type { QueueProgram } from "../queues/queue-program.js";
import type { SourceFile } from "../source/source-file.js";
import type { Target } from "../target/target.js";

export const PASS_NAMES = [
  "bcast-fusion",
  "engine-assign",
  "batch-copies",
  "order-copies",
  "batch-completions",
  "sync-elision",
  "prelaunch",
] as const;
export type PassName = (typeof PASS_NAMES)[number];

export type OptLevel = 0 | 1 | 2;

/**
 * How engine-assign places the ops that the source does not pin.
 * - affinity: the target's recommended engine for the (driver, other side) pair;
 * - spread: k engines per GPU, the GPU's k best xGMI engines, least-loaded first;
 * - single: one engine per GPU (back to back): engines[g % engines.length], or the GPU's best
 *   engine when the list is empty.
 */
export type EngineStrategy =
  | { readonly kind: "affinity" }
  | { readonly kind: "spread"; readonly k: number }
  | { readonly kind: "single"; readonly engines: readonly number[] };

export type CompletionPolicy = "per-op" | "per-queue";

export interface PassOptions {
  readonly level: OptLevel;
  readonly engines: EngineStrategy;
  /** undefined: the level's default (per-op at -O0, per-queue from -O1). */
  readonly completion?: CompletionPolicy | undefined;
  /** Force the prelaunch trigger on (at -O2 the plan may also choose it). */
  readonly prelaunch?: boolean | undefined;
  /** Passes turned off with --disable-pass. */
  readonly disabled?: readonly PassName[] | undefined;
  /** Explicit on/off per pass, overriding the level (used by the -O2 plan's candidates). */
  readonly enable?: Partial<Record<PassName, boolean>> | undefined;
  /** The user chose --engines explicitly: the -O2 plan keeps that strategy. */
  readonly enginesFixed?: boolean | undefined;
  /** Print the queue program after these passes (--dump-after). */
  readonly dumpAfter?: readonly PassName[] | undefined;
  /**
   * `dmac sim --signal-period`: every prediction of the optimiser (-O2's candidates, the -O1
   * check) raises each external signal by one every this many microseconds, as the run it is
   * optimised for will. Undefined: all at time 0 (what compile and sweep predict with).
   */
  readonly signalPeriodUs?: number | undefined;
  /** -O2: the plan search's work budget (`--plan-budget`; default PLAN_BUDGET_WORK). */
  readonly planBudget?: number | undefined;
}

/** A counter of work with a limit (passes/plan.ts PlanBudget). */
export interface WorkBudget {
  over(): boolean;
  spend(work: number): void;
  /** The work left (negative once over); a pass that predicts bounds its predictions by it. */
  left(): number;
}

export interface PassContext {
  readonly target: Target;
  /** The IR the program implements: op kinds, regions, pins and happens-before edges. */
  readonly module: IrModule;
  readonly options: PassOptions;
  /** The options the program was lowered with (placement passes re-lower with the same ones). */
  readonly lower: LowerOptions;
  /** Run the queue-program verifier after every pass (tests set it). */
  readonly verify?: boolean | undefined;
  /** For layout diagnostics in the -O2 plan; a synthetic file is used when absent. */
  readonly file?: SourceFile | undefined;
  /**
   * The -O2 plan's work budget: runPasses charges each pass the commands of its input and starts
   * no further pass once it is over (a pass itself runs to its end). Undefined: no limit.
   */
  readonly budget?: WorkBudget | undefined;
  /**
   * What the -O1 check and the -O2 plan predict with (passes/cost-model.ts); the compile
   * pipeline injects the executor's (driver/cost-model.ts). Required at -O1 and -O2.
   */
  readonly costModel?: CostModel | undefined;
  /**
   * The program as the passes after the running one will leave it (runPasses sets it): a pass
   * that predicts (order-copies) must compare its choices in the form that is emitted, e.g. with
   * the prelaunch trigger, where host submission no longer staggers the GPUs' starts.
   */
  readonly finalForm?: ((p: QueueProgram) => QueueProgram) | undefined;
  /** -O2: called before each plan candidate with the number done, the total and its label (progress). */
  readonly onCandidate?: ((done: number, total: number, label: string) => void) | undefined;
}

export interface PassStats {
  readonly pass: PassName;
  /** What the pass changed, e.g. { fused: 3 }; zero counters are kept (they say "nothing to do"). */
  readonly counters: Readonly<Record<string, number>>;
}

export interface PassResult {
  readonly program: QueueProgram;
  readonly counters: Record<string, number>;
}

export interface Pass {
  readonly name: PassName;
  readonly description: string;
  /** The optimisation levels that run it by default. */
  readonly levels: readonly OptLevel[];
  /** A required pass cannot be disabled (the program would not honour the user's options). */
  readonly required: boolean;
  /** Rewrites the queue program from scratch (drops what queue-level passes did). */
  readonly relowers: boolean;
  readonly run: (prog: QueueProgram, ctx: PassContext) => PassResult;
}
