// The executor's run options, parsed once for `dmac sim`, `dmac sweep` and the library's
// `simulate` (which writes its numbers as text first, so a value one refuses the others refuse
// too): the external signals' period and the watchdog's limits. Bad values are DMAC5004.

import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { parseMicros, parsePositiveInt } from "./options.js";

/** The run options as commander delivers them. */
export interface ExecutorOptionText {
  readonly signalPeriod?: string | undefined;
  readonly maxEvents?: string | undefined;
  readonly maxSimTime?: string | undefined;
}

/** The run options, checked (undefined: the executor's default). */
export interface ExecutorOptions {
  readonly signalPeriodUs: number | undefined;
  readonly maxEvents: number | undefined;
  readonly maxSimTimeUs: number | undefined;
}

export function parseExecutorOptions(o: ExecutorOptionText): ExecutorOptions & {
  diagnostics: Diagnostic[];
} {
  const period = parseMicros("--signal-period", o.signalPeriod);
  const events = parsePositiveInt("--max-events", o.maxEvents);
  const time = parseMicros("--max-sim-time", o.maxSimTime);
  return {
    signalPeriodUs: period.value,
    maxEvents: events.value,
    maxSimTimeUs: time.value,
    diagnostics: [...period.diagnostics, ...events.diagnostics, ...time.diagnostics],
  };
}
