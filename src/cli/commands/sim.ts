// `dmac sim INPUT...` (INPUT: FILE.dmac | DIR | DIR/manifest.json | trace.json): runs compiled
// streams on the simulated node (src/sim) and prints a summary; --format json (--json) for tools,
// -o/--out (formerly --trace) for a Chrome trace (src/sim/chrome-trace.ts), --html/--open for a page
// that opens it in Perfetto UI; progress on stderr (cli/progress.ts). A .dmac
// file is compiled in memory with the optimiser options of `compile`
// (-O, --engines, --prelaunch, ...: ../opt-options.ts); for a manifest or trace the source it
// names (relative to it, docs/manifest.md) is read again with its parameters, schedule and
// --target file, through the front end only (the IR; no lowering), to check the postcondition
// and the schedule's meaning against it. When that is impossible the run
// fails (DMAC6020) unless --no-verify. Every file is read through src/util/read-input.ts
// (regular files only, size-checked first); packets are counted before anything runs
// (--max-packets, DMAC4010). With several inputs, one compact line each (exit 1 if any fails to
// verify).

import { BANDWIDTH_HELP } from "../../sim/bandwidth.js";
import { statSync } from "node:fs";
import { OutputError, writeOutputFile } from "../../backend/output.js";
import { writeOutputOrReport } from "../write-output.js";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import type { Command } from "commander";
import { compileForSim } from "../../driver/compile-for-sim.js";
import {
  DEFAULT_SIM_MAX_PACKETS,
  tooManyPackets,
  type LoadedInput,
  type SimCompileOptions,
} from "../../sim/loaded-input.js";
import type { Manifest } from "../../backend/sdma/manifest.js";
import type { OptimiseReport } from "../../passes/optimise-report.js";
import type { Trace } from "../../backend/trace/trace.js";
import { diag, hasErrors, sortDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { TypeName } from "../../frontend/ast.js";
import type { IrModule } from "../../ir/ir.js";
import { chromeTraceJson } from "../../sim/chrome-trace.js";
import { perfettoPageData } from "../../sim/trace/perfetto-page.js";
import { openInBrowser } from "../open-in-browser.js";
import { simulate, type SimResult } from "../../sim/run.js";
import { validateManifest, validateTrace } from "../../sim/validate-input.js";
import { readJsonInput, type JsonInput } from "./sim-json-input.js";
import { inlineFrontEnd, type FrontEndJob, type SourceModule } from "./sim-front-end.js";
import { HELPER_MIN_BYTES, SimHelper } from "./sim-helper.js";
import { summaryJson, summaryLine, summaryText } from "../../sim/summary.js";
import { builtinTarget, type Target } from "../../target/target.js";
import { InputFileError, readInputFile, regularFileSize } from "../../util/read-input.js";
import { countEntries } from "../../backend/sdma/decode.js";
import type { CliContext } from "../main.js";
import { EXIT_OK, EXIT_USER_ERROR } from "../io.js";
import {
  addOptOptions,
  optimiserReport,
  parseOptOptions,
  type OptCommandOptions,
} from "../../options/opt-options.js";
import {
  addScheduleOptions,
  parsePositiveInt,
  parseScheduleOptions,
  readErrorReason,
  readSourceFile,
  readTargetOption,
  type ScheduleCommandOptions,
} from "../../options/options.js";
import {
  addDiagnosticOptions,
  addOutOption,
  addQuietOption,
  reportDiagnostics,
  type DiagnosticOutput,
} from "../options.js";
import { maxOf } from "../../util/arrays.js";
import { jsonDiagnostics, renderDiagnostics } from "../../diagnostics/render.js";
import { planJson } from "../json-output.js";
import { startProgress } from "../progress.js";
import { parseExecutorOptions } from "../../options/executor-options.js";
import { runOrWatch, WATCH_HELP } from "../watch.js";

export interface SimCommandOptions
  extends ScheduleCommandOptions, OptCommandOptions, DiagnosticOutput {
  readonly json?: boolean | undefined;
  readonly trace?: string | undefined;
  readonly html?: string | undefined;
  readonly open?: boolean | undefined;
  /** --hold-signals: the external signals' producer never raises them. */
  readonly holdSignals?: boolean | undefined;
  /** --snapshot FILE: on a deadlock or the watchdog, the words a host could read (postmortem). */
  readonly snapshot?: string | undefined;
  readonly signalPeriod?: string | undefined;
  readonly maxEvents?: string | undefined;
  readonly maxSimTime?: string | undefined;
  readonly verbose?: boolean | undefined;
  readonly maxPackets?: string | undefined;
  /** false with --no-verify: run without checking the postcondition (and do not fail for it). */
  readonly verify?: boolean | undefined;
  readonly watch?: boolean | undefined;
  readonly quiet?: boolean | undefined;
}

function badOption(option: string, detail: string): Diagnostic {
  return diag("DMAC5004", undefined, [option, detail]);
}

/**
 * The largest manifest.json or trace.json `dmac sim` reads (see docs/safety.md): what compile's
 * default limits can produce (4M packets with conservative sync: ~320-480 MB), below V8's
 * longest string (2^29 - 24 characters), which a manifest without its sidecar is parsed as.
 */
export const MAX_SIM_JSON_BYTES = 500 << 20;
/** The largest packet stream file `dmac sim` reads: compile's default --max-stream-bytes. */
export const MAX_SIM_STREAM_BYTES = 256 << 20;

/** A path for messages: relative to the working directory unless that climbs out of it. */
function shownPath(path: string): string {
  const r = relative(process.cwd(), path);
  return r === "" || r.startsWith("..") || isAbsolute(r) ? path : r;
}

/**
 * Where to look for the source a manifest or trace names. Outputs that record `targetFile` (this
 * dmac and later) store the source path relative to their own directory; older ones stored it
 * as given to the compiler, relative to the compile's working directory, so for them the working
 * directory is tried first, then the document's directory.
 */
function sourceCandidates(recorded: string, docDir: string, relativeToDoc: boolean): string[] {
  if (isAbsolute(recorded)) return [recorded];
  const here = join(docDir, recorded);
  return relativeToDoc ? [here] : [...new Set([resolve(recorded), resolve(here)])];
}

/**
 * The IR of the source named by a manifest/trace, built with its parameters and schedule (and
 * the target file it was compiled with, if any), for the postcondition: found here, built on the
 * helper thread when there is one (sim-helper.ts). Nothing found, a file that is not a regular
 * file or too large, or a source that no longer compiles that way: no module, and the reason
 * (dmac sim then fails unless --no-verify).
 */
function moduleFor(
  sourceFile: string | null | undefined,
  docDir: string,
  relativeToDoc: boolean,
  params: readonly { name: string; type: TypeName; value: number | boolean }[],
  schedule: string,
  target: Target | undefined,
  helper: SimHelper | undefined,
): FrontEndJob {
  const none = (source: SourceModule): FrontEndJob => ({
    shown: source.shown,
    module: () => source,
  });
  if (!sourceFile) return none({ unchecked: "it does not name its source file" });
  const candidates = sourceCandidates(sourceFile, docDir, relativeToDoc);
  let path: string | undefined;
  for (const c of candidates) {
    try {
      regularFileSize(c);
      path = c;
      break;
    } catch (e) {
      if (!(e instanceof InputFileError) || e.code !== "ENOENT")
        return none({
          unchecked: `cannot read its source ${shownPath(c)}: ${readErrorReason(e)}`,
          shown: shownPath(c),
        });
    }
  }
  if (path === undefined)
    return none({
      unchecked: `its source ${JSON.stringify(sourceFile)} was not found (looked for ${candidates.map(shownPath).join(" and ")})`,
    });
  // Each parameter as a constant of its own type: `B` marks byte counts.
  const defines = Object.fromEntries(
    params.map((p) => [p.name, p.type === "bytes" ? `${String(p.value)}B` : String(p.value)]),
  );
  const req = { path, shown: shownPath(path), defines, schedule, target };
  return helper ? helper.frontEnd(req) : inlineFrontEnd(req);
}

/**
 * The target a manifest or trace was compiled with when it records a target file (`targetFile`,
 * relative to the document): loaded for the recompile and, without --target, for the run.
 */
/** Every path a manifest or trace may read besides itself: source, target file, packet streams. */
function namedFiles(
  doc: {
    sourceMap?: { file?: unknown };
    source?: unknown;
    targetFile?: unknown;
    queues?: readonly { file?: unknown }[];
  },
  docDir: string,
): string[] {
  const out: string[] = [];
  const src = doc.sourceMap?.file ?? doc.source;
  if (typeof src === "string") out.push(...sourceCandidates(src, docDir, false));
  for (const q of doc.queues ?? []) if (typeof q.file === "string") out.push(join(docDir, q.file));
  if (typeof doc.targetFile === "string") out.push(recordedTargetPath(doc.targetFile, docDir));
  return out;
}

/** A recorded `targetFile` is relative to the manifest or trace that records it. */
function recordedTargetPath(targetFile: string, docDir: string): string {
  return isAbsolute(targetFile) ? targetFile : join(docDir, targetFile);
}

/**
 * The target the compile was told to use instead of the source's own, if any: a recorded
 * --target file, or a built-in one recorded by name (`targetBuiltin`).
 */
function recordedTarget(
  doc: { readonly targetFile?: unknown; readonly targetBuiltin?: unknown },
  docDir: string,
): { target: Target | undefined; diagnostics: Diagnostic[] } {
  if (typeof doc.targetFile === "string")
    return readTargetOption(shownPath(recordedTargetPath(doc.targetFile, docDir)));
  const builtin =
    typeof doc.targetBuiltin === "string" ? builtinTarget(doc.targetBuiltin) : undefined;
  if (typeof doc.targetBuiltin === "string" && !builtin)
    return { target: undefined, diagnostics: [diag("DMAC2006", undefined, [doc.targetBuiltin])] };
  return { target: builtin, diagnostics: [] };
}

/**
 * Loads FILE.dmac, DIR, DIR/manifest.json or trace.json into the executor's input. The compile
 * options other than schedule and target apply to .dmac inputs only (`optimiserGiven` says the
 * user asked for them, which is an error for an input that is already compiled).
 */
export function loadSimInput(
  path: string,
  defines: Record<string, string>,
  opts: SimCompileOptions & {
    readonly optimiserGiven?: boolean | undefined;
    /** false (--no-verify): do not look for the source of a manifest or trace. */
    readonly verify?: boolean | undefined;
  },
): {
  loaded: LoadedInput | undefined;
  diagnostics: Diagnostic[];
  binding?: DeferredBinding | undefined;
} {
  let p = path;
  try {
    if (statSync(p).isDirectory()) p = join(p, "manifest.json");
  } catch (e) {
    return {
      loaded: undefined,
      diagnostics: [diag("DMAC5001", undefined, [path, readErrorReason(e)])],
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
  // A large manifest.json (DIR): a helper thread hashes it for its sidecar and rebuilds the IR.
  const helper = basename(p) === "manifest.json" ? SimHelper.start(fileBytes(p)) : undefined;
  const read = readJsonInput(p, MAX_SIM_JSON_BYTES, helper);
  // A sidecar not yet known to be bound: what it gives is only kept once the binding holds, so an
  // exception from a stale one must not end the run either.
  let first: ReturnType<typeof loadJsonInput> | undefined;
  let thrown: unknown;
  try {
    first = loadJsonInput(p, read, opts, helper);
  } catch (e) {
    thrown = e;
  }
  // The binding, then the helper released where no run will (the thread reads manifest.json
  // until it has replied, so the digest is taken before it goes).
  const settle = (): boolean => {
    const fresh = read.confirm === undefined || read.confirm();
    // (After an exception no run releases it: --watch goes on to the next run.)
    if (helper && (!fresh || !helper.asked || thrown !== undefined)) helper.close();
    return fresh;
  };
  // The sidecar was stale after all: everything again, read without it.
  const again = () => loadJsonInput(p, readJsonInput(p, MAX_SIM_JSON_BYTES), opts, undefined);
  // A loaded input runs before the binding is known (the helper hashes while this thread reads
  // the streams and runs); the caller settles it after the run and runs again if it was stale.
  if (read.confirm !== undefined && thrown === undefined && first?.loaded)
    return { ...first, binding: { settle, again } };
  const fresh = settle();
  if (fresh && thrown !== undefined) throw thrown;
  return fresh ? first! : again();
}

/** A sidecar's binding to manifest.json, settled by the caller after the run (loadSimInput). */
export interface DeferredBinding {
  /** Whether the sidecar was bound (waits for the helper's hash); releases the helper if not. */
  readonly settle: () => boolean;
  /** The input read again without the sidecar (after settle() said it was stale). */
  readonly again: () => { loaded: LoadedInput | undefined; diagnostics: Diagnostic[] };
}

/** The size of a file, 0 if it cannot be statted (its reader says why). */
function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** loadSimInput for a manifest or trace, read (readJsonInput). */
function loadJsonInput(
  p: string,
  read: JsonInput,
  opts: SimCompileOptions & { readonly verify?: boolean | undefined },
  helper: SimHelper | undefined,
): { loaded: LoadedInput | undefined; diagnostics: Diagnostic[] } {
  const verify = opts.verify !== false;
  const { json, bytes, sidecar, diagnostics } = read;
  if (json === undefined) return { loaded: undefined, diagnostics };
  const kind =
    typeof json === "object" && json !== null ? (json as { kind?: unknown }).kind : undefined;
  const dir = dirname(p);
  if (kind === "dmac-manifest") {
    // Validated before its queue files are read or its source recompiled (src/sim/validate-input.ts).
    const invalid = validateManifest(json, { file: p, fileBytes: bytes, sidecar });
    if (invalid) return { loaded: undefined, diagnostics: [invalid] };
    const manifest = json as Manifest;
    const recorded = recordedTarget(manifest, dir);
    if (recorded.diagnostics.length > 0)
      return { loaded: undefined, diagnostics: recorded.diagnostics };
    const target = opts.target ?? recorded.target ?? builtinTarget(manifest.target);
    if (!target)
      return { loaded: undefined, diagnostics: [diag("DMAC2006", undefined, [manifest.target])] };
    const streams = new Map<string, Uint32Array>();
    for (const [i, q] of manifest.queues.entries()) {
      const file = join(dir, q.file);
      let size: number | undefined;
      try {
        // Checked before reading: the file must be exactly the dwords the manifest declares.
        const b = readInputFile(
          file,
          { maxBytes: MAX_SIM_STREAM_BYTES, what: "a packet stream" },
          (n) => (n === q.dwords * 4 ? undefined : ((size = n), "wrong size")),
        );
        if (b.byteLength !== q.dwords * 4) size = b.byteLength; // shrank while read
        if (size !== undefined) throw new Error("wrong size");
        streams.set(
          q.file,
          b.byteOffset % 4 === 0
            ? new Uint32Array(b.buffer, b.byteOffset, q.dwords)
            : new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)),
        );
      } catch (e) {
        const d =
          size !== undefined
            ? diag("DMAC6011", undefined, [
                p,
                `$.queues[${i}].dwords`,
                `${q.dwords} dwords (${q.dwords * 4} bytes), but ${q.file} is ${size} bytes`,
              ])
            : diag("DMAC5001", undefined, [file, readErrorReason(e)]);
        return { loaded: undefined, diagnostics: [d] };
      }
    }
    // Counted from the headers before anything is decoded or run.
    const maxPackets = opts.maxPackets ?? DEFAULT_SIM_MAX_PACKETS;
    let packets = 0;
    for (const words of streams.values()) {
      packets += countEntries(words, maxPackets - packets);
      if (packets > maxPackets)
        return {
          loaded: undefined,
          diagnostics: [tooManyPackets(`the streams of ${p} hold`, maxPackets)],
        };
    }
    // The IR comes later (helper thread): simulate() takes it once it has built the program.
    const job = verify
      ? moduleFor(
          manifest.sourceMap.file,
          dir,
          manifest.targetFile !== undefined,
          manifest.params,
          manifest.schedule,
          recorded.target,
          helper,
        )
      : undefined;
    // Source positions in reports name the file as found from here, not as recorded.
    const shown =
      job?.shown !== undefined
        ? { ...manifest, sourceMap: { ...manifest.sourceMap, file: job.shown } }
        : manifest;
    return {
      loaded: {
        input: {
          manifest: shown,
          streams,
          validated: true,
          ...(job && {
            frontEnd: {
              module: () => job.module().module,
              checks: job.checks,
              release: () => job.release?.(),
            },
          }),
          get module() {
            return job?.module().module;
          },
        },
        target,
        file: p,
        get unchecked() {
          return job ? job.module().unchecked : "--no-verify";
        },
        reads: namedFiles(manifest, dir),
      },
      diagnostics: [],
    };
  }
  if (kind === "dmac-trace") {
    const invalid = validateTrace(json, { file: p, fileBytes: bytes });
    if (invalid) return { loaded: undefined, diagnostics: [invalid] };
    const trace = json as Trace;
    const maxPackets = opts.maxPackets ?? DEFAULT_SIM_MAX_PACKETS;
    let commands = 0;
    for (const q of trace.queues) commands += q.cmds.length;
    if (commands > maxPackets)
      return { loaded: undefined, diagnostics: [tooManyPackets(`${p} has`, maxPackets)] };
    const recorded = recordedTarget(trace, dir);
    if (recorded.diagnostics.length > 0)
      return { loaded: undefined, diagnostics: recorded.diagnostics };
    const target = opts.target ?? recorded.target ?? builtinTarget(trace.target);
    if (!target)
      return { loaded: undefined, diagnostics: [diag("DMAC2006", undefined, [trace.target])] };
    const source = verify
      ? moduleFor(
          trace.source,
          dir,
          trace.targetFile !== undefined,
          trace.params,
          trace.schedule,
          recorded.target,
          undefined,
        ).module()
      : { unchecked: "--no-verify" };
    return {
      loaded: {
        input: { trace, module: source.module },
        target,
        file: p,
        unchecked: source.unchecked,
        reads: namedFiles(trace as { source?: unknown; targetFile?: unknown }, dir),
      },
      diagnostics: [],
    };
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

interface InputRun {
  readonly path: string;
  readonly reads?: readonly string[] | undefined;
  readonly result: SimResult | undefined;
  readonly diagnostics: Diagnostic[];
  readonly optimised: OptimiseReport | undefined;
  /** The IR the run was checked against (its statements name the trace's slices). */
  readonly module?: IrModule | undefined;
}

function firstProblem(diagnostics: readonly Diagnostic[]): string | undefined {
  const d = diagnostics.find((x) => x.severity === "error");
  return d ? `${d.code} ${d.message}` : undefined;
}

export function runSim(
  inputs: string | readonly string[],
  asGiven: SimCommandOptions,
  ctx: CliContext,
): number {
  // `--format json` asks for one JSON document on stdout: the summary (which carries the
  // diagnostics) as --json prints it, never the human table beside the diagnostics' JSON.
  const opts = asGiven.format === "json" ? { ...asGiven, json: true } : asGiven;
  const paths = typeof inputs === "string" ? [inputs] : inputs;
  const common = parseScheduleOptions(opts);
  const executor = parseExecutorOptions(opts);
  const maxPackets = parsePositiveInt("--max-packets", opts.maxPackets);
  const optimiser = parseOptOptions(opts, common.target);
  const pre = [
    ...common.diagnostics,
    ...executor.diagnostics,
    ...maxPackets.diagnostics,
    ...optimiser.diagnostics,
  ];
  if (wantsTrace(opts) && paths.length > 1)
    pre.push(badOption("-o/--html/--open", "give a single input to write a Chrome trace"));
  if (opts.open === true && opts.trace === undefined && opts.html === undefined)
    pre.push(
      badOption(
        "--open",
        "give -o FILE (the trace; the page is written next to it) or --html FILE",
      ),
    );
  if (opts.snapshot !== undefined && paths.length > 1)
    pre.push(badOption("--snapshot", "give a single input to write a hang snapshot"));
  if (pre.length > 0) return reportDiagnostics(ctx, pre, opts);
  const progress = startProgress(ctx.streams, { quiet: opts.quiet, label: "sim" });
  const runOne = (path: string): InputRun => {
    const first = loadSimInput(path, common.defines, {
      onPlanProgress: (done, total, label) =>
        progress.update(`${path}: plan ${label}`, done, total),
      schedule: opts.schedule,
      target: common.target,
      completion: optimiser.protocol,
      sync: optimiser.sync,
      passes: optimiser.passes,
      optimiserGiven: optimiserGiven(opts),
      verify: opts.verify,
      maxPackets: maxPackets.value,
    });
    if (!first.binding) return runLoaded(path, first);
    // Run on the sidecar before its binding is confirmed; a stale one (the run's result or its
    // exception then mean nothing) makes the input read again without it and run again.
    let run: InputRun | undefined;
    let thrown: unknown;
    try {
      run = runLoaded(path, first);
    } catch (e) {
      thrown = e;
    }
    if (!first.binding.settle()) return runLoaded(path, first.binding.again());
    if (thrown !== undefined) throw thrown;
    return run!;
  };
  const runLoaded = (
    path: string,
    load: { loaded: LoadedInput | undefined; diagnostics: Diagnostic[] },
  ): InputRun => {
    if (!load.loaded) {
      progress.end();
      return { path, result: undefined, diagnostics: load.diagnostics, optimised: undefined };
    }
    // --no-verify: not even a .dmac input's IR is used (the summary says it was not checked).
    const input =
      opts.verify === false ? { ...load.loaded.input, module: undefined } : load.loaded.input;
    const result = simulate(input, {
      target: load.loaded.target,
      inputFile: load.loaded.file,
      signalPeriodUs: executor.signalPeriodUs,
      holdSignals: opts.holdSignals === true,
      maxEvents: executor.maxEvents,
      maxSimTimeUs: executor.maxSimTimeUs,
      record: wantsTrace(opts),
      // (Only without the input's own module; reading it would wait for the helper thread.)
      sizedBy: opts.verify === false ? load.loaded.input.module : undefined,
      onProgress: (done, total) => progress.update(`${path}: packets`, done, total),
    });
    progress.end();
    const diagnostics = [...load.diagnostics, ...result.diagnostics];
    // Not checked is not verified: without --no-verify a run whose postcondition could not be
    // checked fails, saying why (a run that already failed says so by its own errors).
    if (
      opts.verify !== false &&
      result.postcondition === "unchecked" &&
      result.program &&
      !hasErrors(diagnostics)
    )
      diagnostics.push(
        diag(
          "DMAC6020",
          undefined,
          [
            load.loaded.file ?? path,
            load.loaded.unchecked ?? "the input has no IR to check against",
          ],
          {
            hint: "keep the source where the output records it (docs/manifest.md), or pass --no-verify to run the streams without the postcondition",
          },
        ),
      );
    return {
      path,
      result,
      diagnostics,
      optimised: load.loaded.optimised,
      reads: load.loaded.reads,
      // (Only for a run that built its program: an early failure never asked the helper thread
      // for the module, and it is gone now; the trace, the one reader, needs the program too.)
      module: result.program ? input.module : undefined,
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
            : { verified: false, diagnostics: jsonDiagnostics(sortDiagnostics(r.diagnostics)) }),
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
  const width = maxOf(runs.map((r) => r.path.length));
  for (const r of runs)
    ctx.streams.out(summaryLine(r.path, r.result, firstProblem(r.diagnostics), width) + "\n");
  return failed ? EXIT_USER_ERROR : EXIT_OK;
}

/**
 * One input: the optimiser's report, then the full summary (or JSON), then the trace; the exit
 * code. The verdict is out before the trace is written: a trace write error is reported after it
 * (DMAC5002, exit 1), and a big trace takes a while.
 */
function reportOne(run: InputRun, opts: SimCommandOptions, ctx: CliContext): number {
  const diagnostics = [...run.diagnostics];
  const result = run.result;
  if (!result) return reportDiagnostics(ctx, diagnostics, opts);
  if (opts.snapshot !== undefined && result.snapshot) {
    const text = JSON.stringify(result.snapshot, null, 2) + "\n";
    const problem = writeOutputOrReport(opts.snapshot, text, { inputs: runInputs(run, opts) });
    if (problem) diagnostics.push(problem);
  }
  const code = reportSummary(run, result, diagnostics, opts, ctx);
  const problem =
    wantsTrace(opts) && result.program ? writeTrace(run, result, opts, ctx) : undefined;
  if (!problem) return code;
  // After the summary; on stderr even as JSON, so stdout stays the one document it promised.
  if (opts.format === "json")
    ctx.streams.err(renderDiagnostics([problem], "json", { color: false }));
  else reportDiagnostics(ctx, [problem], opts);
  return EXIT_USER_ERROR;
}

/** The optimiser's report, the diagnostics and the summary (or the JSON); the exit code. */
function reportSummary(
  run: InputRun,
  result: SimResult,
  diagnostics: Diagnostic[],
  opts: SimCommandOptions,
  ctx: CliContext,
): number {
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
    ctx.streams.out(
      summaryText(
        { ...result, diagnostics },
        { verbose: opts.verbose, unchecked: opts.verify === false ? "--no-verify" : undefined },
      ),
    );
  return code;
}

/** --trace, --html or --open: the run records its timeline for a Chrome trace. */
const wantsTrace = (o: SimCommandOptions): boolean =>
  o.trace !== undefined || o.html !== undefined || o.open === true;

/**
 * Writes the Chrome trace (--trace) and the page that opens it in Perfetto UI (--html FILE, or
 * with --open next to the trace: t.json -> t.html), then opens the page (--open). Returns the
 * write error, if any, as DMAC5002.
 */
function writeTrace(
  run: InputRun,
  result: SimResult,
  opts: SimCommandOptions,
  ctx: CliContext,
): Diagnostic | undefined {
  const trace = chromeTraceJson(result.program!, result, {
    module: run.module,
    endUs: result.stats.totalUs,
  });
  const inputs = runInputs(run, opts);
  const page = opts.html ?? (opts.open === true ? pageBeside(opts.trace!) : undefined);
  try {
    if (opts.trace !== undefined) writeOutputFile(opts.trace, trace, { inputs });
    if (page !== undefined) {
      const name = opts.trace !== undefined ? basename(opts.trace) : "trace.json";
      writeOutputFile(page, perfettoPageData(trace, `dmac sim ${basename(run.path)}`, name), {
        inputs: [...inputs, ...(opts.trace !== undefined ? [opts.trace] : [])],
      });
      if (opts.open === true) openInBrowser(ctx, page);
    }
  } catch (e) {
    if (!(e instanceof OutputError)) throw e;
    return diag("DMAC5002", undefined, [e.path, e.reason]);
  }
  return undefined;
}

/** The files a run read: what its outputs (trace, page, snapshot) must never overwrite. */
function runInputs(run: InputRun, opts: SimCommandOptions): string[] {
  return [run.path, ...(run.reads ?? []), ...(opts.target !== undefined ? [opts.target] : [])];
}

/** The page beside a trace file: its name with .html for .json (or .html appended). */
export function pageBeside(trace: string): string {
  return trace.endsWith(".json") ? `${trace.slice(0, -5)}.html` : `${trace}.html`;
}

/** What `dmac sim --help` says of the second thread (sim-helper.ts). */
const THREAD_HELP = `

Threads: for an output directory whose manifest.json is ${HELPER_MIN_BYTES >> 20} MiB or more, a second thread
  hashes it, rebuilds the IR and runs the checks (races, provenance, the schedule's meaning) while
  this one runs the events: faster with a free core, for ~20 % more memory. DMAC_SIM_HELPER=0 keeps
  everything on one thread; the results are the same either way.`;

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
  addScheduleOptions(cmd, "the schedule to run when the file has several")
    .option(
      "--json",
      "print the summary as JSON on stdout (an array with several inputs); --format json does the same",
    )
    .option(
      "-v, --verbose",
      "list every engine and link (and, with several inputs, every diagnostic)",
    )
    .option(
      "--html <out.html>",
      "write a self-contained page that opens the trace in Perfetto UI (ui.perfetto.dev) when opened",
    )
    .option(
      "--open",
      "write that page next to the -o trace file (t.json -> t.html) and open it in the browser (on a terminal)",
    )
    .option(
      "--hold-signals",
      "outside code never raises the external signals (a producer that hangs; with --snapshot for dmac postmortem)",
    )
    .option(
      "--snapshot <file>",
      "when the run deadlocks or hits its watchdog, write what a host could read then (read pointers, word values) for dmac postmortem",
    )
    .option(
      "--signal-period <us>",
      "raise each external signal by one every this many microseconds (default: at time 0)",
    )
    .option("--max-events <n>", "watchdog: stop after this many events (default 200000000)")
    .option(
      "--max-sim-time <us>",
      "watchdog: stop at this simulated time in microseconds (default 1e9)",
    )
    .option(
      "--max-packets <n>",
      `most packets to run, completions and syncs included (DMAC4010; default ${DEFAULT_SIM_MAX_PACKETS})`,
    )
    .option(
      "--no-verify",
      "run without checking the postcondition (no source is recompiled); without it, a manifest or trace whose source cannot be found or recompiled fails (DMAC6020)",
    );
  addOutOption(cmd, {
    value: "trace.json",
    help: "write the run as a Chrome trace-event file (open it in Perfetto)",
    attr: "trace",
    aliases: ["--trace"],
  });
  addOptOptions(cmd, { passReports: true }).option("--watch", WATCH_HELP);
  cmd.addHelpText("after", BANDWIDTH_HELP + THREAD_HELP);
  addQuietOption(cmd);
  addDiagnosticOptions(cmd).action(async (inputs: string[], opts: SimCommandOptions) => {
    ctx.exit(await runOrWatch(ctx, inputs, opts, (c) => runSim(inputs, opts, c)));
  });
}
