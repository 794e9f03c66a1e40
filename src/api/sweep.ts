// The library's size sweep: one schedule compiled and simulated at every size of a bytes
// parameter (what one variant of `dmac sweep` does; src/cli/commands/sweep.ts compares several
// and draws them). Rows have the CLI's SweepRow shape (the CSV's columns). No I/O.

import { hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
import { compile, type CompileOptions } from "./compile.js";
import { simulate, type SimulateOptions } from "./simulate.js";

export interface SweepOptions extends CompileOptions, Omit<SimulateOptions, "target" | "useTrace"> {
  /** The bytes parameter to vary (e.g. "chunk"). */
  readonly param: string;
  /** The sizes in bytes, in the order to run them. */
  readonly sizes: readonly number[];
}

export interface SweepPoint {
  readonly bytes: number;
  readonly verified: boolean;
  readonly totalUs: number;
  readonly algbwGBps: number;
  readonly busbwGBps: number;
  readonly packets: number;
  /** With opt 2: the plan chosen at this size. */
  readonly plan?: string | undefined;
  /** The first error, when the run did not compile or verify. */
  readonly problem?: string | undefined;
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

function firstError(diagnostics: readonly Diagnostic[]): string | undefined {
  const d = diagnostics.find((x) => x.severity === "error");
  return d ? `${d.code} ${d.message}` : undefined;
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
    const zero = { bytes, verified: false, totalUs: 0, algbwGBps: 0, busbwGBps: 0, packets: 0 };
    if (!c.ok) {
      points.push({ ...zero, problem: firstError(c.diagnostics) ?? "does not compile" });
      continue;
    }
    const r = simulate(c, options);
    if (hasErrors(r.diagnostics)) diagnostics.push(...r.diagnostics);
    const plan = c.optimised?.plan?.chosen.label;
    points.push({
      bytes,
      verified: r.verified,
      totalUs: r.totalUs,
      algbwGBps: r.algbwGBps,
      busbwGBps: r.busbwGBps,
      packets: r.packets,
      ...(plan !== undefined ? { plan } : {}),
      ...(!r.verified ? { problem: firstError(r.diagnostics) ?? "postcondition not checked" } : {}),
    });
  }
  return { ok: points.every((p) => p.verified), points, diagnostics };
}
