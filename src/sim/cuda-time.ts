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
  return medianOrderRun(p, t)?.us;
}

/**
 * The run whose time is the median of the target's engineOrderRuns (its index: the seed of its
 * order draws, copy-engines.ts), and that time; run 0 alone where no streams tied for an engine.
 * Where they tie, the hardware's order among them changes from one iteration to the next, and
 * a measured time is the median of the iterations' times (the median over orders fitted the 4-GPU
 * fitting calls better than the mean: docs/model.md, "Fabric").
 */
export function medianOrderRun(
  p: CudaProgram,
  t: CudaTarget,
): { run: number; us: number } | undefined {
  let sim = packed.get(p);
  if (!sim) packed.set(p, (sim = packedFromCuda(p)));
  const model = cudaModel("cuda", p.gpus, t, anyPart(t.streams));
  const runs: { run: number; us: number }[] = [];
  for (let k = 0; k < Math.max(1, t.timing.engineOrderRuns); k++) {
    const r = execute(sim, { model, checks: () => NO_CHECKS, engineOrderRun: k });
    if (!r.completed) return undefined;
    runs.push({ run: k, us: r.stats.totalUs });
    if (r.engineTies === 0) return runs[0];
  }
  runs.sort((a, b) => a.us - b.us || a.run - b.run);
  return runs[(runs.length - 1) >> 1];
}
