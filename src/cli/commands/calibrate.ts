// `dmac calibrate MEASUREMENTS.csv [--target T] [-o FITTED.json] [--no-fit] [--max-evals N]`:
// runs every row of a measurements file (src/calibrate/measurements.ts, docs/calibrate.md) in
// the executor, compares the predicted time or speedup with the measured one, and fits the
// target's timing constants marked `"fit": {"min", "max"}` by minimising the weighted mean
// squared log ratio of predicted to measured (src/calibrate/fit.ts) with a bounded pattern search
// over their logarithms (src/util/pattern-search.ts). Prints one line per row (measured, predicted
// before and after, relative errors) and a summary, and writes the fitted target with -o.
// `--format json`: the same as one document (schemas/calibrate.schema.json; for a results JSON,
// measure's document).
//
// Each distinct run (file, level, options, parameters) is compiled and verified once; the fit
// re-executes the compiled programs with the candidate constants (the program does not depend
// on them), except -O2 rows, whose plan is chosen with the cost model and so is recompiled with
// each candidate target.

import { pushAll } from "../../util/arrays.js";
import { dirname, isAbsolute, join } from "node:path";
import type { Command } from "commander";
import { OutputError, writeOutputFile } from "../../backend/output.js";
import {
  errorSummary,
  fitError,
  fittedTarget,
  formatJson,
  measuredQuantity,
  predictedQuantities,
  relativeError,
  roundSignificant,
  withTimingValues,
} from "../../calibrate/fit.js";
import { parseMeasurements, type MeasurementRow } from "../../calibrate/measurements.js";
import { minimise } from "../../util/pattern-search.js";
import { didYouMean } from "../../diagnostics/suggest.js";
import { diag, hasErrors, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { execute } from "../../sim/execute.js";
import { readMachineModel } from "../../sim/model.js";
import type { SimProgram } from "../../sim/program.js";
import { simulate } from "../../sim/run.js";
import { formatTime } from "../../util/format-time.js";
import type { SourceFile, Span } from "../../source/source-file.js";
import {
  BUILTIN_TARGETS,
  builtinPath,
  fittableTiming,
  type FitBound,
  type Target,
} from "../../target/target.js";
import type { CliContext } from "../main.js";
import { jsonNumber, reportJson } from "../json-output.js";
import { startProgress } from "../progress.js";
import { parsePositiveInt, readSourceFile, readTargetOption } from "../../options/options.js";
import {
  addDiagnosticOptions,
  addOutOption,
  addQuietOption,
  reportDiagnostics,
  type DiagnosticOutput,
} from "../options.js";
import {
  formatOptions,
  variantCompileOptions,
  type VariantCompile,
} from "../../options/variant-spec.js";
import { compileForSim } from "../../driver/compile-for-sim.js";
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

export const DEFAULT_MAX_EVALS = 400;

/** One distinct compiled run: the rows that share it predict from its time. */
interface Run {
  readonly key: string;
  readonly path: string;
  readonly file: SourceFile;
  readonly compile: VariantCompile;
  /** The row that first needed it (for reports). */
  readonly row: MeasurementRow;
  /** Compiled once (levels 0 and 1); -O2 is recompiled per candidate target. */
  program: SimProgram | undefined;
}

const pct = (x: number): string =>
  Number.isFinite(x) ? `${x >= 0 ? "+" : ""}${(100 * x).toFixed(1)}%` : "n/a";

function quantity(r: MeasurementRow, x: number): string {
  if (!Number.isFinite(x)) return "n/a";
  return r.measured?.kind === "speedup" ? `${x.toFixed(3)}x` : formatTime(x);
}

/** The span of the spec item an option diagnostic is about (`bad --engines: ...`), else the cell. */
function specItemSpan(r: MeasurementRow, d: Diagnostic): Span {
  const cell = r.cells.spec ?? r.cells.id!;
  const option = /^bad --([a-z-]+)/.exec(d.message)?.[1];
  const item = option !== undefined ? r.spec.spans[option] : undefined;
  // Offsets inside the cell are exact unless the cell is quoted with "" escapes (then its length
  // differs from the text's).
  if (!item || cell.end - cell.start !== r.specText.length) return cell;
  return { start: cell.start + item.start, end: cell.start + item.end };
}

/**
 * A compile diagnostic about a parameter the row sets (DMAC2009 no such parameter, DMAC2010 bad
 * value), which has no place in the schedule, points at the parameter in the spec cell instead.
 */
function locateParameter(r: MeasurementRow, d: Diagnostic, file: SourceFile): Diagnostic {
  if (d.file !== undefined || d.span !== undefined) return d;
  const cell = r.cells.spec;
  if (!cell || cell.end - cell.start !== r.specText.length) return d;
  for (const name of Object.keys(r.spec.options.defines ?? {})) {
    if (!d.message.includes(`'${name}'`) && !d.message.includes(`-D ${name}`)) continue;
    const item = r.spec.spans[name]!;
    return { ...d, file, span: { start: cell.start + item.start, end: cell.start + item.end } };
  }
  return d;
}

export function runCalibrate(
  measurementsPath: string,
  opts: CalibrateCommandOptions,
  ctx: CliContext,
): number {
  // The CUDA runner's results (bench/hardware/*.json): fitted on every other size (measure.ts).
  if (measurementsPath.endsWith(".json"))
    return runMeasure(measurementsPath, { ...opts, fit: opts.fit !== false }, ctx);
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
  if (hasErrors(pre) || !read.file) return reportDiagnostics(ctx, pre, opts);
  const parsed = parseMeasurements(read.file);
  const diagnostics: Diagnostic[] = [...parsed.diagnostics];
  const at = (span: Span, message: string, hint?: string): Diagnostic =>
    diag("DMAC5007", { file: read.file!, span }, [message], { hint });
  const rows = parsed.rows;
  if (!hasErrors(diagnostics) && rows.length === 0)
    diagnostics.push(at({ start: 0, end: 1 }, "no rows: nothing to calibrate against"));

  // Schedules (relative to the measurements file) and compile options, all before any run.
  const baseDir = dirname(measurementsPath);
  const sources = new Map<string, SourceFile | undefined>();
  const runs = new Map<string, Run>();
  const runOf = new Map<MeasurementRow, Run>();
  for (const r of rows) {
    const path = isAbsolute(r.file) ? r.file : join(baseDir, r.file);
    if (!sources.has(path)) {
      const s = readSourceFile(path);
      sources.set(path, s.file);
      if (!s.file) {
        const reason = s.diagnostics[0]?.message ?? `cannot read ${path}`;
        diagnostics.push(
          at(r.cells.file!, reason, "the file is relative to the measurements file"),
        );
      }
    }
    const file = sources.get(path);
    const compile = variantCompileOptions(
      { defines: {} },
      { level: r.level, prelaunch: r.spec.prelaunch, options: r.spec.options },
      given.target,
    );
    for (const d of compile.diagnostics)
      diagnostics.push(at(specItemSpan(r, d), `bad spec: ${d.message}`));
    if (!file || hasErrors(compile.diagnostics)) continue;
    const key = [path, r.level, r.spec.prelaunch, formatOptions(r.spec.options)].join("\u0000");
    let run = runs.get(key);
    if (!run) {
      run = { key, path, file, compile, row: r, program: undefined };
      runs.set(key, run);
    }
    runOf.set(r, run);
  }
  if (hasErrors(diagnostics)) return reportDiagnostics(ctx, diagnostics, opts);

  // Compile and verify every run once.
  const bar = startProgress(ctx.streams, { quiet: opts.quiet, label: "calibrate" });
  const progress = (done: number, total: number, what: string): void =>
    bar.update(what, done, total);
  let target: Target | undefined = given.target;
  const compileRun = (run: Run, t: Target | undefined) =>
    compileForSim(run.path, run.file.text, run.compile.defines, {
      schedule: run.compile.schedule,
      target: t,
      completion: run.compile.protocol,
      passes: run.compile.passes,
    });
  let done = 0;
  for (const run of runs.values()) {
    progress(done++, runs.size, `running ${run.row.id}`);
    const c = compileRun(run, given.target);
    const rowAt = run.row.cells.id!;
    if (!c.loaded) {
      pushAll(
        diagnostics,
        c.diagnostics.map((d) => locateParameter(run.row, d, read.file!)),
      );
      diagnostics.push(at(rowAt, `row '${run.row.id}': ${run.path} does not compile`));
      continue;
    }
    if (!target) target = c.loaded.target;
    else if (c.loaded.target.name !== target.name) {
      diagnostics.push(
        at(
          rowAt,
          `row '${run.row.id}': ${run.path} is for target ${c.loaded.target.name}, the others for ${target.name}`,
          "one calibration fits one target: give --target, or split the file",
        ),
      );
      continue;
    }
    const r = simulate(c.loaded.input, { target });
    if (!r.verified || !r.program) {
      const err = r.diagnostics.find((d) => d.severity === "error");
      diagnostics.push(
        at(
          rowAt,
          `row '${run.row.id}': the run does not verify${err ? ` (${err.code} ${err.message})` : ""}`,
        ),
      );
      continue;
    }
    run.program = r.program;
  }
  bar.end();
  if (hasErrors(diagnostics) || !target) return reportDiagnostics(ctx, diagnostics, opts);
  const base: Target = target;

  // The constants to fit.
  let bounds: FitBound[] = fittableTiming(base);
  if (opts.constants !== undefined) {
    const names = opts.constants
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    const known = bounds.map((b) => b.name);
    for (const n of names)
      if (!known.includes(n))
        diagnostics.push(
          diag(
            "DMAC5004",
            undefined,
            ["--constants", `${n} is not a fittable timing constant of ${base.name}`],
            {
              hint:
                didYouMean(n, known) ??
                (known.length > 0
                  ? `the fittable ones are ${known.join(", ")}`
                  : `no timing entry of ${base.name} has "fit": {"min": ..., "max": ...}`),
            },
          ),
        );
    bounds = bounds.filter((b) => names.includes(b.name));
  }
  const fitting = opts.fit !== false;
  if (fitting && opts.output !== undefined && bounds.length === 0 && !hasErrors(diagnostics))
    diagnostics.push(
      diag("DMAC5004", undefined, [
        "-o",
        `nothing to fit: no timing constant of ${base.name} is marked "fit": {"min": ..., "max": ...}`,
      ]),
    );
  if (hasErrors(diagnostics)) return reportDiagnostics(ctx, diagnostics, opts);

  // Predictions for a set of constant values.
  const predict = (values: Readonly<Record<string, number>>): number[] => {
    const t = Object.keys(values).length > 0 ? withTimingValues(base, values) : base;
    const m = readMachineModel(t);
    if (!m.ok) return rows.map(() => NaN);
    const times = new Map<Run, number>();
    for (const run of runs.values()) {
      let program = run.program;
      if (run.compile.passes?.level === 2 && Object.keys(values).length > 0) {
        const c = compileRun(run, t);
        program = undefined;
        if (c.loaded) {
          const r = simulate(c.loaded.input, { target: t });
          program = r.program;
        }
      }
      if (!program) {
        times.set(run, NaN);
        continue;
      }
      const ex = execute(program, { model: m.model });
      times.set(run, ex.completed ? ex.stats.totalUs : NaN);
    }
    return predictedQuantities(rows, (r) => times.get(runOf.get(r)!) ?? NaN);
  };

  const before = predict({});
  const errBefore = fitError(rows, before);
  let after = before;
  let errAfter = errBefore;
  let fitted: Record<string, number> = {};
  let report = "";
  let search: { evals: number; converged: boolean } | undefined;
  if (fitting && bounds.length > 0) {
    const lo = bounds.map((b) => Math.log(b.min));
    const hi = bounds.map((b) => Math.log(b.max));
    const valuesOf = (x: readonly number[]): Record<string, number> =>
      Object.fromEntries(bounds.map((b, j) => [b.name, Math.exp(x[j]!)]));
    const limit = maxEvals.value ?? DEFAULT_MAX_EVALS;
    const result = minimise(
      (x) => fitError(rows, predict(valuesOf(x))),
      bounds.map((b) => Math.log(b.value)),
      lo,
      hi,
      {
        maxEvals: limit,
        onEval: (n, best) =>
          bar.update(
            `fit: error ${best.toPrecision(4)} (start ${errBefore.toPrecision(4)})`,
            n,
            limit,
          ),
      },
    );
    bar.end();
    // Written values have 4 significant digits (within the bounds); report what is written.
    fitted = Object.fromEntries(
      bounds.map((b, j) => {
        const v = roundSignificant(Math.exp(result.x[j]!));
        return [b.name, Math.min(b.max, Math.max(b.min, result.flat[j] ? b.value : v))];
      }),
    );
    after = predict(fitted);
    errAfter = fitError(rows, after);
    if (!(errAfter < errBefore)) {
      // Rounding to 4 digits on a flat optimum can cost more than the search gained: keep the
      // starting values, so a refit of a fitted target is a fixed point.
      fitted = Object.fromEntries(bounds.map((b) => [b.name, b.value]));
      after = before;
      errAfter = errBefore;
    }
    search = { evals: result.evals, converged: result.converged };
    const w = Math.max(...bounds.map((b) => b.name.length));
    const lines = bounds.map((b, j) => {
      const v = fitted[b.name]!;
      const edge = v <= b.min || v >= b.max ? "  (at a bound)" : "";
      const note = result.flat[j] ? "  (no effect on these rows: kept)" : edge;
      return `  ${b.name.padEnd(w)}  ${String(b.value).padStart(9)} -> ${String(v).padEnd(9)} [${b.min}, ${b.max}]${note}`;
    });
    report =
      `fitted ${bounds.length} constant${bounds.length === 1 ? "" : "s"} of ${base.name} ` +
      `(minimising the weighted mean of ln(predicted / measured)^2: ${errBefore.toPrecision(4)} -> ${errAfter.toPrecision(4)}; ` +
      `${result.evals} evaluations, ${result.converged ? "converged" : `stopped at --max-evals ${limit}`}):\n` +
      lines.join("\n") +
      "\n";
  }

  // The per-row table.
  const out: string[] = [];
  const fitted1 = fitting && bounds.length > 0;
  const idW = Math.max(2, ...rows.map((r) => r.id.length));
  const col = 12;
  out.push(
    `${"id".padEnd(idW)}  ${"measured".padStart(col)}  ${"predicted".padStart(col)}  ${"error".padStart(8)}` +
      (fitted1 ? `  ${"fitted".padStart(col)}  ${"error".padStart(8)}` : ""),
  );
  rows.forEach((r, i) => {
    const m = measuredQuantity(r);
    const unit = (x: number): string =>
      r.measured ? quantity(r, x) : Number.isFinite(x) ? formatTime(x) : "n/a";
    const err = (p: number): string => (m === undefined ? "" : pct(relativeError(p, m)));
    out.push(
      `${r.id.padEnd(idW)}  ${(m === undefined ? "(baseline)" : quantity(r, m)).padStart(col)}  ${unit(before[i]!).padStart(col)}  ${err(before[i]!).padStart(8)}` +
        (fitted1 ? `  ${unit(after[i]!).padStart(col)}  ${err(after[i]!).padStart(8)}` : ""),
    );
  });
  const sb = errorSummary(rows, before);
  const sa = errorSummary(rows, after);
  const speedups = rows.filter((r) => r.measured?.kind === "speedup").length;
  const times = rows.filter((r) => r.measured?.kind === "time").length;
  out.push(
    "",
    `${sb.count} measured rows (${times} times, ${speedups} speedups), ${rows.length - sb.count} baseline-only rows, ${runs.size} distinct runs; target ${base.name}`,
    `relative error |predicted - measured| / measured:`,
    `  before: median ${(100 * sb.median).toFixed(1)}%, max ${(100 * sb.max).toFixed(1)}% (mean squared log ratio ${errBefore.toPrecision(4)})`,
  );
  if (fitted1)
    out.push(
      `  after:  median ${(100 * sa.median).toFixed(1)}%, max ${(100 * sa.max).toFixed(1)}% (mean squared log ratio ${errAfter.toPrecision(4)})`,
    );
  const json = opts.format === "json";
  if (!json) ctx.streams.out(out.join("\n") + "\n");
  if (report !== "") {
    if (!json) ctx.streams.out(report);
  } else if (fitting && bounds.length === 0)
    ctx.streams.err(
      `calibrate: no timing constant of ${base.name} is marked "fit": {"min": ..., "max": ...}; nothing was fitted\n`,
    );

  let wrote: string | undefined;
  if (opts.output !== undefined && fitted1) {
    const command = [
      "dmac calibrate",
      measurementsPath,
      ...(opts.target !== undefined ? ["--target", opts.target] : []),
      ...(opts.constants !== undefined ? ["--constants", opts.constants] : []),
    ].join(" ");
    const note = `${command} (${sb.count} rows; mean squared log ratio ${errBefore.toPrecision(3)} -> ${errAfter.toPrecision(3)})`;
    // (A built-in target is read without the safe reader, which notes every other input.)
    const builtin =
      opts.target === undefined && (BUILTIN_TARGETS as readonly string[]).includes(base.name);
    const inputs = builtin ? [builtinPath(base.name)] : [];
    try {
      writeOutputFile(opts.output, formatJson(fittedTarget(base, fitted, note)), { inputs });
      if (!json) ctx.streams.out(`wrote ${opts.output}\n`);
      wrote = opts.output;
    } catch (e) {
      if (!(e instanceof OutputError)) throw e;
      diagnostics.push(diag("DMAC5002", undefined, [e.path, e.reason]));
    }
  }
  if (!json) return reportDiagnostics(ctx, diagnostics, opts);
  const row = (r: MeasurementRow, i: number) => ({
    id: r.id,
    measured: measuredQuantity(r) ?? null,
    kind: r.measured?.kind ?? "baseline",
    predicted: jsonNumber(before[i]!),
    ...(fitted1 ? { fitted: jsonNumber(after[i]!) } : {}),
  });
  const errors = (e: ReturnType<typeof errorSummary>, msle: number) => ({
    median: jsonNumber(e.median),
    max: jsonNumber(e.max),
    meanSquaredLogRatio: jsonNumber(msle),
  });
  return reportJson(
    ctx,
    {
      target: base.name,
      runs: runs.size,
      rows: rows.map(row),
      before: errors(sb, errBefore),
      ...(fitted1 ? { after: errors(sa, errAfter), fitted, search } : {}),
      ...(wrote !== undefined ? { out: wrote } : {}),
    },
    diagnostics,
  );
}

/** A number for JSON: NaN and infinities (no prediction) become null. */
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
