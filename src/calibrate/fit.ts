// The pure parts of `dmac calibrate`: the error it minimises, targets with replaced timing
// values, and the fitted target file (JSON laid out as prettier lays it out, so a fitted target
// can be checked in as is).
//
// The error: every measured row i contributes r_i = ln(predicted_i / measured_i), where a row's
// quantity is its time (time_us rows) or its speedup over its baseline row (speedup rows: the
// baseline's predicted time / the row's predicted time); the fit minimises the weighted mean
// sum(w_i r_i^2) / sum(w_i). A log ratio treats 2x too slow and 2x too fast alike and weighs a
// 1 us row and a 1 ms row the same. Reports use the relative error (predicted - measured) /
// measured.

import type { MeasurementRow } from "./measurements.js";
import type { Target } from "../target/target.js";

/** Predicted quantity of each row (NaN where it cannot be computed), from predicted times. */
export function predictedQuantities(
  rows: readonly MeasurementRow[],
  timeOf: (row: MeasurementRow) => number,
): number[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return rows.map((r) => {
    const t = timeOf(r);
    if (r.measured?.kind !== "speedup") return t;
    const base = byId.get(r.measured.baseline);
    return base ? timeOf(base) / t : NaN;
  });
}

/** The measured quantity of a row (undefined for a reference row). */
export function measuredQuantity(r: MeasurementRow): number | undefined {
  if (!r.measured) return undefined;
  return r.measured.kind === "time" ? r.measured.us : r.measured.value;
}

/** sum(w ln(p/m)^2) / sum(w) over the measured rows; Infinity if a prediction is missing. */
export function fitError(rows: readonly MeasurementRow[], predicted: readonly number[]): number {
  let sum = 0;
  let weights = 0;
  rows.forEach((r, i) => {
    const m = measuredQuantity(r);
    if (m === undefined || r.weight === 0) return;
    const p = predicted[i]!;
    const l = p > 0 && Number.isFinite(p) ? Math.log(p / m) : Infinity;
    sum += r.weight * l * l;
    weights += r.weight;
  });
  return weights > 0 ? sum / weights : 0;
}

/** (predicted - measured) / measured. */
export function relativeError(predicted: number, measured: number): number {
  return (predicted - measured) / measured;
}

/** Median and largest |relative error| over the measured rows. */
export function errorSummary(
  rows: readonly MeasurementRow[],
  predicted: readonly number[],
): { median: number; max: number; count: number } {
  const errs: number[] = [];
  rows.forEach((r, i) => {
    const m = measuredQuantity(r);
    if (m !== undefined) errs.push(Math.abs(relativeError(predicted[i]!, m)));
  });
  errs.sort((a, b) => a - b);
  const n = errs.length;
  if (n === 0) return { median: 0, max: 0, count: 0 };
  const median = n % 2 === 1 ? errs[(n - 1) / 2]! : (errs[n / 2 - 1]! + errs[n / 2]!) / 2;
  return { median, max: errs[n - 1]!, count: n };
}

/** A copy of the target whose timing constants in `values` have those values. */
export function withTimingValues(target: Target, values: Readonly<Record<string, number>>): Target {
  const timing = { ...(target["timing"] as Record<string, Record<string, unknown>>) };
  for (const [name, value] of Object.entries(values)) timing[name] = { ...timing[name], value };
  return { ...target, timing } as Target;
}

/** Rounds to `digits` significant digits (what is written to the fitted target). */
export function roundSignificant(x: number, digits = 4): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  return Number(x.toPrecision(digits));
}

const FIT_SOURCE = /^fit: dmac calibrate .*?; before that: (.*)$/s;

/**
 * The fitted target's JSON: the input document with each fitted constant's value replaced and
 * its source saying so (the command, the error before and after, and the previous source, which
 * a later refit replaces instead of nesting).
 */
export function fittedTarget(
  target: Target,
  fitted: Readonly<Record<string, number>>,
  note: string,
): Record<string, unknown> {
  const timing = target["timing"] as Record<string, Record<string, unknown>>;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(target)) out[key] = v;
  const newTiming: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(timing)) {
    if (!(name in fitted)) {
      newTiming[name] = entry;
      continue;
    }
    const old = entry["value"] as number;
    const prev = String(entry["source"] ?? "");
    const before = FIT_SOURCE.exec(prev)?.[1] ?? prev;
    const e: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(entry)) e[k] = x;
    e["value"] = fitted[name];
    e["source"] = `fit: ${note}: ${old} -> ${fitted[name]}; before that: ${before}`;
    newTiming[name] = e;
  }
  out["timing"] = newTiming;
  return out;
}

/**
 * JSON text as prettier formats a .json file (printWidth 100): objects one key per line, arrays
 * of scalars on one line when they fit (else one element per line), two-space indent.
 */
export function formatJson(value: unknown, width = 100): string {
  const flat = (v: unknown): string | undefined => {
    if (v === null || typeof v !== "object") return JSON.stringify(v);
    if (Array.isArray(v)) {
      const parts = v.map(flat);
      if (parts.some((p) => p === undefined)) return undefined;
      return `[${parts.join(", ")}]`;
    }
    return Object.keys(v).length === 0 ? "{}" : undefined;
  };
  const render = (v: unknown, indent: string, used: number, trail: number): string => {
    const f = flat(v);
    if (f !== undefined && (Array.isArray(v) ? used + f.length + trail <= width : true)) return f;
    const inner = indent + "  ";
    if (Array.isArray(v)) {
      const items = v.map(
        (x, i) => inner + render(x, inner, inner.length, i < v.length - 1 ? 1 : 0),
      );
      return `[\n${items.join(",\n")}\n${indent}]`;
    }
    const entries = Object.entries(v as Record<string, unknown>);
    const lines = entries.map(([k, x], i) => {
      const head = `${inner}${JSON.stringify(k)}: `;
      return head + render(x, inner, head.length, i < entries.length - 1 ? 1 : 0);
    });
    return `{\n${lines.join(",\n")}\n${indent}}`;
  };
  return render(value, "", 0, 0) + "\n";
}
