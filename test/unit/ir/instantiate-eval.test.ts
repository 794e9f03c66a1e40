// Expression evaluation (src/ir/eval.ts) on hand-built expressions: exactness, floor semantics,
// and failures as EvalStops at the sub-expression's span.

import { describe, expect, it } from "vitest";
import type { Expr, TypeName } from "../../../src/frontend/ast.js";
import { compileExpr, EvalStop, floorDiv } from "../../../src/ir/eval.js";
import { makeSourceFile } from "../../../src/source/source-file.js";

const sp = { start: 0, end: 1 };
const int = (value: number): Expr => ({ kind: "int", value, span: sp });
const size = (value: number): Expr => ({ kind: "size", value, text: `${value}B`, span: sp });
const name = (n: string): Expr => ({ kind: "name", name: n, span: { start: 5, end: 6 } });
const bin = (op: Extract<Expr, { kind: "binary" }>["op"], left: Expr, right: Expr): Expr => ({
  kind: "binary",
  op,
  left,
  right,
  span: { start: 1, end: 9 },
});

function evaluate(e: Expr, types: [Expr, TypeName][] = [], env: number[] = [0]): number {
  // Unlisted expressions are ints, as the checker would type them here.
  const m = new Map(types);
  const typed = { get: (x: Expr) => m.get(x) ?? "int" } as unknown as ReadonlyMap<Expr, TypeName>;
  const f = compileExpr(e, { types: typed, ranks: 8, slotOf: () => 0 });
  return f(env);
}

function failure(
  e: Expr,
  types: [Expr, TypeName][] = [],
  env: number[] = [0],
): { code: string; message: string } {
  try {
    evaluate(e, types, env);
  } catch (x) {
    if (!(x instanceof EvalStop)) throw x;
    const d = x.build(makeSourceFile("t", "0123456789"), " when r = 1");
    return { code: d.code, message: d.message };
  }
  throw new Error("no failure");
}

describe("eval", () => {
  it("floorDiv is exact floor division for every sign", () => {
    for (const [a, b, q] of [
      [7, 2, 3],
      [-7, 2, -4],
      [7, -2, -4],
      [-7, -2, 3],
      [6, 3, 2],
      [-6, 3, -2],
      [2 ** 53 - 1, 3, 3002399751580330],
      [-(2 ** 53 - 1), 2, -4503599627370496],
    ] as const)
      expect(floorDiv(a, b), `${a} / ${b}`).toBe(q);
  });

  it("int / and % floor; min/max; comparisons and logic as 1/0; ranks; names", () => {
    const l = int(-7);
    expect(evaluate(bin("/", l, int(2)), [[l, "int"]])).toBe(-4);
    expect(evaluate(bin("%", int(-7), int(3)))).toBe(2);
    expect(
      evaluate({
        kind: "call",
        callee: { name: "max", span: sp },
        args: [int(3), int(9), int(4)],
        span: sp,
      }),
    ).toBe(9);
    expect(
      evaluate(
        { kind: "call", callee: { name: "min", span: sp }, args: [int(3), name("r")], span: sp },
        [],
        [-1],
      ),
    ).toBe(-1);
    expect(
      evaluate(
        bin("&&", bin("<", int(1), int(2)), {
          kind: "unary",
          op: "!",
          operand: { kind: "bool", value: false, span: sp },
          span: sp,
        }),
      ),
    ).toBe(1);
    expect(
      evaluate(
        bin("||", bin(">=", int(1), int(2)), bin("==", { kind: "ranks", span: sp }, int(8))),
      ),
    ).toBe(1);
    expect(evaluate({ kind: "unary", op: "-", operand: name("r"), span: sp }, [], [5])).toBe(-5);
  });

  it("bytes division must be exact", () => {
    const l = size(4096);
    expect(evaluate(bin("/", l, int(4)), [[l, "bytes"]])).toBe(1024);
    const l2 = size(1000);
    const r2 = size(3);
    expect(
      failure(bin("/", l2, r2), [
        [l2, "bytes"],
        [r2, "bytes"],
      ]),
    ).toEqual({
      code: "DMAC3006",
      message: "1000 bytes is not divisible by 3 bytes when r = 1",
    });
  });

  it("division by zero and overflow fail", () => {
    expect(failure(bin("/", int(1), name("r")), [], [0]).code).toBe("DMAC3011");
    expect(failure(bin("%", int(1), int(0))).code).toBe("DMAC3011");
    const big = int(2 ** 52);
    expect(failure(bin("*", big, int(2)))).toEqual({
      code: "DMAC3012",
      message: "value exceeds 2^53 - 1 when r = 1",
    });
    expect(failure(bin("-", int(-(2 ** 53 - 1)), int(1))).code).toBe("DMAC3012");
    expect(evaluate(bin("+", int(2 ** 53 - 2), int(1)))).toBe(2 ** 53 - 1);
  });
});
