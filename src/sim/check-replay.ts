// The checks of a run replayed from its log in the same process, at the run's end: what the
// helper thread does (check-thread.ts), without a thread, so that tests and the fuzzers' oracle
// ("checks-log", fuzz/properties.ts) can hold the two ways of checking to the same findings in
// the same order on any input. When the ring is full, the run stops to replay what it holds.

import type { IrModule } from "../ir/ir.js";
import { CheckLog, newLogMemory } from "./check-log.js";
import { checkResultOf, checksRequest, endChecks, startChecks } from "./check-thread.js";
import type { ExecOptions } from "./execute.js";
import { finalStateProblems } from "./postcondition.js";

/** ExecOptions.checks: the log, replayed over `module` (the run's IR, if known) as it fills. */
export function checksInProcess(module: IrModule | undefined): NonNullable<ExecOptions["checks"]> {
  return (p, maxRaces) => {
    const log = newLogMemory();
    // (As postMessage would deliver it: nothing of the run's own objects is shared.)
    const req = structuredClone(checksRequest(p, log, maxRaces));
    const c = startChecks(
      req,
      module,
      module && ((prov, q, where) => finalStateProblems(module, prov, q, where)),
    );
    // A full ring is drained here, mid-run; at the end, the rest.
    return new CheckLog(log, () => checkResultOf(endChecks(c, c.reader.available()!)), {
      drain: () => void c.reader.available(),
    });
  };
}
