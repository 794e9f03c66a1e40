// The one build path: `dmac compile` and the library's `compile` both check their options here,
// with the same rules, and compile through buildSchedule, which picks the target's back end
// (SDMA packet streams and a manifest, or a CUDA target's command program). Options arrive as
// text, as commander delivers them; the library writes its typed values in the same form
// (api/compile.ts libraryBuildText), so a value one of them refuses the other refuses too. `dmac
// measure` recompiles each measured run through buildSchedule as well (measured-run.ts).

import { compileToQueues, cudaBatchesOf, type QueuesResult } from "./compile.js";
import { buildOutputs, EMIT_KINDS, type EmitKind } from "./outputs.js";
import type { OutputFile } from "../backend/output.js";
import { buildCudaOutputs } from "../backend/cuda/outputs.js";
import { predictCudaUs } from "./cuda-cost-model.js";
import type { CudaProgram } from "../backend/cuda/program.js";
import type { RecordedPaths } from "../backend/sdma/manifest.js";
import { diag, hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
import { passesKeepLowering } from "../passes/index.js";
import type { SourceFile } from "../source/source-file.js";
import { cudaOf } from "../target/cuda-target.js";
import type { Target } from "../target/target.js";
import { pushAll } from "../util/arrays.js";
import {
  parseFrontEndLimits,
  parsePositiveInt,
  type FrontEndLimitOptions,
} from "../options/options.js";
import {
  parseOptOptions,
  type OptCommandOptions,
  type ParsedOptOptions,
} from "../options/opt-options.js";

/** The build options as text (commander's values; the library's, written by libraryBuildText). */
export interface BuildOptionText extends FrontEndLimitOptions, OptCommandOptions {
  /** Comma-separated EMIT_KINDS; absent: the caller's default. */
  readonly emit?: string | undefined;
  /** --dump: add dump.txt to what --emit asks for. */
  readonly dump?: boolean | undefined;
  /** --raw: dump.txt in the plain form, addresses in hex and no source lines. */
  readonly raw?: boolean | undefined;
  readonly maxCopyBytes?: string | undefined;
  readonly conservativeCount?: boolean | undefined;
  /** --breadcrumbs: each queue FENCEs its step number after every command group. */
  readonly breadcrumbs?: boolean | undefined;
  readonly maxStreamBytes?: string | undefined;
  readonly maxPackets?: string | undefined;
  readonly maxOps?: string | undefined;
}

/** The build options, checked. */
export interface BuildOptions {
  /** The outputs asked for; undefined: the caller's default (given to buildSchedule). */
  readonly emit: readonly EmitKind[] | undefined;
  readonly raw: boolean;
  readonly maxCopyBytes: number | undefined;
  readonly conservativeCount: boolean;
  readonly breadcrumbs: boolean;
  readonly maxStreamBytes: number | undefined;
  readonly maxPackets: number | undefined;
  readonly maxOps: number | undefined;
  readonly maxSourceBytes: number | undefined;
  readonly maxNesting: number | undefined;
  readonly optimiser: ParsedOptOptions;
  /** The passes run even where they would change nothing (--stats reports what they did). */
  readonly alwaysRunPasses: boolean;
  /** The options given that only SDMA output honours: a CUDA target refuses them. */
  readonly sdmaOnly: readonly string[];
}

/** `--emit` (comma-separated), with --dump adding dump.txt; undefined when neither is given. */
export function parseEmit(
  text: string | undefined,
  dump = false,
): { emit: EmitKind[] | undefined; diagnostics: Diagnostic[] } {
  if (text === undefined) return { emit: dump ? ["dump"] : undefined, diagnostics: [] };
  const items = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const bad = items.filter((s) => !(EMIT_KINDS as readonly string[]).includes(s));
  if (bad.length > 0 || items.length === 0)
    return {
      emit: undefined,
      diagnostics: [
        diag("DMAC5004", undefined, ["--emit", `'${text}': choose from ${EMIT_KINDS.join(", ")}`]),
      ],
    };
  if (dump) items.push("dump");
  return { emit: EMIT_KINDS.filter((k) => items.includes(k)), diagnostics: [] };
}

/** Checks the build options; `target` (a --target given up front) checks --engines against it. */
export function parseBuildOptions(
  opts: BuildOptionText,
  target: Target | undefined,
): { options: BuildOptions | undefined; diagnostics: Diagnostic[] } {
  const emit = parseEmit(opts.emit, opts.dump === true);
  const maxCopy = parsePositiveInt("--max-copy-bytes", opts.maxCopyBytes);
  const maxStream = parsePositiveInt("--max-stream-bytes", opts.maxStreamBytes);
  const maxPackets = parsePositiveInt("--max-packets", opts.maxPackets);
  const maxOps = parsePositiveInt("--max-ops", opts.maxOps);
  const limits = parseFrontEndLimits(opts);
  const optimiser = parseOptOptions(opts, target);
  const diagnostics = [
    ...limits.diagnostics,
    ...emit.diagnostics,
    ...maxCopy.diagnostics,
    ...maxStream.diagnostics,
    ...maxPackets.diagnostics,
    ...maxOps.diagnostics,
    ...optimiser.diagnostics,
  ];
  if (maxCopy.value !== undefined && opts.conservativeCount)
    diagnostics.push(
      diag("DMAC5004", undefined, [
        "--max-copy-bytes",
        "give either --max-copy-bytes or --conservative-count",
      ]),
    );
  if (hasErrors(diagnostics)) return { options: undefined, diagnostics };
  const sdmaOnly: [string, boolean][] = [
    ["--dump", opts.dump === true],
    ["--emit", emit.emit?.some((k) => k !== "sdma") === true],
    ["--raw", opts.raw === true],
    ["--breadcrumbs", opts.breadcrumbs === true],
    ["--max-stream-bytes", opts.maxStreamBytes !== undefined],
  ];
  return {
    options: {
      emit: emit.emit,
      raw: opts.raw === true,
      maxCopyBytes: maxCopy.value,
      conservativeCount: opts.conservativeCount === true,
      breadcrumbs: opts.breadcrumbs === true,
      maxStreamBytes: maxStream.value,
      maxPackets: maxPackets.value,
      maxOps: maxOps.value,
      maxSourceBytes: limits.maxSourceBytes,
      maxNesting: limits.maxNesting,
      optimiser,
      alwaysRunPasses: opts.stats === true,
      sdmaOnly: sdmaOnly.filter(([, on]) => on).map(([name]) => name),
    },
    diagnostics,
  };
}

/** What buildSchedule compiles: one schedule of a source, for a target. */
export interface BuildInput {
  readonly file: SourceFile;
  readonly defines: Readonly<Record<string, string>>;
  readonly schedule: string | undefined;
  /** The directory a source's `target "file.json"` is relative to. */
  readonly baseDir: string;
  readonly target: Target | undefined;
}

export interface BuildResult {
  readonly diagnostics: Diagnostic[];
  /** What compileToQueues made (present when it succeeded). */
  readonly compiled: QueuesResult["compiled"];
  /** The output files (absent on an error). */
  readonly files: OutputFile[] | undefined;
  /** A CUDA target's command program (program.json's commands). */
  readonly cudaProgram?: CudaProgram | undefined;
  /** Its predicted time (program.json's predictedUs). */
  readonly cudaPredictedUs?: number | undefined;
}

/**
 * Compiles one schedule to the output files of its target's back end. `emit` is what SDMA output
 * writes when the options name nothing; `paths` the source and target file as the outputs record
 * them (`dmac compile -o`).
 */
export function buildSchedule(
  input: BuildInput,
  o: BuildOptions,
  how: {
    readonly emit: readonly EmitKind[];
    readonly paths?: RecordedPaths | undefined;
    readonly onPlanProgress?: ((done: number, total: number, label: string) => void) | undefined;
  },
): BuildResult {
  const passes = o.optimiser.passes;
  const q = compileToQueues(input.file, {
    defines: input.defines,
    schedule: input.schedule,
    baseDir: input.baseDir,
    targetOverride: input.target,
    maxOps: o.maxOps,
    completion: o.optimiser.protocol,
    sync: o.optimiser.sync,
    breadcrumbs: o.breadcrumbs,
    maxCopyBytes: o.maxCopyBytes,
    conservativeCount: o.conservativeCount,
    // At -O0 with default options the passes would return the lowering unchanged; skipping them
    // is most of a big compile's time (docs/performance.md).
    passes: passes && (o.alwaysRunPasses || !passesKeepLowering(passes)) ? passes : undefined,
    maxSourceBytes: o.maxSourceBytes,
    maxNesting: o.maxNesting,
    maxPackets: o.maxPackets,
    onPlanProgress: how.onPlanProgress,
  });
  const diagnostics = [...q.diagnostics];
  if (!q.compiled) return { diagnostics, compiled: undefined, files: undefined };
  const target = q.compiled.target;
  if (cudaOf(target) === undefined) {
    const out = buildOutputs(input.file, q.compiled, {
      emit: o.emit ?? how.emit,
      maxStreamBytes: o.maxStreamBytes,
      paths: how.paths,
      rawDump: o.raw,
    });
    pushAll(diagnostics, out.diagnostics);
    return { diagnostics, compiled: q.compiled, files: out.files };
  }
  // Never a silent no-op: these options shape SDMA output, which a CUDA target does not write.
  for (const option of o.sdmaOnly)
    diagnostics.push(
      diag("DMAC5004", undefined, [
        option,
        `target ${target.name} has the CUDA back end, which writes program.json and program.txt (docs/cuda.md): no SDMA packets, listing, trace or breadcrumbs`,
      ]),
    );
  if (hasErrors(diagnostics)) return { diagnostics, compiled: q.compiled, files: undefined };
  const out = buildCudaOutputs(input.file, q.compiled, {
    batch: cudaBatchesOf(q.compiled, passes),
    source: how.paths?.source,
    predict: predictCudaUs,
  });
  pushAll(diagnostics, out.diagnostics);
  return {
    diagnostics,
    compiled: q.compiled,
    files: out.files,
    cudaProgram: out.program,
    cudaPredictedUs: out.predictedUs,
  };
}
