// The optimiser's cost model on a CUDA target (the -O1 check and the -O2 plan): build the command
// program and run it in the executor (src/sim/cuda-time.ts), which sees the copy engines and the
// fabric (receiver contention through NVSwitch: docs/model.md, "Fabric").

import type { CostModel, CostResult } from "../passes/cost-model.js";
import type { QueueProgram } from "../queues/queue-program.js";
import { timeCuda } from "../sim/cuda-time.js";
import { cudaOf } from "../target/cuda-target.js";
import { InternalError } from "../util/internal-error.js";
import { buildCudaProgram } from "../backend/cuda/program.js";

/** The executor's run time of a command program, or undefined where it never finishes. */
export const predictCudaUs = timeCuda;

export function cudaCostModel(batch: (prog: QueueProgram) => boolean): CostModel {
  return {
    predict(prog, m, req): CostResult {
      const t = cudaOf(req.target);
      if (!t) throw new InternalError("cuda cost model for a non-CUDA target");
      const built = buildCudaProgram(m, prog, req.file, { batch: batch(prog) });
      if (!built.program)
        return {
          kind: "failed",
          note: built.diagnostics[0]?.message ?? "not expressible",
          events: 0,
          eventLimitHit: false,
        };
      const us = timeCuda(built.program, t);
      if (us === undefined)
        return { kind: "failed", note: "a stream never finishes", events: 0, eventLimitHit: false };
      return { kind: "predicted", timeUs: us, events: 0 };
    },
  };
}
