import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseExpression } from "../../../src/frontend/parse.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { blockKinds, expr, parse, parseOk, schedule, show, stmt, textOf } from "./helpers.js";

const SAMPLE = readFileSync(new URL("./fixtures/sample.dmac", import.meta.url), "utf8");

describe("the sample file", () => {
  it("parses without diagnostics into the expected items and statements", () => {
    const p = parseOk(SAMPLE);
    expect(p.items.map((i) => i.kind)).toEqual(["target", "const-item", "schedule", "schedule"]);
    expect(p.span).toEqual({ start: 0, end: SAMPLE.length });
    const x = schedule(p, 1);
    expect(blockKinds(x.body)).toEqual([
      "buffer",
      "signal",
      "let",
      "if",
      "for",
      "swap",
      "notify",
      "ensure",
      "ensure",
    ]);
  });

  it("spans cover exactly the construct's text", () => {
    const p = parseOk(SAMPLE);
    const ag = schedule(p, 0);
    expect(textOf(SAMPLE, ag.name)).toBe("all_gather_pcpy");
    expect(textOf(SAMPLE, ag).startsWith("schedule all_gather_pcpy(")).toBe(true);
    expect(textOf(SAMPLE, ag).endsWith("}\n}")).toBe(true);
    expect(textOf(SAMPLE, ag.params[0]!)).toBe("chunk: bytes = 8KiB");
    expect(SAMPLE.slice(ag.params[0]!.typeSpan.start, ag.params[0]!.typeSpan.end)).toBe("bytes");
    expect(textOf(SAMPLE, ag.implements!)).toBe("implements all_gather_inplace(buf)");
    const loop = ag.body.stmts[1]!;
    if (loop.kind !== "for") throw new Error("for");
    expect(textOf(SAMPLE, loop.vars[1]!)).toBe("p in ranks");
    expect(textOf(SAMPLE, loop.where!)).toBe("p != r");
    const copy = loop.body.stmts[0]!;
    if (copy.kind !== "copy") throw new Error("copy");
    expect(textOf(SAMPLE, copy)).toBe(
      "copy buf@r[r * chunk +: chunk] -> buf@p[r * chunk +: chunk]",
    );
    expect(textOf(SAMPLE, copy.src)).toBe("buf@r[r * chunk +: chunk]");
    expect(textOf(SAMPLE, copy.src.slice!)).toBe("[r * chunk +: chunk]");
    expect(textOf(SAMPLE, copy.dsts[0]!.rank)).toBe("p");
    const target = p.items[0]!;
    expect(textOf(SAMPLE, target)).toBe("target mi300x");
  });

  it("attaches no doc to a schedule separated from the /// line by other items", () => {
    expect(schedule(parseOk(SAMPLE), 0).doc).toBe("");
  });
});

describe("items", () => {
  it("target by name or by path", () => {
    const byName = parseOk("target mi300x").items[0];
    expect(byName).toMatchObject({ kind: "target", name: { name: "mi300x" }, path: undefined });
    const byPath = parseOk('target "nodes/a \\"b\\".json"').items[0];
    expect(byPath).toMatchObject({
      kind: "target",
      name: undefined,
      path: { value: 'nodes/a "b".json' },
    });
  });

  it("file-level const with and without a type", () => {
    const p = parseOk("const A = 64B\nconst B: int = 3;");
    expect(p.items).toMatchObject([
      {
        kind: "const-item",
        decl: { kind: "let", keyword: "const", name: { name: "A" }, type: undefined },
      },
      { kind: "const-item", decl: { keyword: "const", name: { name: "B" }, type: "int" } },
    ]);
  });

  it("schedule header: params with and without defaults, no implements", () => {
    const s = schedule(parseOk("schedule s(a: int, b: bool = true, c: bytes) { }"));
    expect(s.params.map((p) => [p.name.name, p.type, p.default?.kind])).toEqual([
      ["a", "int", undefined],
      ["b", "bool", "bool"],
      ["c", "bytes", undefined],
    ]);
    expect(s.implements).toBeUndefined();
    expect(s.body.stmts).toEqual([]);
  });

  it("implements with several arguments", () => {
    const s = schedule(parseOk("schedule s() implements broadcast(src, dst, 0) { }"));
    expect(s.implements?.collective.name).toBe("broadcast");
    expect(s.implements?.args.map(show)).toEqual(["src", "dst", "0"]);
  });
});

