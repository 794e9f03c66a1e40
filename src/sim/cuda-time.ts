// The time of a CUDA command program, for the callers that want only that: the optimiser's cost
// model, program.json's predictedUs, `dmac measure` and its fit. The program runs in the
// executor as `dmac sim` runs it (from-cuda.ts, copy-engines.ts), without the IR's checks.

import type { CudaProgram } from "../backend/cuda/program.js";
import type { CudaTarget } from "../target/cuda-target.js";
import { execute } from "./execute.js";
import { NO_CHECKS } from "./exec-state.js";
import { packedFromCuda } from "./from-cuda.js";
import { cudaModel } from "./model.js";
import { POLL_FUNC_CODES } from "./program.js";
import { XGMI_ENGINE, type PartRules } from "./part-rules.js";

/** The summary's name of the model that timed a CUDA run. */
export const CUDA_TIMED_BY = 'the copy-engine model (docs/cuda.md, "The timing model")';

/**
 * The part of a target known only by its CUDA section: what the back end emits for it holds
 * (its copies are split as the target's limits say; `dmac sim` holds them to those), and any
 * stream reaches the host and every peer.
 */
function anyPart(streams: number): PartRules {
  return {
    name: "cuda",
    maxCopyBytes: Infinity,
    maxFillBytes: Infinity,
    engineKind: new Uint8Array(streams).fill(XGMI_ENGINE),
    hasPcie: false,
    pcie: [],
    xgmi: [],
    pollFunction: new Uint8Array(POLL_FUNC_CODES.length).fill(1),
    pollFunctions: [],
    engineProblem: [],
  };
}

/** Each program's executor form, made once: a fit times one program under thousands of targets. */
const packed = new WeakMap<CudaProgram, ReturnType<typeof packedFromCuda>>();

/**
 * The executor's run time of command program `p` on `t`, or undefined where it never finishes.
 * Without the checks (races, the meaning): a fit or a plan search times thousands of runs, and
 * the checks' state cost more than a small program's run.
 */
export function timeCuda(p: CudaProgram, t: CudaTarget): number | undefined {
  let sim = packed.get(p);
  if (!sim) packed.set(p, (sim = packedFromCuda(p)));
  const r = execute(sim, {
    model: cudaModel("cuda", p.gpus, t, anyPart(t.streams)),
    checks: () => NO_CHECKS,
  });
  return r.completed ? r.stats.totalUs : undefined;
}
