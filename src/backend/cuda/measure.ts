// Measured against predicted for CUDA runner results (bench/hardware/*.json, written by
// runtime/cuda/run-on-device.sh; schemas/cuda-results.schema.json): each run names its example,
// variant and size; the variant's dmac options come from runtime/cuda/variants.tsv, so a run is
// recompiled exactly as prepare.sh compiled it (through `dmac compile`'s path: driver/measured-run.ts) and
// predicted with the given target. The run names the program.txt it ran by its SHA-256; the
// recompiled program.txt must have the same (the command refuses a run of another program). fit.ts fits
// the target's `fit` constants on half of the sizes (fitSizes) and reports the error on the others.

import { diag, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { SourceFile, Span } from "../../source/source-file.js";
import type { CudaTarget } from "../../target/cuda-target.js";
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

/** The variants of a table, and a DMAC5060 at each row it cannot use. */
export interface VariantsTable {
  /** (example/variant) -> the dmac options as words. */
  readonly variants: Map<string, string[]>;
  readonly diagnostics: Diagnostic[];
}

/**
 * variants.tsv: (example, variant) -> the dmac options as words, each row's words checked here
 * (variantOptions), so that a bad one is reported at its place, not met when a run is compiled.
 * A fourth column (how a size becomes a define, `NAME/N`: variants-peer.tsv) becomes the words
 * `--size-define NAME/N`.
 */
export function parseVariants(file: SourceFile): VariantsTable {
  const variants = new Map<string, string[]>();
  const diagnostics: Diagnostic[] = [];
  const problem = (span: Span, detail: string): void => {
    diagnostics.push(diag("DMAC5060", { file, span }, [detail]));
  };
  let at = 0;
  for (const line of file.text.split("\n")) {
    const lineSpan = { start: at, end: at + line.length };
    const cells = tabCells(line, at);
    at = lineSpan.end + 1;
    if (line.startsWith("#") || line.trim() === "") continue;
    const [example, variant, opts, size] = cells;
    if (!example?.text || !variant?.text || opts === undefined) {
      problem(lineSpan, "a row is: example, variant, dmac options (separated by tabs)");
      continue;
    }
    // A first column naming a schedule file (prepare.sh: `dir/NAME.dmac`) keys its runs by NAME.
    const name = example.text.endsWith(".dmac")
      ? example.text.slice(example.text.lastIndexOf("/") + 1, -".dmac".length)
      : example.text;
    const key = `${name}/${variant.text}`;
    const words = [
      ...opts.words,
      ...(size?.text ? [{ ...size, text: "--size-define" }, size] : []),
    ];
    const parsed = variantOptions(words.map((w) => w.text));
    const bad = "problem" in parsed ? (words[parsed.at] ?? opts) : undefined;
    if (bad !== undefined) problem(spanOf(bad), (parsed as { problem: string }).problem);
    else if (variants.has(key)) problem(spanOf(variant), `${key} is given twice`);
    else
      variants.set(
        key,
        words.map((w) => w.text),
      );
  }
  return { variants, diagnostics };
}

interface Word {
  readonly text: string;
  readonly start: number;
}

const spanOf = (w: Word): Span => ({ start: w.start, end: w.start + Math.max(w.text.length, 1) });

/** A line's tab-separated cells (trimmed, with where each starts) and each cell's words. */
function tabCells(line: string, at: number): (Word & { readonly words: Word[] })[] {
  let start = at;
  return line.split("\t").map((cell) => {
    const words = [...cell.matchAll(/\S+/g)].map((m) => ({ text: m[0], start: start + m.index }));
    const text = cell.trim();
    const out = { text, start: words[0]?.start ?? start, words };
    start += cell.length + 1;
    return out;
  });
}

/** What a variant's words set (the define of the size is added per run: compileRun). */
interface VariantOptions {
  readonly defines: Record<string, string>;
  readonly raw: { opt?: string; prelaunch?: boolean; completion?: string };
  /** `NAME/N`: NAME = SIZE / N; `total` when not given. */
  readonly sizeDefine: { readonly name: string; readonly divisor: number };
}

const NAME = "[A-Za-z_][A-Za-z0-9_]*";

/**
 * A variant's words (-D NAME=VALUE, -O0..2, --prelaunch, --completion C, --size-define NAME/N),
 * or the index of the first word it cannot use and why. The one reader of the words: the table
 * checks every row with it, and compileRun reads a row's options with it.
 */
export function variantOptions(
  words: readonly string[],
):
  | (VariantOptions & { readonly words: string[] })
  | { readonly at: number; readonly problem: string } {
  const defines: Record<string, string> = Object.create(null) as Record<string, string>;
  const raw: { opt?: string; prelaunch?: boolean; completion?: string } = {};
  let sizeDefine = { name: "total", divisor: 1 };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const value = words[i + 1];
    if (w === "-D" || w === "--completion" || w === "--size-define") {
      if (value === undefined) return { at: i, problem: `${w} needs a value after it` };
      i++;
    }
    if (w === "-D") {
      const m = new RegExp(`^(${NAME})=(.+)$`).exec(value!);
      if (!m) return { at: i, problem: `-D takes NAME=VALUE, not '${value}'` };
      defines[m[1]!] = m[2]!;
    } else if (w === "--size-define") {
      const m = new RegExp(`^(${NAME})(?:/([1-9][0-9]*))?$`).exec(value!);
      if (!m) return { at: i, problem: `a size define is NAME or NAME/N, not '${value}'` };
      sizeDefine = { name: m[1]!, divisor: Number(m[2] ?? 1) };
    } else if (w === "--completion") raw.completion = value!;
    else if (/^-O[012]$/.test(w)) raw.opt = w.slice(2);
    else if (w === "--prelaunch") raw.prelaunch = true;
    else
      return {
        at: i,
        problem: `unknown option '${w}' (a variant takes -D, -O, --prelaunch, --completion)`,
      };
  }
  return { defines, raw, sizeDefine, words: [...words] };
}

export interface Compared {
  readonly run: MeasuredRun;
  readonly program: CudaProgram;
  predictedUs: number;
}

/**
 * The run time the executor predicts for a command program (us; undefined: it never finishes).
 * Passed in by the caller: the executor (src/sim/cuda-time.ts) is a layer above this one.
 */
export type CudaPredictor = (p: CudaProgram, t: CudaTarget) => number | undefined;

export function predictAll(rows: readonly Compared[], t: CudaTarget, predict: CudaPredictor): void {
  for (const r of rows) r.predictedUs = predict(r.program, t) ?? NaN;
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

/**
 * Which sizes a fit uses: every other size (the rest held out, to judge the fit), or all of them
 * (a calibration set measured apart from the runs the fitted target will predict).
 */
export const FIT_ON = ["alternate", "all"] as const;
export type FitOn = (typeof FIT_ON)[number];

/** Sizes used for fitting: every other distinct size, from the smallest; with `all`, every one. */
export function fitSizes(rows: readonly Compared[], on: FitOn = "alternate"): Set<number> {
  const sizes = [...new Set(rows.map((r) => r.run.totalBytes))].sort((a, b) => a - b);
  return new Set(on === "all" ? sizes : sizes.filter((_, i) => i % 2 === 0));
}
