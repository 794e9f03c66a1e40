// `dmac sim INPUT...` (INPUT: FILE.dmac | DIR | DIR/manifest.json | trace.json): the command
// line. It parses the options, runs each input through its session (src/sim/session/session.ts:
// where `dmac sim` of one input starts and ends, from reading the input to the verdict) and
// prints: a summary, --format json (--json) for tools, -o/--out (alias --trace) for a Chrome
// trace (src/sim/chrome-trace.ts), --html/--open for a page that opens it in Perfetto UI,
// --snapshot for a hang; progress on stderr (cli/progress.ts). With several inputs, one compact
// line each (exit 1 if any fails to verify). A .dmac input is compiled in memory (compileForSim)
// with the optimiser options of `compile` (-O, --engines, --prelaunch, ...: src/options/opt-options.ts).

import { basename } from "node:path";
import type { Command } from "commander";
import { OutputError, writeOutputFile } from "../../backend/output.js";
import { diag, hasErrors, sortDiagnostics, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { jsonDiagnostics, renderDiagnostics } from "../../diagnostics/render.js";
import { compileForSim } from "../../driver/compile-for-sim.js";
import { parseExecutorOptions } from "../../options/executor-options.js";
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
  type ScheduleCommandOptions,
} from "../../options/options.js";
import { BANDWIDTH_HELP } from "../../sim/bandwidth.js";
import { chromeTraceJson } from "../../sim/chrome-trace.js";
import { cudaTraceJson } from "../../sim/trace/cuda-trace.js";
import { DEFAULT_SIM_MAX_PACKETS } from "../../sim/loaded-input.js";
import type { SimResult } from "../../sim/run.js";
import { badOption } from "../../sim/session/build-input.js";
import { HELPER_MIN_BYTES } from "../../sim/session/helper.js";
import { runSimSession, type SessionOutcome } from "../../sim/session/session.js";
import { summaryJson, summaryLine, summaryText } from "../../sim/summary.js";
import { perfettoPageData } from "../../sim/trace/perfetto-page.js";
import { maxOf } from "../../util/arrays.js";
import { EXIT_OK, EXIT_USER_ERROR } from "../io.js";
import { planJson } from "../json-output.js";
import type { CliContext } from "../main.js";
import { openInBrowser } from "../open-in-browser.js";
import {
  addDiagnosticOptions,
  addOutOption,
  addQuietOption,
  reportDiagnostics,
  type DiagnosticOutput,
} from "../options.js";
import { startProgress } from "../progress.js";
import { runOrWatch, WATCH_HELP } from "../watch.js";
import { writeOutputOrReport } from "../write-output.js";

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

/** One input's run (src/sim/session/session.ts). */
type InputRun = SessionOutcome;

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
    try {
      return runSimSession({
        path,
        defines: common.defines,
        compile: compileForSim,
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
        run: {
          signalPeriodUs: executor.signalPeriodUs,
          holdSignals: opts.holdSignals === true,
          maxEvents: executor.maxEvents,
          maxSimTimeUs: executor.maxSimTimeUs,
          record: wantsTrace(opts),
          onProgress: (done, total) => progress.update(`${path}: packets`, done, total),
        },
      });
    } finally {
      progress.end();
    }
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
  const trace = result.cuda
    ? cudaTraceJson(result.cuda, result.timeline!)
    : chromeTraceJson(result.program!, result, {
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

/** What `dmac sim --help` says of the second thread (src/sim/session/helper.ts). */
const THREAD_HELP = `

Threads: for an output directory whose manifest.json is ${HELPER_MIN_BYTES >> 20} MiB or more, a second thread
  rebuilds the IR and runs the checks (races, provenance, the schedule's meaning) while
  this one runs the events: faster with a free core, for ~20 % more memory. DMAC_SIM_HELPER=0 keeps
  everything on one thread; the results are the same either way.`;

export function registerSim(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("sim")
    .description(
      "run compiled packet streams (or a .dmac, compiled in memory, or a trace) on the simulated MI300X node; a .dmac on a CUDA target gets the same checks and the copy-engine model's time",
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
