// One size of a size sweep: a row of `dmac sweep`'s table and CSV (src/cli/commands/sweep.ts) and
// a point of the library's sweep (src/api/sweep.ts). Both build it here, from a run's figures or
// from the diagnostics of a compile that failed, so the two agree on what a size reports.

import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { SummaryFields } from "./summary.js";

export interface SweepPoint {
  readonly bytes: number;
  readonly verified: boolean;
  readonly totalUs: number;
  /** nccl-tests' algbw and busbw (src/sim/bandwidth.ts); null where not defined or not run. */
  readonly algbwGBps: number | null;
  readonly busbwGBps: number | null;
  /** DMA-Latte's algbw and busbw. */
  readonly dmaLatteAlgbwGBps: number | null;
  readonly dmaLatteBusbwGBps: number | null;
  readonly packets: number;
  /** With -O2 (opt 2): the plan chosen at this size. */
  readonly plan?: string | undefined;
  /** The first error, when the run did not verify (or did not compile). */
  readonly problem?: string | undefined;
}

/** The figures of one run that a sweep keeps. */
export type SweepFigures = Pick<
  SummaryFields,
  | "verified"
  | "totalUs"
  | "algbwGBps"
  | "busbwGBps"
  | "dmaLatteAlgbwGBps"
  | "dmaLatteBusbwGBps"
  | "packets"
>;

/** "CODE message" of the first error, if there is one. */
export function firstError(diagnostics: readonly Diagnostic[]): string | undefined {
  const d = diagnostics.find((x) => x.severity === "error");
  return d ? `${d.code} ${d.message}` : undefined;
}

/** A size that did not compile: no figures, and the first error. */
export function failedPoint(bytes: number, diagnostics: readonly Diagnostic[]): SweepPoint {
  return {
    bytes,
    verified: false,
    totalUs: 0,
    algbwGBps: null,
    busbwGBps: null,
    dmaLatteAlgbwGBps: null,
    dmaLatteBusbwGBps: null,
    packets: 0,
    problem: firstError(diagnostics) ?? "does not compile",
  };
}

/** A size that ran: its figures, the plan -O2 chose, and the first error unless it verified. */
export function runPoint(
  bytes: number,
  r: SweepFigures,
  diagnostics: readonly Diagnostic[],
  plan: string | undefined,
): SweepPoint {
  return {
    bytes,
    verified: r.verified,
    totalUs: r.totalUs,
    algbwGBps: r.algbwGBps,
    busbwGBps: r.busbwGBps,
    dmaLatteAlgbwGBps: r.dmaLatteAlgbwGBps,
    dmaLatteBusbwGBps: r.dmaLatteBusbwGBps,
    packets: r.packets,
    ...(plan !== undefined ? { plan } : {}),
    ...(!r.verified ? { problem: firstError(diagnostics) ?? "postcondition not checked" } : {}),
  };
}
