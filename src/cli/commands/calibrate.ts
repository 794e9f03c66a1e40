// `dmac calibrate MEASUREMENTS.csv [--target T] [-o FITTED.json] [--no-fit] [--max-evals N]`:
// runs every row of a measurements file (src/calibrate/measurements.ts, docs/calibrate.md) in
// the executor (src/calibrate/runs.ts), compares the predicted time or speedup with the measured
// one, and fits the target's timing constants marked `"fit": {"min", "max"}`
// (src/calibrate/fit-constants.ts). Prints one line per row (measured, predicted before and
// after, relative errors) and a summary, and writes the fitted target with -o. `--format json`:
// the same as one document (schemas/calibrate.schema.json; for a results JSON, measure's
// document).

import type { Command } from "commander";
import { OutputError, writeOutputFile } from "../../backend/output.js";
import {
  errorSummary,
  fitError,
  fittedTarget,
  formatJson,
  measuredQuantity,
  relativeError,
} from "../../calibrate/fit.js";
import {
  chooseConstants,
  DEFAULT_MAX_EVALS,
  fitConstants,
  fitReport,
  type FitResult,
} from "../../calibrate/fit-constants.js";
import { parseMeasurements, type MeasurementRow } from "../../calibrate/measurements.js";
import { collectRuns, compileRuns, predictRows, type Runs } from "../../calibrate/runs.js";
import { diag, hasErrors, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { parsePositiveInt, readSourceFile, readTargetOption } from "../../options/options.js";
import type { SourceFile } from "../../source/source-file.js";
import { BUILTIN_TARGETS, builtinPath, type Target } from "../../target/target.js";
import { pushAll } from "../../util/arrays.js";
import { formatTime } from "../../util/format-time.js";
import { jsonNumber, reportJson } from "../json-output.js";
import type { CliContext } from "../main.js";
import {
  addDiagnosticOptions,
  addOutOption,
  addQuietOption,
  reportDiagnostics,
  type DiagnosticOutput,
} from "../options.js";
import { startProgress } from "../progress.js";
import { runMeasure } from "./measure.js";

export interface CalibrateCommandOptions extends DiagnosticOutput {
  readonly target?: string | undefined;
  readonly output?: string | undefined;
  /** false with --no-fit. */
  readonly fit?: boolean | undefined;
  readonly maxEvals?: string | undefined;
  readonly constants?: string | undefined;
  readonly quiet?: boolean | undefined;
}

const pct = (x: number): string =>
  Number.isFinite(x) ? `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)}%` : "n/a";

function quantity(r: MeasurementRow, x: number): string {
  if (!Number.isFinite(x)) return "n/a";
  return r.measured?.kind === "speedup" ? `${x.toFixed(3)}x` : formatTime(x);
}

/** What the rows predict before the fit, and after it (`fit` absent: nothing was fitted). */
interface Outcome {
  readonly runs: Runs;
  readonly base: Target;
  readonly before: number[];
  readonly errBefore: number;
  readonly fit: FitResult | undefined;
}

/** The options, the measurements file and its runs, read and checked before anything runs. */
function readCalibration(
  measurementsPath: string,
  opts: CalibrateCommandOptions,
): {
  file?: SourceFile | undefined;
  runs?: ReturnType<typeof collectRuns> | undefined;
  given?: Target | undefined;
  maxEvals?: number | undefined;
  diagnostics: Diagnostic[];
} {
  const pre: Diagnostic[] = [];
  if (opts.fit === false && opts.output !== undefined)
    pre.push(
      diag("DMAC5004", undefined, ["-o", "--no-fit fits nothing, so there is nothing to write"]),
    );
  const maxEvals = parsePositiveInt("--max-evals", opts.maxEvals);
  pushAll(pre, maxEvals.diagnostics);
  const given = readTargetOption(opts.target);
  pushAll(pre, given.diagnostics);
  const read = readSourceFile(measurementsPath);
  pushAll(pre, read.diagnostics);
  if (hasErrors(pre) || !read.file) return { diagnostics: pre };
  const parsed = parseMeasurements(read.file);
  const diagnostics: Diagnostic[] = [...parsed.diagnostics];
  if (!hasErrors(diagnostics) && parsed.rows.length === 0)
    diagnostics.push(
      diag("DMAC5007", { file: read.file, span: { start: 0, end: 1 } }, [
        "no rows: nothing to calibrate against",
      ]),
    );
  const runs = collectRuns(read.file, parsed.rows, given.target);
  pushAll(diagnostics, runs.diagnostics);
  return { file: read.file, runs, given: given.target, maxEvals: maxEvals.value, diagnostics };
}

/** The constants to fit (`--constants`), checked against what -o needs. */
function constantsToFit(base: Target, opts: CalibrateCommandOptions) {
  const chosen = chooseConstants(base, opts.constants);
  if (
    opts.fit !== false &&
    opts.output !== undefined &&
    chosen.bounds.length === 0 &&
    !hasErrors(chosen.diagnostics)
  )
    chosen.diagnostics.push(
      diag("DMAC5004", undefined, [
        "-o",
        `nothing to fit: no timing constant of ${base.name} is marked "fit": {"min": ..., "max": ...}`,
      ]),
    );
  return chosen;
}

export function runCalibrate(
  measurementsPath: string,
  opts: CalibrateCommandOptions,
  ctx: CliContext,
): number {
  // The CUDA runner's results (bench/hardware/*.json): fitted on every other size (measure.ts).
  if (measurementsPath.endsWith(".json"))
    return runMeasure(measurementsPath, { ...opts, fit: opts.fit !== false }, ctx);
  const input = readCalibration(measurementsPath, opts);
  const { file, runs, diagnostics } = input;
  if (hasErrors(diagnostics) || !file || !runs) return reportDiagnostics(ctx, diagnostics, opts);

  const bar = startProgress(ctx.streams, { quiet: opts.quiet, label: "calibrate" });
  const compiled = compileRuns(file, runs, input.given, (done, total, what) =>
    bar.update(what, done, total),
  );
  bar.end();
  pushAll(diagnostics, compiled.diagnostics);
  const base = compiled.target;
  if (hasErrors(diagnostics) || !base) return reportDiagnostics(ctx, diagnostics, opts);
  const { bounds, diagnostics: chosen } = constantsToFit(base, opts);
  pushAll(diagnostics, chosen);
  if (hasErrors(diagnostics)) return reportDiagnostics(ctx, diagnostics, opts);

  const predict = (values: Readonly<Record<string, number>>) => predictRows(runs, base, values);
  const before = predict({});
  const errBefore = fitError(runs.rows, before);
  let fit: FitResult | undefined;
  const limit = input.maxEvals ?? DEFAULT_MAX_EVALS;
  if (opts.fit !== false && bounds.length > 0) {
    const start = `(start ${errBefore.toPrecision(4)})`;
    fit = fitConstants(
      runs.rows,
      bounds,
      predict,
      { before, errBefore },
      {
        maxEvals: limit,
        onEval: (n, best) => bar.update(`fit: error ${best.toPrecision(4)} ${start}`, n, limit),
      },
    );
    bar.end();
  }
  const outcome: Outcome = { runs, base, before, errBefore, fit };
  return report(
    ctx,
    measurementsPath,
    opts,
    outcome,
    fit && fitReport(base, bounds, fit, errBefore, limit),
    diagnostics,
  );
}

/** Prints the table and the fit (text) or one document (json), and writes the fitted target. */
function report(
  ctx: CliContext,
  measurementsPath: string,
  opts: CalibrateCommandOptions,
  outcome: Outcome,
  fitText: string | undefined,
  diagnostics: Diagnostic[],
): number {
  const json = opts.format === "json";
  if (!json) ctx.streams.out(rowTable(outcome).join("\n") + "\n");
  if (fitText !== undefined) {
    if (!json) ctx.streams.out(fitText);
  } else if (opts.fit !== false)
    ctx.streams.err(
      `calibrate: no timing constant of ${outcome.base.name} is marked "fit": {"min": ..., "max": ...}; nothing was fitted\n`,
    );
  const fit = outcome.fit;
  const wrote =
    fit && opts.output !== undefined
      ? writeFitted(opts.output, measurementsPath, opts, outcome, fit)
      : undefined;
  if (wrote && "diagnostic" in wrote) diagnostics.push(wrote.diagnostic);
  else if (wrote && !json) ctx.streams.out(`wrote ${wrote.path}\n`);
  if (!json) return reportDiagnostics(ctx, diagnostics, opts);
  const out = wrote && "path" in wrote ? wrote.path : undefined;
  return reportJson(ctx, calibrateJson(outcome, out), diagnostics);
}

/** The per-row table and the summary of the errors before and after the fit. */
function rowTable(o: Outcome): string[] {
  const { rows } = o.runs;
  const after = o.fit?.after;
  const out: string[] = [];
  const idW = Math.max(2, ...rows.map((r) => r.id.length));
  const col = 12;
  out.push(
    `${"id".padEnd(idW)}  ${"measured".padStart(col)}  ${"predicted".padStart(col)}  ${"error".padStart(8)}` +
      (after ? `  ${"fitted".padStart(col)}  ${"error".padStart(8)}` : ""),
  );
  rows.forEach((r, i) => {
    const m = measuredQuantity(r);
    const unit = (x: number): string =>
      r.measured ? quantity(r, x) : Number.isFinite(x) ? formatTime(x) : "n/a";
    const err = (p: number): string => (m === undefined ? "" : pct(relativeError(p, m)));
    out.push(
      `${r.id.padEnd(idW)}  ${(m === undefined ? "(baseline)" : quantity(r, m)).padStart(col)}  ${unit(o.before[i]!).padStart(col)}  ${err(o.before[i]!).padStart(8)}` +
        (after ? `  ${unit(after[i]!).padStart(col)}  ${err(after[i]!).padStart(8)}` : ""),
    );
  });
  const sb = errorSummary(rows, o.before);
  const speedups = rows.filter((r) => r.measured?.kind === "speedup").length;
  const times = rows.filter((r) => r.measured?.kind === "time").length;
  out.push(
    "",
    `${sb.count} measured rows (${times} times, ${speedups} speedups), ${rows.length - sb.count} baseline-only rows, ${o.runs.runs.size} distinct runs; target ${o.base.name}`,
    `relative error |predicted - measured| / measured:`,
    `  before: median ${(100 * sb.median).toFixed(1)}%, max ${(100 * sb.max).toFixed(1)}% (mean squared log ratio ${o.errBefore.toPrecision(4)})`,
  );
  if (o.fit) {
    const sa = errorSummary(rows, o.fit.after);
    out.push(
      `  after:  median ${(100 * sa.median).toFixed(1)}%, max ${(100 * sa.max).toFixed(1)}% (mean squared log ratio ${o.fit.errAfter.toPrecision(4)})`,
    );
  }
  return out;
}

/** Writes the fitted target to -o (atomically, never over an input); DMAC5002 when it cannot. */
function writeFitted(
  output: string,
  measurementsPath: string,
  opts: CalibrateCommandOptions,
  o: Outcome,
  fit: FitResult,
): { path: string } | { diagnostic: Diagnostic } {
  const command = [
    "dmac calibrate",
    measurementsPath,
    ...(opts.target !== undefined ? ["--target", opts.target] : []),
    ...(opts.constants !== undefined ? ["--constants", opts.constants] : []),
  ].join(" ");
  const count = errorSummary(o.runs.rows, o.before).count;
  const note = `${command} (${count} rows; mean squared log ratio ${o.errBefore.toPrecision(3)} -> ${fit.errAfter.toPrecision(3)})`;
  // (A built-in target is read without the safe reader, which notes every other input.)
  const builtin =
    opts.target === undefined && (BUILTIN_TARGETS as readonly string[]).includes(o.base.name);
  const inputs = builtin ? [builtinPath(o.base.name)] : [];
  try {
    writeOutputFile(output, formatJson(fittedTarget(o.base, fit.fitted, note)), { inputs });
    return { path: output };
  } catch (e) {
    if (!(e instanceof OutputError)) throw e;
    return { diagnostic: diag("DMAC5002", undefined, [e.path, e.reason]) };
  }
}

/** The `--format json` document (schemas/calibrate.schema.json). */
function calibrateJson(o: Outcome, wrote: string | undefined): Record<string, unknown> {
  const { rows } = o.runs;
  const fit = o.fit;
  const row = (r: MeasurementRow, i: number) => ({
    id: r.id,
    measured: measuredQuantity(r) ?? null,
    kind: r.measured?.kind ?? "baseline",
    predicted: jsonNumber(o.before[i]!),
    ...(fit ? { fitted: jsonNumber(fit.after[i]!) } : {}),
  });
  const errors = (predicted: readonly number[], msle: number) => {
    const e = errorSummary(rows, predicted);
    return {
      median: jsonNumber(e.median),
      max: jsonNumber(e.max),
      meanSquaredLogRatio: jsonNumber(msle),
    };
  };
  return {
    target: o.base.name,
    runs: o.runs.runs.size,
    rows: rows.map(row),
    before: errors(o.before, o.errBefore),
    ...(fit
      ? {
          after: errors(fit.after, fit.errAfter),
          fitted: fit.fitted,
          search: { evals: fit.evals, converged: fit.converged },
        }
      : {}),
    ...(wrote !== undefined ? { out: wrote } : {}),
  };
}

export function registerCalibrate(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("calibrate")
    .description(
      "run every row of a measurements file in the executor, compare, and fit the target's timing constants marked fittable",
    )
    .argument(
      "<measurements>",
      "CSV: id, file, spec, and time_us or speedup + baseline per row (docs/calibrate.md); or the CUDA runner's results JSON (bench/hardware/)",
    )
    .option(
      "--target <file>",
      "the target to compare and fit (default: the target the schedules name)",
    )
    .option("--no-fit", "only compare: print measured and predicted per row, fit nothing")
    .option(
      "--max-evals <n>",
      `most evaluations of the error (each runs every distinct row once; default ${DEFAULT_MAX_EVALS})`,
    )
    .option(
      "--constants <names>",
      "fit only these of the fittable constants (comma-separated; default: every one marked fit)",
    );
  addOutOption(cmd, {
    value: "file",
    help: "write the fitted target (JSON) here, atomically; never over an input",
    attr: "output",
    aliases: ["--output"],
  });
  addQuietOption(cmd);
  addDiagnosticOptions(cmd).action((file: string, opts: CalibrateCommandOptions) => {
    ctx.exit(runCalibrate(file, opts, ctx));
  });
}
