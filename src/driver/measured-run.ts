// One measured CUDA run (bench/hardware/*.json) compiled again as `dmac compile` compiled it
// for the runner (prepare.sh), so `dmac measure` predicts the very program that ran.

import { dirname } from "node:path";
import { CUDA_TEXT_FILE, programSha256 } from "../backend/cuda/outputs.js";
import { variantOptions } from "../backend/cuda/measure.js";
import type { CudaProgram } from "../backend/cuda/program.js";
import { diag, hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { SourceFile } from "../source/source-file.js";
import type { Target } from "../target/target.js";
import { buildSchedule, parseBuildOptions } from "./build.js";

/**
 * Compiles one measured configuration for `target` as `dmac compile` does (prepare.sh ran it):
 * its command program and the SHA-256 of its program.txt, which the run must name.
 */
export function compileRun(
  file: SourceFile,
  words: readonly string[],
  total: number,
  target: Target,
): { program: CudaProgram | undefined; sha256?: string; diagnostics: Diagnostic[] } {
  const options = variantOptions(words);
  if ("problem" in options) {
    const d = diag("DMAC5060", undefined, [`'${words.join(" ")}': ${options.problem}`]);
    return { program: undefined, diagnostics: [d] };
  }
  const { name, divisor } = options.sizeDefine;
  const defines = { [name]: `${Math.floor(total / divisor)}B`, ...options.defines };
  const parsed = parseBuildOptions(options.raw, target);
  if (!parsed.options) return { program: undefined, diagnostics: parsed.diagnostics };
  const built = buildSchedule(
    { file, defines, schedule: undefined, baseDir: dirname(file.name), target },
    parsed.options,
    { emit: ["sdma"] },
  );
  const text = built.files?.find((f) => f.name === CUDA_TEXT_FILE)?.data;
  // The example's own warnings are not the measurement's: only what stops the compile.
  if (!built.cudaProgram || typeof text !== "string" || hasErrors(built.diagnostics))
    return {
      program: undefined,
      diagnostics: built.diagnostics.filter((d) => d.severity === "error"),
    };
  return { program: built.cudaProgram, sha256: programSha256(text), diagnostics: [] };
}
