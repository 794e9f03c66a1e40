// The parser on inputs nobody writes: every prefix of a valid file, random token soup, binary
// input. Each must give diagnostics, never an exception or a hole in the AST. A sweep of
// thousands of parses (tens of seconds on the shared 2-core machine), so it runs with `npm run
// test:slow`; the error messages themselves are errors.test.ts.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Expr } from "../../../src/frontend/ast.js";
import { parseExpression } from "../../../src/frontend/parse.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { checkNoHoles, parse } from "./helpers.js";

const SAMPLE = readFileSync(new URL("./fixtures/sample.dmac", import.meta.url), "utf8");

describe("robustness", () => {
  it("never throws on any prefix of a valid file, and never leaves holes in the AST", () => {
    const lastSchedule = SAMPLE.lastIndexOf("schedule");
    for (let i = 0; i <= SAMPLE.length; i++) {
      const r = parse(SAMPLE.slice(0, i));
      checkNoHoles(r.program);
      if (i > lastSchedule && i < SAMPLE.lastIndexOf("}")) {
        // Every prefix that cuts into the last schedule is incomplete.
        expect(r.diagnostics.length, `prefix ${i}`).toBeGreaterThan(0);
      }
    }
  });

  it("never throws on random garbage built from the language's own tokens", () => {
    const pieces = [
      "schedule",
      "s",
      "(",
      ")",
      "{",
      "}",
      "[",
      "]",
      "copy",
      "a@0",
      "->",
      "<->",
      "+:",
      "..",
      "for",
      "in",
      "ranks",
      "if",
      "else",
      "when",
      "1",
      "4KiB",
      "==",
      "-",
      "!",
      ",",
      ";",
      "/*",
      "///",
      "\n",
      '"',
      "$",
      "4KB",
      "target",
      "const",
      "=",
      ":",
      "int",
      "by",
      "on",
      "sdma",
      "min",
      "@",
    ];
    let seed = 12345;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    for (let k = 0; k < 300; k++) {
      const len = 1 + rand(60);
      const text = Array.from({ length: len }, () => pieces[rand(pieces.length)]).join(" ");
      const r = parse(text);
      checkNoHoles(r.program);
      const e = parseExpression(makeSourceFile("e", text));
      expect(e.expr === undefined || typeof (e.expr as Expr).kind === "string").toBe(true);
    }
  });

  it("handles binary input", () => {
    const bytes = Array.from({ length: 2000 }, (_, i) =>
      String.fromCharCode((i * 7919) % 256),
    ).join("");
    expect(() => parse(bytes)).not.toThrow();
  });
});
