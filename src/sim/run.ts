// simulate(): the executor's entry point. Takes compiled SDMA streams + manifest (read here
// with the back end's one packet table: stream-rows.ts, backend/sdma/decode.ts), a command
// trace or a CUDA command program (from-cuda.ts), turns them into a PackedProgram (absolute addresses, every command a row of typed
// arrays: program.ts), runs it (execute.ts) and, when the IR is known, checks the
// postcondition: the final provenance of every buffer byte must equal what the reference
// semantics (ir/interp.ts runReference) gives, which covers every collective's and every
// `ensure`'s expectation at once. Reports bandwidth as AMD-DMA-Latte defines it
// (reference/mi300x-node.md section 3). One job each: a manifest's program (from-manifest.ts), a
// trace's (from-trace.ts), the postcondition (postcondition.ts); this file runs them in order and
// shapes the result.

import { packedFromManifest } from "./from-manifest.js";
import { packedFromTrace } from "./from-trace.js";
import { finalStateProblems } from "./postcondition.js";
import type { Snapshot } from "../forensics/snapshot.js";
import type { Manifest, ManifestMemory } from "../backend/sdma/manifest.js";
import type { Trace } from "../backend/trace/trace.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { OP_KINDS, type IrModule } from "../ir/ir.js";
import type { Target } from "../target/target.js";
import { cudaOf } from "../target/cuda-target.js";
import type { CudaOps, CudaProgram } from "../backend/cuda/program.js";
import { cudaMeaning, packedFromCuda } from "./from-cuda.js";
import { CUDA_TIMED_BY } from "./cuda-time.js";
import {
  execute,
  MAX_RACES,
  type ExecOptions,
  type ExecResult,
  type ExecStats,
  type Timeline,
} from "./execute.js";
import type { SyncTrace } from "./semantics.js";
import { cudaModel, cudaPart, readMachineModel, type MachineModel } from "./model.js";
import { medianOrderRun } from "./cuda-time.js";
import {
  validateManifest,
  validateManifestInputs,
  validateManifestModule,
} from "./validate-input.js";
import { validateTrace } from "./validate-trace.js";
import { withSourceFrames } from "./report-frames.js";
import { shared, type PackedProgram } from "./program.js";
import { pushAll } from "../util/arrays.js";
import { bandwidthOf, NO_BANDWIDTH, type Bandwidth } from "./bandwidth.js";

export type { Bandwidth } from "./bandwidth.js";

export type SimInput =
  | {
      readonly manifest: Manifest;
      /** Packet streams by the manifest's file names. */
      readonly streams: ReadonlyMap<string, Uint32Array>;
      /** The IR the streams were compiled from: enables the postcondition check. */
      readonly module?: IrModule | undefined;
      /**
       * The manifest passed validateManifest on its own already (as `dmac sim DIR` reads it):
       * only what the streams and the module add is checked again (validateManifestInputs).
       */
      readonly validated?: boolean | undefined;
      /**
       * With `validated`: the module still being built, on a helper thread
       * (sim/session/helper.ts). simulate() takes it once it has built the program and
       * does not read `module` before; the checks keep their order.
       */
      readonly frontEnd?: DeferredModule | undefined;
    }
  | {
      readonly trace: Trace;
      readonly module?: IrModule | undefined;
    }
  | {
      /** A CUDA target's command program (from-cuda.ts makes it the executor's program). */
      readonly cuda: CudaProgram;
      /** Each command's IR ops (buildCudaProgram's): the meaning checks need them. */
      readonly ops?: CudaOps | undefined;
      readonly module?: IrModule | undefined;
    };

/** An IR module that comes later, from a thread that can also run the checks (check-thread.ts). */
export interface DeferredModule {
  module(): IrModule | undefined;
  /** The checks of the run on that thread (ExecOptions.checks); undefined: here. */
  readonly checks?: ExecOptions["checks"];
  /** Called once simulate() is done with it: the thread may go. */
  release?(): void;
}

export interface SimulateOptions extends Omit<ExecOptions, "model"> {
  readonly target: Target;
  /** The input's file name for DMAC6011 reports (default manifest.json / trace.json). */
  readonly inputFile?: string | undefined;
  /** The IR whose collective sizes the bandwidth figures when the input has none (--no-verify). */
  readonly sizedBy?: IrModule | undefined;
}