describe("statements", () => {
  it("let and const inside a schedule", () => {
    expect(stmt("let n: bytes = 4KiB", "let")).toMatchObject({ keyword: "let", type: "bytes" });
    expect(stmt("const n = 4", "let")).toMatchObject({ keyword: "const", type: undefined });
  });

  it("buffer and signal, with and without a rank", () => {
    expect(stmt("buffer b: 1MiB", "buffer").rank).toBeUndefined();
    const b = stmt("buffer b: chunk * ranks on 3", "buffer");
    expect([b.name.name, show(b.size), show(b.rank!)]).toEqual(["b", "(chunk * ranks)", "3"]);
    expect(stmt("signal s", "signal").rank).toBeUndefined();
    expect(show(stmt("signal s on (r + 1)", "signal").rank!)).toBe("(r + 1)");
  });

  it("if / else if / else", () => {
    const i = stmt("if a { } else if b { fill x@0 with 1 } else { }", "if");
    expect(show(i.cond)).toBe("a");
    expect(i.else?.kind).toBe("if");
    if (i.else?.kind !== "if") throw new Error("else if");
    expect(show(i.else.cond)).toBe("b");
    expect(i.else.then.stmts.map((s) => s.kind)).toEqual(["fill"]);
    expect(i.else.else?.kind).toBe("block");
    expect(stmt("if a { }", "if").else).toBeUndefined();
  });

  it("for: ranks, ranges with and without step, several variables, where", () => {
    const f = stmt(
      "for a in ranks, b in 0..n step 2, c in ranks - 1 .. ranks where a != b { }",
      "for",
    );
    expect(f.vars.map((v) => v.name.name)).toEqual(["a", "b", "c"]);
    expect(f.vars[0]!.range.kind).toBe("ranks");
    const b = f.vars[1]!.range;
    if (b.kind !== "range") throw new Error("range");
    expect([show(b.from), show(b.to), show(b.step!)]).toEqual(["0", "n", "2"]);
    const c = f.vars[2]!.range;
    if (c.kind !== "range") throw new Error("range");
    expect([show(c.from), show(c.to), c.step]).toEqual(["(ranks - 1)", "ranks", undefined]);
    expect(show(f.where!)).toBe("(a != b)");
    expect(stmt("for i in ranks { }", "for").where).toBeUndefined();
  });

  it("copy with broadcast destinations and placements", () => {
    const c = stmt("copy a@0 -> b@1[0 .. 8B], b@2[8B +: 8B] on sdma(3) by 1", "copy");
    expect(c.src.slice).toBeUndefined();
    expect(c.dsts.map((d) => [d.buffer.name, show(d.rank), d.slice?.kind])).toEqual([
      ["b", "1", "range"],
      ["b", "2", "len"],
    ]);
    expect(c.placement.map((p) => p.kind)).toEqual(["engine", "driver"]);
    const [engine, driver] = c.placement;
    if (engine?.kind !== "engine" || driver?.kind !== "driver") throw new Error("placement");
    expect([show(engine.engine), show(driver.rank)]).toEqual(["3", "1"]);
  });

  it("swap and fill with placements", () => {
    const s = stmt("swap a@r[0 +: 64B] <-> a@(r + 1)[0 +: 64B] by r", "swap");
    expect([show(s.a.rank), show(s.b.rank), s.placement.length]).toEqual(["r", "(r + 1)", 1]);
    const f = stmt("fill a@0[0 .. 4KiB] with 0xff on sdma(0)", "fill");
    expect([show(f.value), f.placement[0]?.kind]).toEqual(["255", "engine"]);
  });

  it("when, notify, ensure (region and value forms)", () => {
    const w = stmt("when f@1 >= k + 1 { notify g@(k) }", "when");
    expect([w.flag.signal.name, show(w.flag.rank), w.op, show(w.value)]).toEqual([
      "f",
      "1",
      ">=",
      "(k + 1)",
    ]);
    expect(w.body.stmts[0]).toMatchObject({ kind: "notify", flag: { signal: { name: "g" } } });
    for (const op of ["==", "!=", "<", "<=", ">", ">="] as const) {
      expect(stmt(`when f@0 ${op} 1 { }`, "when").op).toBe(op);
    }
    expect(stmt("ensure a@0 == b@1[0 +: 8B]", "ensure").expected.kind).toBe("region");
    const v = stmt("ensure a@0[0 .. 8B] == x + 1", "ensure").expected;
    expect(v.kind).toBe("binary");
  });

  it("semicolons are optional separators", () => {
    const p = parseOk(";schedule s() { ; signal a; signal b;; };");
    expect(schedule(p).body.stmts.map((s) => s.kind)).toEqual(["signal", "signal"]);
  });
});

