// Text and JSON summaries of one executor run (what `dmac sim` prints): the full summary of one
// input (per-engine and per-link lines grouped into min / median / max and the busiest few unless
// verbose: an 8-GPU node has 56+ queues and 56 links), one compact line per input when several
// are run, and the complete JSON form.

import type { EngineStats, LinkStats, PcieStats } from "./execute.js";
import type { Bandwidth, SimResult } from "./run.js";
import { bandwidthDefined, definedOr, gbpsText } from "./bandwidth.js";
import { pushAll } from "../util/arrays.js";
import { sortDiagnostics } from "../diagnostics/diagnostic.js";
import { jsonDiagnostics } from "../diagnostics/render.js";
import { formatSize } from "../util/format-size.js";
import { formatTime } from "../util/format-time.js";

export interface SummaryOptions {
  /** Every engine and link on its own line (default: grouped when there are more than GROUP_ABOVE). */
  readonly verbose?: boolean | undefined;
  /** Why the postcondition was not checked, when it was not (e.g. "--no-verify"). */
  readonly unchecked?: string | undefined;
}

/** Up to this many engines (or links) are always listed one per line. */
export const GROUP_ABOVE = 8;
/** How many of the busiest engines and links the grouped form names. */
export const BUSIEST = 3;

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

/** min, median (mean of the two middle values for an even count) and max of a non-empty list. */
export function spread(values: readonly number[]): { min: number; median: number; max: number } {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  const median = v.length % 2 === 1 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
  return { min: v[0] ?? 0, median, max: v[v.length - 1] ?? 0 };
}

function engineLine(e: EngineStats, totalUs: number): string {
  return `${formatTime(e.busyUs).padStart(12)}  ${pct(totalUs > 0 ? e.busyUs / totalUs : 0).padStart(6)}  ${e.packets} packets`;
}

/** A link's (or host link direction's) bytes and utilisation columns. */
function linkLine(l: Pick<LinkStats, "bytes" | "utilisation">): string {
  return `${formatSize(l.bytes).padStart(12)}  ${pct(l.utilisation).padStart(6)}`;
}

function engineLines(s: SimResult["stats"], verbose: boolean): string[] {
  const lines: string[] = [];
  const gpus = new Set(s.engines.map((e) => e.gpu)).size;
  lines.push(
    `engines         ${s.engines.length} queues on ${gpus} GPU${gpus === 1 ? "" : "s"}; busy time, share of total`,
  );
  if (verbose || s.engines.length <= GROUP_ABOVE) {
    for (const e of s.engines) lines.push(`  ${e.queue.padEnd(14)}${engineLine(e, s.totalUs)}`);
    return lines;
  }
  const busy = spread(s.engines.map((e) => e.busyUs));
  const share = (us: number): string => pct(s.totalUs > 0 ? us / s.totalUs : 0).padStart(6);
  for (const [name, us] of [
    ["min", busy.min],
    ["median", busy.median],
    ["max", busy.max],
  ] as const)
    lines.push(`  ${name.padEnd(14)}${formatTime(us).padStart(12)}  ${share(us)}`);
  const top = [...s.engines].sort((a, b) => b.busyUs - a.busyUs).slice(0, BUSIEST);
  lines.push(`  busiest`);
  for (const e of top) lines.push(`    ${e.queue.padEnd(12)}${engineLine(e, s.totalUs)}`);
  return lines;
}

/** Each host link direction that carried bytes: the uploads and downloads of buffers `on host`. */
function pcieLines(s: SimResult["stats"]): string[] {
  if (s.pcie.length === 0) return [];
  const bytes = s.pcie.reduce((a, l) => a + l.bytes, 0);
  return [
    `pcie            ${s.pcie.length} host link direction${s.pcie.length === 1 ? " carries" : "s carry"} ${formatSize(bytes)}; bytes, utilisation of usable bandwidth`,
    ...s.pcie.map((l) => `  ${`gpu${l.gpu} ${l.direction}`.padEnd(14)}${linkLine(l)}`),
  ];
}

