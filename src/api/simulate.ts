// The library's executor entry: `simulate` runs compiled outputs (a `compile` result, a manifest
// with its streams, or a command trace) on the simulated node (src/sim/run.ts simulate) and
// returns the summary that `dmac sim --json` prints (schemas/sim.schema.json), with the
// diagnostics as Diagnostic values. No I/O.

import type { Manifest } from "../backend/sdma/manifest.js";
import type { Trace } from "../backend/trace/trace.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { IrModule } from "../ir/ir.js";
import { simulate as runExecutor, type SimInput } from "../sim/run.js";
import { summaryFields, type SummaryFields } from "../sim/summary.js";
import { builtinTarget, type Target } from "../target/target.js";
import { parseExecutorOptions } from "../options/executor-options.js";
import { optionText, resolveTarget } from "./check.js";

/**
 * What `simulate` runs: a `compile` result as it is, or a manifest with its packet streams, or a
 * command trace (e.g. read back from a `dmac compile -o` directory).
 */
export interface SimulateInput {
  readonly manifest?: Manifest | undefined;
  readonly streams?: ReadonlyMap<string, Uint32Array> | undefined;
  readonly trace?: Trace | undefined;
  /** The schedule's IR: without it the postcondition is not checked (and not verified). */
  readonly module?: IrModule | undefined;
  /** The target it was compiled for (default: the built-in one the manifest or trace names). */
  readonly target?: Target | undefined;
}

export interface SimulateOptions {
  /** The node to run on: a built-in target's name or a description (default: the input's). */
  readonly target?: string | Target | undefined;
  /** Run the trace even when the input also has a manifest (default: the manifest). */
  readonly useTrace?: boolean | undefined;
  /** Raise each external signal by one every this many microseconds (default: all at time 0). */
  readonly signalPeriodUs?: number | undefined;
  /** Watchdogs: stop after this many events, or at this simulated time (microseconds). */
  readonly maxEvents?: number | undefined;
  readonly maxSimTimeUs?: number | undefined;
}

/** The `dmac sim --json` summary (schemas/sim.schema.json), diagnostics as values. */
export interface SimulateResult extends SummaryFields {
  readonly diagnostics: Diagnostic[];
}

function failed(diagnostics: Diagnostic[]): SimulateResult {
  return {
    verified: false,
    postcondition: "unchecked",
    totalUs: 0,
    hostSubmitUs: 0,
    algbwGBps: null,
    busbwGBps: null,
    collective: null,
    sizeBytes: 0,
    busFactor: 0,
    totalBytes: 0,
    dmaLatteAlgbwGBps: null,
    dmaLatteBusbwGBps: null,
    packets: 0,
    events: 0,
    engines: [],
    links: [],
    pcie: [],
    diagnostics,
  };
}

function noInput(detail: string): SimulateResult {
  return failed([diag("DMAC5004", undefined, ["simulate", detail])]);
}

/** The run options checked with `dmac sim`'s rules, written as its options take them. */
export function parseSimulateOptions(o: SimulateOptions) {
  return parseExecutorOptions({
    signalPeriod: optionText(o.signalPeriodUs),
    maxEvents: optionText(o.maxEvents),
    maxSimTime: optionText(o.maxSimTimeUs),
  });
}

/** Run compiled outputs on the simulated node and check the schedule's postcondition. */
export function simulate(input: SimulateInput, options: SimulateOptions = {}): SimulateResult {
  const resolved = resolveTarget(options.target);
  const run = parseSimulateOptions(options);
  const pre = [...resolved.diagnostics, ...run.diagnostics];
  if (pre.length > 0) return failed(pre);
  // A CUDA target's compile has a command program and no trace of its queue program, which the
  // checks run: `dmac sim FILE.dmac` compiles both (driver/compile-for-sim.ts).
  const cuda = resolved.target ?? input.target;
  if (cuda?.backend === "cuda")
    return failed([
      diag("DMAC5004", undefined, [
        "input",
        `target ${cuda.name} is a CUDA copy-engine target: simulate() runs a manifest or a trace; \`dmac sim FILE.dmac --target ${cuda.name}\` checks a CUDA schedule and times its command program (docs/cuda.md)`,
      ]),
    ]);
  const { manifest, trace, module } = input;
  let executorInput: SimInput;
  let named: string;
  if (options.useTrace === true || manifest === undefined) {
    if (!trace)
      return noInput("the input has neither a manifest nor a trace (did the compile fail?)");
    executorInput = { trace, module };
    named = trace.target;
  } else {
    if (!input.streams) return noInput("a manifest needs its packet streams (`streams`)");
    executorInput = { manifest, streams: input.streams, module };
    named = manifest.target;
  }
  const target = resolved.target ?? input.target ?? builtinTarget(named);
  if (!target) return failed([diag("DMAC2006", undefined, [named])]);
  const r = runExecutor(executorInput, {
    target,
    signalPeriodUs: run.signalPeriodUs,
    maxEvents: run.maxEvents,
    maxSimTimeUs: run.maxSimTimeUs,
  });
  return { ...summaryFields(r), diagnostics: r.diagnostics };
}
