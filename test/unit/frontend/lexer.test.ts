import { describe, expect, it } from "vitest";
import { lex, literalValue } from "../../../src/frontend/lexer.js";
import { lineCol, lineText, makeSourceFile } from "../../../src/source/source-file.js";

function run(text: string) {
  const r = lex(makeSourceFile("t.dmac", text));
  return {
    tokens: r.tokens.map((t) => `${t.tokenType.name}:${t.image}`),
    diags: r.diagnostics.map((d) => ({
      code: d.code,
      span: d.span,
      message: d.message,
      hint: d.hint,
    })),
    docs: r.docComments,
  };
}

describe("lexer tokens", () => {
  it("keywords win over identifiers only for whole words, longest first", () => {
    expect(run("int in bytes by copy_x copyx _copy schedule").tokens).toEqual([
      "Kw_int:int",
      "Kw_in:in",
      "Kw_bytes:bytes",
      "Kw_by:by",
      "Identifier:copy_x",
      "Identifier:copyx",
      "Identifier:_copy",
      "Kw_schedule:schedule",
    ]);
  });

  it("numbers: decimal, hex, underscores, sizes in every unit", () => {
    expect(run("42 1_000 0xff 0xFF_FF 1B 8KiB 4MiB 1GiB 2TiB").tokens).toEqual([
      "IntLiteral:42",
      "IntLiteral:1_000",
      "HexLiteral:0xff",
      "HexLiteral:0xFF_FF",
      "SizeLiteral:1B",
      "SizeLiteral:8KiB",
      "SizeLiteral:4MiB",
      "SizeLiteral:1GiB",
      "SizeLiteral:2TiB",
    ]);
    expect(literalValue("0xFF_FF")).toBe(0xffff);
    expect(literalValue("2TiB")).toBe(2 * 1024 ** 4);
    expect(literalValue("1_024KiB")).toBe(1024 * 1024);
  });

  it("punctuation: longest match first", () => {
    expect(run("<-> -> +: .. <= < - + == = != ! && ||").tokens.map((t) => t.split(":")[0])).toEqual(
      [
        "SwapArrow",
        "Arrow",
        "PlusColon",
        "DotDot",
        "LtEq",
        "Lt",
        "Minus",
        "Plus",
        "EqEq",
        "Eq",
        "NotEq",
        "Bang",
        "AndAnd",
        "OrOr",
      ],
    );
    expect(run("0..n").tokens).toEqual(["IntLiteral:0", "DotDot:..", "Identifier:n"]);
  });

  it("skips // and /* */ comments (block comments do not nest) and keeps /// doc lines", () => {
    const r = run("a // x\n/* b /* c */ d\n///  doc one\n/// two\n//// rule\ne");
    expect(r.tokens).toEqual(["Identifier:a", "Identifier:d", "Identifier:e"]);
    expect(r.docs.map((d) => d.text)).toEqual([" doc one", "two"]);
    expect(r.diags).toEqual([]);
  });

  it("strings", () => {
    expect(run('target "nodes/my node.json"').tokens).toEqual([
      "Kw_target:target",
      'StringLiteral:"nodes/my node.json"',
    ]);
  });
});

