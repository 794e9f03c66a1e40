// A bounded derivative-free minimiser for `dmac calibrate`: Hooke-Jeeves pattern search (an
// exploratory move along each coordinate, then a pattern move along the direction that
// improved; the step halves when nothing improves). Points are clamped into the box, so every
// evaluation is inside the bounds. Deterministic: the same function, start and options give the
// same result. No gradients: the executor's time is piecewise linear in its constants.
//
// The caller chooses the coordinates: `dmac calibrate` searches the logarithms of the timing
// constants, so a step is a factor and bounds like 0.25x..4x are symmetric.

export interface SearchOptions {
  /** Largest number of evaluations of f (the start counts as one). */
  readonly maxEvals: number;
  /** Initial step per coordinate (default: a quarter of its range, at most ln 2). */
  readonly initialStep?: readonly number[] | undefined;
  /** Stop when every step is below this (default 1e-4). */
  readonly minStep?: number | undefined;
  /** Called after every evaluation (progress reports). */
  readonly onEval?: ((evals: number, best: number) => void) | undefined;
}

export interface SearchResult {
  readonly x: number[];
  readonly fx: number;
  readonly f0: number;
  readonly evals: number;
  /** The steps fell below minStep (false: stopped at maxEvals). */
  readonly converged: boolean;
  /** Coordinates whose first probes, one step either way, left f exactly unchanged. */
  readonly flat: boolean[];
}

export function minimise(
  f: (x: readonly number[]) => number,
  start: readonly number[],
  lo: readonly number[],
  hi: readonly number[],
  opts: SearchOptions,
): SearchResult {
  const k = start.length;
  const clamp = (x: number[]): number[] => x.map((v, j) => Math.min(hi[j]!, Math.max(lo[j]!, v)));
  const minStep = opts.minStep ?? 1e-4;
  const step = start.map((_, j) =>
    opts.initialStep?.[j] !== undefined
      ? opts.initialStep[j]!
      : Math.min(Math.LN2, Math.max((hi[j]! - lo[j]!) / 4, minStep)),
  );
  const flat = new Array<boolean>(k).fill(false);
  const probed = new Array<boolean>(k).fill(false);
  let evals = 0;
  let best = Infinity;
  const value = (x: readonly number[]): number => {
    evals++;
    const v = f(x);
    const fx = Number.isNaN(v) ? Infinity : v;
    if (fx < best) best = fx;
    opts.onEval?.(evals, best);
    return fx;
  };
  const better = (a: number, b: number): boolean => a < b - 1e-12 * Math.max(1, Math.abs(b));
  const same = (a: readonly number[], b: readonly number[]): boolean =>
    a.every((v, j) => v === b[j]);

  let x = clamp([...start]);
  let fx = value(x);
  const f0 = fx;

  /** One pass over the coordinates around `base`: the best point found and its value. */
  const explore = (base: number[], fbase: number): [number[], number] => {
    let y = [...base];
    let fy = fbase;
    for (let j = 0; j < k && evals < opts.maxEvals; j++) {
      if (flat[j]) continue;
      const first = !probed[j];
      probed[j] = true;
      let moved = false;
      let unchanged = 0;
      for (const dir of [1, -1]) {
        if (evals >= opts.maxEvals) break;
        const z = [...y];
        z[j] = Math.min(hi[j]!, Math.max(lo[j]!, y[j]! + dir * step[j]!));
        if (z[j] === y[j]) {
          unchanged++;
          continue;
        }
        const fz = value(z);
        if (better(fz, fy)) {
          y = z;
          fy = fz;
          moved = true;
          break;
        }
        if (fz === fy) unchanged++;
      }
      if (first && !moved && unchanged === 2) flat[j] = true;
    }
    return [y, fy];
  };

  while (evals < opts.maxEvals) {
    if (step.every((s, j) => flat[j] || s < minStep)) break;
    let [y, fy] = explore(x, fx);
    if (better(fy, fx)) {
      // Pattern moves: keep going in the direction that worked while it keeps working.
      for (;;) {
        const prev = x;
        x = y;
        fx = fy;
        if (evals >= opts.maxEvals) break;
        const p = clamp(x.map((v, j) => v + (v - prev[j]!)));
        if (same(p, x)) break;
        const fp = value(p);
        const [z, fz] = explore(p, fp);
        if (!better(fz, fx)) break;
        y = z;
        fy = fz;
      }
    } else {
      for (let j = 0; j < k; j++) step[j] = step[j]! / 2;
    }
  }
  return {
    x,
    fx,
    f0,
    evals,
    converged: step.every((s, j) => flat[j] || s < minStep),
    flat,
  };
}