function linkLines(s: SimResult["stats"], verbose: boolean): string[] {
  if (s.links.length === 0) return ["links           (no xGMI traffic)"];
  const bytes = s.links.reduce((a, l) => a + l.bytes, 0);
  const lines = [
    `links           ${s.links.length} links carry ${formatSize(bytes)}; bytes, utilisation of usable bandwidth`,
  ];
  const name = (l: LinkStats): string => `gpu${l.src}->gpu${l.dst}`;
  if (verbose || s.links.length <= GROUP_ABOVE) {
    for (const l of s.links) lines.push(`  ${name(l).padEnd(14)}${linkLine(l)}`);
    return lines;
  }
  const u = spread(s.links.map((l) => l.utilisation));
  const b = spread(s.links.map((l) => l.bytes));
  for (const [label, by, ut] of [
    ["min", b.min, u.min],
    ["median", b.median, u.median],
    ["max", b.max, u.max],
  ] as const)
    lines.push(`  ${label.padEnd(14)}${formatSize(by).padStart(12)}  ${pct(ut).padStart(6)}`);
  const top = [...s.links].sort((a, c) => c.utilisation - a.utilisation).slice(0, BUSIEST);
  lines.push(`  busiest`);
  for (const l of top) lines.push(`    ${name(l).padEnd(12)}${linkLine(l)}`);
  return lines;
}

/** busbw / algbw as a fraction of the rank count where it is one ("7/8"), else as a number. */
function factorText(f: number, gpus: number): string {
  return f === 1 || gpus < 2 || f !== (gpus - 1) / gpus
    ? String(Number(f.toFixed(4)))
    : `${gpus - 1}/${gpus}`;
}

/** The two bandwidth lines: nccl-tests' figures, then DMA-Latte's (src/sim/bandwidth.ts). */
function bandwidthLines(b: Bandwidth): string[] {
  // Nothing to size by: no `implements` collective and no bytes over xGMI (e.g. host copies).
  if (!bandwidthDefined(b))
    return ["algbw / busbw   n/a  (no `implements` collective, and no bytes crossed xGMI links)"];
  const gpus = b.busFactor > 0 && b.busFactor < 1 ? Math.round(1 / (1 - b.busFactor)) : 0;
  const sized = b.collective
    ? `${b.collective}: size ${formatSize(b.sizeBytes)}`
    : `collective unknown, sized as an all-gather: size ${formatSize(b.sizeBytes)}`;
  return [
    `algbw / busbw   ${b.algbwGBps.toFixed(2)} / ${b.busbwGBps.toFixed(2)} GB/s  (nccl-tests, ${sized}; algbw = size / time, busbw = algbw x ${factorText(b.busFactor, gpus)})`,
    `DMA-Latte       algbw ${b.dmaLatteAlgbwGBps.toFixed(2)} / busbw ${b.dmaLatteBusbwGBps.toFixed(2)} GB/s  (total = ${formatSize(b.totalBytes)}; algbw = (N-1)/N x total / time, busbw = total / (N x time))`,
  ];
}

/**
 * What "verified" proved about the final buffers: the schedule's postcondition where it states
 * one (`implements`, `ensure`), otherwise only that they match its own copies' meaning.
 */
function verifiedWhat(claims: SimResult["claims"]): string {
  const stated = [
    ...(claims?.collective !== undefined ? [`implements ${claims.collective}`] : []),
    ...(claims && claims.ensures > 0
      ? [`${claims.ensures} ensure${claims.ensures === 1 ? "" : "s"}`]
      : []),
  ];
  return stated.length > 0
    ? `the postcondition holds (${stated.join(", ")})`
    : "every buffer ends as the schedule's copies say (it states no postcondition: no implements, no ensure)";
}

/** The full summary of one run (`dmac sim` with one input). */
export function summaryText(r: SimResult, opts: SummaryOptions = {}): string {
  const s = r.stats;
  const verbose = opts.verbose === true;
  const lines: string[] = [];
  const status = r.verified
    ? `verified: ${verifiedWhat(r.claims)}, no out-of-bounds access, no race, no deadlock, every queue drained`
    : r.diagnostics.some((d) => d.severity === "error")
      ? "NOT verified: see the errors above"
      : `functional checks passed; postcondition NOT checked (${opts.unchecked ?? "no IR"})`;
  lines.push(status);
  lines.push(
    `total time      ${formatTime(s.totalUs)}  (host submission ${formatTime(s.hostSubmitUs)})`,
  );
  pushAll(lines, bandwidthLines(r.bandwidth));
  if (r.timedBy !== undefined) {
    // A CUDA target: the command program's streams (its engines and links are the fabric's).
    lines.push(`commands        ${s.packets} in ${s.events} events`);
    lines.push(`timed by        ${r.timedBy}`);
    return lines.join("\n") + "\n";
  }
  lines.push(`packets         ${s.packets} in ${s.events} events`);
  pushAll(lines, engineLines(s, verbose));
  pushAll(lines, linkLines(s, verbose));
  pushAll(lines, pcieLines(s));
  if (!verbose && (s.engines.length > GROUP_ABOVE || s.links.length > GROUP_ABOVE))
    lines.push("(--verbose lists every engine and link)");
  const fallbacks = r.model?.fallbacks ?? [];
  if (fallbacks.length > 0)
    lines.push(
      `fallbacks       target ${r.model!.name} marks ${fallbacks.length} figures unknown; the timing uses stated fallbacks: ${fallbacks.join(", ")}`,
    );
  return lines.join("\n") + "\n";
}

