// Types (and, where possible, constant values) of expressions. typeExpr records the type of every
// node it accepts in ctx.types and reports at most one diagnostic per fault: an operand that
// already failed has type undefined, and nothing built on it is reported again.
//
// Constant folding is symbolic-check folding only: literals, `ranks`, and constants built from
// them fold; parameters and loop variables do not (their values belong to instantiation), so a
// check result never depends on -D values except through DMAC2010/DMAC2016.

import type { Expr, TypeName } from "../frontend/ast.js";
import type { SourceFile } from "../source/source-file.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { assertNever } from "../util/assert-never.js";
import { lookup, visibleNames, SYMBOL_LABEL, type Scope } from "./scope.js";
import { nameSuggestion } from "../diagnostics/suggest.js";
import {
  ARITH_RULES,
  ERROR,
  foldArith,
  foldCompare,
  formatValue,
  isArithOp,
  isCompareOp,
  isZeroLiteral,
  type Typed,
} from "./types.js";
import { maxOf, minOf } from "../util/arrays.js";

export interface ExprContext {
  readonly file: SourceFile;
  readonly scope: Scope;
  readonly types: Map<Expr, TypeName>;
  readonly diagnostics: Diagnostic[];
  /** The target's GPU count, if the target is known. */
  readonly ranks: number | undefined;
}

function typed(ctx: ExprContext, e: Expr, type: TypeName, value?: Typed["value"]): Typed {
  ctx.types.set(e, type);
  return { type, value };
}

function at(ctx: ExprContext, e: { readonly span: Expr["span"] }) {
  return { file: ctx.file, span: e.span };
}

/** The source text of `e` for a hint: whitespace collapsed; undefined if too long to quote. */
function sourceText(ctx: ExprContext, e: Expr): string | undefined {
  const text = ctx.file.text.slice(e.span.start, e.span.end).replace(/\s+/g, " ");
  return text.length > 40 ? undefined : text;
}

/**
 * The type of `e`. `expected` only matters for the literal `0`, which takes the type bytes where
 * bytes are expected; the caller still compares the result with what it needs.
 */
export function typeExpr(ctx: ExprContext, e: Expr, expected?: TypeName): Typed {
  switch (e.kind) {
    case "int":
      return typed(ctx, e, expected === "bytes" && e.value === 0 ? "bytes" : "int", e.value);
    case "size":
      return typed(ctx, e, "bytes", e.value);
    case "bool":
      return typed(ctx, e, "bool", e.value);
    case "ranks":
      return typed(ctx, e, "int", ctx.ranks);
    case "host":
      ctx.diagnostics.push(diag("DMAC2040", at(ctx, e), []));
      return ERROR;
    case "name":
      return typeName(ctx, e);
    case "unary":
      return typeUnary(ctx, e);
    case "binary":
      return typeBinary(ctx, e);
    case "call":
      return typeCall(ctx, e);
    default:
      return assertNever(e, "expression");
  }
}

function typeName(ctx: ExprContext, e: Extract<Expr, { kind: "name" }>): Typed {
  const sym = lookup(ctx.scope, e.name);
  if (!sym) {
    const where = at(ctx, e);
    const names = visibleNames(ctx.scope, (s) => s.type !== undefined);
    ctx.diagnostics.push(
      diag("DMAC2001", where, [e.name], nameSuggestion(e.name, names, where.span)),
    );
    return ERROR;
  }
  sym.used = true;
  if (sym.kind === "buffer" || sym.kind === "signal") {
    ctx.diagnostics.push(
      diag("DMAC2003", at(ctx, e), ["a value", `${SYMBOL_LABEL[sym.kind]} '${e.name}'`], {
        hint:
          sym.kind === "buffer"
            ? `refer to its bytes with a region such as '${e.name}@r'`
            : `signals are read only by 'when ${e.name}@r >= V'`,
        related: [{ message: `'${e.name}' is declared here`, file: ctx.file, span: sym.span }],
      }),
    );
    return ERROR;
  }
  if (sym.type === undefined) return ERROR; // its declaration already failed
  return typed(ctx, e, sym.type, sym.value);
}

