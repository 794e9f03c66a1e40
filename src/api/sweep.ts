// The library's size sweep: one schedule compiled and simulated at every size of a bytes
// parameter (what one variant of `dmac sweep` does; src/cli/commands/sweep.ts compares several
// and draws them). Points are the CLI's rows (src/sim/sweep-point.ts). No I/O.

import { hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
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

/** `n` up to `hi` (inclusive), doubling from `lo`: sizes(1024, 8192) = [1024, 2048, 4096, 8192]. */
export function doublings(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let s = lo; s > 0 && s <= hi; s *= 2) out.push(s);
  return out;
}

/** Compile and simulate `source` at every size of `options.param`. */
export function sweep(source: string, options: SweepOptions): SweepResult {
  const points: SweepPoint[] = [];
  const diagnostics: Diagnostic[] = [];
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
