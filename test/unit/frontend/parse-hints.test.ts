// The table of common syntax mistakes (src/frontend/parse-hints.ts): every row has a case here,
// each case's hint is the first diagnostic's, and applying a fix gives a file that parses with no
// error at all (a fix that is not certain enough to do that must not be offered).

import { describe, expect, it } from "vitest";
import type { Diagnostic } from "../../../src/diagnostics/diagnostic.js";
import { PARSE_HINTS } from "../../../src/frontend/parse-hints.js";
import { parse } from "./helpers.js";

interface Case {
  /** A whole file with exactly the one mistake. */
  readonly src: string;
  readonly hint: string;
  /** The fixed file, or undefined when the row offers no fix. */
  readonly fixed: string | undefined;
  /** The parser cannot resynchronise after this mistake: more errors follow the first. */
  readonly cascade?: true;
}

const wrap = (body: string) =>
  `schedule s(chunk: bytes = 1KiB) {\n  buffer buf: chunk * ranks\n  signal flag\n${body}\n}\n`;

const CASES: Readonly<Record<string, Case>> = {
  "a size unit written apart from its number (`4 KiB`)": {
    src: "const c = 4 KiB\n",
    hint: "write 4KiB without a space",
    fixed: "const c = 4KiB\n",
  },
  "`let` at file level": {
    src: "let c = 1\n",
    hint: "use 'const' at file level",
    fixed: "const c = 1\n",
  },
  "the wrong arrow: `=>`, `to` or `<->` in a copy, `<=>` or `->` in a swap": {
    src: wrap("  swap buf@0 <=> buf@1"),
    hint: "a swap is written with '<->'",
    fixed: wrap("  swap buf@0 <-> buf@1"),
  },
  "an expression after `@` without parentheses (`buf@r+1[...]`)": {
    src: wrap("  copy buf@0[0 +: chunk] -> buf@ranks-1[0 +: chunk]"),
    hint: "buf@(ranks-1)",
    fixed: wrap("  copy buf@0[0 +: chunk] -> buf@(ranks-1)[0 +: chunk]"),
  },
  "`sdma 2` or `sdma2` for `sdma(2)`": {
    src: wrap("  copy buf@0 -> buf@1 on sdma 2"),
    hint: "sdma(2)",
    fixed: wrap("  copy buf@0 -> buf@1 on sdma(2)"),
  },
  "a near-miss of `ranks` as a loop range (`for r in rank`)": {
    src: wrap("  for r in Ranks { notify flag@r }"),
    hint: "did you mean 'ranks'?",
    fixed: wrap("  for r in ranks { notify flag@r }"),
  },
  "`:` for `..` in a range or region (`[0:n]`, `for i in 0:n`)": {
    src: wrap("  fill buf@0[0:chunk] with 1"),
    hint: "a region is [start..end] or [start +: length]",
    fixed: wrap("  fill buf@0[0..chunk] with 1"),
  },
  "`=>` or `=<` for `>=` or `<=` in a comparison": {
    src: wrap("  if chunk =< 1KiB { notify flag@0 }"),
    hint: "write '<=': the '=' comes second",
    fixed: wrap("  if chunk <= 1KiB { notify flag@0 }"),
  },
  "another language's type name for a parameter (`chunk: size`, `n: u32`)": {
    src: "schedule s(chunk: size = 1KiB) {\n}\n",
    hint: "a size is 'bytes'",
    fixed: "schedule s(chunk: bytes = 1KiB) {\n}\n",
  },
  "two loop variables without `,` between them (`for r in ranks p in ranks`)": {
    src: wrap("  for r in ranks p in ranks { notify flag@r }"),
    hint: "separate loop variables with ','",
    fixed: wrap("  for r in ranks, p in ranks { notify flag@r }"),
  },
  "a C-style loop (`for (i = 0; i < n; i++)`)": {
    src: wrap("  for (i = 0; i < ranks - 1; i++) { notify flag@i }"),
    hint: "for i in 0..n",
    fixed: wrap("  for i in 0..ranks - 1 { notify flag@i }"),
    cascade: true,
  },
  "a misspelt keyword (`cpy`, `fil`, `width` for `with`, `byte` for `bytes`)": {
    src: wrap("  notfy flag@0"),
    hint: "did you mean 'notify'?",
    fixed: wrap("  notify flag@0"),
  },
  "an assignment (`x = 1`) as a statement": {
    src: wrap("  i = 1"),
    hint: "with 'let'",
    fixed: wrap("  let i = 1"),
  },
  "a loop variable without `in` (`for r ranks`)": {
    src: wrap("  for r 0..4 { notify flag@r }"),
    hint: "takes its range after 'in'",
    fixed: wrap("  for r in 0..4 { notify flag@r }"),
  },
  "a loop range that is one number or name (`for i in n`)": {
    src: wrap("  for r in 4 { notify flag@r }"),
    hint: "e.g. 'for i in 0..n'",
    fixed: undefined,
  },
  "a block opened with `:` at the end of the line (Python style)": {
    src: wrap("  if chunk > 0:\n    notify flag@0"),
    hint: "a block is written in braces",
    fixed: undefined,
  },
  "a keyword used as a name": {
    src: wrap("  signal bytes"),
    hint: "'bytes' is a keyword and cannot be used as a name",
    fixed: undefined,
  },
};

function applyFix(src: string, d: Diagnostic): string {
  const f = d.fix!;
  return src.slice(0, f.span.start) + f.replacement + src.slice(f.span.end);
}

