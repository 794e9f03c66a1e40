// `dmac compile` for a CUDA target: program.json (the command program, schema
// cuda-program.schema.json, with the executor's prediction, which the caller passes in: the
// executor is a layer above) and program.txt (the same in the runner's line format).

import { hasErrors, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { IrModule } from "../../ir/ir.js";
import type { QueueProgram } from "../../queues/queue-program.js";
import type { SourceFile } from "../../source/source-file.js";
import { cudaOf } from "../../target/cuda-target.js";
import type { Target } from "../../target/target.js";
import { InternalError } from "../../util/internal-error.js";
import { nodeCrypto } from "../../util/lazy-builtin.js";
import type { CudaTarget } from "../../target/cuda-target.js";
import { buildCudaProgram, type CudaProgram } from "./program.js";
import { programText } from "./text.js";

export const CUDA_PROGRAM_FILE = "program.json";
export const CUDA_TEXT_FILE = "program.txt";

export function buildCudaOutputs(
  file: SourceFile,
  compiled: { readonly module: IrModule; readonly program: QueueProgram; readonly target: Target },
  opts: {
    readonly batch: boolean;
    readonly source?: string | undefined;
    /** The run time of a program (us), or undefined where it never finishes. */
    readonly predict: (p: CudaProgram, t: CudaTarget) => number | undefined;
  },
): {
  diagnostics: Diagnostic[];
  files: { name: string; data: string }[] | undefined;
  program?: CudaProgram;
  /** The copy-engine model's prediction (program.json's predictedUs), when it made one. */
  predictedUs?: number | undefined;
} {
  const built = buildCudaProgram(compiled.module, compiled.program, file, opts);
  if (!built.program || hasErrors(built.diagnostics))
    return { diagnostics: built.diagnostics, files: undefined };
  const t = cudaOf(compiled.target);
  if (!t) throw new InternalError("CUDA outputs for a target without a cuda section");
  const predicted = opts.predict(built.program, t);
  const text = programText(built.program);
  const doc = {
    ...built.program,
    source: opts.source ?? file.name,
    predictedUs: predicted === undefined ? null : round(predicted),
    programSha256: programSha256(text),
  };
  return {
    diagnostics: built.diagnostics,
    files: [
      { name: CUDA_PROGRAM_FILE, data: JSON.stringify(doc, null, 1) + "\n" },
      { name: CUDA_TEXT_FILE, data: text },
    ],
    program: built.program,
    predictedUs: predicted,
  };
}

/**
 * The SHA-256 (hex) of program.txt's bytes: what the runner (runtime/cuda/sha256.h) writes into
 * its result as `programSha256`, so that `dmac measure` can tell which program a time is of.
 */
export function programSha256(text: string): string {
  return nodeCrypto().createHash("sha256").update(text, "utf8").digest("hex");
}

const round = (x: number): number => Math.round(x * 1000) / 1000;
