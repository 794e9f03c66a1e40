// Which expressions are affine in one loop variable: what instantiation's run of plain copies
// (instantiate.ts, "loops of plain copies") relies on to check a whole loop at its two ends.
//
// An expression is affine in the variable v when it is built from constants, names, unary minus,
// `+`, `-` and `*` by a factor that does not mention v; any other operator (`/`, `%`, comparisons,
// `!`, `&&`, calls) may appear only in subexpressions that do not mention v. Its value at v = x is
// then c0 + c1 * x with integers c0, c1 (eval.ts evaluates exactly), and so is every
// subexpression's: over a range of x each one lies between its values at the range's two ends.
// So an evaluation that succeeds at both ends (no DMAC3012 overflow, no division by zero)
// succeeds everywhere between, and a bound (>= 0, <= size) that holds at both ends holds there
// too.

import type { Expr } from "../frontend/ast.js";
import { assertNever } from "../util/assert-never.js";

/** Whether `e` mentions a name for which `named` holds. */
export function mentionsName(e: Expr, named: (e: NameExpr) => boolean): boolean {
  switch (e.kind) {
    case "int":
    case "size":
    case "bool":
    case "ranks":
    case "host":
      return false;
    case "name":
      return named(e);
    case "unary":
      return mentionsName(e.operand, named);
    case "binary":
      return mentionsName(e.left, named) || mentionsName(e.right, named);
    case "call":
      return e.args.some((a) => mentionsName(a, named));
    default:
      return assertNever(e, "expression");
  }
}

/** Whether `e` names the value in environment slot `slot` (names resolved by `slotOf`). */
export function mentionsSlot(e: Expr, slot: number, slotOf: (e: NameExpr) => number): boolean {
  return mentionsName(e, (n) => slotOf(n) === slot);
}

type NameExpr = Extract<Expr, { kind: "name" }>;

/** Whether `e` is affine in the value of `slot` (see the file comment). */
export function affineIn(e: Expr, slot: number, slotOf: (e: NameExpr) => number): boolean {
  switch (e.kind) {
    case "int":
    case "size":
    case "bool":
    case "ranks":
    case "host":
    case "name":
      return true;
    case "unary":
      return e.op === "-"
        ? affineIn(e.operand, slot, slotOf)
        : !mentionsSlot(e.operand, slot, slotOf);
    case "binary": {
      const { left, right } = e;
      switch (e.op) {
        case "+":
        case "-":
          return affineIn(left, slot, slotOf) && affineIn(right, slot, slotOf);
        case "*":
          return (
            (!mentionsSlot(left, slot, slotOf) && affineIn(right, slot, slotOf)) ||
            (!mentionsSlot(right, slot, slotOf) && affineIn(left, slot, slotOf))
          );
        default:
          return !mentionsSlot(e, slot, slotOf);
      }
    }
    case "call":
      return !mentionsSlot(e, slot, slotOf);
    default:
      return assertNever(e, "expression");
  }
}