function typeUnary(ctx: ExprContext, e: Extract<Expr, { kind: "unary" }>): Typed {
  const operand = typeExpr(ctx, e.operand);
  if (operand.type === undefined) return ERROR;
  if (e.op === "!") {
    if (operand.type !== "bool") {
      ctx.diagnostics.push(diag("DMAC2005", at(ctx, e.operand), [operand.type]));
      return ERROR;
    }
    return typed(ctx, e, "bool", typeof operand.value === "boolean" ? !operand.value : undefined);
  }
  if (operand.type === "bool") {
    ctx.diagnostics.push(diag("DMAC2003", at(ctx, e.operand), ["int or bytes", "bool"]));
    return ERROR;
  }
  const value = typeof operand.value === "number" ? foldArith("-", 0, operand.value) : undefined;
  return typed(ctx, e, operand.type, value);
}

/** Types both operands, letting a literal `0` take the type bytes beside a bytes operand. */
function typeOperands(
  ctx: ExprContext,
  left: Expr,
  right: Expr,
  zeroAdapts: boolean,
): [Typed, Typed] {
  let l = typeExpr(ctx, left);
  let r = typeExpr(ctx, right);
  if (zeroAdapts) {
    if (l.type === "bytes" && isZeroLiteral(right)) r = typeExpr(ctx, right, "bytes");
    else if (r.type === "bytes" && isZeroLiteral(left)) l = typeExpr(ctx, left, "bytes");
  }
  return [l, r];
}

function typeBinary(ctx: ExprContext, e: Extract<Expr, { kind: "binary" }>): Typed {
  const op = e.op;
  if (op === "&&" || op === "||") {
    const l = typeExpr(ctx, e.left);
    const r = typeExpr(ctx, e.right);
    let ok = true;
    for (const [side, t] of [
      [e.left, l],
      [e.right, r],
    ] as const) {
      if (t.type === undefined) ok = false;
      else if (t.type !== "bool") {
        ctx.diagnostics.push(diag("DMAC2005", at(ctx, side), [t.type]));
        ok = false;
      }
    }
    if (!ok) return ERROR;
    const value =
      typeof l.value === "boolean" && typeof r.value === "boolean"
        ? op === "&&"
          ? l.value && r.value
          : l.value || r.value
        : undefined;
    return typed(ctx, e, "bool", value);
  }

  if (isCompareOp(op)) {
    const [l, r] = typeOperands(ctx, e.left, e.right, true);
    if (l.type === undefined || r.type === undefined) return ERROR;
    const ordering = op !== "==" && op !== "!=";
    if (l.type !== r.type || (ordering && l.type === "bool")) {
      ctx.diagnostics.push(diag("DMAC2004", at(ctx, e), [op, l.type, r.type]));
      return ERROR;
    }
    const value =
      l.value !== undefined && r.value !== undefined
        ? foldCompare(l.value, op, r.value)
        : undefined;
    return typed(ctx, e, "bool", value);
  }

  if (isArithOp(op)) {
    const [l, r] = typeOperands(ctx, e.left, e.right, op === "+" || op === "-" || op === "%");
    if (l.type === undefined || r.type === undefined) return ERROR;
    const rule = ARITH_RULES[op].find((x) => x.left === l.type && x.right === r.type);
    if (!rule) {
      ctx.diagnostics.push(
        diag("DMAC2004", at(ctx, e), [op, l.type, r.type], {
          hint: arithHint(ctx, e, l.type, r.type),
        }),
      );
      return ERROR;
    }
    const a = l.value;
    const b = r.value;
    if (typeof a !== "number" || typeof b !== "number") return typed(ctx, e, rule.result);
    if (rule.exact && b !== 0 && a % b !== 0) {
      ctx.diagnostics.push(
        diag("DMAC2013", at(ctx, e), [formatValue(a, l.type), formatValue(b, r.type)], {
          hint: `the remainder is ${formatValue(a % b, "bytes")}; dmac never rounds a byte count`,
        }),
      );
      return ERROR;
    }
    return typed(ctx, e, rule.result, foldArith(op, a, b));
  }
  return assertNever(op, "binary operator");
}

