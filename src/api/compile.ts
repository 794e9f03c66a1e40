// The library's front and back half: `check` (parse, type-check, instantiate and verify every
// selected schedule: what `dmac check` does) and `compile` (one schedule to its queue programs,
// SDMA packet streams, manifest and command trace, in memory: what `dmac compile -o` would write,
// returned as data). Both wrap the pipeline's entry functions (src/pipeline.ts analyzeSource,
// src/backend/compile-pipeline.ts compileToQueues and buildOutputs) and never write files; the
// only reads are those the source asks for (`target "file.json"`, relative to `path`'s directory).
// User errors come back as diagnostics, never as exceptions.

import { dirname } from "node:path";
import {
  buildOutputs,
  compileToQueues,
  outputText,
  type EmitKind,
  type OptimiseReport,
  type OutputFile,
} from "../backend/compile-pipeline.js";
import type { Manifest } from "../backend/sdma/manifest.js";
import type { Trace } from "../backend/trace/trace.js";
import { diag, hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { IrModule } from "../ir/ir.js";
import { passesKeepLowering } from "../passes/index.js";
import { parsePassOptions } from "../passes/options.js";
import type { CompletionPolicy, OptLevel, PassOptions } from "../passes/pass.js";
import { analyzeSource } from "../pipeline.js";
import type { CompletionProtocol, QueueProgram } from "../queues/queue-program.js";
import { makeSourceFile } from "../source/source-file.js";
import { builtinTarget, type Target } from "../target/target.js";

/** The name a source has in diagnostics when the caller gives none. */
export const DEFAULT_SOURCE_NAME = "input.dmac";

export interface CheckOptions {
  /**
   * The source's file name: shown in diagnostics, recorded in the manifest and trace, and the
   * directory that `target "file.json"` in the source is relative to. Default "input.dmac".
   */
  readonly path?: string | undefined;
  /** Schedule parameters, as `-D name=value` gives them: `{ chunk: "1MiB", steps: 4 }`. */
  readonly defines?: Readonly<Record<string, string | number | boolean>> | undefined;
  /** The schedule (needed by `compile` when the file has several; `check` checks all by default). */
  readonly schedule?: string | undefined;
  /** A built-in target's name or a target description (`loadTarget`), instead of the source's. */
  readonly target?: string | Target | undefined;
  /** Most instantiated operations (`--max-ops`). */
  readonly maxOps?: number | undefined;
  /** Front-end limits (`--max-source-bytes`, `--max-nesting`; DMAC1012, DMAC1013). */
  readonly maxSourceBytes?: number | undefined;
  readonly maxNesting?: number | undefined;
}

export interface CheckResult {
  /** No errors (warnings allowed). */
  readonly ok: boolean;
  readonly diagnostics: Diagnostic[];
  /** The verified IR of every schedule whose phases all succeeded. */
  readonly modules: IrModule[];
}

export interface CompileOptions extends CheckOptions {
  /** Optimisation level (`-O`): 0 (default, the DMA-Latte baseline), 1 or 2. */
  readonly opt?: OptLevel | undefined;
  /** Engine assignment (`--engines`): "affinity" (default), "spread:K", "single[:E,...]". */
  readonly engines?: string | undefined;
  /** How completion signals are written: "atomic" (default) or "fence". */
  readonly completion?: CompletionProtocol | undefined;
  /** One completion per command or per queue (default: the level's). */
  readonly completionPolicy?: CompletionPolicy | undefined;
  /** Every queue waits on a host trigger word (`--prelaunch`). */
  readonly prelaunch?: boolean | undefined;
  /** Passes to turn off (`--disable-pass`). */
  readonly disablePasses?: readonly string[] | undefined;
  /** What to build: "sdma" (streams + manifest + dump.txt) and/or "trace". Default both. */
  readonly emit?: readonly EmitKind[] | undefined;
  /** Split copies at this many bytes (default: the target's limit). */
  readonly maxCopyBytes?: number | undefined;
  /** Most data packets lowering may make (`--max-packets`). */
  readonly maxPackets?: number | undefined;
}

export interface CompileResult {
  /** No errors (warnings allowed): every field below is present. */
  readonly ok: boolean;
  readonly diagnostics: Diagnostic[];
  /** The schedule's verified IR (what the executor checks the final state against). */
  readonly module?: IrModule | undefined;
  /** Per GPU and engine, the commands after lowering and the passes. */
  readonly queues?: QueueProgram | undefined;
  readonly target?: Target | undefined;
  /** manifest.json, parsed (with emit "sdma"): schemas/manifest.schema.json. */
  readonly manifest?: Manifest | undefined;
  /** The packet streams by the manifest's file names (`gpu0.sdma2.bin`), little-endian dwords. */
  readonly streams?: ReadonlyMap<string, Uint32Array> | undefined;
  /** trace.json, parsed (with emit "trace"): schemas/trace.schema.json. */
  readonly trace?: Trace | undefined;
  /** Every file `dmac compile -o DIR` would write, as (name, contents), in a fixed order. */
  readonly files?: readonly OutputFile[] | undefined;
  /** What the optimiser did (with opt 1 or 2, or any pass option). */
  readonly optimised?: OptimiseReport | undefined;
}

/** The target option as a description, or a diagnostic naming the unknown built-in. */
export function resolveTarget(target: string | Target | undefined): {
  target: Target | undefined;
  diagnostics: Diagnostic[];
} {
  if (target === undefined || typeof target !== "string") return { target, diagnostics: [] };
  const found = builtinTarget(target);
  return found
    ? { target: found, diagnostics: [] }
    : { target: undefined, diagnostics: [diag("DMAC2006", undefined, [target])] };
}

function defineTexts(defines: CheckOptions["defines"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(defines ?? {})) out[k] = String(v);
  return out;
}

/** Parse, type-check, instantiate and verify every selected schedule of `source`. */
export function check(source: string, options: CheckOptions = {}): CheckResult {
  const resolved = resolveTarget(options.target);
  if (resolved.diagnostics.length > 0)
    return { ok: false, diagnostics: resolved.diagnostics, modules: [] };
  const path = options.path ?? DEFAULT_SOURCE_NAME;
  const r = analyzeSource(makeSourceFile(path, source), {
    defines: defineTexts(options.defines),
    schedule: options.schedule,
    baseDir: dirname(path),
    targetOverride: resolved.target,
    maxOps: options.maxOps,
    maxSourceBytes: options.maxSourceBytes,
    maxNesting: options.maxNesting,
  });
  return { ok: !hasErrors(r.diagnostics), diagnostics: r.diagnostics, modules: r.modules };
}

/** The passes' options, or undefined when they would return the lowering unchanged. */
function passOptions(
  o: CompileOptions,
  target: Target | undefined,
): { passes: PassOptions | undefined; diagnostics: Diagnostic[] } {
  const parsed = parsePassOptions(
    {
      opt: String(o.opt ?? 0),
      engines: o.engines,
      completion: o.completionPolicy,
      prelaunch: o.prelaunch,
      disablePass: o.disablePasses ? [...o.disablePasses] : undefined,
    },
    target,
  );
  // As `dmac compile`: skipping passes that change nothing is most of a big -O0 compile's time.
  const passes = parsed.options && !passesKeepLowering(parsed.options) ? parsed.options : undefined;
  return { passes, diagnostics: parsed.diagnostics };
}

/** The manifest, streams and trace among the output files. */
function readOutputs(files: readonly OutputFile[]): {
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

/** Compile one schedule of `source` to queue programs, packet streams, manifest and trace. */
export function compile(source: string, options: CompileOptions = {}): CompileResult {
  const resolved = resolveTarget(options.target);
  const opt = passOptions(options, resolved.target);
  const pre = [...resolved.diagnostics, ...opt.diagnostics];
  if (hasErrors(pre)) return { ok: false, diagnostics: pre };
  const path = options.path ?? DEFAULT_SOURCE_NAME;
  const file = makeSourceFile(path, source);
  const q = compileToQueues(file, {
    defines: defineTexts(options.defines),
    schedule: options.schedule,
    baseDir: dirname(path),
    targetOverride: resolved.target,
    maxOps: options.maxOps,
    completion: options.completion,
    maxCopyBytes: options.maxCopyBytes,
    passes: opt.passes,
    maxPackets: options.maxPackets,
    maxSourceBytes: options.maxSourceBytes,
    maxNesting: options.maxNesting,
  });
  if (!q.compiled) return { ok: false, diagnostics: [...pre, ...q.diagnostics] };
  const { module, program, target, optimised } = q.compiled;
  const out = buildOutputs(file, q.compiled, { emit: options.emit ?? ["sdma", "trace"] });
  const diagnostics = [...pre, ...q.diagnostics, ...out.diagnostics];
  if (!out.files || hasErrors(diagnostics))
    return { ok: false, diagnostics, module, queues: program, target, optimised };
  const read = readOutputs(out.files);
  return {
    ok: true,
    diagnostics,
    module,
    queues: program,
    target,
    manifest: read.manifest,
    streams: read.manifest ? read.streams : undefined,
    trace: read.trace,
    files: out.files,
    optimised,
  };
}
