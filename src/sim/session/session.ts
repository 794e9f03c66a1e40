// `dmac sim` of one input, from start to end: this is where it begins and where it ends. The CLI
// (src/cli/commands/sim.ts) parses the options, calls runSimSession once per input, and prints
// what comes back. A session is a state machine over one record, `Session`; each step does one
// phase's work and names the next phase:
//
//   load  -> the input found (FILE.dmac, DIR, DIR/manifest.json or trace.json) and read: a .dmac
//            is compiled in memory (it is then built: on to run); the manifest.json of a big
//            output directory gets its helper thread (helper.ts), started here so that it loads
//            dmac while this thread reads (read-json.ts: the JSON, and its sidecar when that is
//            manifest.json's own)
//   build -> the document becomes the executor's input (build-input.ts): validated, its target,
//            its streams read and counted, the IR of its source asked for (of the helper thread,
//            or built here: front-end.ts)
//   run   -> simulate() (src/sim/run.ts): the program built, the events run, and the run's checks,
//            on the helper thread (check-log.ts) or here
//   check -> the verdict: a run whose postcondition could not be checked fails (DMAC6020), unless
//            --no-verify
//   done  -> the outcome. The helper thread is gone by then: the run lets it go, and a session
//            that ends before the run does so itself.
//
// A step that fails records its diagnostics and goes to done.

