// Which timing constants `dmac calibrate` fits, and the fit: minimise the weighted mean squared
// log ratio of predicted to measured (fit.ts fitError) with a bounded pattern search over the
// constants' logarithms (util/pattern-search.ts), so a step is a factor and bounds like
// 0.25x..4x are symmetric.

import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { didYouMean } from "../diagnostics/suggest.js";
import { fittableTiming, type FitBound, type Target } from "../target/target.js";
import { minimise } from "../util/pattern-search.js";
import { fitError, roundSignificant } from "./fit.js";
import type { MeasurementRow } from "./measurements.js";

export const DEFAULT_MAX_EVALS = 400;

/** The fittable constants of `base`, or those `--constants` names (comma-separated). */
export function chooseConstants(
  base: Target,
  constants: string | undefined,
): { bounds: FitBound[]; diagnostics: Diagnostic[] } {
  const bounds = fittableTiming(base);
  if (constants === undefined) return { bounds, diagnostics: [] };
  const names = constants
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const known = bounds.map((b) => b.name);
  const diagnostics = names
    .filter((n) => !known.includes(n))
    .map((n) =>
      diag(
        "DMAC5004",
        undefined,
        ["--constants", `${n} is not a fittable timing constant of ${base.name}`],
        {
          hint:
            didYouMean(n, known) ??
            (known.length > 0
              ? `the fittable ones are ${known.join(", ")}`
              : `no timing entry of ${base.name} has "fit": {"min": ..., "max": ...}`),
        },
      ),
    );
  return { bounds: bounds.filter((b) => names.includes(b.name)), diagnostics };
}

export interface FitResult {
  /** The values written (4 significant digits, within the bounds), by constant name. */
  readonly fitted: Record<string, number>;
  /** The rows' predictions with them, and their error. */
  readonly after: number[];
  readonly errAfter: number;
  readonly evals: number;
  readonly converged: boolean;
  /** Per constant: its first probes left the error exactly unchanged (kept as it was). */
  readonly flat: readonly boolean[];
}

/**
 * Fits `bounds` to the rows, starting from their current values. `predict` gives the rows'
 * predictions for a set of values; `before` and `errBefore` are the start's.
 */
export function fitConstants(
  rows: readonly MeasurementRow[],
  bounds: readonly FitBound[],
  predict: (values: Readonly<Record<string, number>>) => number[],
  start: { readonly before: number[]; readonly errBefore: number },
  search: {
    readonly maxEvals: number;
    readonly onEval: (evals: number, best: number) => void;
  },
): FitResult {
  const valuesOf = (x: readonly number[]): Record<string, number> =>
    Object.fromEntries(bounds.map((b, j) => [b.name, Math.exp(x[j]!)]));
  const result = minimise(
    (x) => fitError(rows, predict(valuesOf(x))),
    bounds.map((b) => Math.log(b.value)),
    bounds.map((b) => Math.log(b.min)),
    bounds.map((b) => Math.log(b.max)),
    search,
  );
  const found = { evals: result.evals, converged: result.converged, flat: result.flat };
  // Written values have 4 significant digits (within the bounds); report what is written.
  const fitted = Object.fromEntries(
    bounds.map((b, j) => {
      const v = roundSignificant(Math.exp(result.x[j]!));
      return [b.name, Math.min(b.max, Math.max(b.min, result.flat[j] ? b.value : v))];
    }),
  );
  const after = predict(fitted);
  const errAfter = fitError(rows, after);
  if (errAfter < start.errBefore) return { fitted, after, errAfter, ...found };
  // Rounding to 4 digits on a flat optimum can cost more than the search gained: keep the
  // starting values, so a refit of a fitted target is a fixed point.
  const kept = Object.fromEntries(bounds.map((b) => [b.name, b.value]));
  return { fitted: kept, after: start.before, errAfter: start.errBefore, ...found };
}

/** The fit's report: the constants before and after, with their bounds. */
export function fitReport(
  base: Target,
  bounds: readonly FitBound[],
  fit: FitResult,
  errBefore: number,
  maxEvals: number,
): string {
  const w = Math.max(...bounds.map((b) => b.name.length));
  const lines = bounds.map((b, j) => {
    const v = fit.fitted[b.name]!;
    const edge = v <= b.min || v >= b.max ? "  (at a bound)" : "";
    const note = fit.flat[j] ? "  (no effect on these rows: kept)" : edge;
    return `  ${b.name.padEnd(w)}  ${String(b.value).padStart(9)} -> ${String(v).padEnd(9)} [${b.min}, ${b.max}]${note}`;
  });
  return (
    `fitted ${bounds.length} constant${bounds.length === 1 ? "" : "s"} of ${base.name} ` +
    `(minimising the weighted mean of ln(predicted / measured)^2: ${errBefore.toPrecision(4)} -> ${fit.errAfter.toPrecision(4)}; ` +
    `${fit.evals} evaluations, ${fit.converged ? "converged" : `stopped at --max-evals ${maxEvals}`}):\n` +
    lines.join("\n") +
    "\n"
  );
}
