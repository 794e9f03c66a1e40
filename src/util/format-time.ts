// The one formatter of durations for people (summaries, tables, plan reports, progress). Times in
// dmac are microseconds (the executor's unit). Fixed rules: below 1 ms, µs with 2 decimals
// ("0.25 µs", "12.34 µs", "999.99 µs"); below 1 s, ms with 3 decimals ("1.234 ms"); above, s
// with 3 decimals ("30.120 s"). Fixed decimals, not significant digits: within a unit the
// resolution is constant (10 ns, 1 µs, 1 ms), so a column of times lines up and two runs 10 ns
// apart print differently, which comparisons of variants (sweep's fastest column, -O2's plan
// list) rely on. Machine-readable outputs carry plain microseconds (`totalUs`, `time_us`).

/** `us` microseconds for reading (rules above). */
export function formatTime(us: number): string {
  if (!Number.isFinite(us)) return String(us);
  if (us < 0) return `-${formatTime(-us)}`;
  // Decided on the rounded value: 999.996 µs prints as 1.000 ms, not "1000.00 µs".
  if (Number(us.toFixed(2)) < 1e3) return `${us.toFixed(2)} µs`;
  if (Number((us / 1e3).toFixed(3)) < 1e3) return `${(us / 1e3).toFixed(3)} ms`;
  return `${(us / 1e6).toFixed(3)} s`;
}
