// The runs of a measurements file (`dmac calibrate`): each distinct (file, level, options,
// parameters) is compiled and verified once, and its time predicted again for each candidate
// set of constants. The program does not depend on the constants, so it is re-executed as it is,
// except at -O2, whose plan is chosen with the cost model and so is recompiled with each
// candidate target. Every problem is a DMAC5007 diagnostic at the row's cell.

import { dirname, isAbsolute, join } from "node:path";
import { diag, hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
import { compileForSim } from "../driver/compile-for-sim.js";
import { readSourceFile } from "../options/options.js";
import {
  formatOptions,
  variantCompileOptions,
  type VariantCompile,
} from "../options/variant-spec.js";
import { execute } from "../sim/execute.js";
import { readMachineModel } from "../sim/model.js";
import type { SimProgram } from "../sim/program.js";
import { simulate } from "../sim/run.js";
import type { SourceFile, Span } from "../source/source-file.js";
import type { Target } from "../target/target.js";
import { pushAll } from "../util/arrays.js";
import { predictedQuantities, withTimingValues } from "./fit.js";
import type { MeasurementRow } from "./measurements.js";

/** One distinct compiled run: the rows that share it predict from its time. */
export interface Run {
  readonly key: string;
  readonly path: string;
  readonly file: SourceFile;
  readonly compile: VariantCompile;
  /** The row that first needed it (for reports). */
  readonly row: MeasurementRow;
  /** Compiled once (levels 0 and 1); -O2 is recompiled per candidate target. */
  program: SimProgram | undefined;
}

export interface Runs {
  readonly rows: readonly MeasurementRow[];
  readonly runs: ReadonlyMap<string, Run>;
  readonly runOf: ReadonlyMap<MeasurementRow, Run>;
}

/** DMAC5007 at a span of the measurements file. */
const at = (file: SourceFile, span: Span, message: string, hint?: string): Diagnostic =>
  diag("DMAC5007", { file, span }, [message], { hint });

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

/**
 * The schedules (relative to the measurements file) and compile options of every row, all read
 * and checked before any run: rows with the same file, level, options and parameters share a run.
 */
export function collectRuns(
  measurements: SourceFile,
  rows: readonly MeasurementRow[],
  target: Target | undefined,
): Runs & { diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const baseDir = dirname(measurements.name);
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
        const hint = "the file is relative to the measurements file";
        diagnostics.push(at(measurements, r.cells.file!, reason, hint));
      }
    }
    const file = sources.get(path);
    const compile = variantCompileOptions(
      { defines: {} },
      { level: r.level, prelaunch: r.spec.prelaunch, options: r.spec.options },
      target,
    );
    for (const d of compile.diagnostics)
      diagnostics.push(at(measurements, specItemSpan(r, d), `bad spec: ${d.message}`));
    if (!file || hasErrors(compile.diagnostics)) continue;
    const key = [path, r.level, r.spec.prelaunch, formatOptions(r.spec.options)].join("\u0000");
    let run = runs.get(key);
    if (!run) {
      run = { key, path, file, compile, row: r, program: undefined };
      runs.set(key, run);
    }
    runOf.set(r, run);
  }
  return { rows, runs, runOf, diagnostics };
}

/** A run compiled for `target` (undefined: the one its schedule names) into the executor's input. */
function compileRun(run: Run, target: Target | undefined) {
  return compileForSim(run.path, run.file.text, run.compile.defines, {
    schedule: run.compile.schedule,
    target,
    completion: run.compile.protocol,
    passes: run.compile.passes,
  });
}

/**
 * Compiles and verifies every run once, keeping its program. All runs must be for one target:
 * `given`, or else the one the first schedule names. Returns that target (undefined on an error).
 */
export function compileRuns(
  measurements: SourceFile,
  runs: Runs,
  given: Target | undefined,
  progress: (done: number, total: number, what: string) => void,
): { target: Target | undefined; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  let target = given;
  let done = 0;
  for (const run of runs.runs.values()) {
    progress(done++, runs.runs.size, `running ${run.row.id}`);
    const c = compileRun(run, given);
    const rowAt = run.row.cells.id!;
    const row = `row '${run.row.id}'`;
    if (!c.loaded) {
      pushAll(
        diagnostics,
        c.diagnostics.map((d) => locateParameter(run.row, d, measurements)),
      );
      diagnostics.push(at(measurements, rowAt, `${row}: ${run.path} does not compile`));
      continue;
    }
    if (!target) target = c.loaded.target;
    else if (c.loaded.target.name !== target.name) {
      const message = `${row}: ${run.path} is for target ${c.loaded.target.name}, the others for ${target.name}`;
      const hint = "one calibration fits one target: give --target, or split the file";
      diagnostics.push(at(measurements, rowAt, message, hint));
      continue;
    }
    const r = simulate(c.loaded.input, { target });
    if (!r.verified || !r.program) {
      const err = r.diagnostics.find((d) => d.severity === "error");
      const why = err ? ` (${err.code} ${err.message})` : "";
      diagnostics.push(at(measurements, rowAt, `${row}: the run does not verify${why}`));
      continue;
    }
    run.program = r.program;
  }
  return { target: hasErrors(diagnostics) ? undefined : target, diagnostics };
}

/**
 * The predicted quantity of every row (a time or a speedup; NaN where there is none) with the
 * timing constants `values` written into `base` (none: `base` as it is).
 */
export function predictRows(
  runs: Runs,
  base: Target,
  values: Readonly<Record<string, number>>,
): number[] {
  const changed = Object.keys(values).length > 0;
  const t = changed ? withTimingValues(base, values) : base;
  const m = readMachineModel(t);
  if (!m.ok) return runs.rows.map(() => NaN);
  const times = new Map<Run, number>();
  for (const run of runs.runs.values()) {
    let program = run.program;
    if (run.compile.passes?.level === 2 && changed) {
      const c = compileRun(run, t);
      program = c.loaded ? simulate(c.loaded.input, { target: t }).program : undefined;
    }
    if (!program) {
      times.set(run, NaN);
      continue;
    }
    const ex = execute(program, { model: m.model });
    times.set(run, ex.completed ? ex.stats.totalUs : NaN);
  }
  return predictedQuantities(runs.rows, (r) => times.get(runs.runOf.get(r)!) ?? NaN);
}