describe("lexer diagnostics", () => {
  it("DMAC1001 once per run of stray characters, with its exact span", () => {
    const r = run("copy $$$ a # b");
    expect(r.diags.map((d) => [d.code, d.span, d.message])).toEqual([
      ["DMAC1001", { start: 5, end: 8 }, "unexpected character '$$$'"],
      ["DMAC1001", { start: 11, end: 12 }, "unexpected character '#'"],
    ]);
    expect(r.tokens).toEqual(["Kw_copy:copy", "Identifier:a", "Identifier:b"]);
  });

  it("DMAC1001 names invisible characters by code point", () => {
    expect(run("a\u00a0b").diags[0]?.message).toBe("unexpected character U+00A0");
  });

  it("DMAC1002 spans from /* to the end of the file", () => {
    const text = "a /* never\nclosed";
    expect(run(text).diags).toEqual([
      {
        code: "DMAC1002",
        span: { start: 2, end: text.length },
        message: "unterminated block comment",
        hint: "add '*/' where the comment should end",
      },
    ]);
  });

  it("DMAC1003 for a wrong size unit, with the KiB-or-B hint", () => {
    expect(run("x = 4KB").diags).toEqual([
      {
        code: "DMAC1003",
        span: { start: 4, end: 7 },
        message: "unknown size unit 'KB'",
        hint: "write 4KiB (4096 bytes), or 4000B if you meant 4000",
      },
    ]);
    expect(run("16mb").diags[0]?.hint).toBe(
      "write 16MiB (16777216 bytes), or 16000000B if you meant 16000000",
    );
    expect(run("3kib").diags[0]?.hint).toBe("write 3KiB (3072 bytes); units are case-sensitive");
    expect(run("8bytes").diags[0]?.message).toBe("unknown size unit 'bytes'");
  });

  it("DMAC1003 also for a wrong unit written after a space", () => {
    const r = run("a 4 kb b");
    expect(r.diags.map((d) => [d.code, d.span, d.hint])).toEqual([
      ["DMAC1003", { start: 2, end: 6 }, "write 4KiB (4096 bytes), or 4000B if you meant 4000"],
    ]);
    // The bad literal stays in the token stream so the parser can accept it without a second error.
    expect(r.tokens).toEqual(["Identifier:a", "SpacedBadSizeLiteral:4 kb", "Identifier:b"]);
    // A name after a number is not a unit: left to the parser.
    expect(run("4 kbx").diags).toEqual([]);
  });

  it("DMAC1004 for literals above 2^53 - 1", () => {
    expect(run("9007199254740991 9007199254740992").diags).toEqual([
      {
        code: "DMAC1004",
        span: { start: 17, end: 33 },
        message: "number 9007199254740992 is larger than 2^53 - 1",
        hint: undefined,
      },
    ]);
    expect(run("0x20000000000000").diags.map((d) => d.code)).toEqual(["DMAC1004"]);
    expect(run("8192TiB").diags.map((d) => d.code)).toEqual(["DMAC1004"]);
  });

  it("DMAC1011 for a string that reaches the end of its line", () => {
    const r = run('target "abc\nschedule');
    expect(r.diags.map((d) => [d.code, d.span])).toEqual([["DMAC1011", { start: 7, end: 11 }]]);
    expect(r.tokens).toEqual(["Kw_target:target", "Kw_schedule:schedule"]);
  });

  // Issue 11 item 8: these were "unknown size unit 'x'", "'xG'" and "'x10KiB'" (DMAC1003).
  it("DMAC1005 for 0x without a well-formed hex number, one token each, never DMAC1003", () => {
    const r = run("0x 0xG 0x1fG 0x_1 0x10KiB 0XfMiB 0xff 0x1B");
    expect(r.tokens).toEqual([
      "BadHexLiteral:0x",
      "BadHexLiteral:0xG",
      "BadHexLiteral:0x1fG",
      "BadHexLiteral:0x_1",
      "BadHexLiteral:0x10KiB",
      "BadHexLiteral:0XfMiB",
      "HexLiteral:0xff",
      "HexLiteral:0x1B",
    ]);
    expect(r.diags.map((d) => [d.code, d.message, d.hint])).toEqual([
      [
        "DMAC1005",
        "malformed hex literal '0x': no digits after '0x'",
        "write hex digits after 0x, e.g. 0xff",
      ],
      [
        "DMAC1005",
        "malformed hex literal '0xG': 'G' is not a hex digit",
        "hex digits are 0-9, a-f and A-F",
      ],
      [
        "DMAC1005",
        "malformed hex literal '0x1fG': 'G' is not a hex digit",
        "hex digits are 0-9, a-f and A-F",
      ],
      [
        "DMAC1005",
        "malformed hex literal '0x_1': '_' cannot come before the first digit",
        "write 0x1",
      ],
      [
        "DMAC1005",
        "malformed hex literal '0x10KiB': a hex number takes no size unit ('KiB')",
        "write 16KiB, or 0x10 * 1KiB",
      ],
      [
        "DMAC1005",
        "malformed hex literal '0XfMiB': a hex number takes no size unit ('MiB')",
        "write 15MiB, or 0Xf * 1MiB",
      ],
    ]);
    expect(r.diags[1]!.span).toEqual({ start: 3, end: 6 });
  });
});

describe("source text: byte order mark and line endings", () => {
  it("a leading UTF-8 byte order mark is skipped, not DMAC1001", () => {
    const f = makeSourceFile("bom.dmac", "\ufefftarget mi300x\nschedule");
    expect(f.text.startsWith("target")).toBe(true);
    expect(lex(f).diagnostics).toEqual([]);
    expect(lineCol(f, 0)).toEqual({ line: 1, col: 1 });
    // Only at the start: anywhere else U+FEFF is an invisible character, still DMAC1001.
    expect(run("a \ufeff b").diags.map((d) => [d.code, d.message])).toEqual([
      ["DMAC1001", "unexpected character U+FEFF"],
    ]);
  });

  it("\\n, \\r\\n and a lone \\r all end a line, for line:col and the line's text", () => {
    for (const nl of ["\n", "\r\n", "\r"]) {
      const text = ["target mi300x", "schedule s() {", "  copy b@0 -> b@9", "}", ""].join(nl);
      const f = makeSourceFile("t.dmac", text);
      const at = text.indexOf("9");
      expect(lineCol(f, at), JSON.stringify(nl)).toEqual({ line: 3, col: 17 });
      expect(lineText(f, 3)).toBe("  copy b@0 -> b@9");
      expect(lineText(f, 1)).toBe("target mi300x");
      expect(f.lineStarts).toHaveLength(5);
    }
    // Mixed: each terminator counts once (\r\n is one line break, \r\r two).
    const f = makeSourceFile("m.dmac", "a\r\nb\rc\nd\r\re");
    expect(["a", "b", "c", "d", "", "e"].map((_, i) => lineText(f, i + 1))).toEqual([
      "a",
      "b",
      "c",
      "d",
      "",
      "e",
    ]);
    expect(lineCol(f, f.text.indexOf("e"))).toEqual({ line: 6, col: 1 });
  });
});
