// `dmac sim INPUT...` (INPUT: FILE.dmac | DIR | DIR/manifest.json | trace.json): runs compiled
// streams on the simulated node (src/sim) and prints a summary; --json for tools, --trace for a
// Chrome trace. A .dmac file is compiled in memory with the optimiser options of `compile`
// (-O, --engines, --prelaunch, ...: ../opt-options.ts); for a manifest or trace the source named
// by its source map is recompiled (when it can be found) to check the postcondition against the
// IR. With several inputs, one compact line each (exit 1 if any fails to verify).

import { existsSync, readFileSync, statSync } from "node:fs";
import { OutputError, writeOutputFile } from "../../backend/output.js";
import { dirname, isAbsolute, join, resolve } from "node:path";
import type { Command } from "commander";
import {
  buildOutputs,
  compileToQueues,
  outputText,
  type OptimiseReport,
} from "../../backend/compile-pipeline.js";
import type { Manifest } from "../../backend/sdma/manifest.js";
import type { Trace } from "../../backend/trace/trace.js";
import { diag, hasErrors, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { PassOptions } from "../../passes/pass.js";
import type { PlanResult } from "../../passes/plan.js";
import type { CompletionProtocol } from "../../queues/queue-program.js";
import type { TypeName } from "../../frontend/ast.js";
import type { IrModule } from "../../ir/ir.js";
import { chromeTrace } from "../../sim/chrome-trace.js";
import { simulate, type SimInput, type SimResult } from "../../sim/run.js";
import { validateManifest, validateTrace } from "../../sim/validate-input.js";
import { summaryJson, summaryLine, summaryText } from "../../sim/summary.js";
import { makeSourceFile } from "../../source/source-file.js";
import { builtinTarget, type Target } from "../../target/target.js";
import type { CliContext } from "../main.js";
import { EXIT_OK, EXIT_USER_ERROR } from "../io.js";
import {
  addOptOptions,
  optimiserReport,
  parseOptOptions,
  type OptCommandOptions,
} from "../opt-options.js";
import {
  addDiagnosticOptions,
  addScheduleOptions,
  parsePositiveInt,
  parseScheduleOptions,
  readSourceFile,
  reportDiagnostics,
  type DiagnosticOutput,
  type ScheduleCommandOptions,
} from "../options.js";

export interface SimCommandOptions
  extends ScheduleCommandOptions, OptCommandOptions, DiagnosticOutput {
  readonly json?: boolean | undefined;
  readonly trace?: string | undefined;
  readonly signalPeriod?: string | undefined;
  readonly maxEvents?: string | undefined;
  readonly maxSimTime?: string | undefined;
  readonly verbose?: boolean | undefined;
}

export interface LoadedInput {
  readonly input: SimInput;
  readonly target: Target;
  /** What the optimiser did (a .dmac compiled in memory). */
  readonly optimised?: OptimiseReport | undefined;
  /** The manifest or trace file it was read from (named by DMAC6011 reports). */
  readonly file?: string | undefined;
}

/** How a .dmac input is compiled: the optimiser's options (opt-options.ts) and lowering knobs. */
export interface SimCompileOptions {
  readonly schedule?: string | undefined;
  readonly target?: Target | undefined;
  readonly maxCopyBytes?: number | undefined;
  readonly completion?: CompletionProtocol | undefined;
  /** The passes (absent: the program exactly as lowered, i.e. the -O0 baseline). */
  readonly passes?: PassOptions | undefined;
}

function badOption(option: string, detail: string): Diagnostic {
  return diag("DMAC5004", undefined, [option, detail]);
}

/** A positive number of microseconds (fractions allowed). */
export function parseMicros(
  option: string,
  text: string | undefined,
): { value: number | undefined; diagnostics: Diagnostic[] } {
  if (text === undefined) return { value: undefined, diagnostics: [] };
  const v = Number(text.replace(/us$/, ""));
  if (!Number.isFinite(v) || v <= 0)
    return {
      value: undefined,
      diagnostics: [badOption(option, `'${text}' is not a positive number of microseconds`)],
    };
  return { value: v, diagnostics: [] };
}

/** Compiles a .dmac in memory into the executor's input (manifest + streams + IR). */
export function compileForSim(
  path: string,
  text: string,
  defines: Record<string, string>,
  opts: SimCompileOptions,
): { loaded: LoadedInput | undefined; diagnostics: Diagnostic[] } {
  const file = makeSourceFile(path, text);
  const q = compileToQueues(file, {
    defines,
    schedule: opts.schedule,
    baseDir: dirname(path),
    targetOverride: opts.target,
    maxCopyBytes: opts.maxCopyBytes,
    completion: opts.completion,
    passes: opts.passes,
  });
  if (!q.compiled) return { loaded: undefined, diagnostics: q.diagnostics };
  const out = buildOutputs(file, q.compiled, { emit: ["sdma"] });
  const diagnostics = [...q.diagnostics, ...out.diagnostics];
  if (!out.files || hasErrors(diagnostics)) return { loaded: undefined, diagnostics };
  let manifest: Manifest | undefined;
  const streams = new Map<string, Uint32Array>();
  for (const f of out.files) {
    if (f.name === "manifest.json") manifest = JSON.parse(outputText(f)) as Manifest;
    else if (f.name.endsWith(".bin") && f.data instanceof Uint8Array)
      streams.set(
        f.name,
        new Uint32Array(
          f.data.buffer.slice(f.data.byteOffset, f.data.byteOffset + f.data.byteLength),
        ),
      );
  }
  if (!manifest) return { loaded: undefined, diagnostics };
  return {
    loaded: {
      input: { manifest, streams, module: q.compiled.module },
      target: q.compiled.target,
      optimised: q.compiled.optimised,
    },
    diagnostics,
  };
}

function readJson(path: string): { json: unknown; bytes: number; diagnostics: Diagnostic[] } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    return {
      json: undefined,
      bytes: 0,
      diagnostics: [
        diag("DMAC5001", undefined, [path, e instanceof Error ? e.message : String(e)]),
      ],
    };
  }
  try {
    return { json: JSON.parse(text), bytes: Buffer.byteLength(text), diagnostics: [] };
  } catch (e) {
    // Not JSON at all: the executor-input code, with the parser's reason.
    return {
      json: undefined,
      bytes: 0,
      diagnostics: [
        diag("DMAC6011", undefined, [
          path,
          "$",
          `not valid JSON (${e instanceof Error ? e.message : String(e)})`,
        ]),
      ],
    };
  }
}