describe("the table of common syntax mistakes", () => {
  it("has a case for every row, and no case without a row", () => {
    expect(Object.keys(CASES).sort()).toEqual(PARSE_HINTS.map((r) => r.mistake).sort());
  });

  for (const [mistake, c] of Object.entries(CASES)) {
    it(mistake, () => {
      const diags = parse(c.src).diagnostics;
      if (c.cascade) expect(diags[0]!.code).toBe("DMAC1010");
      else expect(diags.map((d) => d.code)).toEqual(["DMAC1010"]);
      const d = diags[0]!;
      expect(d.hint).toContain(c.hint);
      if (c.fixed === undefined) {
        expect(d.fix).toBeUndefined();
        return;
      }
      expect(d.fix).toBeDefined();
      const fixed = applyFix(c.src, d);
      expect(fixed).toBe(c.fixed);
      expect(parse(fixed).diagnostics.map((x) => x.message)).toEqual([]);
    });
  }
});

describe("fixes that stand for the missing word", () => {
  it("writes '->' for 'to' and sdma(N) for sdmaN", () => {
    for (const [written, fixed] of [
      ["  copy buf@0 to buf@1", "  copy buf@0 -> buf@1"],
      ["  copy buf@0 -> buf@1 on sdma3", "  copy buf@0 -> buf@1 on sdma(3)"],
    ] as const) {
      const src = wrap(written);
      const [d, ...rest] = parse(src).diagnostics;
      expect(rest).toEqual([]);
      expect(applyFix(src, d!)).toBe(wrap(fixed));
    }
  });

  it("replaces a token written instead of 'in', and a one-letter typo of it", () => {
    for (const [written, fixed] of [
      ["  for r = 0..4 { notify flag@r }", "  for r in 0..4 { notify flag@r }"],
      ["  for r i ranks { notify flag@r }", "  for r in ranks { notify flag@r }"],
    ] as const) {
      const src = wrap(written);
      const [d, ...rest] = parse(src).diagnostics;
      expect(rest).toEqual([]);
      expect(parse(applyFix(src, d!)).diagnostics).toEqual([]);
      expect(applyFix(src, d!)).toBe(wrap(fixed));
    }
  });

  it("does not wrap what cannot be a rank in parentheses (a lost '[')", () => {
    const [d] = parse(wrap("  copy buf@0[0 +: 1] -> buf@r * chunk +: 1]")).diagnostics;
    expect(d!.fix).toBeUndefined();
  });
});

describe("'=' where a comparison belongs (an error production)", () => {
  for (const body of [
    "  for r in ranks where r = 0 { notify flag@r }",
    "  if chunk = 1KiB { notify flag@0 }",
    "  when flag@0 = 1 { notify flag@1 }",
    "  ensure buf@0[0 +: 1] = 0",
  ]) {
    it(body.trim(), () => {
      const src = wrap(body);
      const diags = parse(src).diagnostics;
      expect(diags.map((d) => [d.code, d.message])).toEqual([
        ["DMAC1010", "expected a comparison such as '==', found '='"],
      ]);
      const fixed = applyFix(src, diags[0]!);
      expect(parse(fixed).diagnostics).toEqual([]);
      // The program is what the fixed file says (the statement is kept, read as `==`).
      const noSpans = (v: unknown) =>
        JSON.stringify(v, (k, x: unknown) => (k === "span" ? undefined : x));
      expect(noSpans(parse(src).program)).toBe(noSpans(parse(fixed).program));
    });
  }
});

describe("'=>' and '=<' where '>=' and '<=' belong", () => {
  for (const [body, want] of [
    ["  when flag@0 => 1 { notify flag@1 }", "  when flag@0 >= 1 { notify flag@1 }"],
    ["  if chunk =< 1KiB { notify flag@0 }", "  if chunk <= 1KiB { notify flag@0 }"],
  ] as const) {
    it(`${body.trim()}: the preferred fix swaps the two characters, never '==>'`, () => {
      const src = wrap(body);
      const first = parse(src).diagnostics[0]!;
      expect(first.hint).toMatch(/the '=' comes second/);
      const fixed = applyFix(src, first);
      expect(fixed).toBe(wrap(want));
      expect(parse(fixed).diagnostics).toEqual([]);
    });
  }
});

describe("an unclosed block (DMAC1015)", () => {
  it("is reported at the '{' whose '}' is missing, matched by indentation", () => {
    const src = "schedule s() {\n  for r in ranks {\n    if r != 0 {\n  }\n}\n";
    const [d, ...rest] = parse(src).diagnostics;
    expect(rest).toEqual([]);
    expect([d!.code, d!.span?.start]).toEqual(["DMAC1015", src.indexOf("{\n  }")]);
    expect(d!.related.map((r) => [r.message, r.span.start])).toEqual([
      ["the file ends here, still inside the block", src.length],
    ]);
  });

  it("falls back to the innermost open '{' without indentation", () => {
    const src = "schedule s() {\nfor r in ranks {\n}";
    const [d] = parse(src).diagnostics;
    expect([d!.code, d!.span?.start]).toEqual(["DMAC1015", src.indexOf("{")]);
  });

  it("notes the next schedule as the place the parser gave up", () => {
    const src = "schedule a() {\n  buffer b: 1KiB\nschedule b() {\n}\n";
    const [d] = parse(src).diagnostics;
    expect(d!.code).toBe("DMAC1015");
    expect(d!.related[0]!.message).toContain("'schedule' cannot appear inside a block");
    expect(d!.related[0]!.span.start).toBe(src.indexOf("schedule b"));
  });
});