describe("expressions", () => {
  it("precedence: || < && < comparisons < + - < * / % < unary", () => {
    expect(show(expr("a || b && c == d + e * -f"))).toBe("(a || (b && (c == (d + (e * (-f))))))");
    expect(show(expr("a * b + c * d"))).toBe("((a * b) + (c * d))");
    expect(show(expr("!a && b"))).toBe("((!a) && b)");
    expect(show(expr("a < b || c >= d"))).toBe("((a < b) || (c >= d))");
  });

  it("left associativity and parentheses", () => {
    expect(show(expr("a - b - c"))).toBe("((a - b) - c)");
    expect(show(expr("a / b % c * d"))).toBe("(((a / b) % c) * d)");
    expect(show(expr("a - (b - c)"))).toBe("(a - (b - c))");
    expect(show(expr("- - a"))).toBe("(-(-a))");
  });

  it("primaries: literals, names, ranks, min/max", () => {
    expect(show(expr("min(a, 4KiB, max(b, c))"))).toBe("min(a, 4KiB, max(b, c))");
    expect(expr("0x1_0")).toMatchObject({ kind: "int", value: 16 });
    expect(expr("1_000")).toMatchObject({ kind: "int", value: 1000 });
    expect(expr("8KiB")).toMatchObject({ kind: "size", value: 8192, text: "8KiB" });
    expect(expr("true")).toMatchObject({ kind: "bool", value: true });
    expect(expr("ranks")).toMatchObject({ kind: "ranks" });
  });

  it("spans: binary spans its operands, parentheses widen the inner span", () => {
    const src = "schedule t() { let x = (a + b) * c }";
    const s = schedule(parseOk(src)).body.stmts[0]!;
    if (s.kind !== "let" || s.value.kind !== "binary") throw new Error("binary");
    expect(textOf(src, s.value)).toBe("(a + b) * c");
    expect(textOf(src, s.value.left)).toBe("(a + b)");
    expect(textOf(src, s)).toBe("let x = (a + b) * c");
  });

  it("chained comparisons are DMAC1010 with a hint", () => {
    const r = parse("schedule t() { if a < b < c { } }");
    expect(r.diagnostics.map((d) => [d.code, d.message, d.span])).toEqual([
      [
        "DMAC1010",
        "expected '&&' or '||' between two comparisons, found '<'",
        { start: 24, end: 25 },
      ],
    ]);
    expect(r.diagnostics[0]?.hint).toContain("a < b && b < c");
  });
});

describe("/// doc comments", () => {
  it("attach to the schedule directly below, slashes and one space stripped", () => {
    const p = parseOk(
      "/// First line.\n///   indented\n///\nschedule a() { }\n\n/// B\n\nschedule b() { }",
    );
    expect(schedule(p, 0).doc).toBe("First line.\n  indented\n");
    expect(schedule(p, 1).doc).toBe("B");
  });

  it("do not attach across other tokens or to later schedules", () => {
    const p = parseOk("/// about c\nconst c = 1\nschedule a() { }\nschedule b() { }");
    expect([schedule(p, 0).doc, schedule(p, 1).doc]).toEqual(["", ""]);
  });
});

describe("parseExpression", () => {
  it("parses a -D value", () => {
    const r = parseExpression(makeSourceFile("-D chunk", "2 * 1MiB"));
    expect(r.diagnostics).toEqual([]);
    expect(show(r.expr!)).toBe("(2 * 1MiB)");
  });

  it("reports trailing input and lexical errors, and returns no expression", () => {
    const r = parseExpression(makeSourceFile("-D chunk", "1MiB x"));
    expect(r.expr).toBeUndefined();
    expect(r.diagnostics.map((d) => [d.code, d.message])).toEqual([
      ["DMAC1010", "expected end of expression, found 'x'"],
    ]);
    const bad = parseExpression(makeSourceFile("-D chunk", "4KB"));
    expect(bad.expr).toBeUndefined();
    expect(bad.diagnostics.map((d) => d.code)).toContain("DMAC1003");
    expect(parseExpression(makeSourceFile("-D x", "")).expr).toBeUndefined();
  });
});

describe("docs/language.md", () => {
  it("its complete example files parse without diagnostics", () => {
    const md = readFileSync(new URL("../../../docs/language.md", import.meta.url), "utf8");
    // Whole files are the ```dmac blocks (test/unit/docs/code-blocks.test.ts checks them all).
    const blocks = [...md.matchAll(/```dmac\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const files = blocks.filter((b) => /^(target|\/\/\/)/.test(b) && !b.includes("..."));
    expect(files.length).toBeGreaterThanOrEqual(2);
    for (const f of files) expect(schedule(parseOk(f)).body.stmts.length).toBeGreaterThan(0);
  });
});
