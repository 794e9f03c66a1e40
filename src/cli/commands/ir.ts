// `dmac ir FILE`: parse, check and instantiate one schedule and print its IR in the text form
// (src/ir/print.ts); `--dump-deps` also infers and prints the happens-before edges. The IR goes to
// stdout and diagnostics to stderr; with --format json, one document holds both (the IR text,
// the schedule's name and the diagnostics: schemas/ir.schema.json).
// Exit 0 when the IR was printed (warnings allowed), 1 on errors in the input.

import { dirname } from "node:path";
import type { Command } from "commander";
import { hasErrors, sortDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { renderDiagnostics } from "../../diagnostics/render.js";
import { instantiateSource } from "../../driver/analyze.js";
import { printIr } from "../../ir/print.js";
import type { CliContext } from "../main.js";
import { EXIT_OK, EXIT_USER_ERROR, useColor } from "../io.js";
import { reportJson } from "../json-output.js";
import {
  addMaxOpsOption,
  addScheduleOptions,
  parsePositiveInt,
  parseScheduleOptions,
  readSourceFile,
  type ScheduleCommandOptions,
} from "../../options/options.js";
import { addDiagnosticOptions, type DiagnosticOutput } from "../options.js";
import { pushAll } from "../../util/arrays.js";

export interface IrCommandOptions extends ScheduleCommandOptions, DiagnosticOutput {
  readonly maxOps?: string | undefined;
  readonly dumpDeps?: boolean | undefined;
}

/** The IR text of one schedule of `path`, or undefined with the diagnostics that prevented it. */
export function irText(
  path: string,
  opts: IrCommandOptions,
): { text: string | undefined; diagnostics: Diagnostic[]; schedule?: string | undefined } {
  const common = parseScheduleOptions(opts);
  const maxOps = parsePositiveInt("--max-ops", opts.maxOps);
  const diagnostics: Diagnostic[] = [...common.diagnostics, ...maxOps.diagnostics];
  if (hasErrors(diagnostics)) return { text: undefined, diagnostics };
  const read = readSourceFile(path);
  pushAll(diagnostics, read.diagnostics);
  if (!read.file) return { text: undefined, diagnostics };
  const result = instantiateSource(read.file, {
    defines: common.defines,
    schedule: opts.schedule,
    baseDir: dirname(path),
    targetOverride: common.target,
    maxOps: maxOps.value,
    deps: opts.dumpDeps,
  });
  pushAll(diagnostics, result.diagnostics);
  const module = result.module;
  if (!module) return { text: undefined, diagnostics };
  return {
    text: printIr(module, { deps: opts.dumpDeps === true }),
    diagnostics,
    schedule: module.schedule,
  };
}

export function runIr(path: string, opts: IrCommandOptions, ctx: CliContext): number {
  const { text, diagnostics, schedule } = irText(path, opts);
  if (opts.format === "json") {
    const ir = text !== undefined ? { schedule, deps: opts.dumpDeps === true, ir: text } : {};
    return reportJson(ctx, { input: path, ...ir }, diagnostics, text === undefined);
  }
  if (text !== undefined) ctx.streams.out(text);
  const sorted = sortDiagnostics(diagnostics);
  if (sorted.length > 0) {
    const color = useColor(opts.color, ctx.streams);
    ctx.streams.err(renderDiagnostics(sorted, opts.format, { color }));
  }
  return text !== undefined && !hasErrors(sorted) ? EXIT_OK : EXIT_USER_ERROR;
}

export function registerIr(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("ir")
    .description("instantiate one schedule and print its IR in its text form")
    .argument("<file>", ".dmac source file");
  addScheduleOptions(cmd, "the schedule to instantiate (needed when the file has several)").option(
    "--dump-deps",
    "also infer and print the happens-before edges ('deps' lines)",
  );
  addMaxOpsOption(cmd);
  addDiagnosticOptions(cmd).action((file: string, opts: IrCommandOptions) => {
    ctx.exit(runIr(file, opts, ctx));
  });
}
