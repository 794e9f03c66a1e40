// What a compilation's passes did, as the commands report it (--stats, --dump-after,
// --explain-plan) and `dmac sim` keeps with its input.

import type { PassStats } from "./pass.js";
import type { LevelCheck, PlanResult } from "./plan.js";

/** Optimiser hook: the passes' statistics, --dump-after texts and the -O2 plan. */
export interface OptimiseReport {
  readonly stats: readonly PassStats[];
  readonly dumps: readonly { readonly pass: string; readonly text: string }[];
  readonly plan?: PlanResult | undefined;
  /** -O1: the check against -O0 (passes/plan.ts checkLevel1). */
  readonly levelCheck?: LevelCheck | undefined;
}
