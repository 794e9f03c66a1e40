// The full-SM check in a results file (issue 19; runtime/cuda/runner.cu --sm-check,
// runtime/cuda/sm-check.sh, docs/cuda.md): per run, did the copies complete while a kernel held
// every SM (copy engines), and what did the kernel cost them? `dmac measure` prints a column and
// a summary line from these.

import type { MeasuredRun } from "./measure.js";
import { median } from "./stats.js";

/** A run's `smCheck` object (schemas/cuda-results.schema.json#/definitions/smCheck). */
export interface SmCheck {
  readonly iterations: number;
  readonly limitMs: number;
  readonly allResident: boolean;
  readonly completedWhileOccupied: number;
  readonly onCopyEngines: boolean;
  readonly withKernelUs: number;
  readonly withoutKernelUs: number;
  readonly kernelUs: number;
  readonly kernelTimedOut: number;
  readonly verified: boolean;
}

/** Why `v` (a run's smCheck) is not one, or undefined. */
export function smCheckProblem(v: unknown): string | undefined {
  const c = v as Partial<SmCheck> | null;
  if (typeof c !== "object" || c === null) return "is not an object";
  for (const k of ["allResident", "onCopyEngines", "verified"] as const)
    if (typeof c[k] !== "boolean") return `lacks ${k}`;
  for (const k of ["iterations", "completedWhileOccupied", "withKernelUs", "kernelUs"] as const)
    if (typeof c[k] !== "number") return `lacks ${k}`;
  if (typeof c.withoutKernelUs !== "number") return "lacks withoutKernelUs";
  return undefined;
}

/** One run's cell: the time with the kernel and the verdict. */
export function smCheckCell(c: SmCheck | undefined, fmt: (us: number) => string): string {
  if (!c) return "";
  const verdict = !c.allResident
    ? "kernel not resident"
    : c.onCopyEngines
      ? "copy engines"
      : `waited for the kernel ${c.iterations - c.completedWhileOccupied}/${c.iterations}: SMs?`;
  return `full-SM kernel: ${fmt(c.withKernelUs)}, ${verdict}${c.verified ? "" : ", NOT VERIFIED"}`;
}

/** What `dmac measure --format json` shows of a run's check (schemas/measure.schema.json). */
export function smCheckJson(c: SmCheck) {
  return {
    iterations: c.iterations,
    allResident: c.allResident,
    completedWhileOccupied: c.completedWhileOccupied,
    onCopyEngines: c.onCopyEngines,
    withKernelUs: c.withKernelUs,
    withoutKernelUs: c.withoutKernelUs,
    kernelUs: c.kernelUs,
    verified: c.verified,
  };
}

export interface SmSummary {
  readonly runs: number;
  readonly onCopyEngines: number;
  /** Runs whose copies waited for the kernel, or ran without every block resident. */
  readonly suspect: readonly string[];
  /** Copy time with the kernel over without: median, min, max. */
  readonly ratio: { readonly median: number; readonly min: number; readonly max: number };
}

/** Over the runs that have a check; undefined when none has. */
export function smSummary(runs: readonly MeasuredRun[]): SmSummary | undefined {
  const checked = runs.filter((r) => r.smCheck);
  if (checked.length === 0) return undefined;
  const ratios = checked.map((r) => r.smCheck!.withKernelUs / r.smCheck!.withoutKernelUs);
  return {
    runs: checked.length,
    onCopyEngines: checked.filter((r) => r.smCheck!.onCopyEngines).length,
    suspect: checked
      .filter((r) => !r.smCheck!.onCopyEngines)
      .map((r) => `${r.example}/${r.variant}/${r.totalBytes}`),
    ratio: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) },
  };
}

export function smSummaryText(s: SmSummary): string {
  const r = s.ratio;
  const times = `copy time with the kernel / without: median ${r.median.toFixed(2)}x (${r.min.toFixed(2)}-${r.max.toFixed(2)}x)`;
  const head = `full-SM check: ${s.onCopyEngines} of ${s.runs} runs completed while a kernel held every SM (copy engines); ${times}`;
  return `${head}${s.suspect.length ? `; not clean (the driver may have used SMs): ${s.suspect.join(", ")}` : ""}\n`;
}
