// Measured against predicted for CUDA runner results (bench/hardware/*.json, written by
// runtime/cuda/run-on-device.sh; schemas/cuda-results.schema.json): each run names its example,
// variant and size; the variant's dmac options come from runtime/cuda/variants.tsv, so a run is
// recompiled exactly as prepare.sh compiled it (through `dmac compile`'s path, api/build.ts) and
// predicted with the given target. The run names the program.txt it ran by its SHA-256; the
// recompiled program.txt must have the same (the command refuses a run of another program). fit.ts fits
// the target's `fit` constants on half of the sizes (fitSizes) and reports the error on the others.

import { dirname } from "node:path";
import { buildSchedule, parseBuildOptions } from "../../api/build.js";
import { hasErrors, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../source/source-file.js";
import type { CudaTarget } from "../../target/cuda-target.js";
import type { Target } from "../../target/target.js";
import { CUDA_TEXT_FILE, programSha256 } from "./outputs.js";
import { predictCuda } from "./predict.js";
import type { CudaProgram } from "./program.js";
import { smCheckProblem, type SmCheck } from "./sm-check.js";

export interface MeasuredRun {
  readonly example: string;
  readonly variant: string;
  readonly totalBytes: number;
  readonly medianUs: number;
  readonly verified: boolean;
  readonly hung?: boolean | undefined;
  /** SHA-256 of the program.txt the runner ran (absent in results of older runners). */
  readonly programSha256?: string | undefined;
  /** With runner --sm-check: the full-SM check (sm-check.ts). */
  readonly smCheck?: SmCheck | undefined;
}

export interface ResultsDoc {
  readonly format: "dmac-cuda-results";
  readonly date: string;
  readonly device: string;
  readonly driver: string;
  readonly cuda: string;
  readonly runs: readonly MeasuredRun[];
}

/** Why `json` is not a results document, or undefined. */
export function resultsProblem(json: unknown): string | undefined {
  const d = json as Partial<ResultsDoc> | null;
  if (typeof d !== "object" || d === null || d.format !== "dmac-cuda-results")
    return 'not a dmac CUDA results document ("format": "dmac-cuda-results")';
  if (!Array.isArray(d.runs)) return "'runs' must be an array";
  const i = d.runs.findIndex(
    (r) =>
      typeof r?.example !== "string" ||
      typeof r.variant !== "string" ||
      !Number.isInteger(r.totalBytes) ||
      typeof r.medianUs !== "number" ||
      typeof r.verified !== "boolean",
  );
  if (i >= 0) return `runs[${i}] lacks example, variant, totalBytes, medianUs or verified`;
  const k = d.runs.findIndex(
    (r) =>
      (r.programSha256 !== undefined && !/^[0-9a-f]{64}$/.test(String(r.programSha256))) ||
      (r.hung !== undefined && typeof r.hung !== "boolean"),
  );
  if (k >= 0) return `runs[${k}].programSha256 must be 64 hex digits, and hung a boolean`;
  for (const [j, r] of d.runs.entries()) {
    const problem = r.smCheck === undefined ? undefined : smCheckProblem(r.smCheck);
    if (problem) return `runs[${j}].smCheck ${problem}`;
  }
  return undefined;
}

/** variants.tsv: (example, variant) -> the dmac options as words. A fourth column (how a size
 *  becomes a define, `NAME/N`: variants-peer.tsv) becomes the words `--size-define NAME/N`. */
export function parseVariants(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    if (line.startsWith("#") || line.trim() === "") continue;
    const [example, variant, opts, sizeDefine] = line.split("\t");
    if (example && variant && opts !== undefined) {
      const words = opts.trim().split(/\s+/);
      if (sizeDefine?.trim()) words.push("--size-define", sizeDefine.trim());
      out.set(`${example}/${variant}`, words);
    }
  }
  return out;
}

/** The define a size sets: `total` = SIZE, or NAME/N: NAME = SIZE / N (prepare.sh's rule). */
function sizeDefine(spec: string, total: number): [string, string] {
  const [name, div] = spec.split("/");
  return [name!, `${Math.floor(total / Number(div ?? 1))}B`];
}

/** The compile options of one variant's words (-D, -O, --prelaunch, --completion). */
function optionsOf(words: readonly string[], total: number) {
  const at = words.indexOf("--size-define");
  const [name, value] = sizeDefine(at >= 0 ? words[at + 1]! : "total", total);
  const defines: Record<string, string> = { [name]: value };
  const raw: { opt?: string; prelaunch?: boolean; completion?: string } = {};
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w === "--size-define") i++;
    else if (w === "-D") {
      const [k, v] = words[++i]!.split("=");
      defines[k!] = v!;
    } else if (w.startsWith("-O")) raw.opt = w.slice(2);
    else if (w === "--prelaunch") raw.prelaunch = true;
    else if (w === "--completion") raw.completion = words[++i]!;
  }
  return { defines, raw };
}

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
  const { defines, raw } = optionsOf(words, total);
  const parsed = parseBuildOptions(raw, target);
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

export interface Compared {
  readonly run: MeasuredRun;
  readonly program: CudaProgram;
  predictedUs: number;
}

export function predictAll(rows: readonly Compared[], t: CudaTarget): void {
  for (const r of rows) {
    const p = predictCuda(r.program, t);
    r.predictedUs = p.ok ? p.timeUs : NaN;
  }
}

export const relErr = (r: Compared): number =>
  Math.abs(r.predictedUs - r.run.medianUs) / r.run.medianUs;

export { median } from "./stats.js";

/** An (example, size) pair whose fastest variant the prediction got wrong. */
export interface FastestMiss {
  readonly example: string;
  readonly totalBytes: number;
  /** The variant measured fastest, and the one predicted fastest. */
  readonly measured: string;
  readonly predicted: string;
}

/** Per (example, size): does the predicted fastest variant equal the measured fastest? */
export function fastestAgreement(rows: readonly Compared[]): {
  agree: number;
  strict: number;
  total: number;
  misses: FastestMiss[];
} {
  const groups = new Map<string, Compared[]>();
  for (const r of rows) {
    const k = `${r.run.example} ${r.run.totalBytes}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  let agree = 0;
  let strict = 0;
  const misses: FastestMiss[] = [];
  for (const g of groups.values()) {
    const measured = g.reduce((a, b) => (b.run.medianUs < a.run.medianUs ? b : a));
    const predicted = g.reduce((a, b) => (b.predictedUs < a.predictedUs ? b : a));
    if (predicted === measured) strict++;
    // Within the measurement's own noise (5 %), either counts as fastest.
    if (predicted === measured || predicted.run.medianUs <= measured.run.medianUs * 1.05) agree++;
    else
      misses.push({
        example: measured.run.example,
        totalBytes: measured.run.totalBytes,
        measured: measured.run.variant,
        predicted: predicted.run.variant,
      });
  }
  return { agree, strict, total: groups.size, misses };
}

/** Sizes used for fitting: every other distinct size, from the smallest. */
export function fitSizes(rows: readonly Compared[]): Set<number> {
  const sizes = [...new Set(rows.map((r) => r.run.totalBytes))].sort((a, b) => a - b);
  return new Set(sizes.filter((_, i) => i % 2 === 0));
}
