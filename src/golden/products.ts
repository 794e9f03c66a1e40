// What one configuration of a test file produces, computed on demand and at most once: the
// compilation (queues), the output files (dump.txt, trace.json, the streams), the analysed IR
// and the simulation. Every artefact of artefacts.ts reads from here, so a configuration that
// asks for dump, trace and sim compiles once. Pure: the only file read is a --target.

import { resolve } from "node:path";
import { compileToQueues, type QueuesResult } from "../driver/compile.js";
import { buildOutputs, EMIT_KINDS } from "../driver/outputs.js";
import { outputText, type OutputFile } from "../backend/output.js";
import type { Manifest } from "../backend/sdma/manifest.js";
import { hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
import { passesKeepLowering } from "../passes/index.js";
import { simulate, type SimResult } from "../sim/run.js";
import type { SourceFile } from "../source/source-file.js";
import { parseOptOptions } from "../options/opt-options.js";
import { parseFrontEndLimits, parsePositiveInt, parseScheduleOptions } from "../options/options.js";
import type { ConfigOptions } from "./config-options.js";

export interface Products {
  readonly file: SourceFile;
  /** Option and compile diagnostics; `compiled` is absent when there were errors. */
  readonly compile: () => QueuesResult;
  /** Every output file of a compile (undefined when it did not compile), and its diagnostics. */
  readonly outputs: () => { files: OutputFile[] | undefined; diagnostics: Diagnostic[] };
  /** The run on the simulated node (undefined when it did not compile). */
  readonly sim: () => SimResult | undefined;
  /**
   * The compile's warnings (e.g. DMAC4009, the -O2 search stopped at its budget), if a golden
   * needed the compile: a passing golden still shows them.
   */
  readonly warnings: () => Diagnostic[];
}

function once<T>(f: () => T): () => T {
  let done = false;
  let value: T;
  return () => {
    if (!done) ((value = f()), (done = true));
    return value;
  };
}

/**
 * Every output kind buildOutputs knows (streams, listing, trace) in one call: the listing is what
 * `dump` compares and the streams are what `sim` runs.
 */
const ALL_OUTPUTS = EMIT_KINDS;

/** The products of `file` (named as goldens show it) compiled with `options` from `baseDir`. */
export function makeProducts(file: SourceFile, baseDir: string, options: ConfigOptions): Products {
  let compiled = false;
  const compile = once((): QueuesResult => {
    compiled = true;
    // A --target is relative to the test file (config.ts makes the command line's so too).
    const common = parseScheduleOptions({
      ...options,
      target: options.target === undefined ? undefined : resolve(baseDir, options.target),
    });
    const optimiser = parseOptOptions(options, common.target);
    const maxOps = parsePositiveInt("--max-ops", options.maxOps);
    const maxPackets = parsePositiveInt("--max-packets", options.maxPackets);
    const maxCopy = parsePositiveInt("--max-copy-bytes", options.maxCopyBytes);
    const limits = parseFrontEndLimits(options);
    const problems = [
      ...common.diagnostics,
      ...optimiser.diagnostics,
      ...maxOps.diagnostics,
      ...maxPackets.diagnostics,
      ...maxCopy.diagnostics,
      ...limits.diagnostics,
    ];
    if (hasErrors(problems)) return { diagnostics: problems, compiled: undefined };
    const q = compileToQueues(file, {
      defines: common.defines,
      schedule: options.schedule,
      baseDir,
      targetOverride: common.target,
      maxOps: maxOps.value,
      maxPackets: maxPackets.value,
      maxCopyBytes: maxCopy.value,
      completion: optimiser.protocol,
      // As `dmac compile`: at -O0 with default options the passes would not change the lowering.
      passes:
        optimiser.passes && !passesKeepLowering(optimiser.passes) ? optimiser.passes : undefined,
      maxSourceBytes: limits.maxSourceBytes,
      maxNesting: limits.maxNesting,
    });
    return { ...q, diagnostics: [...problems, ...q.diagnostics] };
  });

  const outputs = once(() => {
    const q = compile();
    if (!q.compiled) return { files: undefined, diagnostics: q.diagnostics };
    const out = buildOutputs(file, q.compiled, { emit: ALL_OUTPUTS });
    const diagnostics = [...q.diagnostics, ...out.diagnostics];
    return { files: hasErrors(diagnostics) ? undefined : out.files, diagnostics };
  });

  const sim = once((): SimResult | undefined => {
    const q = compile().compiled;
    const files = outputs().files;
    if (!q || !files) return undefined;
    let manifest: Manifest | undefined;
    const streams = new Map<string, Uint32Array>();
    for (const f of files) {
      if (f.name === "manifest.json") manifest = JSON.parse(outputText(f)) as Manifest;
      else if (f.name.endsWith(".bin") && f.data instanceof Uint8Array)
        streams.set(f.name, new Uint32Array(f.data.slice().buffer));
    }
    if (!manifest) return undefined;
    return simulate({ manifest, streams, module: q.module }, { target: q.target });
  });

  const warnings = (): Diagnostic[] =>
    compiled && compile().compiled
      ? compile().diagnostics.filter((d) => d.severity === "warning")
      : [];

  return { file, compile, outputs, sim, warnings };
}
