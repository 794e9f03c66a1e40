// The part's limits that compile obeys, as the executor holds every packet it runs to them: an
// output edited (or written by another tool) may ask for what compile never emits, and a runtime
// would hand it to the part all the same. Compile's rules: copies, broadcasts and swaps split at
// `limits.maxCopyBytes` and fills at `limits.maxFillBytes` (src/queues/lower.ts; a COPY_LINEAR of
// 256 MiB stalls an MI355X engine), PCIe engines serve the host and their own GPU while transfers
// between GPUs need an xGMI engine (DMAC3005, src/ir/instantiate.ts checkEngine), polls use the
// compare functions the part runs (DMAC4203, src/backend/part-check.ts) and queues sit on engines
// with hardware (DMAC4202). Breaking one of the packet rules is DMAC6030 at the packet
// (checks.ts), which is then not executed; a queue on an engine without hardware is refused with
// the input (run.ts outsideModel).

import { engineProblem } from "../backend/part-check.js";
import { pollFuncName } from "../target/poll.js";
import type { Target } from "../target/target.js";
import { POLL_FUNC_CODES } from "./program.js";

/** What an engine id may drive (engineKind's values). */
export const PCIE_ENGINE = 1;
export const XGMI_ENGINE = 2;

export interface PartRules {
  /** The target's name (reports). */
  readonly name: string;
  readonly maxCopyBytes: number;
  readonly maxFillBytes: number;
  /** By engine id: PCIE_ENGINE, XGMI_ENGINE or 0 (neither). */
  readonly engineKind: Uint8Array;
  /** Whether the target lists PCIe engines (without, host transfers go on any engine). */
  readonly hasPcie: boolean;
  readonly pcie: readonly number[];
  readonly xgmi: readonly number[];
  /** By POLL_FUNC_CODES index: 1 when the part runs that compare function. */
  readonly pollFunction: Uint8Array;
  readonly pollFunctions: readonly string[];
  /** By engine id: why a queue may not sit there (DMAC4202's reason), or undefined. */
  readonly engineProblem: readonly (string | undefined)[];
}

export function partRules(t: Target): PartRules {
  const engineKind = new Uint8Array(t.engines.count);
  for (const e of t.engines.xgmi) if (e < engineKind.length) engineKind[e] = XGMI_ENGINE;
  for (const e of t.engines.pcie) if (e < engineKind.length) engineKind[e] = PCIE_ENGINE;
  const runs = new Set(t.pollFunctions);
  return {
    name: t.name,
    maxCopyBytes: t.limits.maxCopyBytes,
    maxFillBytes: t.limits.maxFillBytes,
    engineKind,
    hasPcie: t.engines.pcie.length > 0,
    pcie: t.engines.pcie,
    xgmi: t.engines.xgmi,
    pollFunction: Uint8Array.from(POLL_FUNC_CODES, (f) => (runs.has(pollFuncName(f)) ? 1 : 0)),
    pollFunctions: t.pollFunctions,
    engineProblem: Array.from({ length: t.engines.count }, (_, e) => engineProblem(t, e)),
  };
}
