// Parsing the optimiser's command-line options into PassOptions: -O0/-O1/-O2, --engines,
// --completion per-op|per-queue, --prelaunch, --disable-pass, --dump-after. Bad values are
// DMAC5004 diagnostics (bad option), never exceptions.

import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Target } from "../target/target.js";
import { passByName } from "./index.js";
import {
  PASS_NAMES,
  type CompletionPolicy,
  type EngineStrategy,
  type OptLevel,
  type PassName,
  type PassOptions,
} from "./pass.js";
import { pushAll } from "../util/arrays.js";

export interface RawPassOptions {
  readonly opt?: string | undefined;
  readonly engines?: string | undefined;
  readonly completion?: string | undefined;
  readonly prelaunch?: boolean | undefined;
  readonly disablePass?: string | readonly string[] | undefined;
  readonly dumpAfter?: string | readonly string[] | undefined;
}

const bad = (option: string, detail: string): Diagnostic =>
  diag("DMAC5004", undefined, [option, detail]);

/** `affinity`, `spread:K`, `single`, `single:E1,E2,...` (engines must be the target's xGMI ones). */
export function parseEngineStrategy(
  text: string,
  target?: Target,
): { strategy: EngineStrategy | undefined; diagnostics: Diagnostic[] } {
  const fail = (detail: string) => ({
    strategy: undefined,
    diagnostics: [bad("--engines", `'${text}': ${detail}`)],
  });
  const [kind, arg] = text.split(":", 2) as [string, string | undefined];
  if (kind === "affinity" && arg === undefined)
    return { strategy: { kind: "affinity" }, diagnostics: [] };
  let strategy: EngineStrategy | undefined;
  if (kind === "spread" && arg !== undefined && /^\s*\d+\s*$/.test(arg))
    strategy = { kind: "spread", k: Number(arg) };
  if (kind === "single" && arg === undefined) strategy = { kind: "single", engines: [] };
  else if (kind === "single" && arg!.split(",").every((x) => /^\s*\d+\s*$/.test(x)))
    strategy = { kind: "single", engines: arg!.split(",").map((x) => Number(x.trim())) };
  if (!strategy) {
    if (kind === "spread") return fail("spread needs an engine count, as in spread:4");
    if (kind === "single")
      return fail(
        "single takes engine ids after the colon, as in single:8,10 (or no colon: single)",
      );
    return fail("choose affinity, spread:K or single[:E,...]");
  }
  // Without a --target the file's target is not known yet: check what holds for any target
  // (parseTarget allows at most 64 engines) here, and the rest in compileToQueues.
  const problem = target
    ? engineStrategyProblem(strategy, target)
    : strategy.kind === "spread" && (strategy.k < 1 || strategy.k > 64)
      ? "spread needs an engine count from 1 to 64"
      : strategy.kind === "single" && strategy.engines.some((e) => e > 63)
        ? `engine ${strategy.engines.find((e) => e > 63)} is past any target's engines (at most 64)`
        : undefined;
  return problem ? fail(problem) : { strategy, diagnostics: [] };
}

/**
 * Why `strategy` cannot run on `target` (undefined: it can): every engine it names must be one
 * of the target's xGMI engines (GPU-to-GPU copies cannot run on the PCIe engines, and an id
 * past engines.count would name another GPU's queue), and spread:K needs K of them.
 */
export function engineStrategyProblem(
  strategy: EngineStrategy,
  target: Target,
): string | undefined {
  const xgmi = target.engines.xgmi;
  if (strategy.kind === "spread" && (strategy.k < 1 || strategy.k > xgmi.length))
    return `spread needs an engine count from 1 to ${xgmi.length} (the xGMI engines of ${target.name})`;
  if (strategy.kind === "single") {
    const wrong = strategy.engines.find((e) => !xgmi.includes(e));
    if (wrong !== undefined)
      return `engine ${wrong} is not an xGMI engine of ${target.name} (${xgmi.join(", ")})`;
  }
  return undefined;
}

/** DMAC5004 for --engines that do not fit the resolved target (see engineStrategyProblem). */
export function checkEnginesForTarget(
  options: PassOptions | undefined,
  target: Target,
): Diagnostic[] {
  if (!options) return [];
  const problem = engineStrategyProblem(options.engines, target);
  return problem ? [bad("--engines", problem)] : [];
}

function passList(option: string, v: string | readonly string[] | undefined) {
  const items = (typeof v === "string" ? [v] : (v ?? []))
    .flatMap((s) => s.split(","))
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const names: PassName[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const s of items) {
    if ((PASS_NAMES as readonly string[]).includes(s)) names.push(s as PassName);
    else diagnostics.push(bad(option, `no pass '${s}': choose from ${PASS_NAMES.join(", ")}`));
  }
  return { names, diagnostics };
}

export function parsePassOptions(
  raw: RawPassOptions,
  target?: Target,
): { options: PassOptions | undefined; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const optText = raw.opt ?? "0";
  const level = Number(optText.replace(/^-?O/, ""));
  if (!(level === 0 || level === 1 || level === 2))
    diagnostics.push(bad("-O", `'${optText}': choose 0, 1 or 2`));
  const eng = parseEngineStrategy(raw.engines ?? "affinity", target);
  pushAll(diagnostics, eng.diagnostics);
  let completion: CompletionPolicy | undefined;
  if (raw.completion !== undefined) {
    if (raw.completion === "per-op" || raw.completion === "per-queue") completion = raw.completion;
    else diagnostics.push(bad("--completion", `'${raw.completion}': choose per-op or per-queue`));
  }
  const disabled = passList("--disable-pass", raw.disablePass);
  const dumpAfter = passList("--dump-after", raw.dumpAfter);
  pushAll(diagnostics, disabled.diagnostics);
  pushAll(diagnostics, dumpAfter.diagnostics);
  for (const n of disabled.names)
    if (passByName(n)?.required)
      diagnostics.push(bad("--disable-pass", `${n} is required and cannot be disabled`));
  if (diagnostics.length > 0 || !eng.strategy) return { options: undefined, diagnostics };
  return {
    options: {
      level: level as OptLevel,
      engines: eng.strategy,
      completion,
      prelaunch: raw.prelaunch === true,
      disabled: disabled.names,
      dumpAfter: dumpAfter.names,
      // An explicit --engines is a user choice the -O2 plan keeps.
      ...(raw.engines !== undefined ? { enginesFixed: true } : {}),
    },
    diagnostics,
  };
}