export interface SimResult {
  readonly diagnostics: Diagnostic[];
  /** No errors, every queue drained, and the postcondition was checked and holds. */
  readonly verified: boolean;
  readonly postcondition: "holds" | "fails" | "unchecked";
  /**
   * What the schedule itself claims beyond its own copies (with the IR): the collective it
   * `implements` and its number of `ensure`s. The final state is checked against the reference
   * semantics either way; the summary says which promise that proves.
   */
  readonly claims?:
    { readonly collective: string | undefined; readonly ensures: number } | undefined;
  /** The run deadlocked only on waits a monotonic external-signal producer cannot meet. */
  readonly deadlockOnExternal: boolean;
  readonly stats: ExecStats;
  readonly bandwidth: Bandwidth;
  readonly timeline: Timeline | undefined;
  readonly program: PackedProgram | undefined;
  readonly model: MachineModel | undefined;
  /** The model that gave the time, where not the SDMA one (a CUDA target: the copy engines'). */
  readonly timedBy?: string | undefined;
  /** A CUDA target's command program (the run's queues are its streams: from-cuda.ts). */
  readonly cuda?: CudaProgram | undefined;
  /** With SimulateOptions.syncTrace (the fuzzers' equivalence oracle): see semantics.ts. */
  readonly syncTrace?: SyncTrace | undefined;
  /** A deadlock or the watchdog ended the run: the words a host could read (sim --snapshot). */
  readonly snapshot?: Snapshot | undefined;
}

const EMPTY_STATS: ExecStats = {
  totalUs: 0,
  hostSubmitUs: 0,
  events: 0,
  packets: 0,
  engines: [],
  links: [],
  pcie: [],
  peerBytes: 0,
  localBytes: 0,
};

export function simulate(input: SimInput, opts: SimulateOptions): SimResult {
  try {
    return simulateInput(input, opts);
  } finally {
    if ("manifest" in input) input.frontEnd?.release?.();
  }
}

/** A simulation that ran nothing: what stopped it. */
const failed = (d: Diagnostic[], model?: MachineModel): SimResult => ({
  diagnostics: d,
  verified: false,
  postcondition: "unchecked",
  deadlockOnExternal: false,
  stats: EMPTY_STATS,
  bandwidth: NO_BANDWIDTH,
  timeline: undefined,
  program: undefined,
  model,
});

function simulateInput(input: SimInput, opts: SimulateOptions): SimResult {
  if ("cuda" in input) return simulateCuda(input, opts);
  const m = readMachineModel(opts.target);
  if (!m.ok) return failed([diag("DMAC5006", undefined, [opts.target.name, m.error])]);
  const model = m.model;
  // A hand-edited or corrupt document is reported before anything is built from it.
  const deferred = "manifest" in input && input.validated === true ? input.frontEnd : undefined;
  let module = deferred ? undefined : input.module;
  const invalid =
    "manifest" in input
      ? (input.validated === true ? validateManifestInputs : validateManifest)(input.manifest, {
          file: opts.inputFile,
          streams: input.streams,
          module,
        })
      : validateTrace(input.trace, { file: opts.inputFile, module });
  if (invalid) return failed([invalid], model);
  const built =
    "manifest" in input
      ? packedFromManifest(input.manifest, input.streams, opts.inputFile)
      : packedFromTrace(input.trace);
  const early =
    deferred && "manifest" in input && !("error" in built)
      ? runBeforeModule(input.manifest, built.program, deferred, model, opts)
      : undefined;
  if (early) return early;
  if (deferred && "manifest" in input) {
    // Built meanwhile; its check against the manifest still comes before the build's errors.
    module = deferred.module();
    const late = module && validateManifestModule(input.manifest, { file: opts.inputFile, module });
    if (late) return failed([late], model);
  }
  if ("error" in built) return failed([built.error], model);
  const program = module
    ? withMeaning(
        built.program,
        module,
        "manifest" in input ? input.manifest.memory : input.trace.memory,
        "manifest" in input ? input.manifest : undefined,
      )
    : built.program;
  const misfit = outsideModel(
    program,
    model,
    opts.inputFile ?? ("manifest" in input ? "manifest.json" : "trace.json"),
  );
  if (misfit) return failed([misfit], model);
  const ex = execute(program, {
    ...opts,
    model,
    checks: opts.checks ?? deferred?.checks,
    finalCheck: module && ((prov, p, where) => finalStateProblems(module!, prov, p, where)),
  });
  return resultOf(ex, program, model, module, opts);
}