import { statSync } from "node:fs";
import { basename, join } from "node:path";
import { diag, hasErrors, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { IrModule } from "../../ir/ir.js";
import type { OptimiseReport } from "../../passes/optimise-report.js";
import { readErrorReason, readSourceFile } from "../../options/options.js";
import type { LoadedInput, SimCompileOptions } from "../loaded-input.js";
import { simulate, type SimResult, type SimulateOptions } from "../run.js";
import { badOption, buildJsonInput, MAX_SIM_JSON_BYTES } from "./build-input.js";
import { SimHelper } from "./helper.js";
import { readJsonInput, type JsonInput } from "./read-json.js";

/** How a .dmac input is compiled in memory into the executor's input. */
export type CompileForSim = (
  path: string,
  text: string,
  defines: Record<string, string>,
  opts: SimCompileOptions,
) => { loaded: LoadedInput | undefined; diagnostics: Diagnostic[] };

/** What a session is asked: the input, how to read or compile it, and how to run it. */
export interface SessionRequest extends SimCompileOptions {
  /** FILE.dmac, DIR, DIR/manifest.json or trace.json. */
  readonly path: string;
  readonly defines: Record<string, string>;
  /** The user gave optimiser options (-O, --engines...): an error for a compiled input. */
  readonly optimiserGiven?: boolean | undefined;
  /** false (--no-verify): no source is recompiled, and an unchecked run does not fail. */
  readonly verify?: boolean | undefined;
  readonly compile: CompileForSim;
  /** How the run goes (its target and input file come from the input). */
  readonly run: Omit<SimulateOptions, "target" | "inputFile" | "sizedBy">;
}

/** What a session ends with. */
export interface SessionOutcome {
  readonly path: string;
  /** Every file the input read besides itself: outputs must never replace them. */
  readonly reads?: readonly string[] | undefined;
  /** Undefined: the input never ran (its diagnostics say why). */
  readonly result: SimResult | undefined;
  readonly diagnostics: Diagnostic[];
  readonly optimised: OptimiseReport | undefined;
  /** The IR the run was checked against (its statements name the trace's slices). */
  readonly module?: IrModule | undefined;
}

export type Phase = "load" | "build" | "run" | "check" | "done";

/** The one record the steps work on. */
interface Session {
  readonly req: SessionRequest;
  /** The input's document: `path`, or DIR/manifest.json. */
  file: string;
  doc?: JsonInput | undefined;
  helper?: SimHelper | undefined;
  loaded?: LoadedInput | undefined;
  /** The input as run (--no-verify: without its IR). */
  ran?: LoadedInput["input"] | undefined;
  result?: SimResult | undefined;
  readonly diagnostics: Diagnostic[];
}

type Step = (s: Session) => Phase;

const STEPS: Readonly<Record<Exclude<Phase, "done">, Step>> = {
  load,
  build,
  run,
  check,
};

/** One input run through every phase (the file comment). */
export function runSimSession(req: SessionRequest): SessionOutcome {
  const s: Session = { req, file: req.path, diagnostics: [] };
  let phase: Phase = "load";
  try {
    while (phase !== "done") phase = STEPS[phase](s);
  } finally {
    // (A session that ended before its run: no run will ask the thread for anything.)
    if (s.helper && (!s.helper.asked || s.result === undefined)) s.helper.close();
  }
  return {
    path: req.path,
    result: s.result,
    diagnostics: s.diagnostics,
    optimised: s.loaded?.optimised,
    reads: s.loaded?.reads,
    // (Only for a run that built its program: an early failure never asked the helper thread
    // for the module, and it is gone now; the trace, the one reader, needs the program too.)
    module: s.result?.program ? s.ran?.module : undefined,
  };
}

/** The diagnostics of a failed step; the session ends. */
function fail(s: Session, diagnostics: readonly Diagnostic[]): Phase {
  s.diagnostics.push(...diagnostics);
  return "done";
}

function load(s: Session): Phase {
  const { req } = s;
  try {
    if (statSync(s.file).isDirectory()) s.file = join(s.file, "manifest.json");
  } catch (e) {
    return fail(s, [diag("DMAC5001", undefined, [req.path, readErrorReason(e)])]);
  }
  if (s.file.endsWith(".dmac")) {
    const read = readSourceFile(s.file);
    if (!read.file) return fail(s, read.diagnostics);
    const compiled = req.compile(s.file, read.file.text, req.defines, req);
    s.diagnostics.push(...compiled.diagnostics);
    s.loaded = compiled.loaded;
    return s.loaded ? "run" : "done";
  }
  if (req.optimiserGiven)
    return fail(s, [
      badOption(
        "-O/--engines/--prelaunch/--completion/--disable-pass",
        `${s.file} is already compiled; optimisation options apply to .dmac inputs (recompile it with dmac compile)`,
      ),
    ]);
  // A large manifest.json (DIR): a helper thread rebuilds the IR and runs the checks.
  if (basename(s.file) === "manifest.json") s.helper = SimHelper.start(fileBytes(s.file));
  s.doc = readJsonInput(s.file, MAX_SIM_JSON_BYTES);
  return "build";
}

function build(s: Session): Phase {
  const built = buildJsonInput(s.file, s.doc!, s.req, s.helper);
  s.loaded = built.loaded;
  s.doc = undefined; // (the parsed document is the input's now)
  return s.loaded ? "run" : fail(s, built.diagnostics);
}

function run(s: Session): Phase {
  const loaded = s.loaded!;
  const noVerify = s.req.verify === false;
  // --no-verify: not even a .dmac input's IR is used (the summary says it was not checked).
  s.ran = noVerify ? { ...loaded.input, module: undefined } : loaded.input;
  s.result = simulate(s.ran, {
    ...s.req.run,
    target: loaded.target,
    inputFile: loaded.file,
    // (Only without the input's own module; reading it would wait for the helper thread.)
    sizedBy: noVerify ? loaded.input.module : undefined,
  });
  s.diagnostics.push(...s.result.diagnostics);
  return "check";
}

/**
 * Not checked is not verified: without --no-verify a run whose postcondition could not be
 * checked fails, saying why (a run that already failed says so by its own errors).
 */
function check(s: Session): Phase {
  const result = s.result!;
  const loaded = s.loaded!;
  if (
    s.req.verify !== false &&
    result.postcondition === "unchecked" &&
    result.program &&
    !hasErrors(s.diagnostics)
  )
    s.diagnostics.push(
      diag(
        "DMAC6020",
        undefined,
        [loaded.file ?? s.req.path, loaded.unchecked ?? "the input has no IR to check against"],
        {
          hint: "keep the source where the output records it (docs/manifest.md), or pass --no-verify to run the streams without the postcondition",
        },
      ),
    );
  return "done";
}

/** The size of a file, 0 if it cannot be statted (its reader says why). */
function fileBytes(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
