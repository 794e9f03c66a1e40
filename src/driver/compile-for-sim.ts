// A .dmac compiled in memory into the executor's input (manifest, streams and IR): what `dmac
// sim FILE.dmac`, `dmac sweep` and `dmac calibrate` run.

import { dirname } from "node:path";
import type { Manifest } from "../backend/sdma/manifest.js";
import { outputText } from "../backend/output.js";
import { hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
import {
  DEFAULT_SIM_MAX_PACKETS,
  tooManyPackets,
  type LoadedInput,
  type SimCompileOptions,
} from "../sim/loaded-input.js";
import { makeSourceFile } from "../source/source-file.js";
import { compileToQueues, cudaBatchesOf, type QueuesResult } from "./compile.js";
import { buildCudaProgram } from "../backend/cuda/program.js";
import { cudaOf } from "../target/cuda-target.js";
import type { SourceFile } from "../source/source-file.js";
import { buildOutputs } from "./outputs.js";

/** Compiles a .dmac in memory into the executor's input (manifest + streams + IR). */
export function compileForSim(
  path: string,
  text: string,
  defines: Record<string, string>,
  opts: SimCompileOptions,
): { loaded: LoadedInput | undefined; diagnostics: Diagnostic[] } {
  const file = makeSourceFile(path, text);
  const maxPackets = opts.maxPackets ?? DEFAULT_SIM_MAX_PACKETS;
  const q = compileToQueues(file, {
    defines,
    schedule: opts.schedule,
    baseDir: dirname(path),
    targetOverride: opts.target,
    maxCopyBytes: opts.maxCopyBytes,
    completion: opts.completion,
    sync: opts.sync,
    passes: opts.passes,
    maxPackets,
    onPlanProgress: opts.onPlanProgress,
  });
  if (!q.compiled) return { loaded: undefined, diagnostics: q.diagnostics };
  // The data packets were counted before lowering (located); with completions and syncs:
  let packets = 0;
  for (const queue of q.compiled.program.queues) packets += queue.cmds.length;
  if (packets > maxPackets)
    return {
      loaded: undefined,
      diagnostics: [...q.diagnostics, tooManyPackets(`${path} lowers to`, maxPackets)],
    };
  if (cudaOf(q.compiled.target)) return cudaForSim(file, q.compiled, q.diagnostics, opts);
  const out = buildOutputs(file, q.compiled, { emit: ["sdma"] });
  const diagnostics = [...q.diagnostics, ...out.diagnostics];
  if (!out.files || hasErrors(diagnostics)) return { loaded: undefined, diagnostics };
  let manifest: Manifest | undefined;
  const streams = new Map<string, Uint32Array>();
  for (const f of out.files) {
    if (f.name === "manifest.json") manifest = JSON.parse(outputText(f)) as Manifest;
    else if (f.name.endsWith(".bin") && f.data instanceof Uint8Array)
      streams.set(
        f.name,
        new Uint32Array(
          f.data.buffer.slice(f.data.byteOffset, f.data.byteOffset + f.data.byteLength),
        ),
      );
  }
  if (!manifest) return { loaded: undefined, diagnostics };
  return {
    loaded: {
      input: { manifest, streams, module: q.compiled.module },
      target: q.compiled.target,
      optimised: q.compiled.optimised,
    },
    diagnostics,
  };
}

/**
 * A CUDA target: the command program the CUDA back end builds from the queue program, as `dmac
 * compile` builds it (batches as the compile decided: cudaBatchesOf), with each command's IR ops: the
 * executor runs exactly that program (sim/from-cuda.ts).
 */
function cudaForSim(
  file: SourceFile,
  compiled: NonNullable<QueuesResult["compiled"]>,
  earlier: readonly Diagnostic[],
  opts: SimCompileOptions,
): { loaded: LoadedInput | undefined; diagnostics: Diagnostic[] } {
  const { module: m, program: p, target } = compiled;
  const built = buildCudaProgram(m, p, file, { batch: cudaBatchesOf(compiled, opts.passes) });
  const diagnostics = [...earlier, ...built.diagnostics];
  if (!built.program || hasErrors(diagnostics)) return { loaded: undefined, diagnostics };
  return {
    loaded: {
      input: { cuda: built.program, ops: built.ops, module: m },
      target,
      optimised: compiled.optimised,
    },
    diagnostics,
  };
}
