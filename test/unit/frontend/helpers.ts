// Shared helpers for the front-end tests.
import { expect } from "vitest";
import type { Block, Expr, Program, ScheduleDecl, Stmt } from "../../../src/frontend/ast.js";
import { parseSource } from "../../../src/frontend/parse.js";
import { makeSourceFile } from "../../../src/source/source-file.js";

export function parse(text: string, opts: Parameters<typeof parseSource>[1] = {}) {
  return parseSource(makeSourceFile("test.dmac", text), opts);
}

/** Parses and expects no diagnostics at all. */
export function parseOk(text: string): Program {
  const r = parse(text);
  expect(r.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([]);
  return r.program;
}

export function schedule(p: Program, i = 0): ScheduleDecl {
  const s = p.items.filter((it) => it.kind === "schedule")[i];
  if (s?.kind !== "schedule") throw new Error("no schedule");
  return s;
}

/** The statements of `schedule t() { BODY }`. */
export function stmts(body: string): readonly Stmt[] {
  return schedule(parseOk(`schedule t() {\n${body}\n}`)).body.stmts;
}

export function stmt<K extends Stmt["kind"]>(body: string, kind: K): Extract<Stmt, { kind: K }> {
  const s = stmts(body);
  expect(s.length).toBe(1);
  expect(s[0]!.kind).toBe(kind);
  return s[0] as Extract<Stmt, { kind: K }>;
}

/** The value expression of `let x = EXPR`. */
export function expr(text: string): Expr {
  return stmt(`let x = ${text}`, "let").value;
}

/** A compact, span-free rendering of an expression: `(a + (b * c))`. */
export function show(e: Expr): string {
  switch (e.kind) {
    case "int":
    case "bool":
      return String(e.value);
    case "size":
      return e.text;
    case "name":
      return e.name;
    case "ranks":
      return "ranks";
    case "host":
      return "host";
    case "unary":
      return `(${e.op}${show(e.operand)})`;
    case "binary":
      return `(${show(e.left)} ${e.op} ${show(e.right)})`;
    case "call":
      return `${e.callee.name}(${e.args.map(show).join(", ")})`;
  }
}

/** The source text a span covers. */
export function textOf(src: string, s: { readonly span: { start: number; end: number } }): string {
  return src.slice(s.span.start, s.span.end);
}

export function blockKinds(b: Block): string[] {
  return b.stmts.map((s) => s.kind);
}

/** Walks every object of the AST and fails on an `undefined` in a field the type requires. */
export function checkNoHoles(p: Program): void {
  const optional = new Set([
    "name",
    "path",
    "default",
    "implements",
    "rank",
    "else",
    "step",
    "where",
    "slice",
    "type",
  ]);
  const walk = (v: unknown, key: string): void => {
    if (v === undefined) {
      expect(optional.has(key), `undefined in required field '${key}'`).toBe(true);
      return;
    }
    if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (typeof v === "object" && v !== null) {
      for (const [k, x] of Object.entries(v)) walk(x, k);
      if ("span" in v) {
        const s = (v as { span: { start: number; end: number } }).span;
        expect(Number.isInteger(s.start) && Number.isInteger(s.end) && s.start <= s.end).toBe(true);
      }
    }
  };
  walk(p, "program");
}
