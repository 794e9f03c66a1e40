// The compile pipeline up to the finished queue programs, as a pure function (no I/O):
// compileToQueues parses, checks and selects the schedule, then runs analyze.ts's analyzeSchedule
// (instantiate, infer dependencies, verify), lowers to queue programs and runs the passes, with
// the executor as their cost model (cost-model.ts). outputs.ts turns its result into files. Every
// user error comes back as diagnostics; it stops at the first phase that reports an error.

import { checkSource } from "../check/check-source.js";
import { selectSchedule } from "../check/select-schedule.js";
import { hasErrors, sortDiagnostics, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { IrModule } from "../ir/ir.js";
import { addBreadcrumbs } from "../forensics/breadcrumbs.js";
import { analyzeSchedule } from "./analyze.js";
import { lowerToQueues } from "../queues/lower.js";
import type { PassOptions } from "../passes/pass.js"; // optimiser hook
import { checkEnginesForTarget } from "../passes/options.js";
import { optimise, planDiagnostics, PLAN_TIE } from "../passes/plan.js"; // optimiser hook
import type { OptimiseReport } from "../passes/optimise-report.js";
import type { CompletionProtocol, QueueProgram } from "../queues/queue-program.js";
import type { SourceFile } from "../source/source-file.js";
import { syncInfo, type SyncMode, type Target } from "../target/target.js";
import {
  checkBeforeLower,
  DEFAULT_MAX_PACKETS,
  finishForTarget,
} from "../backend/target-legality.js";
import { conservativeSync } from "../queues/sync-forms.js";
import { SIMULATED_COST_MODEL } from "./cost-model.js";
import type { CostModel } from "../passes/cost-model.js";
import { cudaCostModel } from "./cuda-cost-model.js";
import { incastLint } from "../backend/incast-lint.js";
import { cudaOf } from "../target/cuda-target.js";
import { passByName, passEnabled } from "../passes/index.js";
import { pushAll } from "../util/arrays.js";
import { COMPILE_BYTES_PER_OP } from "../util/heap-budget.js";

export interface CompileOptions {
  readonly defines?: Readonly<Record<string, string>> | undefined;
  readonly schedule?: string | undefined;
  readonly baseDir?: string | undefined;
  readonly targetOverride?: Target | undefined;
  readonly maxOps?: number | undefined;
  readonly completion?: CompletionProtocol | undefined;
  /** Split copies at this many bytes (default: the target's maxCopyBytes). */
  readonly maxCopyBytes?: number | undefined;
  /** Split copies at the target's maxCopyBytesConservative (the 22-bit count reading). */
  readonly conservativeCount?: boolean | undefined;
  /** `--sync`: conservative or aggressive forms; undefined: the target's default (syncInfo). */
  readonly sync?: SyncMode | undefined;
  /** `--breadcrumbs`: each queue records its last completed step (forensics/breadcrumbs.ts). */
  readonly breadcrumbs?: boolean | undefined;
  /** Optimiser hook: run the passes (passes/plan.ts optimise) after lowering; absent = -O0 as lowered. */
  readonly passes?: PassOptions | undefined;
  /** Data packets lowering may make (DMAC4010); default DEFAULT_MAX_PACKETS. */
  readonly maxPackets?: number | undefined;
  /** Front-end limits (DMAC1012 / DMAC1013); default DEFAULT_MAX_SOURCE_BYTES / _NESTING. */
  readonly maxSourceBytes?: number | undefined;
  readonly maxNesting?: number | undefined;
  /** The heap limit DMAC4011 compares with (tests); default: this process's. */
  readonly heapLimit?: number | undefined;
  /** -O2: the plan search's progress (PassContext.onCandidate). */
  readonly onPlanProgress?: ((done: number, total: number, label: string) => void) | undefined;
}

export interface QueuesResult {
  readonly diagnostics: Diagnostic[];
  /** Present when every phase succeeded. */
  readonly compiled:
    | {
        readonly module: IrModule;
        readonly program: QueueProgram;
        readonly target: Target;
        /** Optimiser hook: what the passes did (present when opts.passes was given). */
        readonly optimised?: OptimiseReport | undefined;
        /**
         * -O2 on a CUDA target with the batch-copies pass: whether the batches pay
         * (cudaBatchesPay). Undefined elsewhere: batches as the passes say (cudaBatchesOf).
         */
        readonly cudaBatch?: boolean | undefined;
      }
    | undefined;
}

export { DEFAULT_MAX_PACKETS };

export function compileToQueues(file: SourceFile, opts: CompileOptions = {}): QueuesResult {
  const diagnostics: Diagnostic[] = [];
  const done = (): QueuesResult => ({
    diagnostics: sortDiagnostics(diagnostics),
    compiled: undefined,
  });

  const checked = checkSource(file, {
    defines: opts.defines ?? {},
    schedule: opts.schedule,
    baseDir: opts.baseDir,
    targetOverride: opts.targetOverride,
    maxOps: opts.maxOps,
    maxSourceBytes: opts.maxSourceBytes,
    maxNesting: opts.maxNesting,
  });
  pushAll(diagnostics, checked.diagnostics);
  if (hasErrors(diagnostics)) return done();
  const selected = selectSchedule(checked.schedules, opts.schedule);
  pushAll(diagnostics, selected.diagnostics);
  if (!selected.schedule || hasErrors(diagnostics)) return done();
  const target = selected.schedule.target;
  pushAll(diagnostics, checkEnginesForTarget(opts.passes, target));
  if (hasErrors(diagnostics)) return done();

  const analyzed = analyzeSchedule(selected.schedule, {
    maxOps: opts.maxOps,
    bytesPerOp: COMPILE_BYTES_PER_OP[opts.passes?.level ?? 0],
    heapLimit: opts.heapLimit,
  });
  pushAll(diagnostics, analyzed.diagnostics);
  const module = analyzed.module;
  if (!module || hasErrors(diagnostics)) return done();
  const maxCopyBytes =
    opts.maxCopyBytes ??
    (opts.conservativeCount ? target.limits.maxCopyBytesConservative : undefined);
  const lowerOptions = { completion: opts.completion ?? "atomic", maxCopyBytes } as const;
  // The target's legality checks (target-legality.ts), the ones `dmac check` runs as well.
  pushAll(diagnostics, checkBeforeLower(file, module, target, lowerOptions, opts));
  if (hasErrors(diagnostics)) return done();
  const program = lowerToQueues(module, target, lowerOptions);
  const costModel = cudaOf(target)
    ? cudaCostModel(() => cudaBatches(opts.passes))
    : finalFormsCostModel(target, opts.sync);
  // DMAC4030: the source order's incast (incast-lint.ts), on the lowering, within the work budget.
  const lint = { file, schedule: selected.schedule.schedule, module, program, target, costModel };
  pushAll(
    diagnostics,
    incastLint({ ...lint, lower: lowerOptions, budget: opts.passes?.planBudget }),
  );
  // ---- optimiser hook (src/passes, owned by the optimiser) ----
  if (opts.passes) {
    const r = optimise(program, module, {
      target,
      module,
      options: opts.passes,
      lower: lowerOptions,
      file,
      costModel,
      onCandidate: opts.onPlanProgress,
    });
    const optimised: OptimiseReport = {
      stats: r.stats,
      dumps: r.dumps,
      plan: r.plan,
      levelCheck: r.levelCheck,
    };
    pushAll(diagnostics, planDiagnostics(r.plan)); // DMAC4009: the plan search stopped early
    const cudaBatch =
      r.plan && cudaOf(target) && cudaBatches(opts.passes)
        ? cudaBatchesPay(r.plan.chosen.timeUs, r.program, module, target, file)
        : undefined;
    const final = finish(file, module, r.program, target, opts, diagnostics);
    if (!final) return done();
    return {
      diagnostics: sortDiagnostics(diagnostics),
      compiled: { module, program: final, target, optimised, cudaBatch },
    };
  }
  // ---- end optimiser hook ----
  const final = finish(file, module, program, target, opts, diagnostics);
  if (!final) return done();
  return {
    diagnostics: sortDiagnostics(diagnostics),
    compiled: { module, program: final, target },
  };
}

/**
 * What the -O1 check and the -O2 plan predict with: the executor, on the program in the forms
 * it will be emitted in (conservative sync rewrites the passes' output, and costs more per
 * dependency: docs/optimisations.md, "Conservative sync").
 */
function finalFormsCostModel(target: Target, sync: SyncMode | undefined): CostModel {
  const info = syncInfo(target);
  if ((sync ?? info.default) !== "conservative") return SIMULATED_COST_MODEL;
  const words = info.gpuMemoryPolling ? "gpu" : "host";
  return {
    predict: (p, m, req) =>
      SIMULATED_COST_MODEL.predict(conservativeSync(p, words).program, m, req),
  };
}

/**
 * The last steps on the finished program: the target's checks after lowering (the sync forms,
 * DMAC4020; the part's engines and compares), then breadcrumbs. undefined on an error.
 */
function finish(
  file: SourceFile,
  module: IrModule,
  program: QueueProgram,
  target: Target,
  opts: CompileOptions,
  diagnostics: Diagnostic[],
): QueueProgram | undefined {
  // (In place: nothing reads the passes' output after this step.)
  const p = finishForTarget(file, module, program, target, opts.sync, diagnostics, true);
  return p && opts.breadcrumbs ? addBreadcrumbs(p) : p;
}

/**
 * -O2 on a CUDA target: whether the plan's program is emitted with its runs of copies as batches
 * (cudaMemcpyBatchAsync) or as one call per copy. A batch saves host calls but its engine
 * start-up costs more (batchStartUs: on 4x H200, prelaunched, a batch of 3 peer copies took
 * 0.63 us longer than the same copies one by one, bench/hardware/2026-11-28-h100x4-heldout2), so
 * batches stay unless one call per copy is predicted faster by more than the plan's tie margin.
 * `batchedUs`: the plan's prediction of the program, batched (undefined where the plan's budget
 * left it unpredicted: batches stay, and nothing more is predicted).
 */
function cudaBatchesPay(
  batchedUs: number | undefined,
  program: QueueProgram,
  module: IrModule,
  target: Target,
  file: SourceFile,
): boolean {
  if (batchedUs === undefined) return true;
  const single = cudaCostModel(() => false).predict(program, module, { target, file });
  return single.kind !== "predicted" || single.timeUs >= batchedUs * (1 - PLAN_TIE);
}

/** Whether a compile's CUDA program has batches: -O2's decision, else the batch-copies pass's. */
export function cudaBatchesOf(
  compiled: NonNullable<QueuesResult["compiled"]>,
  passes: PassOptions | undefined,
): boolean {
  return compiled.cudaBatch ?? cudaBatches(passes);
}

/** CUDA back end: the batch-copies pass makes runs of copies on a stream one batched copy. */
export function cudaBatches(passes: PassOptions | undefined): boolean {
  const p = passByName("batch-copies");
  return passes !== undefined && p !== undefined && passEnabled(p, passes);
}
