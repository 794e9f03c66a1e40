// The compile pipeline, source text -> output files, as two pure functions (no I/O):
// - compileToQueues: parse, check, select the schedule, then src/pipeline.ts's analyzeSchedule
//   (instantiate, infer dependencies, verify), then lower to queue programs and run the passes.
// - buildOutputs: layout, SDMA emission, manifest, and on request dump.txt and trace.json, as a
//   list of (file name, contents) in a fixed order (dump.txt is streamed as it is written).
// Every user error comes back as diagnostics; both stop at the first phase that reports an error.

import { checkSource } from "../check/check-source.js";
import { selectSchedule } from "../check/select-schedule.js";
import { hasErrors, sortDiagnostics, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { IrModule } from "../ir/ir.js";
import { describeInstances, irBindings } from "../ir/instances.js";
import { addBreadcrumbs } from "../forensics/breadcrumbs.js";
import { analyzeSchedule } from "../pipeline.js";
import { lowerToQueues } from "../queues/lower.js";
import type { PassOptions, PassStats } from "../passes/pass.js"; // optimiser hook
import { checkEnginesForTarget } from "../passes/options.js";
import { optimise, planDiagnostics, type LevelCheck, type PlanResult } from "../passes/plan.js"; // optimiser hook
import type { CompletionProtocol, QueueProgram } from "../queues/queue-program.js";
import { lineText, type SourceFile } from "../source/source-file.js";
import { syncInfo, type SyncMode, type Target } from "../target/target.js";
import { checkBeforeLower, DEFAULT_MAX_PACKETS, finishForTarget } from "./target-legality.js";
import { conservativeSync } from "../queues/sync-forms.js";
import { disassembleInto, TextSink } from "./sdma/disasm.js";
import { listingHeader, makeListing, QueueAnnotator, type Listing } from "./sdma/listing.js";
import type { PackedRows } from "./sdma/packed-rows.js";
import { emitSdma, streamBytes } from "./sdma/emit.js";
import { DEFAULT_LAYOUT, layoutProgram, type Layout, type LayoutConfig } from "./sdma/layout.js";
import {
  buildPackedManifest,
  formatJsonBytes,
  manifestOutputs,
  manifestMemory,
  sourceStmts,
  type RecordedPaths,
} from "./sdma/manifest.js";
import { SIDECAR_FILE } from "./sdma/manifest-sidecar.js";
import { emitTrace } from "./trace/trace.js";
import { SIMULATED_COST_MODEL } from "./cost-model.js";
import type { CostModel } from "../passes/cost-model.js";
import { cudaCostModel } from "./cuda-cost-model.js";
import { incastLint } from "./incast-lint.js";
import { cudaOf } from "../target/cuda-target.js";
import { passByName, passEnabled } from "../passes/index.js";
import { StreamedData } from "../util/streamed-data.js";
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
      }
    | undefined;
}