/**
 * One line for `dmac sim` with several inputs: name, "verified" or the first problem, total
 * time and busbw (nccl-tests). `width` pads the name column.
 */
export function summaryLine(
  name: string,
  r: SimResult | undefined,
  problem: string | undefined,
  width = 0,
): string {
  const head = name.padEnd(width);
  if (!r || !r.program)
    return `${head}  ${"-".padStart(12)}  ${"-".padStart(8)}            FAILED  ${problem ?? "did not run"}`;
  const status = r.verified
    ? "verified"
    : problem !== undefined
      ? `FAILED  ${problem}`
      : "postcondition not checked";
  const busbw = gbpsText(definedOr(r.bandwidth, r.bandwidth.busbwGBps));
  return `${head}  ${formatTime(r.stats.totalUs).padStart(12)}  ${busbw.padStart(8)} GB/s busbw  ${status}`;
}

/** The summary's figures, flat, in the JSON's order (without the diagnostics). */
export interface SummaryFields {
  /** No errors, every queue drained, and the final state is what the schedule means. */
  readonly verified: boolean;
  readonly postcondition: SimResult["postcondition"];
  readonly totalUs: number;
  readonly hostSubmitUs: number;
  /** nccl-tests' algbw and busbw (src/sim/bandwidth.ts). */
  /** null where not defined (bandwidthDefined): host transfers only. */
  readonly algbwGBps: number | null;
  readonly busbwGBps: number | null;
  /** The collective whose nccl-tests convention gave the size; null: unknown (sized as all_gather). */
  readonly collective: string | null;
  /** nccl-tests' size S, and busbw / algbw. */
  readonly sizeBytes: number;
  readonly busFactor: number;
  /** DMA-Latte's total and its algbw and busbw. */
  readonly totalBytes: number;
  readonly dmaLatteAlgbwGBps: number | null;
  readonly dmaLatteBusbwGBps: number | null;
  readonly packets: number;
  readonly events: number;
  readonly engines: readonly EngineStats[];
  readonly links: readonly LinkStats[];
  readonly pcie: readonly PcieStats[];
}

/** The figures of `dmac sim --json` (and of the library's `simulate`), in the JSON's order. */
export function summaryFields(r: SimResult): SummaryFields {
  return {
    verified: r.verified,
    postcondition: r.postcondition,
    totalUs: r.stats.totalUs,
    hostSubmitUs: r.stats.hostSubmitUs,
    algbwGBps: definedOr(r.bandwidth, r.bandwidth.algbwGBps),
    busbwGBps: definedOr(r.bandwidth, r.bandwidth.busbwGBps),
    collective: r.bandwidth.collective ?? null,
    sizeBytes: r.bandwidth.sizeBytes,
    busFactor: r.bandwidth.busFactor,
    totalBytes: r.bandwidth.totalBytes,
    dmaLatteAlgbwGBps: definedOr(r.bandwidth, r.bandwidth.dmaLatteAlgbwGBps),
    dmaLatteBusbwGBps: definedOr(r.bandwidth, r.bandwidth.dmaLatteBusbwGBps),
    packets: r.stats.packets,
    events: r.stats.events,
    engines: r.stats.engines,
    links: r.stats.links,
    pcie: r.stats.pcie,
  };
}

/** The `sim --json` summary: the fields and the diagnostics as every `--format json` has them. */
export function summaryJson(r: SimResult): unknown {
  return {
    ...summaryFields(r),
    ...(r.timedBy !== undefined ? { timedBy: r.timedBy } : {}),
    diagnostics: jsonDiagnostics(sortDiagnostics(r.diagnostics)),
  };
}
