// `dmac check FILE...`: parse, check, instantiate and verify each file (the library's `check`,
// src/api/check.ts) and report every diagnostic. Exit 0 when there are no errors (warnings
// allowed), 1 otherwise. `--format json`: each file with the schedules that verified, and the
// diagnostics (schemas/check.schema.json).

import type { Command } from "commander";
import { check } from "../../api/check.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import type { CliContext } from "../main.js";
import { reportJson } from "../json-output.js";
import {
  addDiagnosticOptions,
  addFrontEndLimitOptions,
  addMaxOpsOption,
  addScheduleOptions,
  parseFrontEndLimits,
  parsePositiveInt,
  parseScheduleOptions,
  readSourceFile,
  reportDiagnostics,
  type DiagnosticOutput,
  type FrontEndLimitOptions,
  type ScheduleCommandOptions,
} from "../options.js";
import { pushAll } from "../../util/arrays.js";
import { runOrWatch, WATCH_HELP } from "../watch.js";

export interface CheckCommandOptions
  extends ScheduleCommandOptions, FrontEndLimitOptions, DiagnosticOutput {
  readonly maxOps?: string | undefined;
  readonly watch?: boolean | undefined;
}

export function runCheck(
  files: readonly string[],
  opts: CheckCommandOptions,
  ctx: CliContext,
): number {
  const common = parseScheduleOptions(opts);
  const maxOps = parsePositiveInt("--max-ops", opts.maxOps);
  const limits = parseFrontEndLimits(opts);
  const diagnostics: Diagnostic[] = [
    ...common.diagnostics,
    ...maxOps.diagnostics,
    ...limits.diagnostics,
  ];
  if (diagnostics.length > 0) return reportDiagnostics(ctx, diagnostics, opts);
  const checked: { file: string; ok: boolean; schedules: string[] }[] = [];
  for (const path of files) {
    const read = readSourceFile(path, limits.maxSourceBytes);
    pushAll(diagnostics, read.diagnostics);
    if (!read.file) {
      checked.push({ file: path, ok: false, schedules: [] });
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
    });
    pushAll(diagnostics, result.diagnostics);
    checked.push({ file: path, ok: result.ok, schedules: result.modules.map((m) => m.schedule) });
  }
  if (opts.format === "json") return reportJson(ctx, { files: checked }, diagnostics);
  return reportDiagnostics(ctx, diagnostics, opts);
}

export function registerCheck(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("check")
    .description(
      "parse, type-check, instantiate and verify .dmac files (postconditions, bounds, engines), reporting every error and warning",
    )
    .argument("<files...>", ".dmac source files");
  addScheduleOptions(cmd, "check only this schedule of each file (default: all of them)");
  addMaxOpsOption(cmd);
  addFrontEndLimitOptions(cmd);
  cmd.option("--watch", WATCH_HELP);
  addDiagnosticOptions(cmd).action(async (files: string[], opts: CheckCommandOptions) => {
    ctx.exit(await runOrWatch(ctx, files, opts, (c) => runCheck(files, opts, c)));
  });
}