/** Recompiles the source named by a manifest/trace, for the postcondition (undefined if absent). */
function moduleFor(
  sourceFile: string | undefined,
  baseDir: string,
  params: readonly { name: string; type: TypeName; value: number | boolean }[],
  schedule: string,
): IrModule | undefined {
  if (!sourceFile) return undefined;
  const candidates = isAbsolute(sourceFile)
    ? [sourceFile]
    : [resolve(sourceFile), join(baseDir, sourceFile)];
  const path = candidates.find((c) => existsSync(c));
  if (!path) return undefined;
  // Each parameter as a constant of its own type: `B` marks byte counts.
  const defines = Object.fromEntries(
    params.map((p) => [p.name, p.type === "bytes" ? `${String(p.value)}B` : String(p.value)]),
  );
  const q = compileToQueues(makeSourceFile(path, readFileSync(path, "utf8")), {
    defines,
    schedule,
    baseDir: dirname(path),
  });
  if (q.compiled) return q.compiled.module;
  return undefined;
}

/**
 * Loads FILE.dmac, DIR, DIR/manifest.json or trace.json into the executor's input. The compile
 * options other than schedule and target apply to .dmac inputs only (`optimiserGiven` says the
 * user asked for them, which is an error for an input that is already compiled).
 */
export function loadSimInput(
  path: string,
  defines: Record<string, string>,
  opts: SimCompileOptions & { readonly optimiserGiven?: boolean | undefined },
): { loaded: LoadedInput | undefined; diagnostics: Diagnostic[] } {
  let p = path;
  try {
    if (statSync(p).isDirectory()) p = join(p, "manifest.json");
  } catch {
    return {
      loaded: undefined,
      diagnostics: [diag("DMAC5001", undefined, [path, "no such file or directory"])],
    };
  }
  if (p.endsWith(".dmac")) {
    const read = readSourceFile(p);
    if (!read.file) return { loaded: undefined, diagnostics: read.diagnostics };
    return compileForSim(p, read.file.text, defines, opts);
  }
  if (opts.optimiserGiven)
    return {
      loaded: undefined,
      diagnostics: [
        badOption(
          "-O/--engines/--prelaunch/--completion/--disable-pass",
          `${p} is already compiled; optimisation options apply to .dmac inputs (recompile it with dmac compile)`,
        ),
      ],
    };
  const { json, bytes, diagnostics } = readJson(p);
  if (json === undefined) return { loaded: undefined, diagnostics };
  const kind =
    typeof json === "object" && json !== null ? (json as { kind?: unknown }).kind : undefined;
  const dir = dirname(p);
  if (kind === "dmac-manifest") {
    // Validated before its queue files are read or its source recompiled (src/sim/validate-input.ts).
    const invalid = validateManifest(json, { file: p, fileBytes: bytes });
    if (invalid) return { loaded: undefined, diagnostics: [invalid] };
    const manifest = json as Manifest;
    const target = opts.target ?? builtinTarget(manifest.target);
    if (!target)
      return { loaded: undefined, diagnostics: [diag("DMAC2006", undefined, [manifest.target])] };
    const streams = new Map<string, Uint32Array>();
    for (const q of manifest.queues) {
      try {
        const b = readFileSync(join(dir, q.file));
        streams.set(
          q.file,
          new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + (b.byteLength & ~3))),
        );
      } catch (e) {
        return {
          loaded: undefined,
          diagnostics: [
            diag("DMAC5001", undefined, [
              join(dir, q.file),
              e instanceof Error ? e.message : String(e),
            ]),
          ],
        };
      }
    }
    const module = moduleFor(manifest.sourceMap.file, dir, manifest.params, manifest.schedule);
    return { loaded: { input: { manifest, streams, module }, target, file: p }, diagnostics: [] };
  }
  if (kind === "dmac-trace") {
    const invalid = validateTrace(json, { file: p, fileBytes: bytes });
    if (invalid) return { loaded: undefined, diagnostics: [invalid] };
    const trace = json as Trace;
    const target = opts.target ?? builtinTarget(trace.target);
    if (!target)
      return { loaded: undefined, diagnostics: [diag("DMAC2006", undefined, [trace.target])] };
    const module = trace.source
      ? moduleFor(trace.source, dirname(p), trace.params, trace.schedule)
      : undefined;
    return { loaded: { input: { trace, module }, target, file: p }, diagnostics: [] };
  }
  return {
    loaded: undefined,
    diagnostics: [
      badOption("input", `${p} is neither a .dmac file, a dmac manifest nor a dmac trace`),
    ],
  };
}

