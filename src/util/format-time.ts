// The one formatter of durations for people (summaries, tables, plan reports, progress). Times in
// dmac are microseconds (the executor's unit); they print in the unit that keeps the number
// between 1 and 1000 (ns, µs, ms, s; seconds beyond 1000 s stay seconds) with 4 significant
// digits: "812.5 ns", "12.34 µs", "123.4 µs", "1.234 ms", "30.12 s". Four, not three as sizes
// have, because times are compared: two variants 0.1% apart must not print the same. Zero is
// "0 µs". Machine-readable outputs carry plain microseconds (`totalUs`, `time_us`) instead.

const SCALES = [
  [1e6, "s"],
  [1e3, "ms"],
  [1, "µs"],
  [1e-3, "ns"],
] as const;

/** `us` microseconds for reading (rules above). */
export function formatTime(us: number): string {
  if (!Number.isFinite(us)) return String(us);
  if (us === 0) return "0 µs";
  if (us < 0) return `-${formatTime(-us)}`;
  for (const [scale, unit] of SCALES) {
    if (us < scale && unit !== "ns") continue;
    const v = us / scale;
    const text = fourDigits(v);
    // 999.96 µs rounds to 1000: that is 1.000 ms.
    if (Number(text) >= 1000 && unit !== "s") return formatTime(Number(text) * scale);
    return `${text} ${unit}`;
  }
  return `${us} µs`; // unreachable: the ns scale takes everything below 1 µs
}

function fourDigits(v: number): string {
  return v.toFixed(v >= 1000 ? 0 : v >= 100 ? 1 : v >= 10 ? 2 : 3);
}
