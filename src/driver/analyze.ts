// The driver's front half: the one place the phases up to verification are wired together, in
// order:
//
//   parse -> check (names, types, -D) -> instantiate (params, loops) -> infer dependencies
//   -> verify (postconditions with the reference semantics)
//
// `analyzeSource` runs them for every selected schedule of a file (what `dmac check` does), and
// then the target's legality checks that compile runs around lowering (backend/target-legality.ts:
// part limits, sync forms, the CUDA back end's), so that what check accepts compile accepts;
// `compileToQueues` (compile.ts) continues with lowering and passes for one schedule;
// `instantiateSource` stops after instantiation (`dmac ir`). Each phase returns diagnostics as data; a phase that reports an error stops that
// schedule's pipeline (later phases would only report follow-on errors).

import { checkForTarget } from "../backend/target-legality.js";
import { checkSource, type CheckSourceOptions } from "../check/check-source.js";
import { diag, hasErrors, sortDiagnostics, type Diagnostic } from "../diagnostics/diagnostic.js";
import { inferDeps, inferDepsWithin } from "../ir/deps.js";
import { DEFAULT_MAX_OPS, instantiate } from "../ir/instantiate.js";
import type { IrModule } from "../ir/ir.js";
import { verifyModule } from "../ir/verify.js";
import type { CheckedSchedule } from "../check/checked.js";
import { selectSchedule } from "../check/select-schedule.js";
import type { SourceFile } from "../source/source-file.js";
import { pushAll } from "../util/arrays.js";
import { COMPILE_BYTES_PER_OP, heapLimitBytes, heapShortfall } from "../util/heap-budget.js";
import type { SyncMode } from "../target/target.js";
import { formatSize } from "../util/format-size.js";

/**
 * Dependency edges, and provenance pieces moved by the reference run, allowed per allowed op:
 * 16,000,000 each with the default --max-ops (DMAC3024, DMAC3025). The examples and benchmarks
 * use at most 2 edges per op.
 */
export const WORK_PER_OP = 8;

export interface AnalyzeResult {
  readonly diagnostics: Diagnostic[];
  /** One verified module per schedule whose every phase succeeded. */
  readonly modules: IrModule[];
}

/** Instantiates, infers dependencies for and verifies one checked schedule. */
export function analyzeSchedule(
  checked: CheckedSchedule,
  opts: {
    readonly maxOps?: number | undefined;
    /**
     * Peak bytes per op of what follows (a compile at some -O level: COMPILE_BYTES_PER_OP): a
     * schedule whose ops need more than the heap allows is DMAC4011 before any of it runs.
     */
    readonly bytesPerOp?: number | undefined;
    /** The heap limit to compare with (tests); default: this process's. */
    readonly heapLimit?: number | undefined;
    /**
     * false: no dependency edges (the module's `edges` stay undefined) and so no DMAC3024 bound
     * on them. For `dmac sim`, which rebuilds a compiled source's IR only for the reference
     * semantics and the meaning checks: neither reads the edges, and inferring them was ~5 % of
     * a run. The reference run keeps its own bound (DMAC3025), so the work stays bounded.
     */
    readonly edges?: boolean | undefined;
    /** Keep verification's reference run for the executor (ir/interp.ts referenceRun). */
    readonly keepReference?: boolean | undefined;
    /** The module's typed arrays in shared memory (instantiate's option). */
    readonly shared?: boolean | undefined;
  } = {},
): { diagnostics: Diagnostic[]; module: IrModule | undefined } {
  const maxOps = opts.maxOps ?? DEFAULT_MAX_OPS;
  const inst = instantiate(checked, { maxOps, shared: opts.shared });
  if (!inst.module || hasErrors(inst.diagnostics)) {
    return { diagnostics: inst.diagnostics, module: undefined };
  }
  if (opts.bytesPerOp !== undefined) {
    const tooBig = heapDiagnostic(checked, inst.module.ops.count, opts.bytesPerOp, opts.heapLimit);
    if (tooBig) return { diagnostics: [...inst.diagnostics, tooBig], module: undefined };
  }
  // Dependency edges and the reference run's provenance pieces are bounded per allowed op
  // (DMAC3024, DMAC3025): both can grow quadratically in the ops (docs/safety.md).
  const limit = WORK_PER_OP * maxOps;
  const deps = opts.edges === false ? { module: inst.module } : inferDepsWithin(inst.module, limit);
  if ("over" in deps) {
    const stmt = inst.module.stmts[inst.module.ops.stmt[deps.over]!];
    const at = stmt ? { file: checked.file, span: stmt.span } : undefined;
    return {
      diagnostics: [...inst.diagnostics, diag("DMAC3024", at, [String(limit)])],
      module: undefined,
    };
  }
  const module = deps.module;
  const diagnostics = [
    ...inst.diagnostics,
    ...verifyModule(module, checked.file, {
      maxPieces: limit,
      keepReference: opts.keepReference,
    }),
  ];
  return { diagnostics, module: hasErrors(diagnostics) ? undefined : module };
}

