// The incast lint (DMAC4030): a schedule whose program order makes several GPUs write into one
// receiver at once, where the rotated order is predicted at least INCAST_LINT_RATIO faster. The
// fix rewrites the loop `for r in ranks, p in ranks where p != r {` as
// `for r in ranks, k in 1..ranks { let p = (r + k) % ranks` (rank r sends to r+1, r+2, ...).
//
// It runs where compile runs (compileToQueues), on the lowering before the passes: it needs a
// target, the lowered queues and the cost model, which `dmac check` and the language server do
// not build. The orders are the order-copies pass's (passes/order-copies.ts): its cheap test
// (incastScore, linear: the rotation must have less incast than the source order) first, then at most two predictions within the -O2 work budget, so a large
// program costs at most that budget.

import type { ForStmt, ScheduleDecl, Stmt } from "../frontend/ast.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { IrModule } from "../ir/ir.js";
import { predictBounded, type CostModel } from "../passes/cost-model.js";
import { orderCandidates } from "../passes/order-copies.js";
import { PLAN_BUDGET_WORK, PlanBudget } from "../passes/plan.js";
import type { LowerOptions } from "../queues/lower.js";
import { commandCount, type QueueProgram } from "../queues/queue-program.js";
import type { SourceFile, Span } from "../source/source-file.js";
import type { Target } from "../target/target.js";
import { formatTime } from "../util/format-time.js";

/** The lint fires when the rotated order is predicted at least this many times faster. */
export const INCAST_LINT_RATIO = 1.2;

export interface IncastLintInput {
  readonly file: SourceFile;
  readonly schedule: ScheduleDecl;
  readonly module: IrModule;
  readonly program: QueueProgram;
  readonly target: Target;
  readonly lower: LowerOptions;
  readonly costModel: CostModel;
  /** The work budget of both predictions together (default PLAN_BUDGET_WORK). */
  readonly budget?: number | undefined;
}

export function incastLint(x: IncastLintInput): Diagnostic[] {
  const { module: m, program } = x;
  const rotated = orderCandidates(program, m, x)[0];
  if (!rotated) return [];
  const budget = new PlanBudget(x.budget ?? PLAN_BUDGET_WORK);
  const request = { target: x.target, file: x.file };
  const time = (p: QueueProgram): number | undefined =>
    predictBounded(x.costModel, p, m, request, commandCount(p), budget).timeUs;
  const now = time(program);
  const then = now === undefined ? undefined : time(rotated.program);
  if (now === undefined || then === undefined || now < then * INCAST_LINT_RATIO) return [];
  const stmt = firstMovedStmt(m, program, rotated.program);
  const loop =
    stmt === undefined ? undefined : incastLoop(x.schedule.body.stmts, m.stmts[stmt]!.span);
  const args: [string, string, string] = [
    formatTime(now),
    formatTime(then),
    (now / then).toFixed(1),
  ];
  if (!loop || !independent(m, loop)) return [diag("DMAC4030", undefined, args)];
  const at = { file: x.file, span: headerSpan(loop) };
  return [diag("DMAC4030", at, args, { fix: rotationFix(x.file, x.schedule, loop) })];
}

/** The source statement of the first data op whose queue position the rotation changed. */
function firstMovedStmt(m: IrModule, a: QueueProgram, b: QueueProgram): number | undefined {
  for (let q = 0; q < a.queues.length; q++) {
    const x = a.queues[q]!.cmds;
    const y = b.queues[q]?.cmds;
    if (!y) continue;
    for (let i = 0; i < Math.min(x.length, y.length); i++) {
      const ox = a.lists.of(x.opsHandle(i))[0];
      const oy = b.lists.of(y.opsHandle(i))[0];
      if (x.isData(i) && ox !== oy && ox !== undefined) return m.ops.stmt[ox];
    }
  }
  return undefined;
}

/** `for A in ranks, B in ranks where B != A` (or `A != B`): the two loop variables. */
function peerLoopVars(f: ForStmt): { a: string; b: string } | undefined {
  const [va, vb] = f.vars;
  if (f.vars.length !== 2 || va!.range.kind !== "ranks" || vb!.range.kind !== "ranks") return;
  const w = f.where;
  if (w?.kind !== "binary" || w.op !== "!=" || w.left.kind !== "name" || w.right.kind !== "name")
    return;
  const names = [w.left.name, w.right.name].sort().join(" ");
  const a = va!.name.name;
  const b = vb!.name.name;
  return names === [a, b].sort().join(" ") ? { a, b } : undefined;
}

/** The innermost peer loop (peerLoopVars) whose body holds `span`. */
function incastLoop(stmts: readonly Stmt[], span: Span): ForStmt | undefined {
  let found: ForStmt | undefined;
  const walk = (list: readonly Stmt[]): void => {
    for (const s of list) {
      if (s.span.start > span.start || span.end > s.span.end) continue;
      if (s.kind === "for") {
        if (peerLoopVars(s)) found = s;
        walk(s.body.stmts);
      } else if (s.kind === "if") {
        walk(s.then.stmts);
        if (s.else) walk(s.else.kind === "block" ? s.else.stmts : [s.else]);
      } else if (s.kind === "when") walk(s.body.stmts);
    }
  };
  walk(stmts);
  return found;
}

/**
 * Whether no op of the loop is ordered after another of its ops: then its source order can
 * change without changing what it computes (the fix's condition).
 */
function independent(m: IrModule, f: ForStmt): boolean {
  const inside = m.stmts.map((s) => f.span.start <= s.span.start && s.span.end <= f.span.end);
  const e = m.edges!;
  for (let j = 0; j < m.ops.count; j++) {
    if (!inside[m.ops.stmt[j]!]) continue;
    for (let k = e.predStart[j]!; k < e.predStart[j + 1]!; k++)
      if (inside[m.ops.stmt[e.predIdx[k]!]!]) return false;
  }
  return true;
}

/** The loop's header: from `for` to its body's `{`, included (what the fix replaces). */
const headerSpan = (f: ForStmt): Span => ({ start: f.span.start, end: f.body.span.start + 1 });

/**
 * The header rewritten in rotated order, on its one line (the help frame shows it corrected;
 * `dmac fmt` puts the `let` on a line of its own): `for A in ranks, K in 1..ranks { let B =
 * (A + K) % ranks`; K is the first of k, k1, k2, ... the schedule's text does not use.
 */
function rotationFix(
  file: SourceFile,
  schedule: ScheduleDecl,
  f: ForStmt,
): { span: Span; replacement: string } {
  const { a, b } = peerLoopVars(f)!;
  const text = file.text.slice(schedule.span.start, schedule.span.end);
  let k = "k";
  for (let n = 1; new RegExp(`\\b${k}\\b`).test(text); n++) k = `k${n}`;
  return {
    span: headerSpan(f),
    replacement: `for ${a} in ranks, ${k} in 1..ranks { let ${b} = (${a} + ${k}) % ranks`,
  };
}