/** Optimiser hook: the passes' statistics, --dump-after texts and the -O2 plan. */
export interface OptimiseReport {
  readonly stats: readonly PassStats[];
  readonly dumps: readonly { readonly pass: string; readonly text: string }[];
  readonly plan?: PlanResult | undefined;
  /** -O1: the check against -O0 (passes/plan.ts checkLevel1). */
  readonly levelCheck?: LevelCheck | undefined;
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
    const final = finish(file, module, r.program, target, opts, diagnostics);
    if (!final) return done();
    return {
      diagnostics: sortDiagnostics(diagnostics),
      compiled: { module, program: final, target, optimised },
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

/** What `--emit` can ask for: sdma (manifest.json + .bin streams), dump (dump.txt, the listing
 * of the streams), trace (trace.json). Each names its own files; the order is the file order. */
export type EmitKind = "sdma" | "dump" | "trace";
export const EMIT_KINDS: readonly EmitKind[] = ["sdma", "dump", "trace"];

export interface OutputOptions {
  readonly emit: readonly EmitKind[];
  readonly layout?: LayoutConfig | undefined;
  readonly maxStreamBytes?: number | undefined;
  /**
   * The source and --target file as the manifest and trace record them (relative to the output
   * directory: `dmac compile -o`); absent: the source name as given, and no `targetFile`.
   */
  readonly paths?: RecordedPaths | undefined;
  /** dump.txt in the plain form (addresses in hex, no source lines): `dmac compile --raw`. */
  readonly rawDump?: boolean | undefined;
}

export interface OutputFile {
  readonly name: string;
  readonly data: Uint8Array | string | StreamedData;
}
export { StreamedData };

/** An output file's contents as bytes (a streamed file is produced in memory). */
export function outputBytes(f: OutputFile): Uint8Array | string {
  return f.data instanceof StreamedData ? f.data.bytes() : f.data;
}

/** An output file's contents as text: JSON and listings are written as strings or UTF-8 bytes. */
export function outputText(f: OutputFile): string {
  const data = outputBytes(f);
  return typeof data === "string" ? data : new TextDecoder().decode(data);
}

interface DumpQueue {
  readonly name: string;
  readonly gpu: number;
  readonly engine: number;
  readonly words: Uint32Array;
  /** The queue's source-map entries (annotated listings print source lines from them). */
  readonly sourceMap: PackedRows;
}

/** The listing of the streams (dump.txt), produced chunk by chunk as it is written; annotated
 * (listing.ts) unless `listing` is undefined (--raw). */
function dumpFile(queues: readonly DumpQueue[], listing: Listing | undefined): StreamedData {
  return new StreamedData((write) => {
    // 4 MiB chunks: the listing is assembled as bytes (UTF-8), never as strings, and never whole.
    const out = new TextSink(1 << 22, write);
    if (listing) out.text(listingHeader(listing));
    for (const q of queues) {
      out.text(
        `# queue ${q.name}: gpu ${q.gpu}, engine ${q.engine}, ${q.words.length} dwords (${q.name}.bin)\n`,
      );
      const hooks = listing ? new QueueAnnotator(listing, q.sourceMap) : undefined;
      disassembleInto(out, q.words, { hooks });
      out.text("\n");
    }
    out.end();
  });
}

/** What the annotated dump.txt knows: the manifest's memory, trigger and source map, and the
 * source text itself (in memory: it cannot be missing or changed). */
function compileListing(file: SourceFile, m: IrModule, p: QueueProgram, layout: Layout): Listing {
  const bindings = irBindings(m);
  return makeListing({
    memory: manifestMemory(m, p, layout),
    trigger:
      p.trigger && layout.triggerAddr !== null
        ? { address: layout.triggerAddr, value: p.trigger.value }
        : null,
    sourceFile: file.name,
    stmts: sourceStmts(m, file),
    sourceLine: (line) => (line <= file.lineStarts.length ? lineText(file, line) : undefined),
    instances: (stmt, ops) => describeInstances(bindings, stmt, ops),
  });
}

export function buildOutputs(
  file: SourceFile,
  compiled: NonNullable<QueuesResult["compiled"]>,
  opts: OutputOptions,
): { diagnostics: Diagnostic[]; files: OutputFile[] | undefined } {
  const { module: m, program: p, target } = compiled;
  const laid = layoutProgram(m, p, file, opts.layout ?? DEFAULT_LAYOUT);
  if (!laid.layout) return { diagnostics: laid.diagnostics, files: undefined };
  const layout = laid.layout;
  const files: OutputFile[] = [];
  const diagnostics = [...laid.diagnostics];
  if (opts.emit.includes("sdma") || opts.emit.includes("dump")) {
    let emitted: ReturnType<typeof emitSdma> | undefined = emitSdma(p, m, layout, file, {
      maxStreamBytes: opts.maxStreamBytes,
    });
    pushAll(diagnostics, emitted.diagnostics);
    if (hasErrors(diagnostics))
      return { diagnostics: sortDiagnostics(diagnostics), files: undefined };
    const queues: DumpQueue[] = emitted.queues.map(({ name, gpu, engine, words, sourceMap }) => ({
      name,
      gpu,
      engine,
      words,
      sourceMap,
    }));
    if (opts.emit.includes("sdma")) {
      const { json, sidecar } = manifestOutputs(
        buildPackedManifest(m, p, layout, emitted.queues, file, target.name, opts.paths),
      );
      files.push({ name: "manifest.json", data: json });
      // The manifest's bulky arrays in binary, for `dmac sim DIR` (manifest-sidecar.ts).
      files.push({ name: SIDECAR_FILE, data: sidecar });
    }
    // Memory: drop the packet objects (millions at 10^6 operations) before the outputs are
    // written; garbage collection of a near-full heap was most of the time of big compiles
    // (docs/performance.md). The relocations and source map stay, typed arrays held by the
    // streamed manifest until it is written.
    emitted = undefined;
    if (opts.emit.includes("sdma"))
      for (const q of queues) files.push({ name: `${q.name}.bin`, data: streamBytes(q.words) });
    if (opts.emit.includes("dump")) {
      const listing = opts.rawDump === true ? undefined : compileListing(file, m, p, layout);
      files.push({ name: "dump.txt", data: dumpFile(queues, listing) });
    }
  }
  if (opts.emit.includes("trace")) {
    files.push({
      name: "trace.json",
      data: formatJsonBytes(emitTrace(m, p, layout, target.name, opts.paths)),
    });
  }
  return { diagnostics: sortDiagnostics(diagnostics), files };
}

/** CUDA back end: the batch-copies pass makes runs of copies on a stream one batched copy. */
export function cudaBatches(passes: PassOptions | undefined): boolean {
  const p = passByName("batch-copies");
  return passes !== undefined && p !== undefined && passEnabled(p, passes);
}
