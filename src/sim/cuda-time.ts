// The time of a `dmac sim` run on a CUDA target. The executor runs the target's queue program
// (the one the CUDA back end encodes) for its checks under a stand-in model (model.ts,
// cudaCheckModel); the time, host submission and bandwidth reported are then cuda-exec's, over
// the command program itself (copy engines, streams, host calls: docs/cuda.md, "The timing
// model"), the number program.json's predictedUs holds.

import type { CudaProgram } from "../backend/cuda/program.js";
import type { IrModule } from "../ir/ir.js";
import type { CudaTarget } from "../target/cuda-target.js";
import { InternalError } from "../util/internal-error.js";
import { bandwidthOf } from "./bandwidth.js";
import { runCuda, type CudaStreamSpans } from "./cuda-exec.js";
import type { SimResult } from "./run.js";

/** What timed a CUDA run, and its commands' times for the trace. */
export interface CudaTiming {
  readonly program: CudaProgram;
  /** Each stream's commands' start and end (with `record`). */
  readonly spans: readonly CudaStreamSpans[] | undefined;
}

/** The summary's name of the model that timed a CUDA run. */
export const CUDA_TIMED_BY = 'cuda-exec, the copy-engine model (docs/cuda.md, "The timing model")';

/** The summary's note where the checks failed: cuda-exec does not time a broken program. */
export const CUDA_NOT_TIMED =
  "not timed: the checks failed (the time above is where the check run's stand-in model stopped)";

/**
 * `r` with cuda-exec's time of `program`. A run the checks found broken is not timed (cuda-exec
 * has no checks, and its producer raises the external signals at the start even where
 * --hold-signals holds them); a run that passed them must finish in cuda-exec too.
 */
export function withCudaTime(
  r: SimResult,
  program: CudaProgram,
  t: CudaTarget,
  module: IrModule | undefined,
  record: boolean,
): SimResult {
  if (r.diagnostics.some((d) => d.severity === "error")) return { ...r, timedBy: CUDA_NOT_TIMED };
  const c = runCuda(program, t, record);
  if (!c.ok)
    throw new InternalError(`cuda-exec never finishes a program the checks passed: ${c.why}`);
  let commands = 0;
  for (const s of program.streams) commands += s.commands.length;
  const stats = {
    ...r.stats,
    totalUs: c.timeUs,
    hostSubmitUs: c.hostSubmitUs,
    packets: commands,
    // (The executor's engine, link and host-link loads are the stand-in model's: not shown.)
    engines: [],
    links: [],
    pcie: [],
  };
  const bandwidth = bandwidthOf(
    { gpus: program.gpus, us: c.timeUs, peerBytes: stats.peerBytes, localBytes: stats.localBytes },
    module,
  );
  return { ...r, stats, bandwidth, timedBy: CUDA_TIMED_BY, cuda: { program, spans: c.spans } };
}
