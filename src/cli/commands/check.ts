// `dmac check FILE...`: parse, check, instantiate and verify each file, and run every legality
// check compile runs for its target (the library's `check`, src/api/check.ts), and report every
// diagnostic. Exit 0 when there are no errors (warnings allowed), 1 otherwise. Its summary, on
// stdout, states each user signal's contract with outside code (what the producer stores: a
// runtime author reads it here, not in the compiler's sources). `--format json`: each file with
// the schedules that verified and their signals, and the diagnostics (schemas/check.schema.json).

import type { Command } from "commander";
import { check } from "../../api/check.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import type { SignalEncoding } from "../../frontend/ast.js";
import type { IrModule } from "../../ir/ir.js";
import { signalContract } from "../../ir/signal-contract.js";
import type { CliContext } from "../main.js";
import { reportJson } from "../json-output.js";
import {
  addFrontEndLimitOptions,
  addMaxOpsOption,
  addScheduleOptions,
  parseFrontEndLimits,
  parsePositiveInt,
  parseScheduleOptions,
  parseSync,
  readSourceFile,
  SYNC_HELP,
  type FrontEndLimitOptions,
  type ScheduleCommandOptions,
} from "../../options/options.js";
import { addDiagnosticOptions, reportDiagnostics, type DiagnosticOutput } from "../options.js";
import { pushAll } from "../../util/arrays.js";
import { runOrWatch, WATCH_HELP } from "../watch.js";

export interface CheckCommandOptions
  extends ScheduleCommandOptions, FrontEndLimitOptions, DiagnosticOutput {
  readonly maxOps?: string | undefined;
  readonly sync?: string | undefined;
  readonly watch?: boolean | undefined;
}

/** A user signal of a checked schedule, as the summary states it. */
interface SignalSummary {
  readonly schedule: string;
  readonly name: string;
  /** The rank it is declared on; null: one on every rank. */
  readonly rank: number | null;
  readonly encoding: SignalEncoding;
}

function signalsOf(modules: readonly IrModule[]): SignalSummary[] {
  return modules.flatMap((m) =>
    m.signals.map((s) => ({
      schedule: m.schedule,
      name: s.name,
      rank: s.rank < 0 ? null : s.rank,
      encoding: s.encoding,
    })),
  );
}

/** `FILE: SCHEDULE: signal NAME on RANK, count: outside code raises it to k by storing k ...` */
function summaryLine(file: string, s: SignalSummary): string {
  const on = s.rank === null ? "every rank" : `rank ${s.rank}`;
  return `${file}: ${s.schedule}: signal ${s.name} on ${on}, ${signalContract(s.encoding)}\n`;
}

export function runCheck(
  files: readonly string[],
  opts: CheckCommandOptions,
  ctx: CliContext,
): number {
  const common = parseScheduleOptions(opts);
  const maxOps = parsePositiveInt("--max-ops", opts.maxOps);
  const limits = parseFrontEndLimits(opts);
  const sync = parseSync(opts.sync);
  const diagnostics: Diagnostic[] = [
    ...common.diagnostics,
    ...maxOps.diagnostics,
    ...limits.diagnostics,
    ...sync.diagnostics,
  ];
  if (diagnostics.length > 0) return reportDiagnostics(ctx, diagnostics, opts);
  const checked: { file: string; ok: boolean; schedules: string[]; signals: SignalSummary[] }[] =
    [];
  for (const path of files) {
    const read = readSourceFile(path, limits.maxSourceBytes);
    pushAll(diagnostics, read.diagnostics);
    if (!read.file) {
      checked.push({ file: path, ok: false, schedules: [], signals: [] });
      continue;
    }
    const result = check(read.file.text, {
      path,
      defines: common.defines,
      schedule: opts.schedule,
      target: common.target,
      maxOps: maxOps.value,
      maxSourceBytes: limits.maxSourceBytes,
      maxNesting: limits.maxNesting,
      sync: sync.mode,
    });
    pushAll(diagnostics, result.diagnostics);
    checked.push({
      file: path,
      ok: result.ok,
      schedules: result.modules.map((m) => m.schedule),
      signals: signalsOf(result.modules),
    });
  }
  if (opts.format === "json") return reportJson(ctx, { files: checked }, diagnostics);
  for (const f of checked) for (const s of f.signals) ctx.streams.out(summaryLine(f.file, s));
  return reportDiagnostics(ctx, diagnostics, opts);
}

export function registerCheck(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("check")
    .description(
      "parse, type-check, instantiate and verify .dmac files (postconditions, bounds, engines), and run every legality check compile runs for the target (part limits, sync forms, the CUDA back end's), reporting every error and warning; prints what outside code must store in each signal",
    )
    .argument("<files...>", ".dmac source files");
  addScheduleOptions(cmd, "check only this schedule of each file (default: all of them)");
  addMaxOpsOption(cmd);
  cmd.option("--sync <mode>", SYNC_HELP);
  addFrontEndLimitOptions(cmd);
  cmd.option("--watch", WATCH_HELP);
  addDiagnosticOptions(cmd).action(async (files: string[], opts: CheckCommandOptions) => {
    ctx.exit(await runOrWatch(ctx, files, opts, (c) => runCheck(files, opts, c)));
  });
}
