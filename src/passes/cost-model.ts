// What the optimiser needs to know about time: the cost model's interface. The -O1 check and the
// -O2 plan search ask it to predict a queue program; passes/ knows nothing of how (layout,
// packets or traces, the executor), so it stays below backend/ and sim/. The implementation
// (driver/cost-model.ts: layout + command trace + the executor's simulate()) is injected by the
// compile pipeline through PassContext.costModel.

import type { IrModule } from "../ir/ir.js";
import type { QueueProgram } from "../queues/queue-program.js";
import type { SourceFile } from "../source/source-file.js";
import type { Target } from "../target/target.js";

export interface CostRequest {
  readonly target: Target;
  /** Raise each external signal by one every this many microseconds (undefined: all at 0). */
  readonly signalPeriodUs?: number | undefined;
  /** For layout diagnostics; a synthetic file is used when absent. */
  readonly file?: SourceFile | undefined;
  /** The most events the executor may run (its watchdog); undefined: no limit. */
  readonly maxEvents?: number | undefined;
}

export type CostResult =
  /** Ran to the end and matched the reference semantics: the predicted completion time. */
  | { readonly kind: "predicted"; readonly timeUs: number; readonly events: number }
  /** Did not verify (or could not be laid out): why, as a one-line note. */
  | {
      readonly kind: "failed";
      readonly note: string;
      readonly events: number;
      /** The executor stopped at the event limit (its watchdog), not at a real failure. */
      readonly eventLimitHit: boolean;
    };

export interface CostModel {
  predict(program: QueueProgram, module: IrModule, request: CostRequest): CostResult;
}

/**
 * A prediction's set-up per command, in events' worth of work: layout + command trace cost 0.2-0.9
 * events' time per command (scripts/plan-work.mjs on bench/gen.js programs); the executor's own
 * set-up is counted with its events.
 */
export const SETUP_WORK_PER_COMMAND = 1;
/** The executor's watchdog never below this many events (a prediction needs a few). */
const MIN_EVENT_LIMIT = 10_000;

/** The part of a work budget a prediction needs (passes/plan.ts PlanBudget). */
export interface PredictionBudget {
  left(): number;
  spend(work: number): void;
}

export interface BoundedPrediction {
  readonly timeUs: number | undefined;
  readonly verified: boolean;
  readonly note?: string;
  /** The budget ran out before or during the prediction. */
  readonly stopped?: boolean;
}

/**
 * The model's prediction of a program within a work budget: its set-up costs
 * SETUP_WORK_PER_COMMAND per command and is refused when the work left cannot pay it; the
 * executor then gets the work left as its event limit, and its events are charged. Without a
 * budget, no limit. The -O2 plan and the order-copies pass both predict through this.
 */
export function predictBounded(
  model: CostModel,
  prog: QueueProgram,
  m: IrModule,
  request: Omit<CostRequest, "maxEvents">,
  commands: number,
  budget?: PredictionBudget,
): BoundedPrediction {
  const stopped = { timeUs: undefined, verified: false, stopped: true };
  const setup = commands * SETUP_WORK_PER_COMMAND;
  if (budget && budget.left() < setup) return stopped;
  budget?.spend(setup);
  const left = budget?.left() ?? Infinity;
  const maxEvents = Number.isFinite(left) ? Math.max(MIN_EVENT_LIMIT, Math.floor(left)) : undefined;
  const r = model.predict(prog, m, { ...request, maxEvents });
  budget?.spend(r.events);
  if (r.kind === "failed" && r.eventLimitHit && maxEvents !== undefined) return stopped;
  if (r.kind === "failed") return { timeUs: undefined, verified: false, note: r.note };
  return { timeUs: r.timeUs, verified: true };
}
