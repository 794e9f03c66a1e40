// `dmac sweep FILE[@SPEC]... --param chunk --sizes 1KiB..1GiB [-O 0,1,2] [--out DIR]`: compiles
// and simulates every variant at every size of the range (doubling) and compares them side by
// side: a table (time and busbw per size, one column per variant, and the fastest; algbw and busbw
// as nccl-tests defines them, DMA-Latte's in the CSV and JSON: src/sim/bandwidth.ts), and with
// --out sweep.csv (one row per variant and size) and sweep.svg (time and busbw against size,
// log-log, one line per variant). A variant is a file with its compile options: each file runs at
// every level of -O with the command line's options unless its @SPEC (src/options/variant-spec.ts)
// fixes the level or replaces an option (`b2b.dmac@O1`, `bcst.dmac@O0+prelaunch`,
// `b2b.dmac@O0,prelaunch,completion=per-queue,engine=8=b2b_pl`). --baseline LABEL adds each
// variant's speedup over that one (time of the baseline / time of the variant) to the table and
// the CSV. Every run must verify in the executor; a failure is reported and the exit code is 1.
// Progress goes to stderr when it is a terminal (cli/progress.ts; not with --quiet).

import { pushAll } from "../../util/arrays.js";
import { emptyPathError, OutputError, writeOutputFile } from "../../backend/output.js";
import { basename, dirname, join } from "node:path";
import { checkSource } from "../../check/check-source.js";
import type { Command } from "commander";
import { diag, hasErrors, sortDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { simulate } from "../../sim/run.js";
import { BANDWIDTH_HELP, gbpsText } from "../../sim/bandwidth.js";
import { summaryFields } from "../../sim/summary.js";
import { formatSize } from "../../util/format-size.js";
import { formatTime } from "../../util/format-time.js";
import { failedPoint, runPoint, type SweepPoint } from "../../sim/sweep-point.js";
import { lineChart } from "../../plot/line-chart.js";
import type { SourceFile } from "../../source/source-file.js";
import { didYouMean } from "../../diagnostics/suggest.js";
import type { CliContext } from "../main.js";
import { EXIT_OK, EXIT_USER_ERROR } from "../io.js";
import { jsonDiagnostics } from "../../diagnostics/render.js";
import {
  addOptOptions,
  parseOptLevels,
  type OptCommandOptions,
} from "../../options/opt-options.js";
import { wantsJson } from "../json-output.js";
import { startProgress } from "../progress.js";
import {
  addScheduleOptions,
  parseScheduleOptions,
  readSourceFile,
  type ScheduleCommandOptions,
} from "../../options/options.js";
import { parseExecutorOptions } from "../../options/executor-options.js";
import {
  addDiagnosticOptions,
  addOutOption,
  addQuietOption,
  reportDiagnostics,
  type DiagnosticOutput,
} from "../options.js";
import {
  formatOptions,
  hasOptions,
  optionsAsArguments,
  parseVariantSpec,
  variantCompileOptions,
  type Variant,
  type VariantCompile,
} from "../../options/variant-spec.js";
import { compileForSim } from "../../driver/compile-for-sim.js";

export interface SweepCommandOptions
  extends ScheduleCommandOptions, OptCommandOptions, DiagnosticOutput {
  readonly param: string;
  readonly sizes: string;
  readonly out?: string | undefined;
  readonly label?: string | undefined;
  readonly title?: string | undefined;
  readonly maxEvents?: string | undefined;
  readonly maxSimTime?: string | undefined;
  readonly baseline?: string | undefined;
  readonly json?: boolean | undefined;
  readonly quiet?: boolean | undefined;
}

const UNITS: Readonly<Record<string, number>> = {
  B: 1,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  TiB: 1024 ** 4,
};

export function parseSize(text: string): number | undefined {
  const m = /^\s*(\d+)\s*(B|KiB|MiB|GiB|TiB)?\s*$/.exec(text);
  if (!m) return undefined;
  const v = Number(m[1]) * UNITS[m[2] ?? "B"]!;
  return Number.isSafeInteger(v) && v > 0 ? v : undefined;
}

/** "1KiB..1GiB" -> [1024, 2048, ..., 2^30]; a single size "4KiB" -> [4096]. */
export function parseSizeRange(text: string): number[] | undefined {
  const parts = text.split("..");
  if (parts.length === 1) {
    const one = parseSize(parts[0]!);
    return one === undefined ? undefined : [one];
  }
  if (parts.length !== 2) return undefined;
  const lo = parseSize(parts[0]!);
  const hi = parseSize(parts[1]!);
  if (lo === undefined || hi === undefined || hi < lo) return undefined;
  const out: number[] = [];
  for (let s = lo; s <= hi; s *= 2) out.push(s);
  return out;
}

// ---- variants --------------------------------------------------------------------------------

/** One column of the comparison (src/options/variant-spec.ts parses FILE@SPEC into these). */
export type SweepVariant = Variant;

/**
 * --label: `schedule` (default: the schedule's name, then -O<level>, +prelaunch and the spec's
 * options), `file` (the file name without .dmac, likewise), or a template with {schedule}, {file},
 * {path}, {level}, {prelaunch} (" +prelaunch" or "") and {options} (" " and the spec's options,
 * e.g. " engines=single:8", or "").
 */
export function variantLabel(scheme: string, v: SweepVariant, schedule: string): string {
  if (v.label !== undefined) return v.label;
  const file = basename(v.path).replace(/\.dmac$/, "");
  const pl = v.prelaunch ? " +prelaunch" : "";
  const options = hasOptions(v.options) ? ` ${formatOptions(v.options)}` : "";
  const template =
    scheme === "schedule"
      ? "{schedule} -O{level}{prelaunch}{options}"
      : scheme === "file"
        ? "{file} -O{level}{prelaunch}{options}"
        : scheme;
  return template
    .replaceAll("{schedule}", schedule)
    .replaceAll("{file}", file)
    .replaceAll("{path}", v.path)
    .replaceAll("{level}", String(v.level))
    .replaceAll("{prelaunch}", pl)
    .replaceAll("{options}", options);
}

// ---- running ---------------------------------------------------------------------------------

/** One size of one variant (src/sim/sweep-point.ts). */
export type SweepRow = SweepPoint;

export interface SweepSeries {
  readonly variant: SweepVariant;
  readonly label: string;
  readonly schedule: string;
  readonly rows: readonly SweepRow[];
}

/** Fixed decimals without trailing noise (CSV values stay stable across float rounding). */
const num = (x: number, digits: number): string => String(Number(x.toFixed(digits)));
/** A bandwidth cell: empty where the figure is not defined (null). */
const gbpsCell = (x: number | null): string => (x === null ? "" : num(x, 4));

function csvField(s: string): string {
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** time of the baseline / time of `s` at `bytes`, when both verified. */
export function speedupAt(
  s: SweepSeries,
  baseline: SweepSeries,
  bytes: number,
): number | undefined {
  const r = s.rows.find((x) => x.bytes === bytes);
  const b = baseline.rows.find((x) => x.bytes === bytes);
  if (!r?.verified || !b?.verified || !(r.totalUs > 0)) return undefined;
  return b.totalUs / r.totalUs;
}

/**
 * The CSV: one row per (variant, size); `options` holds the spec's options as spec items; with a
 * baseline, `speedup` is its time over the row's (empty where either did not verify).
 */
export function sweepCsv(
  series: readonly SweepSeries[],
  param: string,
  baseline?: SweepSeries,
): string {
  const lines = [
    `label,file,schedule,opt,prelaunch,options,${param}_bytes,time_us,algbw_GBps,busbw_GBps,dma_latte_algbw_GBps,dma_latte_busbw_GBps,packets,verified,plan${baseline ? ",speedup" : ""}`,
  ];
  for (const s of series)
    for (const r of s.rows) {
      const fields = [
        csvField(s.label),
        csvField(s.variant.path),
        csvField(s.schedule),
        String(s.variant.level),
        String(s.variant.prelaunch),
        csvField(formatOptions(s.variant.options)),
        String(r.bytes),
        num(r.totalUs, 3),
        gbpsCell(r.algbwGBps),
        gbpsCell(r.busbwGBps),
        gbpsCell(r.dmaLatteAlgbwGBps),
        gbpsCell(r.dmaLatteBusbwGBps),
        String(r.packets),
        String(r.verified),
        csvField(r.plan ?? ""),
      ];
      if (baseline) {
        const x = speedupAt(s, baseline, r.bytes);
        fields.push(x === undefined ? "" : num(x, 4));
      }
      lines.push(fields.join(","));
    }
  return lines.join("\n") + "\n";
}

/**
 * `--json`: the sweep as one document (schemas/sweep.schema.json): each variant with its points
 * (the CSV's figures, unrounded; `speedup` over the baseline where both verified), and the
 * diagnostics as `--format json` gives them.
 */
export function sweepJson(
  series: readonly SweepSeries[],
  param: string,
  diagnostics: readonly Diagnostic[],
  baseline?: SweepSeries,
): string {
  const doc = {
    version: 1,
    param,
    ...(baseline ? { baseline: baseline.label } : {}),
    series: series.map((s) => ({
      label: s.label,
      file: s.variant.path,
      schedule: s.schedule,
      opt: s.variant.level,
      prelaunch: s.variant.prelaunch,
      options: formatOptions(s.variant.options),
      points: s.rows.map((r) => {
        const x = baseline ? speedupAt(s, baseline, r.bytes) : undefined;
        return { ...r, ...(x === undefined ? {} : { speedup: x }) };
      }),
    })),
    diagnostics: jsonDiagnostics(sortDiagnostics(diagnostics)),
  };
  return JSON.stringify(doc, null, 2) + "\n";
}

/** Relative tolerance under which two predicted times count as a tie. */
export const TIE = 1e-3;

/** The table: one variant in detail, or several side by side (time, then busbw). */
export function sweepTable(
  series: readonly SweepSeries[],
  sizes: readonly number[],
  param: string,
  baseline?: SweepSeries,
): string {
  const t = tableParts(series, param);
  return t.head + sizes.map((b) => t.row(b)).join("") + t.tail(sizes, baseline);
}

/**
 * The table in the order it can be printed while the sweep runs (sizes run in order, every
 * variant at a size before the next size): its head once the first size has run (the variants'
 * labels come from their first compile), a row as each size completes, and the tail (the busbw
 * and speedup tables of several variants) at the end. So an interrupted sweep has printed every
 * size it finished.
 */
export function tableParts(
  series: readonly SweepSeries[],
  param: string,
): {
  head: string;
  row: (bytes: number) => string;
  tail: (sizes: readonly number[], baseline?: SweepSeries) => string;
} {
  const at = (s: SweepSeries, bytes: number): SweepRow | undefined =>
    s.rows.find((r) => r.bytes === bytes);
  if (series.length === 1) {
    const s = series[0]!;
    const plans = s.variant.level === 2;
    return {
      head: `${param.padStart(10)}  ${"time".padStart(12)}  ${"algbw GB/s".padStart(11)}  ${"busbw GB/s".padStart(11)}  ${"packets".padStart(8)}  verified${plans ? "  plan" : ""}\n`,
      row: (bytes) => {
        const r = at(s, bytes);
        if (!r) return "";
        return `${formatSize(r.bytes).padStart(10)}  ${formatTime(r.totalUs).padStart(12)}  ${gbpsText(r.algbwGBps).padStart(11)}  ${gbpsText(r.busbwGBps).padStart(11)}  ${String(r.packets).padStart(8)}  ${r.verified ? "yes" : "NO "}${plans ? `       ${r.plan ?? ""}` : ""}\n`;
      },
      tail: () => "",
    };
  }
  const w = Math.max(...series.map((s) => s.label.length));
  const variants = series.map(
    (s, i) =>
      `  #${String(i + 1).padEnd(3)}${s.label.padEnd(w)}  ${s.variant.path} -O${s.variant.level}${s.variant.prelaunch ? " --prelaunch" : ""}${hasOptions(s.variant.options) ? ` ${optionsAsArguments(s.variant.options)}` : ""}`,
  );
  const col = 11;
  const head = (title: string): string =>
    `${title.padEnd(12)}${series.map((_, i) => `#${i + 1}`.padStart(col)).join("")}`;
  const row = (bytes: number): (SweepRow | undefined)[] => series.map((s) => at(s, bytes));
  const timeRow = (bytes: number): string => {
    const rs = row(bytes);
    const ok = rs.map((r) => (r?.verified ? r.totalUs : Infinity));
    const best = Math.min(...ok);
    const fastest = ok
      .map((t, i) => (Number.isFinite(t) && t <= best * (1 + TIE) ? `#${i + 1}` : ""))
      .filter((x) => x !== "");
    return `${formatSize(bytes).padStart(10)}  ${rs.map((r) => (r === undefined ? "-" : r.verified ? formatTime(r.totalUs) : "FAIL").padStart(col)).join("")}  ${fastest.join("=")}\n`;
  };
  const tail = (sizes: readonly number[], baseline?: SweepSeries): string => {
    const out = [
      "",
      `${head("busbw GB/s")}  (nccl-tests; DMA-Latte's figures are in the CSV and JSON)`,
    ];
    for (const bytes of sizes)
      out.push(
        `${formatSize(bytes).padStart(10)}  ${row(bytes)
          .map((r) =>
            (r === undefined ? "-" : r.verified ? gbpsText(r.busbwGBps) : "FAIL").padStart(col),
          )
          .join("")}`,
      );
    if (baseline) {
      const b = series.indexOf(baseline);
      out.push("", `speedup over #${b + 1} ${baseline.label} (its time / the variant's time)`);
      out.push(head("speedup") + "  best");
      for (const bytes of sizes) {
        const xs = series.map((s) => speedupAt(s, baseline, bytes));
        const top = Math.max(...xs.map((x) => x ?? -Infinity));
        const best = xs
          .map((x, i) => (x !== undefined && x >= top / (1 + TIE) ? `#${i + 1}` : ""))
          .filter((x) => x !== "");
        out.push(
          `${formatSize(bytes).padStart(10)}  ${xs.map((x) => (x === undefined ? "-" : `${x.toFixed(2)}x`).padStart(col)).join("")}  ${best.join("=")}`,
        );
      }
    }
    return out.join("\n") + "\n";
  };
  return {
    head: ["variants", ...variants, "", head("time") + "  fastest"].join("\n") + "\n",
    row: timeRow,
    tail,
  };
}

/** --explain-plan: for each -O2 variant, the plan chosen over each run of sizes. */
export function planRuns(series: readonly SweepSeries[]): string {
  const out: string[] = [];
  for (const s of series) {
    if (!s.rows.some((r) => r.plan !== undefined)) continue;
    out.push(`plans of ${s.label}:`);
    let i = 0;
    while (i < s.rows.length) {
      let j = i;
      while (j + 1 < s.rows.length && s.rows[j + 1]!.plan === s.rows[i]!.plan) j++;
      const range =
        i === j
          ? formatSize(s.rows[i]!.bytes)
          : `${formatSize(s.rows[i]!.bytes)} .. ${formatSize(s.rows[j]!.bytes)}`;
      out.push(`  ${range.padEnd(22)} ${s.rows[i]!.plan ?? "(failed)"}`);
      i = j + 1;
    }
  }
  return out.length > 0 ? out.join("\n") + "\n" : "";
}

/**
 * The SVG (src/plot/line-chart.ts): a time panel and a bus bandwidth panel against size, one
 * series per variant, verified sizes only. Where no size has a busbw (host transfers only: n/a),
 * the bandwidth panel is left out rather than drawn empty.
 */
export function sweepSvg(series: readonly SweepSeries[], param: string, title: string): string {
  const ok = (s: SweepSeries): SweepRow[] => s.rows.filter((r) => r.verified);
  const busbw = (s: SweepSeries) =>
    ok(s).flatMap((r) => (r.busbwGBps === null ? [] : [[r.bytes, r.busbwGBps] as const]));
  const withBw = series.some((s) => busbw(s).length > 0);
  return lineChart({
    title,
    xLabel: `${param} size`,
    xUnit: "bytes",
    panels: [
      { title: "Time", yLabel: "time, lower is better", yUnit: "us" },
      ...(withBw
        ? [
            {
              title: "Bus bandwidth",
              yLabel: "busbw (GB/s, nccl-tests), higher is better",
              yUnit: "number" as const,
            },
          ]
        : []),
    ],
    series: series.map((s) => ({
      name: s.label,
      points: [ok(s).map((r) => [r.bytes, r.totalUs] as const), ...(withBw ? [busbw(s)] : [])],
    })),
  });
}

export function runSweep(
  files: string | readonly string[],
  opts: SweepCommandOptions,
  ctx: CliContext,
): number {
  const args = typeof files === "string" ? [files] : files;
  const common = parseScheduleOptions(opts);
  const sizes = parseSizeRange(opts.sizes);
  const levels = parseOptLevels(opts.opt);
  const executor = parseExecutorOptions(opts);
  const pre: Diagnostic[] = [...executor.diagnostics, ...common.diagnostics, ...levels.diagnostics];
  // An empty --out would put sweep.csv into the working directory: refused before anything runs.
  const emptyOut = opts.out !== undefined ? emptyPathError(opts.out) : undefined;
  if (emptyOut) pre.push(diag("DMAC5002", undefined, [emptyOut.path, emptyOut.reason]));
  if (!sizes)
    pre.push(
      diag("DMAC5004", undefined, ["--sizes", `'${opts.sizes}' is not a range like 1KiB..1GiB`], {
        hint: "sizes use binary units B, KiB, MiB, GiB",
      }),
    );
  const variants: SweepVariant[] = [];
  const compileOptions: VariantCompile[] = [];
  const base = { ...opts, defines: common.defines };
  for (const a of args) {
    const v = parseVariantSpec(a, levels.levels, opts.prelaunch === true, [opts.param]);
    pushAll(pre, v.diagnostics);
    for (const variant of v.variants) {
      // The optimiser options of every variant are checked before anything runs; a problem
      // with an option its spec set names the argument.
      const c = variantCompileOptions(base, variant, common.target);
      const own = hasOptions(variant.options);
      for (const d of c.diagnostics)
        pre.push(own ? diag("DMAC5004", undefined, ["variant", `'${a}': ${d.message}`]) : d);
      variants.push(variant);
      compileOptions.push(c);
    }
  }
  // --json (or --format json): one JSON document on stdout, the diagnostics inside it.
  const json = wantsJson(opts);
  /** Stops before any size runs: the diagnostics, as text or in the JSON document. */
  const refuse = (ds: Diagnostic[]): number => {
    if (!json) return reportDiagnostics(ctx, ds, opts);
    ctx.streams.out(sweepJson([], opts.param, ds));
    return EXIT_USER_ERROR;
  };
  if (hasErrors(pre) || !sizes) return refuse(pre);

  const sources = new Map<string, SourceFile>();
  const diagnostics: Diagnostic[] = [...pre];
  const seenDiag = new Set<string>();
  const report = (ds: readonly Diagnostic[]): void => {
    for (const d of ds) {
      const key = `${d.code}|${d.file?.name ?? ""}|${d.span?.start ?? ""}|${d.message}`;
      if (seenDiag.has(key)) continue;
      seenDiag.add(key);
      diagnostics.push(d);
    }
  };
  for (const v of variants) {
    if (sources.has(v.path)) continue;
    const read = readSourceFile(v.path);
    if (read.file) sources.set(v.path, read.file);
    else report(read.diagnostics);
  }
  // Mistakes no size can change (a misspelt --param, a syntax or type error) are reported once,
  // before any size runs: each source checked at the first size, once per schedule and defines
  // (the levels of one file share it). An unreadable file does not stop the other variants.
  const checkedAs = new Set<string>();
  const unchangeable = variants.flatMap((v, vi) => {
    const file = sources.get(v.path);
    const c = compileOptions[vi]!;
    const defines = { ...c.defines, [opts.param]: `${sizes[0]!}B` };
    const key = JSON.stringify([v.path, c.schedule ?? null, defines]);
    if (!file || checkedAs.has(key)) return [];
    checkedAs.add(key);
    const checked = checkSource(file, {
      defines,
      schedule: c.schedule,
      baseDir: dirname(v.path),
      targetOverride: common.target,
    });
    return checked.diagnostics.filter((d) => d.severity === "error");
  });
  if (unchangeable.length > 0) {
    report(unchangeable);
    return refuse(diagnostics);
  }
  const total = variants.length * sizes.length;
  const progress = startProgress(ctx.streams, { quiet: opts.quiet, label: "sweep" });
  let budgetSkips = 0;
  const runs = variants.map((v) => ({
    file: sources.get(v.path),
    rows: [] as SweepRow[],
    schedule: basename(v.path).replace(/\.dmac$/, ""),
  }));
  /** One size of one variant: compiled, run, its row kept. */
  const runAt = (vi: number, i: number): void => {
    const v = variants[vi]!;
    const run = runs[vi]!;
    if (!run.file) return;
    const bytes = sizes[i]!;
    const done = i * variants.length + vi;
    const what = `${basename(v.path)} -O${v.level} ${formatSize(bytes)}`;
    progress.update(what, done, total);
    const optimiser = compileOptions[vi]!;
    const c = compileForSim(
      v.path,
      run.file.text,
      { ...optimiser.defines, [opts.param]: `${bytes}B` },
      {
        schedule: optimiser.schedule,
        target: common.target,
        completion: optimiser.protocol,
        sync: optimiser.sync,
        passes: optimiser.passes,
        onPlanProgress: (k, n) => progress.update(`${what}: plan ${k}/${n}`, done, total),
      },
    );
    if (!c.loaded) {
      report(c.diagnostics);
      run.rows.push(failedPoint(bytes, c.diagnostics));
      return;
    }
    const input = c.loaded.input;
    run.schedule =
      "manifest" in input
        ? input.manifest.schedule
        : "trace" in input
          ? input.trace.schedule
          : input.cuda.schedule;
    const plan = c.loaded.optimised?.plan;
    if (plan?.stoppedEarly) budgetSkips += plan.stoppedEarly.total - plan.stoppedEarly.evaluated;
    const r = simulate(c.loaded.input, {
      target: c.loaded.target,
      maxEvents: executor.maxEvents,
      maxSimTimeUs: executor.maxSimTimeUs,
      signalPeriodUs: executor.signalPeriodUs,
      onProgress: () => progress.update(what, done, total),
    });
    if (!r.verified) report(r.diagnostics);
    run.rows.push(runPoint(bytes, summaryFields(r), r.diagnostics, plan?.chosen.label));
  };
  // Labels name columns and SVG lines: made unique.
  const seriesNow = (): SweepSeries[] => {
    const series = variants.map((v, vi) => ({
      variant: v,
      label: variantLabel(opts.label ?? "schedule", v, runs[vi]!.schedule),
      schedule: runs[vi]!.schedule,
      rows: runs[vi]!.rows,
    }));
    return series.map((x) => {
      const same = series.filter((t) => t.label === x.label);
      return same.length > 1 ? { ...x, label: `${x.label} (${same.indexOf(x) + 1})` } : x;
    });
  };
  // Size by size, every variant at a size before the next: each finished size's row is
  // printed at once, so an interrupted sweep has shown what it finished.
  for (let i = 0; i < sizes.length; i++) {
    for (let vi = 0; vi < variants.length; vi++) runAt(vi, i);
    if (json) continue;
    const table = tableParts(seriesNow(), opts.param);
    progress.end(); // (the next update draws the line again)
    ctx.streams.out((i === 0 ? table.head : "") + table.row(sizes[i]!));
  }
  progress.end();
  const named = seriesNow();

  let baseline: SweepSeries | undefined;
  if (opts.baseline !== undefined) {
    baseline = findBaseline(named, opts.baseline);
    if (!baseline) {
      const guess = didYouMean(
        opts.baseline,
        named.map((s) => s.label),
      );
      const labels = named.map((s, i) => `#${i + 1} '${s.label}'`).join(", ");
      diagnostics.push(
        diag("DMAC5004", undefined, ["--baseline", `no variant is labelled '${opts.baseline}'`], {
          hint: guess ?? `the variants are ${labels}`,
        }),
      );
    }
  }

  if (!json) ctx.streams.out(tableParts(named, opts.param).tail(sizes, baseline));
  if (opts.explainPlan && !json) ctx.streams.out(planRuns(named));
  const failures = named.flatMap((s) => s.rows.filter((r) => !r.verified).map((r) => ({ s, r })));
  for (const { s, r } of failures)
    ctx.streams.err(
      `sweep: ${s.label} at ${opts.param} = ${formatSize(r.bytes)} did not verify: ${r.problem ?? "unknown"}\n`,
    );
  if (budgetSkips > 0)
    ctx.streams.err(
      `sweep: the -O2 plan search stopped at its work budget (${budgetSkips} candidates skipped; --plan-budget raises it)\n`,
    );
  if (opts.out !== undefined && named.some((s) => s.rows.length > 0)) {
    try {
      writeOutputFile(join(opts.out, "sweep.csv"), sweepCsv(named, opts.param, baseline));
      const title =
        opts.title ??
        (named.length === 1
          ? `${named[0]!.variant.path}: sweep of ${opts.param}`
          : `sweep of ${opts.param}: ${named.length} variants`);
      writeOutputFile(join(opts.out, "sweep.svg"), sweepSvg(named, opts.param, title));
    } catch (e) {
      if (!(e instanceof OutputError)) throw e;
      diagnostics.push(diag("DMAC5002", undefined, [e.path, e.reason]));
    }
  }
  let code: number;
  if (json) {
    ctx.streams.out(sweepJson(named, opts.param, diagnostics, baseline));
    code = hasErrors(diagnostics) ? EXIT_USER_ERROR : EXIT_OK;
  } else code = reportDiagnostics(ctx, diagnostics, opts);
  const complete = named.every((s) => s.rows.length === sizes.length);
  return failures.length === 0 && complete ? code : EXIT_USER_ERROR;
}

/** --baseline: a variant's label, or #N (its number in the table). */
export function findBaseline(
  series: readonly SweepSeries[],
  name: string,
): SweepSeries | undefined {
  const exact = series.find((s) => s.label === name);
  if (exact) return exact;
  const m = /^#(\d+)$/.exec(name.trim());
  return m ? series[Number(m[1]) - 1] : undefined;
}

export function registerSweep(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("sweep")
    .description(
      "compile and simulate schedules over a range of sizes and compare them: table, CSV and SVG plot",
    )
    .argument(
      "<files...>",
      ".dmac files, each FILE[@SPEC]: SPEC sets that file's level, options and parameters, items joined by , or + (O0|O1|O2, prelaunch, engines=S, completion=C, disable-pass=P, schedule=N, NAME=VALUE, label=TEXT last), e.g. b2b.dmac@O1 or b2b.dmac@O0,prelaunch,completion=per-queue,label=b2b_pl (docs/calibrate.md)",
    )
    .requiredOption("--param <name>", "the bytes parameter to sweep (e.g. chunk)")
    .requiredOption("--sizes <lo..hi>", "size range, doubling, e.g. 1KiB..1GiB");
  addScheduleOptions(
    cmd,
    "the schedule to sweep when a file has several",
    "use this target description (JSON)",
  );
  addOutOption(cmd, {
    value: "dir",
    help: "write sweep.csv and sweep.svg into this directory",
    attr: "out",
  })
    .option(
      "--json",
      "print the sweep as one JSON document on stdout instead of the table (as --format json does)",
    )
    .option(
      "--label <scheme>",
      "name the variants: schedule (default), file, or a template with {schedule} {file} {path} {level} {prelaunch} {options}",
    )
    .option(
      "--baseline <label>",
      "also print each variant's speedup over this variant (its label, or #N): baseline time / variant time, in the table and as the CSV's speedup column",
    )
    .option("--title <text>", "title of the SVG plot")
    .option("--max-events <n>", "watchdog per run: stop after this many events")
    .option("--max-sim-time <us>", "watchdog per run: stop at this simulated time (us)")
    .option(
      "--signal-period <us>",
      "raise each external signal by one every this many microseconds, in every run and in -O2's predictions (default: at time 0)",
    );
  addOptOptions(cmd, { levelList: true });
  cmd.addHelpText("after", BANDWIDTH_HELP);
  addQuietOption(cmd);
  addDiagnosticOptions(cmd).action((fs: string[], opts: SweepCommandOptions) => {
    ctx.exit(runSweep(fs, opts, ctx));
  });
}
