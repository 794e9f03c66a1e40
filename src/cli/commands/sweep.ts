// `dmac sweep FILE --param chunk --sizes 1KiB..1GiB [--out DIR]`: compiles and simulates the
// schedule at every size of the range (doubling), prints a table, and with --out writes
// sweep.csv and sweep.svg (time and bus bandwidth against size, log-log). A progress bar goes to
// stderr when it is a terminal.

import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { diag, hasErrors, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { simulate } from "../../sim/run.js";
import { formatBytes, formatUs } from "../../sim/summary.js";
import { logLogPlot } from "../../sim/svg.js";
import type { CliContext } from "../main.js";
import type { ColorMode, DiagnosticFormat } from "../io.js";
import { EXIT_USER_ERROR } from "../io.js";
import {
  addDefineOption,
  addDiagnosticOptions,
  parseDefines,
  readSourceFile,
  readTargetOption,
  reportDiagnostics,
} from "../options.js";
import { compileForSim } from "./sim.js";

export interface SweepCommandOptions {
  readonly define?: string[] | undefined;
  readonly schedule?: string | undefined;
  readonly target?: string | undefined;
  readonly param: string;
  readonly sizes: string;
  readonly out?: string | undefined;
  readonly format: DiagnosticFormat;
  readonly color: ColorMode;
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

/** "1KiB..1GiB" -> [1024, 2048, ..., 2^30]. */
export function parseSizeRange(text: string): number[] | undefined {
  const parts = text.split("..");
  if (parts.length !== 2) return undefined;
  const lo = parseSize(parts[0]!);
  const hi = parseSize(parts[1]!);
  if (lo === undefined || hi === undefined || hi < lo) return undefined;
  const out: number[] = [];
  for (let s = lo; s <= hi; s *= 2) out.push(s);
  return out;
}

export interface SweepRow {
  readonly bytes: number;
  readonly verified: boolean;
  readonly totalUs: number;
  readonly algbwGBps: number;
  readonly busbwGBps: number;
  readonly packets: number;
}

export function runSweep(path: string, opts: SweepCommandOptions, ctx: CliContext): number {
  const defines = parseDefines(opts.define);
  const target = readTargetOption(opts.target);
  const sizes = parseSizeRange(opts.sizes);
  const pre: Diagnostic[] = [...defines.diagnostics, ...target.diagnostics];
  if (!sizes)
    pre.push(
      diag("DMAC5004", undefined, ["--sizes", `'${opts.sizes}' is not a range like 1KiB..1GiB`], {
        hint: "sizes use binary units B, KiB, MiB, GiB",
      }),
    );
  if (pre.length > 0 || !sizes) return reportDiagnostics(ctx, pre, opts);
  const read = readSourceFile(path);
  if (!read.file) return reportDiagnostics(ctx, read.diagnostics, opts);
  const rows: SweepRow[] = [];
  const diagnostics: Diagnostic[] = [];
  const bar = (i: number): void => {
    if (!ctx.streams.isTTY) return;
    const w = 30;
    const done = Math.round((w * i) / sizes.length);
    ctx.streams.err(
      `\r[${"#".repeat(done)}${".".repeat(w - done)}] ${i}/${sizes.length} ${i < sizes.length ? formatBytes(sizes[i]!) : "done"}   `,
    );
  };
  for (let i = 0; i < sizes.length; i++) {
    bar(i);
    const bytes = sizes[i]!;
    const c = compileForSim(
      path,
      read.file.text,
      { ...defines.defines, [opts.param]: `${bytes}B` },
      { schedule: opts.schedule, target: target.target },
    );
    if (!c.loaded) {
      diagnostics.push(...c.diagnostics);
      break;
    }
    const r = simulate(c.loaded.input, { target: c.loaded.target });
    if (hasErrors(r.diagnostics)) diagnostics.push(...r.diagnostics);
    rows.push({
      bytes,
      verified: r.verified,
      totalUs: r.stats.totalUs,
      algbwGBps: r.bandwidth.algbwGBps,
      busbwGBps: r.bandwidth.busbwGBps,
      packets: r.stats.packets,
    });
  }
  bar(sizes.length);
  if (ctx.streams.isTTY) ctx.streams.err("\n");
  const table = [
    `${opts.param.padStart(10)}  ${"time".padStart(12)}  ${"algbw GB/s".padStart(11)}  ${"busbw GB/s".padStart(11)}  ${"packets".padStart(8)}  verified`,
  ];
  for (const r of rows)
    table.push(
      `${formatBytes(r.bytes).padStart(10)}  ${formatUs(r.totalUs).padStart(12)}  ${r.algbwGBps.toFixed(2).padStart(11)}  ${r.busbwGBps.toFixed(2).padStart(11)}  ${String(r.packets).padStart(8)}  ${r.verified ? "yes" : "NO"}`,
    );
  ctx.streams.out(table.join("\n") + "\n");
  if (opts.out !== undefined && rows.length > 0) {
    try {
      mkdirSync(opts.out, { recursive: true });
      const csv = [
        "bytes,time_us,algbw_GBps,busbw_GBps,packets,verified",
        ...rows.map(
          (r) => `${r.bytes},${r.totalUs},${r.algbwGBps},${r.busbwGBps},${r.packets},${r.verified}`,
        ),
      ];
      writeFileSync(join(opts.out, "sweep.csv"), csv.join("\n") + "\n");
      writeFileSync(
        join(opts.out, "sweep.svg"),
        logLogPlot({
          title: `${path}: sweep of ${opts.param}`,
          xLabel: `${opts.param} (bytes)`,
          leftLabel: "time (us)",
          rightLabel: "busbw (GB/s, dashed)",
          series: [
            { name: "time (us)", color: "#1f77b4", points: rows.map((r) => [r.bytes, r.totalUs]) },
            {
              name: "busbw (GB/s)",
              color: "#d62728",
              points: rows.map((r) => [r.bytes, r.busbwGBps]),
              right: true,
            },
          ],
        }),
      );
    } catch (e) {
      diagnostics.push(
        diag("DMAC5001", undefined, [opts.out, e instanceof Error ? e.message : String(e)]),
      );
    }
  }
  const code = reportDiagnostics(ctx, diagnostics, opts);
  return rows.every((r) => r.verified) && rows.length === sizes.length ? code : EXIT_USER_ERROR;
}

export function registerSweep(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("sweep")
    .description("compile and simulate a schedule over a range of sizes; table, CSV and SVG plot")
    .argument("<file>", "a .dmac source file")
    .requiredOption("--param <name>", "the bytes parameter to sweep (e.g. chunk)")
    .requiredOption("--sizes <lo..hi>", "size range, doubling, e.g. 1KiB..1GiB");
  addDefineOption(cmd)
    .option("--schedule <name>", "the schedule to sweep when the file has several")
    .option("--target <file>", "use this target description (JSON)")
    .option("--out <dir>", "write sweep.csv and sweep.svg into this directory");
  addDiagnosticOptions(cmd).action((file: string, opts: SweepCommandOptions) => {
    ctx.exit(runSweep(file, opts, ctx));
  });
}
