// The simulation-summary golden: what `dmac sim` concludes about a schedule, one `key value`
// line each, so a diff names what moved:
//
//   verdict  verified
//   time     34.2381 us
//   algbw    30.626 GB/s          nccl-tests' algbw and busbw (src/sim/bandwidth.ts)
//   busbw    30.626 GB/s
//   total    1048576 B            DMA-Latte's total: bytes between GPUs / (N - 1)
//
// The verdict and the byte total must match exactly. The time and the two bandwidths (which
// follow from it) pass when each is within the configuration's relative tolerance of the golden
// (`--time-tolerance 2%`, default 1%), so a recalibrated model constant that moves every time a
// little does not fail every golden, while a change beyond it does.

import type { SimResult } from "../sim/run.js";
import { bandwidthDefined } from "../sim/bandwidth.js";

/** Lines whose leading number may move within the tolerance. */
const TOLERANT: ReadonlySet<string> = new Set(["time", "algbw", "busbw"]);

/** Six significant digits: enough for any tolerance, few enough to read. */
const num = (x: number): string => String(Number(x.toPrecision(6)));

/** The summary of a run that took place (result.program set). */
export function simSummaryText(r: SimResult): string {
  const errors = [
    ...new Set(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.code)),
  ].sort();
  const verdict = r.verified
    ? "verified"
    : errors.length > 0
      ? `NOT verified: ${errors.join(", ")}`
      : "NOT verified: postcondition not checked";
  return [
    `verdict  ${verdict}`,
    `time     ${num(r.stats.totalUs)} us`,
    `algbw    ${bandwidthDefined(r.bandwidth) ? `${num(r.bandwidth.algbwGBps)} GB/s` : "n/a"}`,
    `busbw    ${bandwidthDefined(r.bandwidth) ? `${num(r.bandwidth.busbwGBps)} GB/s` : "n/a"}`,
    `total    ${Number(r.bandwidth.totalBytes.toFixed(1))} B`,
    "",
  ].join("\n");
}

function lines(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^(\S+)\s+(.*)$/.exec(line);
    if (m) out.set(m[1]!, m[2]!);
  }
  return out;
}

const pct = (x: number): string => `${Number((100 * x).toFixed(2))}%`;

/**
 * Whether `actual` matches the golden `expected` within `tolerance` (0.02 for 2%), and a note
 * on each tolerant value that moved (within or beyond the tolerance).
 */
export function compareSimSummary(
  expected: string,
  actual: string,
  tolerance: number,
): { same: boolean; note: string | undefined } {
  const want = lines(expected);
  const got = lines(actual);
  let same = true;
  const notes: string[] = [];
  for (const key of new Set([...want.keys(), ...got.keys()])) {
    const a = want.get(key);
    const b = got.get(key);
    if (a === b) continue;
    const x = Number.parseFloat(a ?? "");
    const y = Number.parseFloat(b ?? "");
    if (!TOLERANT.has(key) || !Number.isFinite(x) || !Number.isFinite(y)) {
      same = false;
      continue;
    }
    const moved = x === 0 ? (y === 0 ? 0 : Infinity) : (y - x) / x;
    const within = Math.abs(moved) <= tolerance;
    if (!within) same = false;
    notes.push(
      `${key} ${a} -> ${b} (${Number((100 * moved).toFixed(2)) > 0 ? "+" : ""}${pct(moved)}, ${within ? "within" : "beyond"} the tolerance of ${pct(tolerance)})`,
    );
  }
  return { same, note: notes.length > 0 ? notes.join("; ") : undefined };
}
