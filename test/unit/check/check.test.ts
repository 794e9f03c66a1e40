import { describe, expect, it } from "vitest";
import type { Expr, Program, TypeName } from "../../../src/frontend/ast.js";
import { parseSource } from "../../../src/frontend/parse.js";
import { checkProgram } from "../../../src/check/check.js";
import { checkSource } from "../../../src/check/check-source.js";
import type { CheckOptions } from "../../../src/check/checked.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { builtinTarget } from "../../../src/target/target.js";

function check(text: string, options: Partial<CheckOptions> = {}) {
  const file = makeSourceFile("t.dmac", text);
  const r = checkSource(file, { defines: {}, ...options });
  return { ...r, codes: r.diagnostics.map((d) => d.code), file };
}

/** Every Expr node reachable from a program, by walking its object graph. */
function allExprs(node: unknown, out: Expr[] = [], key = ""): Expr[] {
  if (Array.isArray(node)) for (const x of node) allExprs(x, out, key);
  else if (node && typeof node === "object") {
    const n = node as { kind?: string };
    // A loop's `range` of kind "ranks" is a LoopRange, not an expression.
    const exprKinds = ["int", "size", "bool", "name", "ranks", "unary", "binary", "call"];
    if (key !== "range" && exprKinds.includes(n.kind ?? "")) out.push(node as Expr);
    for (const [k, v] of Object.entries(node)) allExprs(v, out, k);
  }
  return out;
}

const AG = `
const half = 2
schedule ag(chunk: bytes = 8KiB, n: int = half * 2, on_: bool = true) implements all_gather_inplace(buf) {
  buffer buf: chunk * ranks
  for r in ranks, p in 0..ranks step 1 where p != r && on_ {
    copy buf@r[r * chunk +: chunk] -> buf@p[r * chunk .. (r + 1) * chunk] by r
  }
  let _k = n
}`;

