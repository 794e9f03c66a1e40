import { describe, expect, it } from "vitest";
import type { Stmt } from "../../../src/frontend/ast.js";
import { parseExpression } from "../../../src/frontend/parse.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { checkNoHoles, parse, schedule } from "./helpers.js";

function summary(text: string, opts = {}) {
  return parse(text, opts).diagnostics.map(
    (d) => `${d.code}@${d.span?.start}-${d.span?.end}: ${d.message}`,
  );
}

describe("error recovery", () => {
  it("reports three syntax errors in three statements and keeps the good statements", () => {
    const src = [
      "schedule s() {",
      "  buffer a: 1MiB",
      "  copy a@0 -> ",
      "  fill a@0 with 1",
      "  swap a@0 <-> a@1 on sdma 2",
      "  signal ok",
      "  let x = (1 + ",
      "  notify ok@0",
      "}",
    ].join("\n");
    const r = parse(src);
    expect(r.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ["DMAC1010", "expected a region such as 'buf@0', found 'fill'"],
      ["DMAC1010", "expected '(', found '2'"],
      ["DMAC1010", "expected an expression, found 'notify'"],
    ]);
    expect(r.diagnostics[0]!.span).toEqual({
      start: src.indexOf("fill"),
      end: src.indexOf("fill") + 4,
    });
    const kinds = schedule(r.program).body.stmts.map((s: Stmt) => s.kind);
    expect(kinds).toEqual(["buffer", "fill", "signal", "notify"]);
    checkNoHoles(r.program);
  });

  it("continues after a broken schedule header and reports the unclosed block at its '{'", () => {
    const src = "schedule a( { }\nschedule b() { copy a@0 -> b@0";
    expect(summary(src)).toEqual([
      "DMAC1010@12-13: expected ')', found '{'",
      "DMAC1015@29-30: this '{' is never closed",
    ]);
  });

  it("explains top-level mistakes", () => {
    const r = parse("let x = 1\nschedule a() { }");
    expect(r.diagnostics.map((d) => d.message)).toEqual([
      "expected 'target', 'const' or 'schedule', found 'let'",
    ]);
    expect(r.diagnostics[0]!.hint).toContain("use 'const' at file level");
    expect(r.program.items.map((i) => i.kind)).toEqual(["schedule"]);
  });

  it("hints at keywords used as names and at a space before a unit", () => {
    const kw = parse("schedule a() { buffer copy: 1B }").diagnostics[0]!;
    expect([kw.message, kw.hint]).toEqual([
      "expected a name, found 'copy'",
      "'copy' is a keyword and cannot be used as a name",
    ]);
    const unit = parse("schedule a() { buffer b: 4 KiB }").diagnostics[0]!;
    expect(unit.hint).toBe("write 4KiB without a space");
  });

  it("DMAC1014: one target, before the first schedule", () => {
    const src = "schedule a() { }\ntarget mi300x\ntarget x";
    expect(summary(src)).toEqual([
      "DMAC1014@17-30: 'target' must come before the first schedule",
      "DMAC1014@31-39: only one 'target' declaration is allowed",
    ]);
    expect(summary("const c = 1\ntarget mi300x\nschedule a() { }")).toEqual([]);
  });
});

describe("limits", () => {
  const parens = (n: number) => `schedule s() { let x = ${"(".repeat(n)}1${")".repeat(n)} }`;

  it("DMAC1013 for deep parentheses instead of a stack overflow", () => {
    // 200 levels in total: the schedule's braces count as one.
    expect(summary(parens(199))).toEqual([]);
    const deep = parse(parens(100_000));
    expect(deep.diagnostics.map((d) => d.code)).toEqual(["DMAC1013"]);
    expect(deep.diagnostics[0]!.message).toBe("nesting is deeper than the limit of 200 levels");
    expect(deep.program.items).toEqual([]);
  });

  it("DMAC1013 for deep blocks, else-if chains and prefix operators", () => {
    const blocks = `schedule s() { ${"if a { ".repeat(5000)}${"} ".repeat(5000)}}`;
    expect(summary(blocks).map((s) => s.split("@")[0])).toEqual(["DMAC1013"]);
    const elseIf = `schedule s() { if a { } ${"else if a { } ".repeat(50_000)}}`;
    expect(summary(elseIf).map((s) => s.split("@")[0])).toEqual(["DMAC1013"]);
    const shortChain = `schedule s() { if a { } ${"else if a { } ".repeat(150)} if a { } ${"else if a { } ".repeat(150)}}`;
    expect(summary(shortChain)).toEqual([]);
    const unary = `schedule s() { let x = ${"-".repeat(100_000)}1 }`;
    expect(summary(unary).map((s) => s.split("@")[0])).toEqual(["DMAC1013"]);
    expect(
      parseExpression(makeSourceFile("e", "!".repeat(100_000) + "a")).diagnostics.map(
        (d) => d.code,
      ),
    ).toEqual(["DMAC1013"]);
  });

  it("maxNesting is configurable, and the span points at the token that went too deep", () => {
    const src = "schedule s() { let x = ((1)) }";
    expect(summary(src, { maxNesting: 2 })).toEqual([
      `DMAC1013@${src.indexOf("((") + 1}-${src.indexOf("((") + 2}: nesting is deeper than the limit of 2 levels`,
    ]);
    expect(summary(src, { maxNesting: 3 })).toEqual([]);
  });

  it("DMAC1012 for a source above maxSourceBytes (UTF-8 bytes)", () => {
    expect(summary("schedule s() { }", { maxSourceBytes: 10 })).toEqual([
      "DMAC1012@0-0: source file is 16 B, more than the limit of 10 B",
    ]);
    expect(summary("// ééééé", { maxSourceBytes: 12 })).toEqual([
      "DMAC1012@0-0: source file is 13 B, more than the limit of 12 B",
    ]);
    expect(summary("// é", { maxSourceBytes: 5 })).toEqual([]);
    expect(summary("x".repeat(2 * 1024 * 1024 + 1), { maxSourceBytes: 2 * 1024 * 1024 })[0]).toBe(
      "DMAC1012@0-0: source file is 2097153 B, more than the limit of 2 MiB",
    );
  });
});