/**
 * A CUDA target's command program, run as the executor's program (from-cuda.ts): the checks run
 * on exactly what the back end emits. The meaning checks need each command's IR ops.
 */
function simulateCuda(
  input: Extract<SimInput, { cuda: CudaProgram }>,
  opts: SimulateOptions,
): SimResult {
  const cudaTarget = cudaOf(opts.target);
  if (!cudaTarget)
    return failed([
      diag("DMAC5006", undefined, [opts.target.name, "a command program needs a CUDA target"]),
    ]);
  const model = cudaModel(opts.target.name, opts.target.gpus, cudaTarget, cudaPart(opts.target));
  const { module } = input;
  const built = packedFromCuda(input.cuda, input.ops);
  const program =
    module && input.ops ? { ...built, meaning: cudaMeaning(input.cuda, built, module) } : built;
  const misfit = outsideModel(program, model, "program.json");
  if (misfit) return failed([misfit], model);
  const ex = execute(program, {
    ...opts,
    model,
    finalCheck: module && ((prov, p, where) => finalStateProblems(module, prov, p, where)),
    // The run of the engine's orders whose time the prediction is (program.json's predictedUs).
    engineOrderRun:
      cudaTarget.timing.engineOrderRuns > 0 ? medianOrderRun(input.cuda, cudaTarget)?.run : 0,
  });
  const result = resultOf(ex, program, model, module, opts);
  return {
    ...result,
    timedBy: CUDA_TIMED_BY,
    cuda: input.cuda,
  };
}

/**
 * The run of a manifest whose IR is still being built on the helper thread, started before it
 * comes (its wait was ~0.07 s of the 262,144-copy all-to-all's main thread), where nothing the
 * event loop decides depends on it: the checks run on that thread, over its own copy of the IR,
 * and the manifest has no user signals (the IR says which of those are external, which the
 * producer raises: timing). The IR's check against the manifest then comes after the run; a
 * mismatch is reported alone, as it would have been before the run. Undefined: run the usual
 * way (no thread for the checks, user signals, a program the model refuses).
 */
function runBeforeModule(
  manifest: Manifest,
  built: PackedProgram,
  deferred: DeferredModule,
  model: MachineModel,
  opts: SimulateOptions,
): SimResult | undefined {
  if (manifest.memory.signals.length > 0 || opts.record === true || opts.syncTrace === true)
    return undefined;
  if (!deferred.checks || opts.checks) return undefined;
  const program: PackedProgram = { ...built, meaning: undefined };
  if (outsideModel(program, model, opts.inputFile ?? "manifest.json")) return undefined;
  // (Shared memory the checks' thread only reads: the result's meaning takes it again below.)
  const slotOwner = slotOwnersOf(manifest);
  const sink = deferred.checks(program, opts.maxRaces ?? MAX_RACES, {
    meaning: { signals: [], slotOwner },
    shape: {
      ranks: manifest.ranks,
      trigger: manifest.trigger,
      memory: { buffers: manifest.memory.buffers, signals: manifest.memory.signals },
    },
  });
  if (!sink) return undefined;
  const ex = execute(program, { ...opts, model, checks: () => sink });
  const module = deferred.module();
  const late = module && validateManifestModule(manifest, { file: opts.inputFile, module });
  if (late) return failed([late], model);
  const meant = module ? withMeaning(built, module, manifest.memory, manifest, slotOwner) : program;
  return resultOf(ex, meant, model, module, opts);
}

