// Type helpers shared by the checker: how types and constant values are printed in messages, and
// the table of binary-operator typing rules (LANG.md "Types"). Keeping the rules in one table
// means the checker, its tests and docs/language.md can be compared line by line. The constant
// folders here are also what the IR and queue verifiers evaluate comparisons with.

import type { BinaryOp, CompareOp, Expr, TypeName } from "../frontend/ast.js";
import { assertNever } from "../util/assert-never.js";
import type { Value } from "./checked.js";

/** The result of typing an expression: `undefined` type = an error was already reported. */
export interface Typed {
  readonly type: TypeName | undefined;
  /** The value when the expression folds to a constant without instantiation. */
  readonly value: Value | undefined;
}

export const ERROR: Typed = { type: undefined, value: undefined };

export type ArithOp = "+" | "-" | "*" | "/" | "%";
/** The comparison operators (defined once, in the AST). */
export type { CompareOp };

/**
 * Arithmetic typing rules: ARITH_RULES[op][left][right] is the result type, absent = DMAC2004.
 * `exact` marks the divisions that must not leave a remainder (DMAC2013 / DMAC3006).
 */
export const ARITH_RULES: Readonly<
  Record<ArithOp, readonly { left: TypeName; right: TypeName; result: TypeName; exact?: true }[]>
> = {
  "+": [
    { left: "int", right: "int", result: "int" },
    { left: "bytes", right: "bytes", result: "bytes" },
  ],
  "-": [
    { left: "int", right: "int", result: "int" },
    { left: "bytes", right: "bytes", result: "bytes" },
  ],
  "*": [
    { left: "int", right: "int", result: "int" },
    { left: "bytes", right: "int", result: "bytes" },
    { left: "int", right: "bytes", result: "bytes" },
  ],
  "/": [
    { left: "int", right: "int", result: "int" }, // floor division
    { left: "bytes", right: "int", result: "bytes", exact: true },
    { left: "bytes", right: "bytes", result: "int", exact: true },
  ],
  "%": [
    { left: "int", right: "int", result: "int" },
    { left: "bytes", right: "bytes", result: "bytes" },
  ],
};

export function isArithOp(op: BinaryOp): op is ArithOp {
  return op === "+" || op === "-" || op === "*" || op === "/" || op === "%";
}

export function isCompareOp(op: BinaryOp): op is CompareOp {
  return op === "==" || op === "!=" || op === "<" || op === "<=" || op === ">" || op === ">=";
}

/** The literal `0` also fits where bytes are expected (`buf@r[0 .. n]`). */
export function isZeroLiteral(e: Expr): boolean {
  return e.kind === "int" && e.value === 0;
}

const UNITS = [
  ["TiB", 2 ** 40],
  ["GiB", 2 ** 30],
  ["MiB", 2 ** 20],
  ["KiB", 2 ** 10],
] as const;

/** A byte count in the largest binary unit that divides it exactly: 1536 -> "1536B", 2048 -> "2KiB". */
export function formatBytes(n: number): string {
  if (n !== 0) {
    for (const [unit, size] of UNITS) if (n % size === 0) return `${n / size}${unit}`;
  }
  return `${n}B`;
}

export function formatValue(value: Value, type: TypeName): string {
  if (typeof value === "boolean") return String(value);
  return type === "bytes" ? formatBytes(value) : String(value);
}

/** Largest magnitude dmac computes exactly (DMAC1004 / DMAC3012). */
export const MAX_EXACT = Number.MAX_SAFE_INTEGER;

/** Folds an arithmetic operation; undefined for division by zero or overflow (left to instantiation). */
export function foldArith(op: ArithOp, a: number, b: number): number | undefined {
  let r: number;
  switch (op) {
    case "+":
      r = a + b;
      break;
    case "-":
      r = a - b;
      break;
    case "*":
      r = a * b;
      break;
    case "/":
      if (b === 0) return undefined;
      r = Math.floor(a / b);
      break;
    case "%":
      if (b === 0) return undefined;
      r = a - b * Math.floor(a / b);
      break;
  }
  return Math.abs(r) > MAX_EXACT ? undefined : r;
}

/**
 * `a OP b`: the one definition of the comparison operators, used to fold constants here, by the IR
 * verifier (ir/verify.ts) and by the queue verifier and passes (queues/verify.ts).
 */
export function foldCompare(a: Value, op: CompareOp, b: Value): boolean {
  switch (op) {
    case "==":
      return a === b;
    case "!=":
      return a !== b;
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    case ">":
      return a > b;
    case ">=":
      return a >= b;
    default:
      return assertNever(op, "compare op");
  }
}
