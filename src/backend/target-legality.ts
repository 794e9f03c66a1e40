// What the selected target cannot do, asked of a verified module: the one set of functions that
// `dmac compile` (driver/compile.ts) runs around lowering and that `dmac check` and the
// language server run too (driver/analyze.ts analyzeSource), so that a file `check` accepts is one
// `compile` accepts with the same options. The rules live where they belong (part-check.ts, the
// sync forms, the CUDA command builder); this module only wires them in compile's order:
//   before lowering: buffers that cannot fit (DMAC4008), the part's limits (DMAC4201, DMAC4204),
//     the packet budget (DMAC4010);
//   lowering (at -O0 for check: the passes only regroup what lowering made);
//   after: the sync forms (DMAC4020), the part's engines and compares (DMAC4202, DMAC4203), and
//     on a CUDA target what copy engines cannot do (DMAC4040).
// Lowering is linear in the ops, so check stays linear; what it costs: docs/design-decisions.md.

import { diag, hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
import { COMPARE_OPS, type IrModule } from "../ir/ir.js";
import { countDataPackets, lowerToQueues, type LowerOptions } from "../queues/lower.js";
import type { QueueProgram } from "../queues/queue-program.js";
import { conservativeSync } from "../queues/sync-forms.js";
import type { SourceFile } from "../source/source-file.js";
import { cudaOf } from "../target/cuda-target.js";
import { checkAfterLowering, checkBeforeLowering } from "./part-check.js";
import { syncInfo, type SyncMode, type Target } from "../target/target.js";
import { pushAll } from "../util/arrays.js";
import { buildCudaProgram } from "./cuda/program.js";
import { checkBuffersFit } from "./sdma/layout.js";

/**
 * The most data packets (copies, broadcasts, swaps and fills after splitting) a compile may make
 * (`--max-packets`, DMAC4010). 4,000,000: the 2,000,000-operation `forwardProgram` of
 * bench/gen.js with every copy split in two (4M data packets, 2M completions, its syncs) compiles
 * in 41 s with a 3.4 GiB peak; split in three it came to 4.3 GiB. docs/safety.md has the figures.
 */
export const DEFAULT_MAX_PACKETS = 4_000_000;

export interface LegalityOptions {
  /** Split copies at this many bytes (default: the target's maxCopyBytes). */
  readonly maxCopyBytes?: number | undefined;
  /** `--sync`: conservative or aggressive forms; undefined: the target's default (syncInfo). */
  readonly sync?: SyncMode | undefined;
  /** Data packets lowering may make (DMAC4010); default DEFAULT_MAX_PACKETS. */
  readonly maxPackets?: number | undefined;
}

/** Before lowering: what would not fit or could not be placed (diagnostics; errors stop). */
export function checkBeforeLower(
  file: SourceFile,
  module: IrModule,
  target: Target,
  lower: LowerOptions,
  opts: LegalityOptions,
): Diagnostic[] {
  // Buffers that cannot fit a GPU's memory window fail here, before lowering splits them.
  const out = checkBuffersFit(module, file);
  if (hasErrors(out)) return out;
  // The part's limits (src/backend/part-check.ts): no engine map, packets above its descriptor cap.
  pushAll(out, checkBeforeLowering(module, target, file, opts.maxCopyBytes));
  if (hasErrors(out)) return out;
  // Counted before lowering builds them: past the limit, the op that crosses it is reported.
  const maxPackets = opts.maxPackets ?? DEFAULT_MAX_PACKETS;
  const count = countDataPackets(module, target, lower, maxPackets);
  if (count.over === undefined) return out;
  const stmt = module.stmts[module.ops.stmt[count.over]!];
  out.push(
    diag("DMAC4010", stmt ? { file, span: stmt.span } : undefined, [
      `the schedule lowers to more than ${maxPackets} data packets (copies split at ${String(lower.maxCopyBytes ?? target.limits.maxCopyBytes)} bytes); this operation crosses the limit (--max-packets raises it)`,
    ]),
  );
  return out;
}

/**
 * After lowering (and the passes): the sync forms (queues/sync-forms.ts; DMAC4020 for a `when`
 * conservative mode cannot poll with ==), then the part's engines and compares. The program in
 * its final forms, or undefined on an error. `inPlace`: the sync rewrite may reuse `program`'s
 * commands (the caller drops it).
 */
export function finishForTarget(
  file: SourceFile,
  module: IrModule,
  program: QueueProgram,
  target: Target,
  sync: SyncMode | undefined,
  diagnostics: Diagnostic[],
  inPlace = false,
): QueueProgram | undefined {
  const info = syncInfo(target);
  let p = program;
  if ((sync ?? info.default) === "conservative") {
    const r = conservativeSync(p, info.gpuMemoryPolling ? "gpu" : "host", inPlace);
    const reported = new Set<number>(); // one DMAC4020 per `when` statement, not per instance
    for (const op of r.unsupportedWaits) {
      const s = module.ops.stmt[op]!;
      if (reported.has(s)) continue;
      reported.add(s);
      const stmt = module.stmts[s];
      const t = module.ops;
      const sig = module.signals[t.signal[op]!]?.name ?? "flag";
      const cmp = COMPARE_OPS[t.cmp[op]!]!;
      diagnostics.push(
        diag("DMAC4020", stmt ? { file, span: stmt.span } : undefined, [
          `${sig}@${t.sigRank[op]!} ${cmp} ${t.value[op]!}`,
        ]),
      );
    }
    if (r.unsupportedWaits.length > 0) return undefined;
    p = r.program;
  }
  pushAll(diagnostics, checkAfterLowering(p, module, target, file));
  return hasErrors(diagnostics) ? undefined : p;
}

/**
 * Every legality check compile runs for `target`, on a verified module, as `dmac check` runs
 * them: lowering at -O0 in the default completion protocol, then the CUDA command builder on a
 * CUDA target (what copy engines cannot do, DMAC4040).
 */
export function checkForTarget(
  file: SourceFile,
  module: IrModule,
  target: Target,
  opts: LegalityOptions = {},
): Diagnostic[] {
  const lower: LowerOptions = { completion: "atomic", maxCopyBytes: opts.maxCopyBytes };
  const diagnostics = checkBeforeLower(file, module, target, lower, opts);
  if (hasErrors(diagnostics)) return diagnostics;
  const program = finishForTarget(
    file,
    module,
    lowerToQueues(module, target, lower),
    target,
    opts.sync,
    diagnostics,
    true,
  );
  if (program && cudaOf(target))
    pushAll(diagnostics, buildCudaProgram(module, program, file, { batch: false }).diagnostics);
  return diagnostics;
}
