// The executor's input as `dmac sim`, sweep and calibrate load it (a .dmac compiled in memory,
// a manifest or a trace), how a .dmac input is compiled for it, and the most packets it runs.

import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { OptimiseReport } from "../passes/optimise-report.js";
import type { PassOptions } from "../passes/pass.js";
import type { CompletionProtocol } from "../queues/queue-program.js";
import type { SyncMode, Target } from "../target/target.js";
import type { SimInput } from "./run.js";

export interface LoadedInput {
  readonly input: SimInput;
  readonly target: Target;
  /** What the optimiser did (a .dmac compiled in memory). */
  readonly optimised?: OptimiseReport | undefined;
  /** The manifest or trace file it was read from (named by DMAC6011 reports). */
  readonly file?: string | undefined;
  /** Why the input has no IR (input.module absent): the postcondition cannot be checked. */
  readonly unchecked?: string | undefined;
  /** Other files the input names (its source, its target file): outputs never replace them. */
  readonly reads?: readonly string[] | undefined;
}

/** How a .dmac input is compiled: the optimiser's options (opt-options.ts) and lowering knobs. */
export interface SimCompileOptions {
  readonly schedule?: string | undefined;
  readonly target?: Target | undefined;
  readonly maxCopyBytes?: number | undefined;
  readonly completion?: CompletionProtocol | undefined;
  /** --sync (absent: the target's default). */
  readonly sync?: SyncMode | undefined;
  /** The passes (absent: the program exactly as lowered, i.e. the -O0 baseline). */
  readonly passes?: PassOptions | undefined;
  /** The most packets to run (DMAC4010; default DEFAULT_SIM_MAX_PACKETS). */
  readonly maxPackets?: number | undefined;
  /** -O2: the plan search's progress (cli/progress.ts). */
  readonly onPlanProgress?: ((done: number, total: number, label: string) => void) | undefined;
}

/**
 * The most packets `dmac sim` runs (`--max-packets`): 4,000,000. The 1,000,000-operation
 * `forwardProgram` (3M packets) simulates in 30 s with a 3.1 GiB peak, 2M one-byte fills (4M
 * packets) in 53 s with 3.1 GiB; a 128 MiB stream of NOPs (33M packets) is refused before it
 * is decoded (docs/safety.md).
 */
export const DEFAULT_SIM_MAX_PACKETS = 4_000_000;

export function tooManyPackets(what: string, limit: number): Diagnostic {
  return diag("DMAC4010", undefined, [
    `${what} more than ${limit} packets, more than dmac sim runs (--max-packets raises the limit)`,
  ]);
}
