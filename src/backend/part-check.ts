// The part's limits as compile-time checks: what a target says its part cannot do becomes a
// diagnostic at the statement that asks for it, never a silent emission. Three questions, asked
// by compileToQueues around lowering:
// - before lowering: does an operation cross GPUs on a target whose engine map is unknown
//   (DMAC4201)? Lowering would have no engine to put it on.
// - before lowering: does --max-copy-bytes ask for packets above the part's limit (DMAC4204)?
// - after lowering and the passes: does a queue sit on an engine id without hardware (DMAC4202),
//   or a poll use a compare function the part does not run (DMAC4203)?
// Each reports at most once per (code, statement), with the first loop binding as a hint.

import { diag, type Diagnostic, type DiagnosticExtras } from "../diagnostics/diagnostic.js";
import { describeBinding, OP_KINDS, type IrModule } from "../ir/ir.js";
import { CMD, queueName, type QueueProgram } from "../queues/queue-program.js";
import type { SourceFile } from "../source/source-file.js";
import { pollFuncName } from "../target/poll.js";
import { UNKNOWN, type Target } from "../target/target.js";

/** Where op `op` comes from, and its loop binding as a hint. */
function opSite(m: IrModule, file: SourceFile | undefined, op: number) {
  const stmt = m.ops.stmt[op]!;
  const s = m.stmts[stmt];
  const binding = describeBinding(m, stmt, m.ops.bind[op]!);
  const extras: DiagnosticExtras = binding ? { hint: `first at ${binding}` } : {};
  return { stmt, at: file && s ? { file, span: s.span } : undefined, extras };
}

/** True if the data op `i` moves bytes to or from a GPU other than its driver's. */
function crossesGpus(m: IrModule, i: number): boolean {
  const t = m.ops;
  const d = t.driver[i]!;
  switch (t.kind[i]) {
    case OP_KINDS.copy.code:
    case OP_KINDS.swap.code:
      return t.srcRank[i] !== d || t.dstRank[i] !== d;
    case OP_KINDS.bcast.code:
      return t.srcRank[i] !== d || t.dstRank[i] !== d || t.dst2Rank[i] !== d;
    case OP_KINDS.fill.code:
      return t.dstRank[i] !== d;
    default:
      return false;
  }
}

/** DMAC4201 and DMAC4204: what lowering could not do, or should not, on this part. */
export function checkBeforeLowering(
  m: IrModule,
  target: Target,
  file: SourceFile | undefined,
  maxCopyBytes: number | undefined,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  if (maxCopyBytes !== undefined && maxCopyBytes > target.limits.maxCopyBytes)
    out.push(diag("DMAC4204", undefined, [target.name, maxCopyBytes, target.limits.maxCopyBytes]));
  if (target.recommendedEngine.known) return out;
  const seen = new Set<number>();
  for (let i = 0; i < m.ops.count; i++) {
    // A pinned engine (`on sdma(E)`) needs no map; DMAC4202 checks it after lowering.
    if (m.ops.engine[i]! >= 0 || !crossesGpus(m, i)) continue;
    const site = opSite(m, file, i);
    if (seen.has(site.stmt)) continue;
    seen.add(site.stmt);
    out.push(
      diag(
        "DMAC4201",
        site.at,
        [
          target.name,
          `which engine serves GPU ${m.ops.driver[i]}'s peers is unknown (recommendedEngine.map), so this GPU-to-GPU operation has no engine`,
        ],
        site.extras,
      ),
    );
  }
  return out;
}

/** Why `engine` may not carry a queue on this target, or undefined. */
export function engineProblem(target: Target, engine: number): string | undefined {
  const { physical, pcie } = target.engines;
  if (physical === UNKNOWN)
    return pcie.includes(engine)
      ? undefined
      : `is on engine ${engine}, and which of the part's engine ids have hardware is unknown (engines.physical)`;
  return physical.includes(engine)
    ? undefined
    : `is on engine ${engine}, which has no hardware (engines.physical lists ${physical.join(", ")}): the queue would never run`;
}

/** DMAC4202 and DMAC4203: the lowered (and optimised) queues against the part. */
export function checkAfterLowering(
  program: QueueProgram,
  m: IrModule,
  target: Target,
  file: SourceFile | undefined,
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const seen = new Set<string>();
  const once = (code: string, op: number | undefined): ReturnType<typeof opSite> | null => {
    const site = op !== undefined ? opSite(m, file, op) : undefined;
    const key = `${code}:${site?.stmt ?? -1}`;
    if (seen.has(key)) return null;
    seen.add(key);
    return site ?? { stmt: -1, at: undefined, extras: {} };
  };
  const supported = new Set(target.pollFunctions);
  for (const q of program.queues) {
    const c = q.cmds;
    const firstOp = (i: number): number | undefined => {
      const ops = program.lists.of(c.opsHandle(i));
      return ops.length > 0 ? ops[0] : undefined;
    };
    const problem = engineProblem(target, q.engine);
    if (problem !== undefined) {
      const site = once("DMAC4202", c.length > 0 ? firstOp(0) : undefined);
      if (site)
        out.push(diag("DMAC4202", site.at, [target.name, queueName(q), problem], site.extras));
    }
    for (let i = 0; i < c.length; i++) {
      if (c.kind(i) !== CMD.poll) continue;
      const fn = pollFuncName(c.func(i));
      if (supported.has(fn)) continue;
      const site = once(`DMAC4203:${fn}`, firstOp(i));
      if (site)
        out.push(
          diag(
            "DMAC4203",
            site.at,
            [target.name, fn, target.pollFunctions.join(", ") || "none"],
            site.extras,
          ),
        );
    }
  }
  return out;
}
