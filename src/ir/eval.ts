// Exact integer evaluation of checked expressions, compiled once per AST node into a JS closure.
//
// Contract: `compileExpr(e, ctx)` returns `(env) => number`. Every value is a JS number: ints and
// byte counts are safe integers, bools are 1 (true) / 0 (false). Names are resolved to slots of the
// environment array at compile time (ctx.slotOf), so evaluating an expression inside a loop is a
// few closure calls and array reads: no tree walk, no allocation. That is what lets instantiation
// run a million iterations in well under a second.
//
// Arithmetic is exact or fails: a result outside +-(2^53 - 1) is DMAC3012, `/` or `%` by zero is
// DMAC3011, and a `bytes / int` or `bytes / bytes` that leaves a remainder is DMAC3006 (the checker
// decided the operand types; we read them from CheckedSchedule.types). `int / int` is floor
// division and `%` is the matching floored remainder (so `(r - 1) % ranks` is a rank for r = 0).
// Failures are thrown as an EvalStop carrying a ready-to-build diagnostic at the sub-expression's
// span; the caller (instantiate) catches it, adds the loop variables' values and reports it.

import type { Expr, TypeName } from "../frontend/ast.js";
import type { SourceFile, Span } from "../source/source-file.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { DiagnosticCode, MessageArgs } from "../diagnostics/codes.js";
import { InternalError } from "../util/internal-error.js";
import { assertNever } from "../util/assert-never.js";

export type Env = number[];
export type CompiledExpr = (env: Env) => number;

const MAX = Number.MAX_SAFE_INTEGER;

/**
 * A user error found while evaluating (or checking an instantiated value). Thrown, and caught by
 * the statement that was being instantiated; it never leaves src/ir.
 */
export class EvalStop {
  constructor(
    readonly code: DiagnosticCode,
    readonly span: Span,
    /** Builds the diagnostic; `suffix` (e.g. " when r = 7") is appended to the message. */
    readonly build: (file: SourceFile, suffix: string) => Diagnostic,
  ) {}
}

/** Throws an EvalStop for `code` at `span` with the catalogue message's arguments. */
export function stop<C extends DiagnosticCode>(
  code: C,
  span: Span,
  args: MessageArgs<C>,
  hint?: string,
): never {
  throw new EvalStop(code, span, (file, suffix) => {
    const d = diag(code, { file, span }, args, { hint });
    return suffix === "" ? d : { ...d, message: d.message + suffix };
  });
}

export interface CompileContext {
  readonly types: ReadonlyMap<Expr, TypeName>;
  /** The target's GPU count (the value of `ranks`). */
  readonly ranks: number;
  /** The environment slot of a value name (param, const, let, loop variable). */
  slotOf(name: string, span: Span): number;
}

/** How a value of `type` reads in a message: `4096 bytes`, `7`, `true`. */
export function formatValue(v: number, type: TypeName | undefined): string {
  switch (type) {
    case "bytes":
      return `${v} bytes`;
    case "bool":
      return v !== 0 ? "true" : "false";
    case "int":
    case undefined:
      return String(v);
    default:
      return assertNever(type, "type");
  }
}

function checked(v: number, span: Span): number {
  if (v > MAX || v < -MAX) stop("DMAC3012", span, []);
  return v;
}

/** floor(a / b) exactly for safe integers (b != 0); the float quotient can round across an integer. */
export function floorDiv(a: number, b: number): number {
  let q = Math.floor(a / b);
  const r = a - q * b;
  if (b > 0 ? r < 0 : r > 0) q -= 1;
  else if (b > 0 ? r >= b : r <= b) q += 1;
  return q;
}

export function compileExpr(e: Expr, ctx: CompileContext): CompiledExpr {
  switch (e.kind) {
    case "int":
    case "size": {
      const v = e.value;
      return () => v;
    }
    case "bool": {
      const v = e.value ? 1 : 0;
      return () => v;
    }
    case "ranks": {
      const v = ctx.ranks;
      return () => v;
    }
    case "host":
      throw new InternalError("'host' as a value survived checking (DMAC2040)");
    case "name": {
      const slot = ctx.slotOf(e.name, e.span);
      return (env) => env[slot]!;
    }
    case "unary": {
      const f = compileExpr(e.operand, ctx);
      return e.op === "-" ? (env) => 0 - f(env) : (env) => (f(env) === 0 ? 1 : 0);
    }
    case "binary":
      return compileBinary(e, ctx);
    case "call": {
      const args = e.args.map((a) => compileExpr(a, ctx));
      const isMin = e.callee.name === "min";
      if (!isMin && e.callee.name !== "max")
        throw new InternalError(`unknown function '${e.callee.name}' survived checking`);
      if (args.length === 2) {
        const [a, b] = args as [CompiledExpr, CompiledExpr];
        return isMin ? (env) => Math.min(a(env), b(env)) : (env) => Math.max(a(env), b(env));
      }
      return (env) => {
        let best = args[0]!(env);
        for (let i = 1; i < args.length; i++) {
          const v = args[i]!(env);
          if (isMin ? v < best : v > best) best = v;
        }
        return best;
      };
    }
    default:
      return assertNever(e, "expression");
  }
}

type BinaryExpr = Extract<Expr, { kind: "binary" }>;

function compileBinary(e: BinaryExpr, ctx: CompileContext): CompiledExpr {
  const l = compileExpr(e.left, ctx);
  const r = compileExpr(e.right, ctx);
  const span = e.span;
  switch (e.op) {
    case "+":
      return (env) => checked(l(env) + r(env), span);
    case "-":
      return (env) => checked(l(env) - r(env), span);
    case "*":
      return (env) => checked(l(env) * r(env), span);
    case "/": {
      const lt = typeOf(e.left, ctx);
      if (lt === "bytes") {
        const rt = ctx.types.get(e.right);
        // bytes / int -> bytes and bytes / bytes -> int must both divide exactly.
        return (env) => {
          const a = l(env);
          const b = r(env);
          if (b === 0) stop("DMAC3011", e.right.span, []);
          if (a % b !== 0) stop("DMAC3006", span, [formatValue(a, lt), formatValue(b, rt)]);
          return a / b;
        };
      }
      return (env) => {
        const b = r(env);
        if (b === 0) stop("DMAC3011", e.right.span, []);
        return floorDiv(l(env), b);
      };
    }
    case "%":
      return (env) => {
        const a = l(env);
        const b = r(env);
        if (b === 0) stop("DMAC3011", e.right.span, []);
        return a - floorDiv(a, b) * b;
      };
    case "==":
      return (env) => (l(env) === r(env) ? 1 : 0);
    case "!=":
      return (env) => (l(env) !== r(env) ? 1 : 0);
    case "<":
      return (env) => (l(env) < r(env) ? 1 : 0);
    case "<=":
      return (env) => (l(env) <= r(env) ? 1 : 0);
    case ">":
      return (env) => (l(env) > r(env) ? 1 : 0);
    case ">=":
      return (env) => (l(env) >= r(env) ? 1 : 0);
    case "&&":
      return (env) => (l(env) !== 0 && r(env) !== 0 ? 1 : 0);
    case "||":
      return (env) => (l(env) !== 0 || r(env) !== 0 ? 1 : 0);
    default:
      return assertNever(e.op, "operator");
  }
}

function typeOf(e: Expr, ctx: CompileContext): TypeName {
  const t = ctx.types.get(e);
  if (t === undefined) throw new InternalError(`expression at ${e.span.start} has no checked type`);
  return t;
}
