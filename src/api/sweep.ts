// The library's size sweep: one schedule compiled and simulated at every size of a bytes
// parameter (what one variant of `dmac sweep` does; src/cli/commands/sweep.ts compares several
// and draws them). Points are the CLI's rows (src/sim/sweep-point.ts). No I/O.

import { diag, hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
import { compile, type CompileOptions } from "./compile.js";
import { failedPoint, runPoint, type SweepPoint } from "../sim/sweep-point.js";
import { simulate, type SimulateOptions } from "./simulate.js";

export type { SweepPoint };

export interface SweepOptions extends CompileOptions, Omit<SimulateOptions, "target" | "useTrace"> {
  /** The bytes parameter to vary (e.g. "chunk"). */
  readonly param: string;
  /** The sizes in bytes, in the order to run them. */
  readonly sizes: readonly number[];
}

export interface SweepResult {
  /** Every size compiled and verified. */
  readonly ok: boolean;
  readonly points: SweepPoint[];
  /** Every diagnostic of every size, in order (repeats of one problem included). */
  readonly diagnostics: Diagnostic[];
}

/**
 * The most sizes one sweep runs: a doubling range of whole byte counts has at most 53 (1 B to
 * 2^52 B; 2^53 is past the exact integers), which `dmac sweep --sizes` never passes. Each size is a whole
 * compile and simulation, so the bound keeps a sweep's time linear in what a range can ask.
 */
export const MAX_SWEEP_SIZES = 64;

/**
 * `n` up to `hi` (inclusive), doubling from `lo`: doublings(1024, 8192) = [1024, 2048, 4096, 8192].
 * Whole bytes only, at most MAX_SWEEP_SIZES of them and none past the exact integers (`hi` may
 * be Infinity).
 */
export function doublings(lo: number, hi: number): number[] {
  const out: number[] = [];
  if (!Number.isSafeInteger(lo)) return out;
  for (
    let s = lo;
    s > 0 && s <= hi && Number.isSafeInteger(s) && out.length < MAX_SWEEP_SIZES;
    s *= 2
  )
    out.push(s);
  return out;
}

/** DMAC5004 unless `sizes` is a list of 1 to MAX_SWEEP_SIZES positive whole byte counts. */
function sizesProblem(sizes: readonly unknown[]): Diagnostic[] {
  const bad = (detail: string): Diagnostic[] => [diag("DMAC5004", undefined, ["sizes", detail])];
  if (!Array.isArray(sizes) || sizes.length === 0) return bad("give at least one size");
  if (sizes.length > MAX_SWEEP_SIZES)
    return bad(`${sizes.length} sizes: a sweep runs at most ${MAX_SWEEP_SIZES}`);
  const wrong = sizes.find((s) => !Number.isSafeInteger(s) || (s as number) < 1);
  return wrong === undefined ? [] : bad(`'${String(wrong)}' is not a positive whole byte count`);
}

/** Compile and simulate `source` at every size of `options.param`. */
export function sweep(source: string, options: SweepOptions): SweepResult {
  const points: SweepPoint[] = [];
  const diagnostics = sizesProblem(options.sizes);
  if (diagnostics.length > 0) return { ok: false, points, diagnostics };
  for (const bytes of options.sizes) {
    const c = compile(source, {
      ...options,
      emit: ["sdma"],
      defines: { ...options.defines, [options.param]: `${bytes}B` },
    });
    diagnostics.push(...c.diagnostics);
    if (!c.ok) {
      points.push(failedPoint(bytes, c.diagnostics));
      continue;
    }
    const r = simulate(c, options);
    if (hasErrors(r.diagnostics)) diagnostics.push(...r.diagnostics);
    points.push(runPoint(bytes, r, r.diagnostics, c.optimised?.plan?.chosen.label));
  }
  return { ok: points.every((p) => p.verified), points, diagnostics };
}
