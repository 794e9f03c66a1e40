// Fitting a CUDA target's constants to runner measurements (`dmac measure --fit`, `dmac calibrate
// RESULTS.json`): which constants are fittable and within what bounds (the target file's `fit`
// ranges), the search (mean squared log ratio over the training runs, the pattern search of
// src/util/pattern-search.ts over logarithms), and the target file written back with the values.
//
// Fittable: every timing constant with a `fit` range, the host link's two bandwidths (fixed
// bounds 40-64 GB/s, PCIe Gen5 x16: older files have no range there), and the NVLink bandwidth
// when `nvlink.fit` gives a range. A constant the runs do not constrain (the search found the
// error flat along it: a host link in peer-only runs) keeps its value and its source.

import { minimise } from "../../util/pattern-search.js";
import {
  CUDA_TIMING,
  cudaOf,
  type CudaTarget,
  type CudaTimingName,
  withStandIns,
} from "../../target/cuda-target.js";
import type { Target } from "../../target/target.js";
import type { Compared, CudaPredictor } from "./measure.js";

/** A fittable constant: a timing constant, a host-link bandwidth, or `peerGBps`
 *  (the file's `nvlink.perDirectionGBps`). */
export type CudaFitName = CudaTimingName | "h2dGBps" | "d2hGBps" | "peerGBps";

export interface FitBound {
  readonly name: CudaFitName;
  readonly value: number;
  readonly min: number;
  readonly max: number;
}

type Ranged = { value?: number; perDirectionGBps?: number; fit?: { min: number; max: number } };

/** The fittable constants of a CUDA target, with their bounds. */
export function cudaFitBounds(target: Target): FitBound[] {
  const timing = target["timing"] as Record<string, Ranged>;
  const out: FitBound[] = [];
  for (const name of Object.keys(CUDA_TIMING) as CudaTimingName[]) {
    const e = timing[name];
    if (e?.fit) out.push({ name, value: e.value!, min: e.fit.min, max: e.fit.max });
  }
  const t = cudaOf(target)!;
  out.push({ name: "h2dGBps", value: t.hostLink.h2dGBps, min: 40, max: 64 });
  out.push({ name: "d2hGBps", value: t.hostLink.d2hGBps, min: 40, max: 64 });
  const nvlink = target["nvlink"] as Ranged | undefined;
  if (nvlink?.fit)
    out.push({ name: "peerGBps", value: t.peerGBps, min: nvlink.fit.min, max: nvlink.fit.max });
  return out;
}

/** `t` with the named constants set to `x`. */
export function withValues(
  t: CudaTarget,
  names: readonly CudaFitName[],
  x: readonly number[],
): CudaTarget {
  const timing = { ...t.timing };
  const hostLink = { ...t.hostLink };
  let peerGBps = t.peerGBps;
  names.forEach((n, i) => {
    if (n === "h2dGBps" || n === "d2hGBps") hostLink[n] = x[i]!;
    else if (n === "peerGBps") peerGBps = x[i]!;
    else timing[n] = x[i]!;
  });
  // A constant given a value here is no longer a stand-in; the others follow theirs.
  const absent = t.absent.filter((n) => !names.includes(n));
  return { ...t, timing: withStandIns(timing, absent), absent, hostLink, peerGBps };
}

export interface FitResult {
  readonly values: number[];
  readonly evals: number;
  /** Per constant: the error did not change along it (the runs do not constrain it). */
  readonly flat: boolean[];
}

/** Fits on `train` minimising the mean squared log ratio; returns the fitted values. */
export function fitCuda(
  train: readonly Compared[],
  base: CudaTarget,
  bounds: readonly FitBound[],
  predict: CudaPredictor,
): FitResult {
  const names = bounds.map((b) => b.name);
  const f = (logx: readonly number[]): number => {
    const t = withValues(base, names, logx.map(Math.exp));
    let s = 0;
    for (const r of train) {
      const p = predict(r.program, t);
      const d = p !== undefined ? Math.log(p / r.run.medianUs) : 10;
      s += d * d;
    }
    return s / train.length;
  };
  const r = minimise(
    f,
    bounds.map((b) => Math.log(b.value)),
    bounds.map((b) => Math.log(b.min)),
    bounds.map((b) => Math.log(b.max)),
    { maxEvals: 3000, minStep: 1e-3 },
  );
  // A flat coordinate never moves, so its value is the start exactly (no exp(log) rounding).
  const values = r.x.map((v, i) => (r.flat[i] ? bounds[i]!.value : Math.exp(v)));
  return { values, evals: r.evals, flat: r.flat };
}

/** The target file with the fitted values and their `source` (e.g. "fitted on FILE, on every
 *  other size ...") written in; constants the runs did not constrain keep their value and source. */
export function fittedTargetJson(
  target: Target,
  names: readonly CudaFitName[],
  fit: FitResult,
  source: string,
): string {
  const json = JSON.parse(
    JSON.stringify({
      ...target,
      cuda: undefined,
      engines: undefined,
      recommendedEngine: undefined,
      limits: undefined,
    }),
  ) as Record<string, Record<string, Record<string, unknown>>>;
  names.forEach((n, i) => {
    if (fit.flat[i]) return;
    const v = Number(fit.values[i]!.toPrecision(4));
    if (n === "h2dGBps" || n === "d2hGBps") json["hostLink"]![n] = v as never;
    else if (n === "peerGBps") {
      json["nvlink"]!["perDirectionGBps"] = v as never;
      json["nvlink"]!["source"] = source as never;
    } else {
      const e = json["timing"]![n]!;
      e["value"] = v;
      e["source"] = source;
    }
  });
  return JSON.stringify(json, null, 2) + "\n";
}
