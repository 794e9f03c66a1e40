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

/**
 * `r` with cuda-exec's time of `program`. A run the checks found broken keeps the executor's
 * figures (cuda-exec may never finish it); a run that finished there must finish here too.
 */
export function withCudaTime(
  r: SimResult,
  program: CudaProgram,
  t: CudaTarget,
  module: IrModule | undefined,
  record: boolean,
): SimResult {
  const c = runCuda(program, t, record);
  if (!c.ok) {
    if (r.verified || (r.postcondition !== "fails" && !r.diagnostics.some(isError)))
      throw new InternalError(`cuda-exec never finishes a program the executor ran: ${c.why}`);
    return r;
  }
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

const isError = (d: { readonly severity: string }): boolean => d.severity === "error";
