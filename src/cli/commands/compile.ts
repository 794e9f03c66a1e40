// `dmac compile FILE -o DIR`: compile one schedule and write manifest.json and gpu<G>.sdma<E>.bin
// (and on request dump.txt, --dump or --emit sdma,dump, and trace.json, --emit trace) into DIR,
// atomically (backend/output.ts). `--format json`: what was written and the -O2 plan as one
// document (schemas/compile.schema.json); the optimiser's text reports then go to stderr.
// Exit 0 on success (warnings allowed), 1 on errors in the input.

import { statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import type { Command } from "commander";
import {
  buildOutputs,
  cudaBatches,
  compileToQueues,
  DEFAULT_MAX_PACKETS,
  EMIT_KINDS,
  type EmitKind,
  type OptimiseReport,
  type OutputFile,
} from "../../backend/compile-pipeline.js";
import { OutputError, writeOutputDir } from "../../backend/output.js";
import { buildCudaOutputs } from "../../backend/cuda/outputs.js";
import { cudaOf } from "../../target/cuda-target.js";
import { passesKeepLowering } from "../../passes/index.js";
import { diag, hasErrors, type Diagnostic } from "../../diagnostics/diagnostic.js";
// ---- optimiser hook (options shared with sim and sweep: ../opt-options.ts) ----
import {
  addOptOptions,
  optimiserReport,
  parseOptOptions,
  type OptCommandOptions,
} from "../opt-options.js";
// ---- end optimiser hook ----
import type { CliContext } from "../main.js";
import { planJson, reportJson, wantsJson } from "../json-output.js";
import { startProgress } from "../progress.js";
import {
  addDiagnosticOptions,
  addOutOption,
  addQuietOption,
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
import { isBuiltinTargetName } from "../../target/target.js";

/** Options shared by `compile` and `golden` (as commander delivers them). */
export interface BuildCommandOptions
  extends ScheduleCommandOptions, FrontEndLimitOptions, OptCommandOptions {
  readonly emit?: string | undefined;
  /** --dump: add dump.txt to what --emit asks for. */
  readonly dump?: boolean | undefined;
  /** --raw (compile only): dump.txt in the plain form, addresses in hex and no source lines. */
  readonly raw?: boolean | undefined;
  readonly maxCopyBytes?: string | undefined;
  readonly conservativeCount?: boolean | undefined;
  /** --breadcrumbs: each queue FENCEs its step number after every command group. */
  readonly breadcrumbs?: boolean | undefined;
  readonly maxStreamBytes?: string | undefined;
  readonly maxPackets?: string | undefined;
  readonly maxOps?: string | undefined;
}

export interface CompileCommandOptions extends BuildCommandOptions, DiagnosticOutput {
  /** -o/--out (or the older --output). */
  readonly output: string;
  readonly quiet?: boolean | undefined;
}

/** Parses the `--emit` list (default: sdma); `dump` (--dump) adds dump.txt to it. */
export function parseEmit(
  text: string | undefined,
  dump = false,
): {
  emit: EmitKind[];
  diagnostics: Diagnostic[];
} {
  const items = (text ?? "sdma")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const bad = items.filter((s) => !(EMIT_KINDS as readonly string[]).includes(s));
  if (bad.length > 0 || items.length === 0) {
    return {
      emit: [],
      diagnostics: [
        diag("DMAC5004", undefined, ["--emit", `'${text}': choose from ${EMIT_KINDS.join(", ")}`]),
      ],
    };
  }
  if (dump) items.push("dump");
  return { emit: EMIT_KINDS.filter((k) => items.includes(k)), diagnostics: [] };
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
} {
  const common = parseScheduleOptions(opts);
  const emit = parseEmit(opts.emit, opts.dump === true);
  const maxCopy = parsePositiveInt("--max-copy-bytes", opts.maxCopyBytes);
  const maxStream = parsePositiveInt("--max-stream-bytes", opts.maxStreamBytes);
  const maxPackets = parsePositiveInt("--max-packets", opts.maxPackets);
  const maxOps = parsePositiveInt("--max-ops", opts.maxOps);
  const limits = parseFrontEndLimits(opts);
  const diagnostics: Diagnostic[] = [
    ...limits.diagnostics,
    ...common.diagnostics,
    ...emit.diagnostics,
    ...maxCopy.diagnostics,
    ...maxStream.diagnostics,
    ...maxPackets.diagnostics,
    ...maxOps.diagnostics,
  ];
  // ---- optimiser hook: --completion takes a protocol (atomic|fence) and/or a policy
  // (per-op|per-queue), comma-separated; the policy goes to the passes ----
  const optimiser = parseOptOptions(opts, common.target);
  pushAll(diagnostics, optimiser.diagnostics);
  // ---- end optimiser hook ----
  if (maxCopy.value !== undefined && opts.conservativeCount) {
    diagnostics.push(
      diag("DMAC5004", undefined, [
        "--max-copy-bytes",
        "give either --max-copy-bytes or --conservative-count",
      ]),
    );
  }
  if (hasErrors(diagnostics)) return { diagnostics, files: undefined };
  const read = readSourceFile(path, limits.maxSourceBytes);
  if (!read.file) return { diagnostics: [...diagnostics, ...read.diagnostics], files: undefined };
  const file = read.file;
  const q = compileToQueues(file, {
    defines: common.defines,
    schedule: opts.schedule,
    baseDir: dirname(path),
    targetOverride: common.target,
    maxOps: maxOps.value,
    completion: optimiser.protocol,
    sync: optimiser.sync,
    breadcrumbs: opts.breadcrumbs === true,
    maxCopyBytes: maxCopy.value,
    conservativeCount: opts.conservativeCount === true,
    // optimiser hook: at -O0 with default options the passes would return the lowering
    // unchanged; skipping them is most of a big compile's time (docs/performance.md). They still
    // run when --stats asks what they did.
    passes:
      optimiser.passes && (opts.stats || !passesKeepLowering(optimiser.passes))
        ? optimiser.passes
        : undefined,
    maxSourceBytes: limits.maxSourceBytes,
    maxNesting: limits.maxNesting,
    maxPackets: maxPackets.value,
    onPlanProgress,
  });
  pushAll(diagnostics, q.diagnostics);
  if (!q.compiled) return { diagnostics, files: undefined };
  const cuda = cudaOf(q.compiled.target) !== undefined;
  if (cuda) {
    // Never a silent no-op: these options shape SDMA output, which a CUDA target does not write.
    for (const option of sdmaOnlyOptions(opts))
      diagnostics.push(
        diag("DMAC5004", undefined, [
          option,
          `target ${q.compiled.target.name} has the CUDA back end, which writes program.json and program.txt (docs/cuda.md): no SDMA packets, listing, trace or breadcrumbs`,
        ]),
      );
    if (hasErrors(diagnostics)) return { diagnostics, files: undefined };
  }
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
  // A CUDA target (h100, h200) gets its command program instead of packet streams.
  const out = cuda
    ? buildCudaOutputs(file, q.compiled, {
        batch: cudaBatches(optimiser.passes),
        source: paths?.source,
      })
    : buildOutputs(file, q.compiled, {
        emit: emit.emit,
        maxStreamBytes: maxStream.value,
        paths,
        rawDump: opts.raw === true,
      });
  const report = optimiserReport(q.compiled.optimised, opts); // optimiser hook
  return {
    diagnostics: [...diagnostics, ...out.diagnostics],
    files: out.files,
    report,
    optimised: q.compiled.optimised,
  };
}

/** The options given that only SDMA output honours (--emit beyond sdma, --dump, --raw, ...). */
function sdmaOnlyOptions(opts: BuildCommandOptions): string[] {
  const given: [string, boolean][] = [
    ["--dump", opts.dump === true],
    ["--emit", parseEmit(opts.emit).emit.some((k) => k !== "sdma")],
    ["--raw", opts.raw === true],
    ["--breadcrumbs", opts.breadcrumbs === true],
    ["--max-stream-bytes", opts.maxStreamBytes !== undefined],
  ];
  return given.filter(([, on]) => on).map(([name]) => name);
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