describe("checkProgram", () => {
  it("accepts a valid schedule and resolves parameters", () => {
    const r = check(AG);
    expect(r.diagnostics).toEqual([]);
    expect(r.schedules).toHaveLength(1);
    const s = r.schedules[0]!;
    expect(s.params).toEqual([
      { name: "chunk", type: "bytes", value: 8192 },
      { name: "n", type: "int", value: 4 },
      { name: "on_", type: "bool", value: true },
    ]);
    expect(s.target.name).toBe("mi300x");
  });

  it("records the type of every expression node", () => {
    const s = check(AG).schedules[0]!;
    const exprs = allExprs(s.program).filter((e) => e.kind !== "name" || e.name !== "buf");
    expect(exprs.length).toBeGreaterThan(20);
    for (const e of exprs) expect(s.types.get(e), JSON.stringify(e.span)).toBeDefined();
    const typeOf = (src: string): TypeName | undefined =>
      s.types.get(exprs.find((e) => s.file.text.slice(e.span.start, e.span.end) === src)!);
    expect(typeOf("chunk * ranks")).toBe("bytes");
    expect(typeOf("p != r && on_")).toBe("bool");
    expect(typeOf("p != r")).toBe("bool");
    expect(typeOf("half * 2")).toBe("int");
  });

  it("lets the literal 0 be bytes", () => {
    const r = check(
      `schedule s(c: bytes = 1KiB) { buffer b: c\n copy b@0[0 .. c] -> b@1[0 +: c - 0]\n fill b@0[max(0, c) +: 0] with 0 }`,
    );
    expect(r.codes).toEqual([]);
    expect(check(`schedule s() { buffer b: 1KiB\n copy b@0[1 +: 1KiB] -> b@1 }`).codes).toEqual([
      "DMAC2003",
    ]);
  });

  it("applies -D overrides with constant expressions of the parameter's type", () => {
    const r = check(AG, { defines: { chunk: "2 * 1MiB", n: "half + 1", on_: "false" } });
    expect(r.diagnostics).toEqual([]);
    expect(r.schedules[0]!.params.map((p) => p.value)).toEqual([2 * 2 ** 20, 3, false]);
  });

  it("reports bad -D values with DMAC2010", () => {
    for (const v of ["4096", "1MiB +", "", "true", "nope", "1MiB / 0"]) {
      const r = check(AG, { defines: { chunk: v } });
      expect(r.codes, v).toEqual(["DMAC2010"]);
      expect(r.schedules).toEqual([]);
    }
  });

  it("reports an unknown -D parameter only if no selected schedule has it", () => {
    const two = `schedule a(x: int = 1) { let _y = x }\nschedule b(z: int = 1) { let _w = z }`;
    expect(check(two, { defines: { x: "2" } }).codes).toEqual([]);
    expect(check(two, { defines: { x: "2" }, schedule: "b" }).codes).toEqual(["DMAC2009"]);
    const r = check(two, { defines: { zz: "2" } });
    expect(r.codes).toEqual(["DMAC2009"]);
    expect(r.diagnostics[0]!.hint).toBe("did you mean 'z'?");
  });

  it("returns only the selected schedule and reports an unknown one", () => {
    const two = `schedule a() { buffer b: 1KiB\n copy b@0 -> b@1 }\nschedule b() { buffer b: 1KiB\n copy b@1 -> b@0 }`;
    expect(check(two).schedules.map((s) => s.schedule.name.name)).toEqual(["a", "b"]);
    expect(check(two, { schedule: "b" }).schedules.map((s) => s.schedule.name.name)).toEqual(["b"]);
    const r = check(two, { schedule: "c" });
    expect(r.codes).toEqual(["DMAC2020"]);
    expect(r.schedules).toEqual([]);
  });

  it("requires a value only for parameters of selected schedules", () => {
    const two = `schedule a(x: int) { let _y = x }\nschedule b() { buffer q: 1KiB\n fill q@0 with 1 }`;
    expect(check(two, { schedule: "b" }).codes).toEqual([]);
    expect(check(two).codes).toEqual(["DMAC2016"]);
    expect(check(two, { defines: { x: "3" } }).schedules[0]!.params).toEqual([
      { name: "x", type: "int", value: 3 },
    ]);
  });

  it("keeps a schedule without errors when another one has errors", () => {
    const two = `schedule a() { buffer b: 1KiB\n copy b@0 -> c@1 }\nschedule b() { buffer q: 1KiB\n fill q@0 with 1 }`;
    const r = check(two);
    expect(r.codes).toEqual(["DMAC2001"]);
    expect(r.schedules.map((s) => s.schedule.name.name)).toEqual(["b"]);
  });

  it("returns no schedule when a file-level item has an error", () => {
    const r = check(`const k = 1KiB + 1\nschedule b() { buffer q: 1KiB\n fill q@0 with 1 }`);
    // (k is not also reported as unused: its declaration already has an error)
    expect(r.codes).toEqual(["DMAC2004"]);
    expect(r.schedules).toEqual([]);
  });

  it("folds ranks from the target, and a --target override wins", () => {
    const src = `target nonexistent\nschedule s() { buffer q: 1KiB * ranks / 3\n fill q@0 with 1 }`;
    expect(check(src).codes).toEqual(["DMAC2006", "DMAC2013"]);
    const base = builtinTarget("mi300x")!;
    const six = { ...base, gpus: 6 };
    const r = check(src, { targetOverride: six });
    expect(r.codes).toEqual([]);
    expect(r.schedules[0]!.target.gpus).toBe(6);
  });

  it("does not fold parameters (checks hold for every value)", () => {
    expect(
      check(`schedule s(c: bytes = 1KiB) { buffer q: c / 3\n fill q@0 with 1 }`).codes,
    ).toEqual([]);
  });

  it("checks buffers used before their declaration as unknown", () => {
    expect(check(`schedule s() { fill q@0 with 1\n buffer q: 1KiB }`).codes).toEqual([
      "DMAC2001",
      "DMAC2008",
    ]);
  });

  it("does not run the checker after syntax errors", () => {
    const r = check(`schedule s() { copy q@0 => q@1 }`);
    expect(r.codes).toEqual(["DMAC1010"]);
  });

  it("reports bare loop iterables (hand-built AST: for i in n)", () => {
    const file = makeSourceFile("t.dmac", "schedule s(n: int = 4) { for i in n { } }");
    const parsed = parseSource(
      makeSourceFile("t.dmac", "schedule s(n: int = 4) { for i in 0..n { } }"),
    );
    expect(parsed.diagnostics).toEqual([]);
    // Rewrite the parsed `0..n` range into the bare-expression form.
    const sched = parsed.program.items[0] as Extract<
      Program["items"][number],
      { kind: "schedule" }
    >;
    const loop = sched.body.stmts[0] as Extract<(typeof sched.body.stmts)[number], { kind: "for" }>;
    const v = loop.vars[0]!;
    const nExpr: Expr = { kind: "name", name: "n", span: { start: 34, end: 35 } };
    const program: Program = {
      ...parsed.program,
      items: [
        {
          ...sched,
          body: {
            ...sched.body,
            stmts: [
              {
                ...loop,
                vars: [
                  {
                    ...v,
                    name: { name: "_i", span: v.name.span },
                    range: { kind: "expr", expr: nExpr, span: nExpr.span },
                  },
                ],
              },
            ],
          },
        },
      ],
    };
    const r = checkProgram(file, program, { defines: {} });
    expect(r.diagnostics.map((d) => d.code)).toEqual(["DMAC2015"]);
    expect(r.diagnostics[0]!.message).toBe("'for _i in n' needs a range or 'ranks'");
    expect(r.diagnostics[0]!.hint).toBe("write 'for _i in 0..n' to count from 0 to n - 1");
  });
});