/** Did the user give any optimiser option (as opposed to the defaults)? */
function optimiserGiven(o: SimCommandOptions): boolean {
  return (
    o.opt !== undefined ||
    o.engines !== undefined ||
    o.completion !== undefined ||
    o.prelaunch === true ||
    (o.disablePass?.length ?? 0) > 0 ||
    (o.dumpAfter?.length ?? 0) > 0
  );
}

/** The plan of an -O2 compilation as JSON (for --json). */
function planJson(plan: PlanResult | undefined): unknown {
  if (!plan) return undefined;
  return {
    chosen: plan.chosen.label,
    predictedUs: plan.chosen.timeUs,
    searchMs: plan.searchMs,
    candidates: plan.entries.map((e) => ({
      label: e.label,
      predictedUs: e.timeUs,
      verified: e.verified,
      ...(e.sameAs !== undefined ? { sameAs: e.sameAs } : {}),
      ...(e.note !== undefined ? { note: e.note } : {}),
    })),
  };
}

interface InputRun {
  readonly path: string;
  readonly result: SimResult | undefined;
  readonly diagnostics: Diagnostic[];
  readonly optimised: OptimiseReport | undefined;
}

function firstProblem(diagnostics: readonly Diagnostic[]): string | undefined {
  const d = diagnostics.find((x) => x.severity === "error");
  return d ? `${d.code} ${d.message}` : undefined;
}

