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
