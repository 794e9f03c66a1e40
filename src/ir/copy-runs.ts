// Runs of copies that continue one another, as instantiation wrote them (instantiate.ts
// runPlainCopies): each op of a run copies the bytes right after the previous one's, between the
// same two buffers, with the run's source and destination apart. runReferenceSources (interp.ts)
// moves such a run as one copy; knowing where the runs are, it need not read every op of them
// (a cold loop over the 262,144 copies of an all-to-all: ~10 ms, most of verification).
// Kept beside the op table, which nothing changes once instantiate has returned it.

import type { OpTable } from "./ir.js";

const runs = new WeakMap<OpTable, Int32Array>();

/** Records `t`'s runs: (first op, end) pairs, in op order, not overlapping. */
export function setCopyRuns(t: OpTable, pairs: readonly number[]): void {
  if (pairs.length > 0) runs.set(t, Int32Array.from(pairs));
}

/** The runs of `t` (setCopyRuns), or undefined. */
export function copyRunsOf(t: OpTable): Int32Array | undefined {
  return runs.get(t);
}