function arithHint(
  ctx: ExprContext,
  e: Extract<Expr, { kind: "binary" }>,
  left: TypeName,
  right: TypeName,
): string | undefined {
  const lt = sourceText(ctx, e.left) ?? "n";
  const rt = sourceText(ctx, e.right) ?? "size";
  const additive = e.op === "+" || e.op === "-";
  if (additive && left === "int" && right === "bytes") {
    return `an int is not a byte count: write '${lt} * ${rt}' for the offset of chunk ${lt}, or '${lt} * 1B ${e.op} ${rt}' if ${lt} counts bytes`;
  }
  if (additive && left === "bytes" && right === "int") {
    return `an int is not a byte count: write '${lt} ${e.op} ${rt} * 1B' if ${rt} counts bytes`;
  }
  if (e.op === "*" && left === "bytes" && right === "bytes") {
    return "bytes * bytes has no meaning; one side should be a count (int)";
  }
  if (e.op === "/" && left === "int" && right === "bytes") {
    return `an int cannot be divided by a byte count; did you mean '${rt} / ${lt}'?`;
  }
  if (e.op === "%" && left === "bytes" && right === "int") {
    return `take the remainder modulo a byte count: '${lt} % (${rt} * 1B)'`;
  }
  if (left === "bool" || right === "bool") return "arithmetic takes int or bytes operands";
  return undefined;
}

function typeCall(ctx: ExprContext, e: Extract<Expr, { kind: "call" }>): Typed {
  const fn = e.callee.name;
  if (fn !== "min" && fn !== "max") {
    ctx.diagnostics.push(
      diag("DMAC2001", { file: ctx.file, span: e.callee.span }, [fn], {
        hint: "the built-in functions are min(...) and max(...)",
      }),
    );
    for (const a of e.args) typeExpr(ctx, a);
    return ERROR;
  }
  let args = e.args.map((a) => typeExpr(ctx, a));
  if (e.args.length < 2) {
    ctx.diagnostics.push(diag("DMAC2021", at(ctx, e), [fn, e.args.length]));
    return ERROR;
  }
  if (args.some((a) => a.type === undefined)) return ERROR;
  // A literal 0 among bytes arguments is bytes.
  if (args.some((a) => a.type === "bytes")) {
    args = e.args.map((a, i) => (isZeroLiteral(a) ? typeExpr(ctx, a, "bytes") : args[i]!));
  }
  const first = args[0]!.type!;
  const other = args.find((a) => a.type !== first);
  if (other !== undefined || first === "bool") {
    ctx.diagnostics.push(diag("DMAC2004", at(ctx, e), [fn, first, other?.type ?? first]));
    return ERROR;
  }
  const values = args.map((a) => a.value);
  const value = values.every((v): v is number => typeof v === "number")
    ? fn === "min"
      ? minOf(values)
      : maxOf(values)
    : undefined;
  return typed(ctx, e, first, value);
}

/**
 * Types `e` where `want` is needed; reports DMAC2003 (or DMAC2005 for conditions) on a mismatch.
 * Returns the folded value when the type fits.
 */
export function expectType(ctx: ExprContext, e: Expr, want: TypeName, what?: string): Typed {
  const t = typeExpr(ctx, e, want);
  if (t.type === undefined) return ERROR;
  if (t.type !== want) {
    if (want === "bool") ctx.diagnostics.push(diag("DMAC2005", at(ctx, e), [t.type]));
    else {
      ctx.diagnostics.push(
        diag("DMAC2003", at(ctx, e), [what ? `${want} (${what})` : want, t.type], {
          hint: mismatchHint(ctx, e, want, t.type),
        }),
      );
    }
    return ERROR;
  }
  return t;
}

function mismatchHint(
  ctx: ExprContext,
  e: Expr,
  want: TypeName,
  found: TypeName,
): string | undefined {
  const text = sourceText(ctx, e);
  if (want === "bytes" && found === "int") {
    if (e.kind === "int") return `write a size such as '${e.value}B' or '${e.value}KiB'`;
    return text === undefined
      ? "multiply by 1B to make an int a byte count"
      : `write '${text} * 1B' if ${text} counts bytes`;
  }
  if (want === "int" && found === "bytes") {
    return `divide by a size to count chunks, e.g. '${text ?? "size"} / 1KiB'`;
  }
  return undefined;
}
