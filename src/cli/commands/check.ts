// `dmac check FILE...`: parse, check, instantiate and verify each file (analyzeSource in
// src/pipeline.ts) and report every diagnostic. Exit 0 when there are no errors (warnings
// allowed), 1 otherwise.

import { dirname } from "node:path";
import type { Command } from "commander";
import { analyzeSource } from "../../pipeline.js";
import type { Diagnostic } from "../../diagnostics/diagnostic.js";
import type { CliContext } from "../main.js";
import type { ColorMode, DiagnosticFormat } from "../io.js";
import {
  addDefineOption,
  addDiagnosticOptions,
  addFrontEndLimitOptions,
  parseFrontEndLimits,
  type FrontEndLimitOptions,
  parseDefines,
  parsePositiveInt,
  readSourceFile,
  readTargetOption,
  reportDiagnostics,
} from "../options.js";

export interface CheckCommandOptions extends FrontEndLimitOptions {
  readonly define?: string[] | undefined;
  readonly schedule?: string | undefined;
  readonly target?: string | undefined;
  readonly maxOps?: string | undefined;
  readonly format: DiagnosticFormat;
  readonly color: ColorMode;
}

export function runCheck(
  files: readonly string[],
  opts: CheckCommandOptions,
  ctx: CliContext,
): number {
  const defines = parseDefines(opts.define);
  const target = readTargetOption(opts.target);
  const maxOps = parsePositiveInt("--max-ops", opts.maxOps);
  const limits = parseFrontEndLimits(opts);
  const diagnostics: Diagnostic[] = [
    ...defines.diagnostics,
    ...target.diagnostics,
    ...maxOps.diagnostics,
    ...limits.diagnostics,
  ];
  if (diagnostics.length === 0) {
    for (const path of files) {
      const read = readSourceFile(path);
      diagnostics.push(...read.diagnostics);
      if (!read.file) continue;
      const result = analyzeSource(read.file, {
        defines: defines.defines,
        schedule: opts.schedule,
        baseDir: dirname(path),
        targetOverride: target.target,
        maxOps: maxOps.value,
        maxSourceBytes: limits.maxSourceBytes,
        maxNesting: limits.maxNesting,
      });
      diagnostics.push(...result.diagnostics);
    }
  }
  return reportDiagnostics(ctx, diagnostics, opts);
}

export function registerCheck(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("check")
    .description(
      "parse, type-check, instantiate and verify .dmac files (postconditions, bounds, engines), reporting every error and warning",
    )
    .argument("<files...>", ".dmac source files");
  addDefineOption(cmd)
    .option("--schedule <name>", "check only this schedule of each file (default: all of them)")
    .option("--target <file>", "use this target description (JSON) instead of the file's 'target'")
    .option(
      "--max-ops <n>",
      "limit on the operations a schedule may instantiate (default 4000000)",
    );
  addFrontEndLimitOptions(cmd);
  addDiagnosticOptions(cmd).action((files: string[], opts: CheckCommandOptions) => {
    ctx.exit(runCheck(files, opts, ctx));
  });
}
