// `dmac measure RESULTS [--target T] [--fit [--fit-on alternate|all]] [-o FITTED.json]`: measured
// against predicted for the CUDA runner's results (bench/hardware/*.json). Every run is recompiled
// from its example (EXAMPLES/EXAMPLE.dmac) and variant (runtime/cuda/variants.tsv) at its size
// and predicted with the target. --fit fits the target's fittable constants on every other size (1 KiB, 16 KiB, ...)
// and reports the error on the sizes held out; `dmac calibrate RESULTS.json` does the same.
// `--fit-on all` fits on every run instead: a calibration set measured on one machine, whose
// fitted target then predicts other runs on that machine (bench/hardware/2026-11-28-machine-fit).
// `--format json`: the runs, the summaries and the fit as one document (schemas/measure.schema.json).

import { join } from "node:path";
import type { Command } from "commander";
import { Option } from "../../options/commander.js";
import { formatTime } from "../../util/format-time.js";
import {
  fastestAgreement,
  fitSizes,
  FIT_ON,
  type FitOn,
  median,
  parseVariants,
  predictAll,
  relErr,
  resultsProblem,
  type Compared,
  type ResultsDoc,
} from "../../backend/cuda/measure.js";
import { compileRun } from "../../driver/measured-run.js";
import { cudaFitBounds, fitCuda, fittedTargetJson, withValues } from "../../backend/cuda/fit.js";
import { predictCudaUs } from "../../driver/cuda-cost-model.js";
import { smCheckCell, smCheckJson, smSummary, smSummaryText } from "../../backend/cuda/sm-check.js";
import { writeOutputOrReport } from "../write-output.js";
import { diag, hasErrors, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { cudaOf } from "../../target/cuda-target.js";
import { builtinTarget, type Target } from "../../target/target.js";
import { readInputText } from "../../util/read-input.js";
import { makeSourceFile } from "../../source/source-file.js";
import type { CliContext } from "../main.js";
import { jsonNumber, reportJson } from "../json-output.js";
import { readSourceFile, readTargetOption } from "../../options/options.js";
import {
  addDiagnosticOptions,
  addOutOption,
  reportDiagnostics,
  type DiagnosticOutput,
} from "../options.js";

export interface MeasureOptions extends DiagnosticOutput {
  readonly target?: string | undefined;
  readonly examples?: string | undefined;
  readonly variants?: string | undefined;
  readonly fit?: boolean | undefined;
  readonly fitOn?: FitOn | undefined;
  readonly output?: string | undefined;
}

const LIMIT = { maxBytes: 64 << 20, what: "a results file" };

function table(rows: readonly Compared[], fitted: Set<number> | undefined): string {
  const lines = [
    `${"example".padEnd(24)}${"variant".padEnd(11)}${"bytes".padStart(12)}${"measured".padStart(13)}${"predicted".padStart(13)}${"error".padStart(8)}`,
  ];
  for (const r of rows) {
    const tag = fitted === undefined ? "" : fitted.has(r.run.totalBytes) ? "  fit" : "  held out";
    const sm = r.run.smCheck ? `  ${smCheckCell(r.run.smCheck, formatTime)}` : "";
    lines.push(
      `${r.run.example.padEnd(24)}${r.run.variant.padEnd(11)}${String(r.run.totalBytes).padStart(12)}${formatTime(r.run.medianUs).padStart(13)}${formatTime(r.predictedUs).padStart(13)}${`${(relErr(r) * 100).toFixed(1)}%`.padStart(8)}${tag}${sm}`,
    );
  }
  return lines.join("\n") + "\n";
}

/** The error and the fastest-variant agreement of some runs (one summary line). */
interface Summary {
  readonly runs: number;
  readonly medianError: number;
  readonly maxError: number;
  readonly fastest: ReturnType<typeof fastestAgreement>;
}

function summarise(rows: readonly Compared[]): Summary {
  return {
    runs: rows.length,
    medianError: median(rows.map(relErr)),
    maxError: rows.length ? Math.max(...rows.map(relErr)) : NaN,
    fastest: fastestAgreement(rows),
  };
}

function summaryText(label: string, s: Summary): string {
  if (s.runs === 0) return `${label}: none\n`;
  const f = s.fastest;
  const misses = f.misses.map(
    (m) => `${m.example} ${m.totalBytes}: measured ${m.measured}, predicted ${m.predicted}`,
  );
  return `${label}: median error ${(s.medianError * 100).toFixed(1)}% over ${s.runs} runs (max ${(s.maxError * 100).toFixed(1)}%); fastest variant predicted fastest at ${f.agree} of ${f.total} (example, size) pairs (${f.strict} exactly, the others within 5 % of the fastest measured)${misses.length ? ` (misses: ${misses.join("; ")})` : ""}\n`;
}

const summaryJson = (s: Summary) => ({
  ...s,
  medianError: jsonNumber(s.medianError),
  maxError: jsonNumber(s.maxError),
});

/** The runs read and recompiled, or the exit code of the diagnostics that stopped it. */
type Loaded =
  | {
      readonly doc: ResultsDoc;
      readonly rows: Compared[];
      readonly target: Target;
      /** Warnings: runs that name no program (DMAC5051). */
      readonly diagnostics: Diagnostic[];
    }
  | { readonly code: number };

function loadRuns(path: string, opts: MeasureOptions, ctx: CliContext): Loaded {
  const fail = (detail: string): Loaded => ({
    code: reportDiagnostics(ctx, [diag("DMAC5001", undefined, [path, detail])], opts),
  });
  let doc: ResultsDoc;
  let table: string;
  let text: string;
  try {
    const json: unknown = JSON.parse(readInputText(path, LIMIT));
    const problem = resultsProblem(json);
    if (problem) return fail(problem);
    doc = json as ResultsDoc;
    table = opts.variants ?? join("runtime", "cuda", "variants.tsv");
    text = readInputText(table, LIMIT);
  } catch (e) {
    return fail(e instanceof Error ? e.message : String(e));
  }
  const parsed = parseVariants(makeSourceFile(table, text));
  if (parsed.diagnostics.length) return { code: reportDiagnostics(ctx, parsed.diagnostics, opts) };
  const variants = parsed.variants;
  const t = readTargetOption(opts.target);
  if (t.diagnostics.length) return { code: reportDiagnostics(ctx, t.diagnostics, opts) };
  const target: Target = t.target ?? builtinTarget("h100")!;
  if (!cudaOf(target))
    return fail(`target ${target.name} is not a CUDA target ("backend": "cuda")`);
  const rows: Compared[] = [];
  const files = new Map<string, ReturnType<typeof readSourceFile>>();
  const otherPrograms: Diagnostic[] = [];
  let unnamed = 0;
  for (const run of doc.runs) {
    const words = variants.get(`${run.example}/${run.variant}`);
    if (!words) return fail(`no variant '${run.variant}' of '${run.example}' in variants.tsv`);
    const src = join(opts.examples ?? "examples", `${run.example}.dmac`);
    if (!files.has(src)) files.set(src, readSourceFile(src));
    const read = files.get(src)!;
    if (!read.file) return { code: reportDiagnostics(ctx, read.diagnostics, opts) };
    const built = compileRun(read.file, words, run.totalBytes, target);
    if (!built.program) return { code: reportDiagnostics(ctx, built.diagnostics, opts) };
    // A time is the example's only if the program that ran is the one it compiles to.
    if (run.programSha256 === undefined) unnamed++;
    else if (run.programSha256 !== built.sha256)
      otherPrograms.push(
        diag("DMAC5050", undefined, [
          `${run.example}/${run.variant}/${run.totalBytes}`,
          run.programSha256,
          built.sha256!,
        ]),
      );
    rows.push({ run, program: built.program, predictedUs: NaN });
  }
  if (otherPrograms.length > 0) return { code: reportDiagnostics(ctx, otherPrograms, opts) };
  const diagnostics = unnamed > 0 ? [diag("DMAC5051", undefined, [unnamed])] : [];
  return { doc, rows, target, diagnostics };
}

/** --fit: only runs that verified and did not hang; the others named in a warning (DMAC5052). */
function fitRuns(rows: readonly Compared[]): { rows: Compared[]; diagnostics: Diagnostic[] } {
  const failed = (row: Compared): boolean => !row.run.verified || row.run.hung === true;
  const out = rows.filter((row) => !failed(row));
  const left = rows
    .filter(failed)
    .map((row) => `${row.run.example}/${row.run.variant}/${row.run.totalBytes}`);
  const diagnostics =
    left.length > 0 ? [diag("DMAC5052", undefined, [left.length, left.join(", ")])] : [];
  return { rows: out, diagnostics };
}

/** What both reports need: the runs, their predictions with the target's constants, the document. */
interface Report {
  readonly ctx: CliContext;
  readonly opts: MeasureOptions;
  readonly rows: readonly Compared[];
  /** Each run's prediction before any fit (rows' predictedUs changes with the fitted values). */
  readonly predicted: readonly number[];
  /** The text report's stdout; nothing with --format json. */
  readonly out: (text: string) => void;
  /** The full-SM check's summary line, when some runs have one (printed after the table). */
  readonly smLine: string;
  /** The document's fields about the results file and the target. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** Reported with the result: unnamed programs (DMAC5051), runs left out of the fit (DMAC5052). */
  readonly warnings: readonly Diagnostic[];
}

/** -o and --fit-on say what to do with a fit: where nothing is fitted they would be ignored. */
function fitOptionsProblem(opts: MeasureOptions): Diagnostic | undefined {
  if (opts.fit) return undefined;
  if (opts.output !== undefined)
    return diag("DMAC5004", undefined, [
      "-o",
      "it writes the fitted target, and nothing is fitted",
    ]);
  if (opts.fitOn !== undefined)
    return diag("DMAC5004", undefined, [
      "--fit-on",
      "it says which runs the fit uses, and nothing is fitted",
    ]);
  return undefined;
}

export function runMeasure(path: string, opts: MeasureOptions, ctx: CliContext): number {
  const problem = fitOptionsProblem(opts);
  if (problem) return reportDiagnostics(ctx, [problem], opts);
  const loaded = loadRuns(path, opts, ctx);
  if ("code" in loaded) return loaded.code;
  const { doc, target } = loaded;
  const fitting = opts.fit ? fitRuns(loaded.rows) : { rows: loaded.rows, diagnostics: [] };
  const rows = fitting.rows;
  const warnings = [...loaded.diagnostics, ...fitting.diagnostics];
  if (opts.fit && rows.length === 0)
    return reportDiagnostics(
      ctx,
      [
        ...warnings,
        diag("DMAC5001", undefined, [path, "no run verified: there is nothing to fit"]),
      ],
      opts,
    );
  predictAll(rows, cudaOf(target)!, predictCudaUs);
  const sm = smSummary(rows.map((row) => row.run));
  const out = opts.format === "json" ? () => undefined : ctx.streams.out;
  const r: Report = {
    ctx,
    opts,
    rows,
    predicted: rows.map((row) => row.predictedUs),
    out,
    smLine: sm ? smSummaryText(sm) : "",
    warnings,
    fields: {
      device: doc.device,
      driver: doc.driver,
      cuda: doc.cuda,
      date: doc.date,
      target: target.name,
      ...(sm
        ? {
            smCheck: {
              ...sm,
              ratio: {
                median: jsonNumber(sm.ratio.median),
                min: jsonNumber(sm.ratio.min),
                max: jsonNumber(sm.ratio.max),
              },
            },
          }
        : {}),
    },
  };
  out(`${doc.device}, driver ${doc.driver}, ${doc.cuda}, ${doc.date}; target ${target.name}\n`);
  const unverified = rows.filter((row) => !row.run.verified).length;
  if (unverified)
    out(`warning: ${unverified} runs did not verify; they are compared all the same\n`);
  return opts.fit ? reportFit(r, target, path) : reportAll(r);
}

/** Each run in the document; with a fit, its fitted prediction and whether it was held out. */
function runsJson(r: Report, fitted: Set<number> | undefined): unknown[] {
  return r.rows.map((row, i) => ({
    example: row.run.example,
    variant: row.run.variant,
    totalBytes: row.run.totalBytes,
    verified: row.run.verified,
    measuredUs: row.run.medianUs,
    predictedUs: jsonNumber(r.predicted[i]!),
    ...(fitted
      ? { fittedUs: jsonNumber(row.predictedUs), heldOut: !fitted.has(row.run.totalBytes) }
      : {}),
    ...(row.run.smCheck ? { smCheck: smCheckJson(row.run.smCheck) } : {}),
  }));
}

/** Without --fit: every run against its prediction. */
function reportAll(r: Report): number {
  const all = summarise(r.rows);
  r.out(table(r.rows, undefined));
  r.out(summaryText("all sizes", all));
  r.out(r.smLine);
  if (r.opts.format !== "json") return reportDiagnostics(r.ctx, r.warnings, r.opts);
  const fields = { ...r.fields, runs: runsJson(r, undefined), before: { all: summaryJson(all) } };
  return reportJson(r.ctx, fields, [...r.warnings]);
}

/** A fitted constant's `source` in the written target: the runs it was fitted on. */
function fittedSource(path: string, fitOn: FitOn | undefined): string {
  const which = fitOn === "all" ? "every run" : "every other size";
  return `fitted on ${path}, on ${which} (docs/calibrate.md, CUDA targets)`;
}

/** --fit: fit on every other size (or all: fitSizes), report both sets before and after, write
 *  the target with -o. */
function reportFit(r: Report, target: Target, path: string): number {
  const { rows, out, opts } = r;
  const fitted = fitSizes(rows, opts.fitOn);
  const train = rows.filter((row) => fitted.has(row.run.totalBytes));
  const held = rows.filter((row) => !fitted.has(row.run.totalBytes));
  const heldBefore = summarise(held);
  out(summaryText("before the fit, held-out sizes", heldBefore));
  const cuda = cudaOf(target)!;
  const bounds = cudaFitBounds(target);
  const fit = fitCuda(train, cuda, bounds, predictCudaUs);
  const names = bounds.map((b) => b.name);
  predictAll(rows, withValues(cuda, names, fit.values), predictCudaUs);
  const trainAfter = summarise(train);
  const heldAfter = summarise(held);
  out(table(rows, fitted));
  out(summaryText("after the fit, fitted sizes", trainAfter));
  out(summaryText("after the fit, held-out sizes", heldAfter));
  out(r.smLine);
  out(
    `fitted (${fit.evals} evaluations): ${names.map((n, i) => `${n} ${fit.values[i]!.toPrecision(4)}`).join(", ")}\n`,
  );
  const unconstrained = names.filter((_, i) => fit.flat[i]);
  if (unconstrained.length)
    out(`not constrained by these runs (kept as given): ${unconstrained.join(", ")}\n`);
  const diagnostics: Diagnostic[] = [...r.warnings];
  if (opts.output !== undefined) {
    const text = fittedTargetJson(target, names, fit, fittedSource(path, opts.fitOn));
    const problem = writeOutputOrReport(opts.output, text);
    if (problem) diagnostics.push(problem);
  }
  if (opts.format !== "json") return reportDiagnostics(r.ctx, diagnostics, opts);
  const wrote = opts.output !== undefined && !hasErrors(diagnostics);
  const fields = {
    ...r.fields,
    runs: runsJson(r, fitted),
    before: { heldOut: summaryJson(heldBefore) },
    after: { fitted: summaryJson(trainAfter), heldOut: summaryJson(heldAfter) },
    // As the fitted target has them (4 significant digits).
    fitted: Object.fromEntries(names.map((n, i) => [n, Number(fit.values[i]!.toPrecision(4))])),
    search: { evals: fit.evals },
    fitOn: opts.fitOn ?? "alternate",
    unconstrained,
    ...(wrote ? { out: opts.output } : {}),
  };
  return reportJson(r.ctx, fields, diagnostics);
}

export function registerMeasure(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("measure")
    .description(
      "compare the CUDA runner's measured times (bench/hardware/*.json) with the predictions, and optionally fit the target",
    )
    .argument("<results>", "a results file of runtime/cuda/run-on-device.sh")
    .option("--target <file>", "the CUDA target to predict with (default: h100)")
    .option("--examples <dir>", "where the runs' .dmac examples are (default: examples)")
    .option("--variants <file>", "the variants table (default: runtime/cuda/variants.tsv)")
    .option(
      "--fit",
      "fit the target's fittable constants on every other size and report the rest (--fit-on all: on every run)",
    )
    .addOption(
      new Option(
        "--fit-on <sizes>",
        "with --fit: fit on every other size and hold out the rest (alternate, the default), or on every run (all)",
      ).choices(FIT_ON),
    );
  addOutOption(cmd, {
    value: "file",
    help: "with --fit: write the fitted target here",
    attr: "output",
    aliases: ["--output"],
  });
  addDiagnosticOptions(cmd).action((file: string, opts: MeasureOptions) => {
    ctx.exit(runMeasure(file, opts, ctx));
  });
}
