// `dmac measure RESULTS [--target T] [--fit] [-o FITTED.json]`: measured against predicted for
// the CUDA runner's results (bench/hardware/*.json). Every run is recompiled from its example
// (EXAMPLES/EXAMPLE.dmac) and variant (runtime/cuda/variants.tsv) at its size and predicted with
// the target. --fit fits the target's fittable constants on every other size (1 KiB, 16 KiB, ...)
// and reports the error on the sizes held out; `dmac calibrate RESULTS.json` does the same.

import { join } from "node:path";
import type { Command } from "commander";
import {
  compileRun,
  cudaFitBounds,
  fastestAgreement,
  fitCuda,
  fitSizes,
  median,
  parseVariants,
  predictAll,
  relErr,
  resultsProblem,
  withValues,
  type Compared,
  type ResultsDoc,
} from "../../backend/cuda/measure.js";
import { OutputError, writeOutputFile } from "../../backend/output.js";
import { diag, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { cudaOf } from "../../target/cuda-target.js";
import { builtinTarget, type Target } from "../../target/target.js";
import { readInputText } from "../../util/read-input.js";
import type { CliContext } from "../main.js";
import {
  addDiagnosticOptions,
  readSourceFile,
  readTargetOption,
  reportDiagnostics,
  type DiagnosticOutput,
} from "../options.js";

export interface MeasureOptions extends DiagnosticOutput {
  readonly target?: string | undefined;
  readonly examples?: string | undefined;
  readonly variants?: string | undefined;
  readonly fit?: boolean | undefined;
  readonly output?: string | undefined;
}

const LIMIT = { maxBytes: 64 << 20, what: "a results file" };

function fmt(us: number): string {
  return us >= 1000 ? `${(us / 1000).toFixed(3)} ms` : `${us.toFixed(1)} us`;
}

function table(rows: readonly Compared[], fitted: Set<number> | undefined): string {
  const lines = [
    `${"example".padEnd(24)}${"variant".padEnd(11)}${"bytes".padStart(12)}${"measured".padStart(13)}${"predicted".padStart(13)}${"error".padStart(8)}`,
  ];
  for (const r of rows) {
    const tag = fitted === undefined ? "" : fitted.has(r.run.totalBytes) ? "  fit" : "  held out";
    lines.push(
      `${r.run.example.padEnd(24)}${r.run.variant.padEnd(11)}${String(r.run.totalBytes).padStart(12)}${fmt(r.run.medianUs).padStart(13)}${fmt(r.predictedUs).padStart(13)}${`${(relErr(r) * 100).toFixed(1)}%`.padStart(8)}${tag}`,
    );
  }
  return lines.join("\n") + "\n";
}

function summary(label: string, rows: readonly Compared[]): string {
  const f = fastestAgreement(rows);
  return `${label}: median error ${(median(rows.map(relErr)) * 100).toFixed(1)}% over ${rows.length} runs; fastest variant predicted fastest at ${f.agree} of ${f.total} (example, size) pairs (${f.strict} exactly, the others within 5 % of the fastest measured)${f.misses.length ? ` (misses: ${f.misses.join("; ")})` : ""}\n`;
}

export function runMeasure(path: string, opts: MeasureOptions, ctx: CliContext): number {
  const diagnostics: Diagnostic[] = [];
  const fail = (detail: string): number =>
    reportDiagnostics(ctx, [diag("DMAC5001", undefined, [path, detail])], opts);
  let doc: ResultsDoc;
  let variants: Map<string, string[]>;
  try {
    const json: unknown = JSON.parse(readInputText(path, LIMIT));
    const problem = resultsProblem(json);
    if (problem) return fail(problem);
    doc = json as ResultsDoc;
    variants = parseVariants(
      readInputText(opts.variants ?? join("runtime", "cuda", "variants.tsv"), LIMIT),
    );
  } catch (e) {
    return fail(e instanceof Error ? e.message : String(e));
  }
  const t = readTargetOption(opts.target);
  if (t.diagnostics.length) return reportDiagnostics(ctx, t.diagnostics, opts);
  const target: Target = t.target ?? builtinTarget("h100")!;
  const cuda = cudaOf(target);
  if (!cuda) return fail(`target ${target.name} is not a CUDA target ("backend": "cuda")`);
  const rows: Compared[] = [];
  const files = new Map<string, ReturnType<typeof readSourceFile>>();
  for (const run of doc.runs) {
    const words = variants.get(`${run.example}/${run.variant}`);
    if (!words) return fail(`no variant '${run.variant}' of '${run.example}' in variants.tsv`);
    const src = join(opts.examples ?? "examples", `${run.example}.dmac`);
    if (!files.has(src)) files.set(src, readSourceFile(src));
    const read = files.get(src)!;
    if (!read.file) return reportDiagnostics(ctx, read.diagnostics, opts);
    const built = compileRun(read.file, words, run.totalBytes, target);
    if (!built.program) return reportDiagnostics(ctx, built.diagnostics, opts);
    rows.push({ run, program: built.program, predictedUs: NaN });
  }
  predictAll(rows, cuda);
  const out = ctx.streams.out;
  out(`${doc.device}, driver ${doc.driver}, ${doc.cuda}, ${doc.date}; target ${target.name}\n`);
  const unverified = rows.filter((r) => !r.run.verified).length;
  if (unverified)
    out(`warning: ${unverified} runs did not verify; they are compared all the same\n`);
  if (!opts.fit) {
    out(table(rows, undefined));
    out(summary("all sizes", rows));
    return reportDiagnostics(ctx, diagnostics, opts);
  }
  const fitted = fitSizes(rows);
  const train = rows.filter((r) => fitted.has(r.run.totalBytes));
  const held = rows.filter((r) => !fitted.has(r.run.totalBytes));
  out(summary("before the fit, held-out sizes", held));
  const bounds = cudaFitBounds(target);
  const r = fitCuda(train, cuda, bounds);
  const names = bounds.map((b) => b.name);
  predictAll(rows, withValues(cuda, names, r.values));
  out(table(rows, fitted));
  out(summary("after the fit, fitted sizes", train));
  out(summary("after the fit, held-out sizes", held));
  out(
    `fitted (${r.evals} evaluations): ${names.map((n, i) => `${n} ${r.values[i]!.toPrecision(4)}`).join(", ")}\n`,
  );
  if (opts.output !== undefined) {
    try {
      writeOutputFile(opts.output, fittedJson(target, names, r.values, path), { inputs: [path] });
    } catch (e) {
      if (!(e instanceof OutputError)) throw e;
      return reportDiagnostics(ctx, [diag("DMAC5002", undefined, [e.path, e.reason])], opts);
    }
  }
  return reportDiagnostics(ctx, diagnostics, opts);
}

/** The target file with the fitted values (and where they came from) written in. */
function fittedJson(
  target: Target,
  names: readonly string[],
  values: readonly number[],
  from: string,
): string {
  const json = JSON.parse(
    JSON.stringify({
      ...target,
      cuda: undefined,
      engines: undefined,
      recommendedEngine: undefined,
      limits: undefined,
    }),
  ) as Record<string, Record<string, Record<string, unknown>>>;
  names.forEach((n, i) => {
    const v = Number(values[i]!.toPrecision(4));
    if (n === "h2dGBps" || n === "d2hGBps") json["hostLink"]![n] = v as never;
    else {
      const e = json["timing"]![n]!;
      e["value"] = v;
      e["source"] =
        `fitted by \`dmac calibrate ${from}\` on every other size (docs/calibrate.md, CUDA targets)`;
    }
  });
  return JSON.stringify(json, null, 2) + "\n";
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
    .option("--fit", "fit the target's fittable constants on every other size; report the rest")
    .option("-o, --output <file>", "with --fit: write the fitted target here");
  addDiagnosticOptions(cmd).action((file: string, opts: MeasureOptions) => {
    ctx.exit(runMeasure(file, opts, ctx));
  });
}
