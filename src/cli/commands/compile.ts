// `dmac compile FILE -o DIR`: compile one schedule and write manifest.json and gpu<G>.sdma<E>.bin
// (and on request dump.txt, --dump or --emit sdma,dump, and trace.json, --emit trace) into DIR,
// atomically (backend/output.ts). `--format json`: what was written and the -O2 plan as one
// document (schemas/compile.schema.json); the optimiser's text reports then go to stderr.
// Exit 0 on success (warnings allowed), 1 on errors in the input.

import { formatTime } from "../../util/format-time.js";
import { statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { DEFAULT_MAX_PACKETS } from "../../driver/compile.js";
import type { OptimiseReport } from "../../passes/optimise-report.js";
import { OutputError, writeOutputDir, type OutputFile } from "../../backend/output.js";
import { diag, hasErrors, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { buildSchedule, parseBuildOptions, type BuildOptionText } from "../../driver/build.js";
// optimiser hook (options shared with sim and sweep: ../opt-options.ts)
import { addOptOptions, optimiserReport } from "../../options/opt-options.js";
import type { CliContext } from "../main.js";
import { planJson, reportJson, wantsJson } from "../json-output.js";
import { startProgress } from "../progress.js";
import {
  addFrontEndLimitOptions,
  addMaxOpsOption,
  addScheduleOptions,
  parseScheduleOptions,
  readSourceFile,
  type ScheduleCommandOptions,
} from "../../options/options.js";
import {
  addDiagnosticOptions,
  addOutOption,
  addQuietOption,
  reportDiagnostics,
  type DiagnosticOutput,
} from "../options.js";
import { isBuiltinTargetName } from "../../target/target.js";

/** Options of `compile` (as commander delivers them); build.ts checks them. */
export interface BuildCommandOptions extends ScheduleCommandOptions, BuildOptionText {}

export interface CompileCommandOptions extends BuildCommandOptions, DiagnosticOutput {
  /** -o/--out (or the older --output). */
  readonly output: string;
  readonly quiet?: boolean | undefined;
}

/** Compiles the file at `path` to its output files (no I/O besides reading sources/targets). */
export function compileFileToOutputs(
  path: string,
  opts: BuildCommandOptions,
  outputDir?: string,
  onPlanProgress?: (done: number, total: number, label: string) => void,
): {
  diagnostics: Diagnostic[];
  files: OutputFile[] | undefined;
  report?: string | undefined;
  optimised?: OptimiseReport | undefined;
  /** A CUDA target's: which, and the predicted time (dmac sim does not run command programs). */
  cuda?:
    | {
        readonly target: string;
        readonly predictedUs: number | undefined;
        /** -O2's choice (cudaBatchesPay): false where one call per copy was predicted faster. */
        readonly batches: boolean | undefined;
      }
    | undefined;
} {
  const common = parseScheduleOptions(opts);
  const parsed = parseBuildOptions(opts, common.target);
  const diagnostics: Diagnostic[] = [...common.diagnostics, ...parsed.diagnostics];
  if (!parsed.options || hasErrors(diagnostics)) return { diagnostics, files: undefined };
  const read = readSourceFile(path, parsed.options.maxSourceBytes);
  if (!read.file) return { diagnostics: [...diagnostics, ...read.diagnostics], files: undefined };
  // The outputs record the source and --target file relative to the output directory, so that
  // `dmac sim DIR` finds them from any working directory (docs/manifest.md).
  const from = (p: string): string => relative(resolve(outputDir ?? "."), resolve(p));
  const paths =
    outputDir !== undefined
      ? {
          source: from(path),
          targetFile: targetFileOption(opts) !== undefined ? from(opts.target!) : null,
          // A built-in --target overrides the source's own `target` too: recorded by name.
          ...(opts.target !== undefined && isBuiltinTargetName(opts.target)
            ? { targetBuiltin: opts.target }
            : {}),
        }
      : undefined;
  const built = buildSchedule(
    {
      file: read.file,
      defines: common.defines,
      schedule: opts.schedule,
      baseDir: dirname(path),
      target: common.target,
    },
    parsed.options,
    { emit: ["sdma"], paths, onPlanProgress },
  );
  const optimised = built.compiled?.optimised;
  return {
    diagnostics: [...diagnostics, ...built.diagnostics],
    files: built.files,
    report: optimiserReport(optimised, opts), // optimiser hook
    optimised,
    ...(built.cudaProgram && built.compiled
      ? {
          cuda: {
            target: built.compiled.target.name,
            predictedUs: built.cudaPredictedUs,
            batches: built.compiled.cudaBatch,
          },
        }
      : {}),
  };
}

/** --stats, --dump-after and --explain-plan text (printed on stdout by `compile`). */
export { optimiserReport };

export function runCompile(path: string, opts: CompileCommandOptions, ctx: CliContext): number {
  const json = wantsJson(opts);
  const progress = startProgress(ctx.streams, { quiet: opts.quiet, label: "compile" });
  const result = compileFileToOutputs(path, opts, opts.output, (done, total, label) =>
    progress.update(`plan ${label}`, done, total),
  );
  progress.end();
  // optimiser hook: its reports are text, on stderr when stdout carries the JSON document.
  if (result.report !== undefined) (json ? ctx.streams.err : ctx.streams.out)(result.report);
  const diagnostics = [...result.diagnostics];
  let written = false;
  if (result.files && !hasErrors(diagnostics)) {
    try {
      writeOutputDir(opts.output, result.files);
      written = true;
    } catch (e) {
      if (!(e instanceof OutputError)) throw e;
      diagnostics.push(diag("DMAC5002", undefined, [e.path, e.reason]));
    }
  }
  // What the copy-engine model predicts (`dmac sim` runs and checks the program: docs/cuda.md),
  // and where -O2 chose one call per copy over batches, that it did.
  if (written && result.cuda && !json)
    ctx.streams.out(
      `${opts.output}: a command program for ${result.cuda.target} (program.json, program.txt); predicted ${result.cuda.predictedUs === undefined ? "n/a" : formatTime(result.cuda.predictedUs)} by the copy-engine model (docs/cuda.md)${result.cuda.batches === false ? "; one call per copy, predicted faster than batches (docs/optimisations.md, -O2: the plan)" : ""}\n`,
    );
  if (!json) return reportDiagnostics(ctx, diagnostics, opts);
  const files = written
    ? result.files!.map((f) => ({ name: f.name, bytes: statSync(join(opts.output, f.name)).size }))
    : undefined;
  const plan = planJson(result.optimised?.plan);
  return reportJson(
    ctx,
    {
      input: path,
      ...(files ? { out: opts.output, files } : {}),
      ...(plan !== undefined ? { plan } : {}),
    },
    diagnostics,
  );
}

/** The files a build reads, which its outputs must never replace. */
/** `--target` when it names a file (not a built-in target, which the manifest names itself). */
function targetFileOption(opts: BuildCommandOptions): string | undefined {
  return opts.target !== undefined && !isBuiltinTargetName(opts.target) ? opts.target : undefined;
}

/** Adds the options `compile` and `golden` share. */
export function addBuildOptions(cmd: Command): Command {
  addScheduleOptions(cmd, "the schedule to compile when the file has several")
    .option(
      "--emit <list>",
      "what to write, comma-separated: sdma (manifest.json, .bin streams), dump (dump.txt, the streams' listing), trace (trace.json)",
      "sdma",
    )
    .option("--dump", "also write dump.txt (the same as adding dump to --emit)")
    .option(
      "--max-copy-bytes <n>",
      "split copies into packets of at most N bytes (default: the target's limit)",
    )
    .option("--conservative-count", "split copies at 0x3FFFE0 bytes (the 22-bit count reading)")
    .option(
      "--breadcrumbs",
      "hang forensics: each queue writes its step number into a host word after every command group (read back with dmac postmortem)",
    )
    .option("--max-stream-bytes <n>", "largest packet stream of one queue (default 268435456)")
    .option(
      "--max-packets <n>",
      `most data packets lowering may make, after splitting copies (DMAC4010; default ${DEFAULT_MAX_PACKETS})`,
    );
  addMaxOpsOption(cmd);
  addFrontEndLimitOptions(cmd);
  addOptOptions(cmd, { passReports: true, defaultLevel: "0" }); // optimiser hook
  return cmd;
}

export function registerCompile(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("compile")
    .description(
      "compile a schedule into SDMA packet streams and a manifest (on request a listing and a command trace)",
    )
    .argument("<file>", ".dmac source file");
  addOutOption(cmd, {
    value: "dir",
    help: "output directory: created, or replaced atomically if it is empty or an earlier dmac output",
    attr: "output",
    aliases: ["--output"],
    required: true,
  });
  addBuildOptions(cmd);
  cmd.option(
    "--raw",
    "write dump.txt plain: addresses in hex, no names, sizes, source lines or warnings (as dmac disasm --raw)",
  );
  addQuietOption(cmd);
  addDiagnosticOptions(cmd).action((file: string, opts: CompileCommandOptions) => {
    ctx.exit(runCompile(file, opts, ctx));
  });
}