export function runSim(
  inputs: string | readonly string[],
  opts: SimCommandOptions,
  ctx: CliContext,
): number {
  const paths = typeof inputs === "string" ? [inputs] : inputs;
  const common = parseScheduleOptions(opts);
  const period = parseMicros("--signal-period", opts.signalPeriod);
  const maxEvents = parsePositiveInt("--max-events", opts.maxEvents);
  const maxSim = parseMicros("--max-sim-time", opts.maxSimTime);
  const optimiser = parseOptOptions(opts, common.target);
  const pre = [
    ...common.diagnostics,
    ...period.diagnostics,
    ...maxEvents.diagnostics,
    ...maxSim.diagnostics,
    ...optimiser.diagnostics,
  ];
  if (opts.trace !== undefined && paths.length > 1)
    pre.push(badOption("--trace", "give a single input to write a Chrome trace"));
  if (pre.length > 0) return reportDiagnostics(ctx, pre, opts);
  const runOne = (path: string): InputRun => {
    const load = loadSimInput(path, common.defines, {
      schedule: opts.schedule,
      target: common.target,
      completion: optimiser.protocol,
      passes: optimiser.passes,
      optimiserGiven: optimiserGiven(opts),
    });
    if (!load.loaded)
      return { path, result: undefined, diagnostics: load.diagnostics, optimised: undefined };
    const result = simulate(load.loaded.input, {
      target: load.loaded.target,
      inputFile: load.loaded.file,
      signalPeriodUs: period.value,
      maxEvents: maxEvents.value,
      maxSimTimeUs: maxSim.value,
      record: opts.trace !== undefined,
    });
    return {
      path,
      result,
      diagnostics: [...load.diagnostics, ...result.diagnostics],
      optimised: load.loaded.optimised,
    };
  };
  if (paths.length === 1) return reportOne(runOne(paths[0]!), opts, ctx);

  // Several inputs: one compact line (or one JSON object) each.
  const runs: InputRun[] = [];
  for (const path of paths) {
    const run = runOne(path);
    runs.push(run);
    const report = optimiserReport(run.optimised, opts);
    if (report !== undefined && !opts.json) ctx.streams.out(`# ${path}\n${report}`);
  }
  const failed = runs.some((r) => hasErrors(r.diagnostics) || !r.result?.program);
  if (opts.json) {
    ctx.streams.out(
      JSON.stringify(
        runs.map((r) => ({
          input: r.path,
          ...(r.result
            ? (summaryJson({ ...r.result, diagnostics: r.diagnostics }) as object)
            : { verified: false, diagnostics: jsonDiagnostics(r.diagnostics) }),
          ...(r.optimised?.plan ? { plan: planJson(r.optimised.plan) } : {}),
        })),
        null,
        2,
      ) + "\n",
    );
    return failed ? EXIT_USER_ERROR : EXIT_OK;
  }
  if (opts.verbose)
    for (const r of runs) if (r.diagnostics.length > 0) reportDiagnostics(ctx, r.diagnostics, opts);
  const width = Math.max(...runs.map((r) => r.path.length));
  for (const r of runs)
    ctx.streams.out(summaryLine(r.path, r.result, firstProblem(r.diagnostics), width) + "\n");
  return failed ? EXIT_USER_ERROR : EXIT_OK;
}

function jsonDiagnostics(diagnostics: readonly Diagnostic[]): unknown[] {
  return diagnostics.map((d) => ({
    code: d.code,
    severity: d.severity,
    message: d.message,
    hint: d.hint,
  }));
}

/** One input: the optimiser's report, then the full summary (or JSON), and the exit code. */
function reportOne(run: InputRun, opts: SimCommandOptions, ctx: CliContext): number {
  const diagnostics = [...run.diagnostics];
  const result = run.result;
  if (!result) return reportDiagnostics(ctx, diagnostics, opts);
  if (opts.trace !== undefined && result.program) {
    try {
      writeOutputFile(opts.trace, JSON.stringify(chromeTrace(result.program, result)) + "\n", {
        inputs: [run.path, ...(opts.target !== undefined ? [opts.target] : [])],
      });
    } catch (e) {
      if (!(e instanceof OutputError)) throw e;
      diagnostics.push(diag("DMAC5002", undefined, [e.path, e.reason]));
    }
  }
  if (opts.json) {
    const json = {
      ...(summaryJson({ ...result, diagnostics }) as object),
      ...(run.optimised?.plan ? { plan: planJson(run.optimised.plan) } : {}),
    };
    ctx.streams.out(JSON.stringify(json, null, 2) + "\n");
    return hasErrors(diagnostics) ? EXIT_USER_ERROR : EXIT_OK;
  }
  const report = optimiserReport(run.optimised, opts);
  if (report !== undefined) ctx.streams.out(report);
  const code = reportDiagnostics(ctx, diagnostics, opts);
  if (result.program)
    ctx.streams.out(summaryText({ ...result, diagnostics }, { verbose: opts.verbose }));
  return code;
}

export function registerSim(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("sim")
    .description(
      "run compiled packet streams (or a .dmac, compiled in memory, or a trace) on the simulated MI300X node",
    )
    .argument(
      "<inputs...>",
      "FILE.dmac, an output DIR, DIR/manifest.json or trace.json; several give one line each",
    );
  addScheduleOptions(
    cmd,
    "the schedule to run when the file has several",
    "use this target description (JSON) instead of the built-in one",
  )
    .option("--json", "print the summary as JSON on stdout (an array with several inputs)")
    .option(
      "-v, --verbose",
      "list every engine and link (and, with several inputs, every diagnostic)",
    )
    .option("--trace <out.json>", "write a Chrome trace-event file (open it in Perfetto)")
    .option(
      "--signal-period <us>",
      "raise each external signal by one every this many microseconds (default: at time 0)",
    )
    .option("--max-events <n>", "watchdog: stop after this many events (default 200000000)")
    .option(
      "--max-sim-time <us>",
      "watchdog: stop at this simulated time in microseconds (default 1e9)",
    );
  addOptOptions(cmd, { passReports: true });
  addDiagnosticOptions(cmd).action((inputs: string[], opts: SimCommandOptions) => {
    ctx.exit(runSim(inputs, opts, ctx));
  });
}
