// The library's compile: one schedule of a source to what `dmac compile -o` would write, in
// memory: for an SDMA target its queue programs, packet streams, manifest and command trace, for
// a CUDA target (h100, h200) its command program. It takes the CLI's path (build.ts: the same
// option checks, the same back-end choice) and never writes files; the only reads are those the
// source asks for (`target "file.json"`, relative to the `path` option's directory). User errors,
// bad option values included, come back as diagnostics, never as exceptions.

import { dirname } from "node:path";
import type { EmitKind } from "../driver/outputs.js";
import { outputBytes, outputText } from "../backend/output.js";
import type { OptimiseReport } from "../passes/optimise-report.js";
import type { CudaProgram } from "../backend/cuda/program.js";
import type { Manifest } from "../backend/sdma/manifest.js";
import type { Trace } from "../backend/trace/trace.js";
import { hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { IrModule } from "../ir/ir.js";
import type { CompletionPolicy, OptLevel } from "../passes/pass.js";
import type { CompletionProtocol, QueueProgram } from "../queues/queue-program.js";
import { makeSourceFile } from "../source/source-file.js";
import type { SyncMode, Target } from "../target/target.js";
import { buildSchedule, parseBuildOptions, type BuildOptionText } from "../driver/build.js";
import {
  DEFAULT_SOURCE_NAME,
  defineTexts,
  limitText,
  optionText,
  resolveTarget,
  type CheckOptions,
} from "./check.js";

export interface CompileOptions extends CheckOptions {
  /** Optimisation level (`-O`): 0 (default, the DMA-Latte baseline), 1 or 2. */
  readonly opt?: OptLevel | undefined;
  /** Engine assignment (`--engines`): "affinity" (default), "spread:K", "single[:E,...]". */
  readonly engines?: string | undefined;
  /** How completion signals are written: "atomic" (default) or "fence". */
  readonly completion?: CompletionProtocol | undefined;
  /** Synchronisation forms (`--sync`): default the target's (conservative for mi300x). */
  readonly sync?: SyncMode | undefined;
  /** One completion per command or per queue (default: the level's). */
  readonly completionPolicy?: CompletionPolicy | undefined;
  /** Every queue waits on a host trigger word (`--prelaunch`). */
  readonly prelaunch?: boolean | undefined;
  /** Passes to turn off (`--disable-pass`). */
  readonly disablePasses?: readonly string[] | undefined;
  /**
   * What to build: "sdma" (streams + manifest), "dump" (the dump.txt listing), "trace".
   * Default "sdma" and "trace" (the listing only on request, as `dmac compile --dump`).
   */
  readonly emit?: readonly EmitKind[] | undefined;
  /** Split copies at this many bytes (default: the target's limit). */
  readonly maxCopyBytes?: number | undefined;
  /** Most data packets lowering may make (`--max-packets`). */
  readonly maxPackets?: number | undefined;
}

/** What `compile` returns: `ok` narrows it (TypeScript) to the outputs or the diagnostics. */
export type CompileResult = CompileSuccess | CompileFailure;

export interface CompileSuccess {
  /** No errors (warnings allowed). */
  readonly ok: true;
  readonly diagnostics: Diagnostic[];
  /** The schedule's verified IR (what the executor checks the final state against). */
  readonly module: IrModule;
  /** Per GPU and engine, the commands after lowering and the passes. */
  readonly queues: QueueProgram;
  readonly target: Target;
  /** manifest.json, parsed (with emit "sdma"; an SDMA target): schemas/manifest.schema.json. */
  readonly manifest?: Manifest | undefined;
  /** The packet streams by the manifest's file names (`gpu0.sdma2.bin`), little-endian dwords. */
  readonly streams?: ReadonlyMap<string, Uint32Array> | undefined;
  /** trace.json, parsed (with emit "trace"; an SDMA target): schemas/trace.schema.json. */
  readonly trace?: Trace | undefined;
  /** A CUDA target's (h100, h200) command program: program.json's, without its prediction. */
  readonly cudaProgram?: CudaProgram | undefined;
  /** Every file `dmac compile -o DIR` would write, as (name, contents), in a fixed order. The
   * CLI streams big files to disk; here every file's contents are in memory. */
  readonly files: readonly CompiledFile[];
  /** What the optimiser did (with opt 1 or 2, or any pass option). */
  readonly optimised?: OptimiseReport | undefined;
}

export interface CompileFailure {
  readonly ok: false;
  /** At least one error. */
  readonly diagnostics: Diagnostic[];
  /** What the phases that succeeded made, if any. */
  readonly module?: IrModule | undefined;
  readonly queues?: QueueProgram | undefined;
  readonly target?: Target | undefined;
  readonly optimised?: OptimiseReport | undefined;
  readonly manifest?: undefined;
  readonly streams?: undefined;
  readonly trace?: undefined;
  readonly cudaProgram?: undefined;
  readonly files?: undefined;
}

/** The options as `dmac compile` takes them, so that one set of rules checks both (build.ts). */
function libraryBuildText(o: CompileOptions): BuildOptionText {
  const completion = [o.completion, o.completionPolicy].filter((x) => x !== undefined);
  return {
    opt: optionText(o.opt),
    engines: optionText(o.engines),
    completion: completion.length > 0 ? completion.join(",") : undefined,
    sync: optionText(o.sync),
    prelaunch: o.prelaunch,
    disablePass: o.disablePasses?.map(String),
    emit: o.emit?.join(","),
    maxCopyBytes: optionText(o.maxCopyBytes),
    maxPackets: optionText(o.maxPackets),
    ...limitText(o),
  };
}

/** An output file with its contents in memory (UTF-8 text as bytes or a string). */
export interface CompiledFile {
  readonly name: string;
  readonly data: Uint8Array | string;
}

/** The manifest, streams and trace among the output files. */
function readOutputs(files: readonly CompiledFile[]): {
  manifest?: Manifest;
  trace?: Trace;
  streams: Map<string, Uint32Array>;
} {
  const out: { manifest?: Manifest; trace?: Trace; streams: Map<string, Uint32Array> } = {
    streams: new Map(),
  };
  for (const f of files) {
    if (f.name === "manifest.json") out.manifest = JSON.parse(outputText(f)) as Manifest;
    else if (f.name === "trace.json") out.trace = JSON.parse(outputText(f)) as Trace;
    else if (f.name.endsWith(".bin") && f.data instanceof Uint8Array)
      // A copy: dwords must be 4-byte aligned, and the caller may keep them after the bytes go.
      out.streams.set(
        f.name,
        new Uint32Array(
          f.data.buffer.slice(f.data.byteOffset, f.data.byteOffset + f.data.byteLength),
        ),
      );
  }
  return out;
}

/** Compile one schedule of `source` for its target's back end, as `dmac compile` does. */
export function compile(source: string, options: CompileOptions = {}): CompileResult {
  const resolved = resolveTarget(options.target);
  const parsed = parseBuildOptions(libraryBuildText(options), resolved.target);
  const pre = [...resolved.diagnostics, ...parsed.diagnostics];
  if (!parsed.options || hasErrors(pre)) return { ok: false, diagnostics: pre };
  const path = options.path ?? DEFAULT_SOURCE_NAME;
  const file = makeSourceFile(path, source);
  const built = buildSchedule(
    {
      file,
      defines: defineTexts(options.defines),
      schedule: options.schedule,
      baseDir: dirname(path),
      target: resolved.target,
    },
    parsed.options,
    { emit: ["sdma", "trace"] },
  );
  const diagnostics = [...pre, ...built.diagnostics];
  if (!built.compiled) return { ok: false, diagnostics };
  const { module, program, target, optimised } = built.compiled;
  if (!built.files || hasErrors(diagnostics))
    return { ok: false, diagnostics, module, queues: program, target, optimised };
  // In order: the sidecar takes the hash its manifest.json was formatted with.
  const files = built.files.map((f) => ({ name: f.name, data: outputBytes(f) }));
  const read = readOutputs(files);
  return {
    ok: true,
    diagnostics,
    module,
    queues: program,
    target,
    manifest: read.manifest,
    streams: read.manifest ? read.streams : undefined,
    trace: read.trace,
    cudaProgram: built.cudaProgram,
    files,
    optimised,
  };
}