/** The simulation's result from the run of `program` (with `module`, the IR, when known). */
function resultOf(
  ex: ExecResult,
  program: PackedProgram,
  model: MachineModel,
  module: IrModule | undefined,
  opts: SimulateOptions,
): SimResult {
  const diagnostics = [...ex.diagnostics];
  let postcondition: SimResult["postcondition"] = "unchecked";
  if (ex.finalState) {
    pushAll(diagnostics, ex.finalState);
    postcondition = ex.finalState.length === 0 ? "holds" : "fails";
  }
  const bandwidth = bandwidthOf(
    {
      gpus: program.gpus,
      us: ex.stats.totalUs,
      peerBytes: ex.stats.peerBytes,
      localBytes: ex.stats.localBytes,
    },
    module ?? opts.sizedBy,
  );
  const errors = diagnostics.some((d) => d.severity === "error");
  return {
    // Each report that cites a queue position gets that command's statement as its span.
    diagnostics: withSourceFrames(diagnostics, program, module),
    verified: !errors && ex.completed && postcondition === "holds",
    postcondition,
    claims: module && { collective: module.collective?.name, ensures: module.ensures.length },
    deadlockOnExternal: ex.deadlockOnExternal,
    stats: ex.stats,
    bandwidth,
    timeline: ex.timeline,
    program,
    model,
    syncTrace: ex.syncTrace,
    snapshot: ex.snapshot,
  };
}

/**
 * The program with the schedule's meaning attached (semantics.ts checks the run against it). With
 * the IR known, the external signals are the ones the schedule never notifies (not "the ones no
 * queue writes": a stream that writes an external signal itself must not silence its producer),
 * and each completion slot belongs to the queue whose `completionSlots` list it.
 */
function withMeaning(
  p: PackedProgram,
  m: IrModule,
  memory: ManifestMemory,
  manifest: Manifest | undefined,
  slotOwner: Int32Array | undefined = manifest && slotOwnersOf(manifest),
): PackedProgram {
  const signals: { addr: number; signal: number; rank: number }[] = [];
  const notified = new Set<number>();
  // (The ops are read only for the signals: none, no pass over a million ops after the run.)
  const notify = OP_KINDS.notify.code;
  if (memory.signals.length > 0)
    for (let i = 0; i < m.ops.count; i++)
      if (m.ops.kind[i] === notify) notified.add(m.ops.signal[i]! * m.ranks + m.ops.sigRank[i]!);
  const external: number[] = [];
  for (const s of memory.signals) {
    signals.push({ addr: s.address, signal: s.id, rank: s.gpu });
    if (!notified.has(s.id * m.ranks + s.gpu)) external.push(s.address);
  }
  return {
    ...p,
    externalSignals: external,
    meaning: { module: m, signals, slotOwner },
  };
}

/** The queue that signals each completion slot (its `completionSlots`), -1 where none does. */
function slotOwnersOf(manifest: Manifest): Int32Array {
  const owner = shared(new Int32Array(0), manifest.memory.completionSignals.count).fill(-1);
  manifest.queues.forEach((mq, qi) => {
    const slots = mq.completionSlots;
    for (let j = 0; j < slots.length; j++) if (owner[slots[j]!] === -1) owner[slots[j]!] = qi;
  });
  return owner;
}

/** A well-formed input for a node other than the target's (more GPUs or engines than it has). */
function outsideModel(p: PackedProgram, m: MachineModel, file: string): Diagnostic | undefined {
  if (p.gpus > m.gpus)
    return diag("DMAC6011", undefined, [
      file,
      "$.ranks",
      `${p.gpus} GPUs, but target ${m.name} has ${m.gpus}`,
    ]);
  const i = p.queues.findIndex((q) => q.engine >= m.engines);
  if (i >= 0)
    return diag("DMAC6011", undefined, [
      file,
      `$.queues[${i}].engine`,
      `engine ${p.queues[i]!.engine}, but target ${m.name} has ${m.engines} per GPU`,
    ]);
  const j = p.queues.findIndex((q) => m.part.engineProblem[q.engine] !== undefined);
  if (j >= 0)
    return diag("DMAC6011", undefined, [
      file,
      `$.queues[${j}].engine`,
      `queue ${p.queues[j]!.name} ${m.part.engineProblem[p.queues[j]!.engine]!} (target ${m.name})`,
    ]);
  const h = p.regions.findIndex((r) => r.host);
  if (h >= 0 && m.pcie === undefined)
    return diag("DMAC6011", undefined, [
      file,
      "$.memory.buffers",
      `buffer ${p.regions[h]!.name} is in host memory, but target ${m.name} has no "pcie" section to model the host links`,
    ]);
  return undefined;
}
