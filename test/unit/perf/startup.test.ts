// Start-up cost (issue 7): the process-wide lexer and parser skip chevrotain's definition
// validations to save ~35 ms of every `dmac` run. Those validations only find mistakes in the
// token table and the grammar, so they run here instead: a broken grammar still fails CI.
import { describe, expect, it } from "vitest";
import { lex, buildLexer } from "../../../src/frontend/lexer.js";
import { validatingParser } from "../../../src/frontend/parser.js";
import { makeSourceFile } from "../../../src/source/source-file.js";

describe("grammar and token table pass chevrotain's validations", () => {
  it("the lexer definition validates and is optimised", () => {
    const lexer = buildLexer(true);
    expect(lexer.lexerDefinitionErrors).toEqual([]);
    // Same tokens as the process-wide lexer on a sample with every token family.
    const text = "target mi300x\nschedule s(c: bytes = 4KiB) { buffer b: c * ranks } /* x */ // y";
    const ours = lex(makeSourceFile("t.dmac", text)).tokens.map((t) => t.image);
    expect(lexer.tokenize(text).tokens.map((t) => t.image)).toEqual(ours);
  });

  it("the parser's grammar validates (no ambiguity, left recursion or missing rule)", () => {
    // chevrotain throws from performSelfAnalysis when a validating parser finds a definition error.
    expect(() => validatingParser()).not.toThrow();
  });
});
