// Logarithmic axes and their ticks. Three units, each labelled the way a reader of a paper
// expects: sizes in bytes at powers of two with IEC prefixes (1 KiB, 32 KiB, 1 MiB), times given
// in microseconds at decades with SI prefixes (100 ns, 1 µs, 10 µs, 1 ms), and plain numbers at
// decades (0.1, 1, 10, 100). The range always ends on ticks, so every point lies inside it.

export type AxisUnit = "bytes" | "us" | "number";

export interface LogAxis {
  readonly unit: AxisUnit;
  readonly lo: number;
  readonly hi: number;
  /** Labelled ticks, ascending. */
  readonly major: readonly number[];
  /** Unlabelled ticks (every power of two, or 2..9 x each decade). */
  readonly minor: readonly number[];
}

const IEC = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"] as const;
const SI_TIME: readonly (readonly [number, string])[] = [
  [1e6, "s"],
  [1e3, "ms"],
  [1, "µs"],
  [1e-3, "ns"],
];

/** A power of two as "<1..512> <IEC unit>". */
function bytesLabel(v: number): string {
  const e = Math.round(Math.log2(v));
  const u = Math.min(Math.max(0, Math.floor(e / 10)), IEC.length - 1);
  return `${2 ** (e - 10 * u)} ${IEC[u]}`;
}

/** A decade of microseconds as "<1|10|100> <SI unit>". */
function timeLabel(v: number): string {
  for (const [scale, unit] of SI_TIME)
    if (v >= scale * 0.999) return `${Number((v / scale).toPrecision(3))} ${unit}`;
  return `${Number((v * 1e6).toPrecision(3))} ps`;
}

/** 1, 2 or 5 x 10^e as plain digits from 0.001 to 500 000 (thousands spaced), else m e<exponent>. */
function numberLabel(v: number): string {
  const e = Math.floor(Math.log10(v) + 1e-9);
  const m = Math.round(v / 10 ** e);
  if (e < -3 || e > 5) return `${m}e${e}`;
  return e >= 3 ? `${(m * 10 ** (e - 3)).toString()} 000` : String(Number(v.toPrecision(1)));
}

export function tickLabel(unit: AxisUnit, v: number): string {
  return unit === "bytes" ? bytesLabel(v) : unit === "us" ? timeLabel(v) : numberLabel(v);
}

/**
 * Every power of two from lo to hi, rounded out to powers of two; labels every 2^k, k in 1, 2, 5,
 * 10, 20 (the smallest giving at most 6 steps), so labels fall on 1 KiB, 1 MiB, ... when k >= 5.
 */
function bytesAxis(lo: number, hi: number): LogAxis {
  let e0 = Math.floor(Math.log2(lo));
  let e1 = Math.ceil(Math.log2(hi));
  if (e1 === e0) [e0, e1] = [e0 - 1, e1 + 1];
  const k = [1, 2, 5, 10, 20].find((s) => (e1 - e0) / s <= 6) ?? 20;
  const major: number[] = [];
  const minor: number[] = [];
  for (let e = e0; e <= e1; e++) (e % k === 0 ? major : minor).push(2 ** e);
  return { unit: "bytes", lo: 2 ** e0, hi: 2 ** e1, major, minor };
}

/**
 * Whole decades around [lo, hi]; 2..9 x 10^e as minor ticks, except that a single decade also
 * labels 2 and 5 x 10^e (two labels alone say little).
 */
function decadeAxis(unit: AxisUnit, lo: number, hi: number): LogAxis {
  const e0 = Math.floor(Math.log10(lo) + 1e-9);
  let e1 = Math.ceil(Math.log10(hi) - 1e-9);
  if (e1 <= e0) e1 = e0 + 1;
  const labelled = e1 - e0 === 1 ? [1, 2, 5] : [1];
  const major: number[] = [];
  const minor: number[] = [];
  for (let e = e0; e <= e1; e++) {
    major.push(10 ** e);
    if (e < e1)
      for (let m = 2; m <= 9; m++) (labelled.includes(m) ? major : minor).push(m * 10 ** e);
  }
  major.sort((a, b) => a - b);
  return { unit, lo: 10 ** e0, hi: 10 ** e1, major, minor };
}

/** The axis for positive values `vs` (no values: one decade, or 1 KiB..1 MiB of bytes). */
export function logAxis(unit: AxisUnit, vs: readonly number[]): LogAxis {
  const pos = vs.filter((v) => v > 0 && Number.isFinite(v));
  const lo = pos.length > 0 ? Math.min(...pos) : unit === "bytes" ? 1024 : 1;
  const hi = pos.length > 0 ? Math.max(...pos) : unit === "bytes" ? 1024 ** 2 : 10;
  return unit === "bytes" ? bytesAxis(lo, hi) : decadeAxis(unit, lo, hi);
}

/** Where v falls on the axis, 0 at lo to 1 at hi. */
export function position(a: LogAxis, v: number): number {
  return (Math.log(v) - Math.log(a.lo)) / (Math.log(a.hi) - Math.log(a.lo));
}