export interface AnalyzeSourceOptions extends CheckSourceOptions {
  /** `--sync`, for the target's legality checks; undefined: the target's default. */
  readonly sync?: SyncMode | undefined;
}

/**
 * Parse, check, and analyse every selected schedule of `file`, then run the target's legality
 * checks on each verified module (their errors join the diagnostics; the module, verified, is
 * still returned, for the language server's hovers). They lower the schedule at -O0, so a
 * schedule too big for the heap to compile is DMAC4011 here as well.
 */
export function analyzeSource(file: SourceFile, opts: AnalyzeSourceOptions): AnalyzeResult {
  const checked = checkSource(file, opts);
  const diagnostics = [...checked.diagnostics];
  const modules: IrModule[] = [];
  if (!hasErrors(diagnostics)) {
    for (const schedule of checked.schedules) {
      const analyzed = analyzeSchedule(schedule, {
        maxOps: opts.maxOps,
        bytesPerOp: COMPILE_BYTES_PER_OP[0],
      });
      pushAll(diagnostics, analyzed.diagnostics);
      if (!analyzed.module) continue;
      modules.push(analyzed.module);
      pushAll(diagnostics, checkForTarget(file, analyzed.module, schedule.target, opts));
    }
  }
  return { diagnostics: sortDiagnostics(diagnostics), modules };
}

/**
 * Parse, check, select one schedule and instantiate it, with its dependency edges on request,
 * without verifying it (`dmac ir` prints what instantiation made, even one that fails to verify).
 */
export function instantiateSource(
  file: SourceFile,
  opts: CheckSourceOptions & { readonly deps?: boolean | undefined },
): { diagnostics: Diagnostic[]; module: IrModule | undefined } {
  const checked = checkSource(file, opts);
  const diagnostics = [...checked.diagnostics];
  if (hasErrors(diagnostics)) return { diagnostics, module: undefined };
  const chosen = selectSchedule(checked.schedules, opts.schedule);
  pushAll(diagnostics, chosen.diagnostics);
  if (!chosen.schedule) return { diagnostics, module: undefined };
  const result = instantiate(chosen.schedule, { maxOps: opts.maxOps ?? DEFAULT_MAX_OPS });
  pushAll(diagnostics, result.diagnostics);
  if (!result.module || hasErrors(diagnostics)) return { diagnostics, module: undefined };
  return { diagnostics, module: opts.deps ? inferDeps(result.module) : result.module };
}

/** DMAC4011 when `ops` operations at `bytesPerOp` do not fit the heap; undefined when they do. */
function heapDiagnostic(
  checked: CheckedSchedule,
  ops: number,
  bytesPerOp: number,
  limit = heapLimitBytes(),
): Diagnostic | undefined {
  const need = heapShortfall(ops, bytesPerOp, limit);
  if (need === 0) return undefined;
  const at = { file: checked.file, span: checked.schedule.name.span };
  const suggest = Math.ceil((need * 1.25) / 2 ** 20);
  return diag("DMAC4011", at, [ops, formatSize(need), formatSize(limit)], {
    hint: `run with NODE_OPTIONS=--max-old-space-size=${suggest} if the machine has the memory, compile at a lower -O level, or make the schedule smaller`,
  });
}
