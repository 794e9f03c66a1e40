// Text and JSON summaries of one executor run (what `dmac sim` prints).

import type { SimResult } from "./run.js";

export function formatBytes(n: number): string {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let u = 0;
  while (n >= 1024 && u < units.length - 1 && n % 1024 === 0) {
    n /= 1024;
    u++;
  }
  return `${Number.isInteger(n) ? n : n.toFixed(1)} ${units[u]}`;
}

export function formatUs(us: number): string {
  if (us >= 1e6) return `${(us / 1e6).toFixed(3)} s`;
  if (us >= 1e3) return `${(us / 1e3).toFixed(3)} ms`;
  return `${us.toFixed(2)} us`;
}

export function summaryText(r: SimResult): string {
  const s = r.stats;
  const lines: string[] = [];
  const status = r.verified
    ? "verified: the postcondition holds, no out-of-bounds access, no race, no deadlock, every queue drained"
    : r.diagnostics.some((d) => d.severity === "error")
      ? "NOT verified: see the errors above"
      : "functional checks passed; postcondition not checked (no IR: run on the .dmac file)";
  lines.push(status);
  lines.push(
    `total time      ${formatUs(s.totalUs)}  (host submission ${formatUs(s.hostSubmitUs)})`,
  );
  lines.push(
    `algbw / busbw   ${r.bandwidth.algbwGBps.toFixed(2)} / ${r.bandwidth.busbwGBps.toFixed(2)} GB/s  (DMA-Latte: total = ${formatBytes(r.bandwidth.totalBytes)}; algbw = (N-1)/N x total / time, busbw = total / (N x time))`,
  );
  lines.push(`packets         ${s.packets} in ${s.events} events`);
  lines.push("engines         busy time (share of total)");
  for (const e of s.engines)
    lines.push(
      `  ${e.queue.padEnd(14)} ${formatUs(e.busyUs).padStart(12)}  ${s.totalUs > 0 ? ((100 * e.busyUs) / s.totalUs).toFixed(1) : "0.0"}%  ${e.packets} packets`,
    );
  lines.push("links           bytes, utilisation of usable bandwidth");
  for (const l of s.links)
    lines.push(
      `  gpu${l.src}->gpu${l.dst}     ${formatBytes(l.bytes).padStart(12)}  ${(100 * l.utilisation).toFixed(1)}%`,
    );
  if (s.links.length === 0) lines.push("  (no xGMI traffic)");
  return lines.join("\n") + "\n";
}

export function summaryJson(r: SimResult): unknown {
  return {
    verified: r.verified,
    postcondition: r.postcondition,
    totalUs: r.stats.totalUs,
    hostSubmitUs: r.stats.hostSubmitUs,
    algbwGBps: r.bandwidth.algbwGBps,
    busbwGBps: r.bandwidth.busbwGBps,
    totalBytes: r.bandwidth.totalBytes,
    packets: r.stats.packets,
    events: r.stats.events,
    engines: r.stats.engines,
    links: r.stats.links,
    diagnostics: r.diagnostics.map((d) => ({
      code: d.code,
      severity: d.severity,
      message: d.message,
      hint: d.hint,
    })),
  };
}
