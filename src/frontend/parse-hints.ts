// The common mistakes behind syntax errors, one row each: given where the parser stopped (the
// offending token, what it expected, the rules it was in), a row recognises a mistake a new user
// makes (`cpy` for `copy`, `for r in rank`, `buf@r+1[`, `=>` for `->`, `[0:n]`, ...) and says
// how to write it, with a machine-applicable fix where the fix is certain enough (applying it
// gives a file that parses: test/unit/frontend/parse-hints.test.ts). The first row that matches
// wins, so specific rows come before the general keyword-typo row. syntax-errors.ts turns the
// result into the DMAC1010 diagnostic. (`=` for `==` is not here: the grammar accepts it as an
// error production and cst-to-ast.ts reports it, so recovery loses nothing.)

import type { IToken, TokenType } from "chevrotain";
import type { Fix } from "../diagnostics/diagnostic.js";
import type { SourceFile, Span } from "../source/source-file.js";
import { closestName } from "../diagnostics/suggest.js";
import {
  HexLiteral,
  Identifier,
  IntLiteral,
  KEYWORDS,
  PUNCTUATION as P,
  SIZE_UNITS,
  SizeLiteral,
} from "./tokens.js";

/** Where the parser stopped. */
export interface SyntaxErrorSite {
  readonly file: SourceFile;
  readonly tokens: readonly IToken[];
  /** Index of the offending token in `tokens` (`tokens.length` at the end of the file). */
  readonly index: number;
  /** What the parser expected, in words: "'->'", "a statement or '}'". */
  readonly expected: string;
  /** The grammar rules being parsed, outermost first (chevrotain's rule stack). */
  readonly rules: readonly string[];
}

export interface ParseHint {
  readonly hint: string;
  readonly fix?: Fix | undefined;
  /** Where to point instead of the offending token (the typo may come before it). */
  readonly span?: Span | undefined;
  /** What to say was expected at `span`, when it differs from the parser's view of the token. */
  readonly expected?: string | undefined;
}

interface HintRow {
  /** The mistake, in a few words (documentation and tests). */
  readonly mistake: string;
  readonly match: (s: SyntaxErrorSite) => ParseHint | undefined;
}

/** The keywords that start a statement, and those that start a file-level item. */
const STATEMENT_KEYWORDS = [
  "copy",
  "swap",
  "fill",
  "for",
  "if",
  "let",
  "const",
  "buffer",
  "signal",
  "when",
  "notify",
  "ensure",
] as const;
const ITEM_KEYWORDS = ["schedule", "target", "const"] as const;
const KEYWORD_BY_TYPE: ReadonlyMap<TokenType, string> = new Map(
  Object.entries(KEYWORDS).map(([text, type]) => [type, text]),
);
/** Tokens an arithmetic rank expression is made of (for `buf@r+1[`). */
const OPERAND: ReadonlySet<TokenType> = new Set([
  Identifier,
  KEYWORDS.ranks,
  IntLiteral,
  HexLiteral,
  SizeLiteral,
]);
const ARITHMETIC: ReadonlySet<TokenType> = new Set(
  (["+", "-", "*", "/", "%"] as const).map((p) => P[p]),
);

/** Tokens that may follow a region or a signal reference. */
const REGION_FOLLOW: ReadonlySet<TokenType> = new Set([
  P["["],
  P["->"],
  P["<->"],
  P[","],
  P["=="],
  P["="],
  P["}"],
  P[";"],
  KEYWORDS.with,
  KEYWORDS.on,
  KEYWORDS.by,
]);
/** Tokens an expression may start with. */
const EXPRESSION_START: ReadonlySet<TokenType> = new Set([
  ...OPERAND,
  KEYWORDS.true,
  KEYWORDS.false,
  KEYWORDS.min,
  KEYWORDS.max,
  P["("],
  P["-"],
  P["!"],
]);

// ---- helpers -------------------------------------------------------------------------------

const at = (s: SyntaxErrorSite, k = 0): IToken | undefined => s.tokens[s.index + k];
const spanOf = (t: IToken): Span => ({ start: t.startOffset, end: t.startOffset + t.image.length });
const isType = (t: IToken | undefined, type: TokenType): boolean => t?.tokenType === type;
/** `a` ends exactly where `b` starts (`=>` lexed as `=` `>`). */
const adjacent = (a: IToken, b: IToken | undefined): boolean =>
  b !== undefined && a.startOffset + a.image.length === b.startOffset;
/** `t` is the last token on its line (`next` is on a later line, or there is none). */
const endsLine = (file: SourceFile, t: IToken, next: IToken | undefined): boolean =>
  next === undefined || /[\r\n]/.test(file.text.slice(t.startOffset, next.startOffset));
const expects = (s: SyntaxErrorSite, label: string): boolean => s.expected.includes(label);
const replace = (span: Span, replacement: string): Fix => ({ span, replacement });

/** The keywords quoted in the expected text, plus the statement keywords where one may start. */
function expectedKeywords(s: SyntaxErrorSite): string[] {
  const quoted = [...s.expected.matchAll(/'([a-z]+)'/g)].map((m) => m[1]!);
  const words = quoted.filter((w) => Object.hasOwn(KEYWORDS, w));
  if (s.expected.includes("a statement")) words.push(...STATEMENT_KEYWORDS);
  if (s.expected.includes("'schedule'")) words.push(...ITEM_KEYWORDS);
  return [...new Set(words)];
}

/** Index of the first token after the `in` of the loop variable being parsed, if any. */
function loopRangeStart(s: SyntaxErrorSite): number | undefined {
  for (let i = s.index - 1; i >= 0; i--) {
    const type = s.tokens[i]!.tokenType;
    if (type === KEYWORDS.in) return i + 1;
    if (type === KEYWORDS.for || type === P["{"] || type === P["}"]) return undefined;
  }
  return undefined;
}

/** Index of the first token of the primary ending at `last`: the `(` of a `)`, or `last`. */
function rankStart(tokens: readonly IToken[], last: number): number {
  const t = tokens[last];
  if (t === undefined) return -1;
  if (OPERAND.has(t.tokenType)) return last;
  if (t.tokenType !== P[")"]) return -1;
  let depth = 0;
  for (let i = last; i >= 0; i--) {
    const type = tokens[i]!.tokenType;
    if (type === P[")"]) depth++;
    else if (type === P["("] && --depth === 0) return i;
  }
  return -1;
}

/** The last token of an arithmetic expression starting at `from` (brackets balanced), or -1. */
function arithmeticEnd(tokens: readonly IToken[], from: number): number {
  let depth = 0;
  let last = -1;
  let wantOperand = true;
  for (let i = from; i < tokens.length; i++) {
    const type = tokens[i]!.tokenType;
    if (type === P["("]) depth++;
    else if (type === P[")"]) {
      if (depth === 0) break;
      depth--;
    } else if (OPERAND.has(type) && wantOperand) wantOperand = false;
    else if (ARITHMETIC.has(type) && !wantOperand) wantOperand = true;
    else break;
    if (depth === 0 && !wantOperand) last = i;
  }
  return last;
}

// ---- the table -----------------------------------------------------------------------------

/**
 * `(i = A; i < B; i++)` from the offending `(`: the variable, A and B as written, and the span to
 * replace. Anything else (another step, `<=`, two variables) is not rewritten.
 */
function cStyleLoop(
  s: SyntaxErrorSite,
): { span: Span; name: string; from: string; to: string } | undefined {
  const semis: number[] = [];
  let close = -1;
  for (let i = s.index + 1, depth = 0; i < s.tokens.length && close < 0; i++) {
    const t = s.tokens[i]!;
    if (isType(t, P["("])) depth++;
    else if (isType(t, P[")"]) && depth-- === 0) close = i;
    else if (isType(t, P[";"]) && depth === 0) semis.push(i);
  }
  if (close < 0 || semis.length !== 2) return undefined;
  const [a, b] = semis as [number, number];
  const v = at(s, 1);
  const name = v?.image;
  const tok = (i: number) => s.tokens[i];
  const is = (i: number, type: TokenType, image?: string) =>
    isType(tok(i), type) && (image === undefined || tok(i)!.image === image);
  const text = (from: number, to: number) =>
    s.file.text.slice(tok(from)!.startOffset, spanOf(tok(to - 1)!).end).trim();
  const ok =
    is(s.index + 1, Identifier) &&
    is(s.index + 2, P["="]) &&
    a > s.index + 3 &&
    is(a + 1, Identifier, name) &&
    is(a + 2, P["<"]) &&
    b > a + 3 &&
    is(b + 1, Identifier, name) &&
    is(b + 2, P["+"]) &&
    is(b + 3, P["+"]) &&
    close === b + 4;
  if (!ok || name === undefined) return undefined;
  const span = { start: at(s)!.startOffset, end: spanOf(tok(close)!).end };
  return { span, name, from: text(s.index + 3, a), to: text(a + 3, b) };
}

/** Type names from other languages, by the dmac type they mean (lower case). */
const TYPE_ALIASES: Readonly<Record<string, "int" | "bytes" | "bool">> = {
  size: "bytes",
  size_t: "bytes",
  usize: "bytes",
  byte: "bytes",
  integer: "int",
  i32: "int",
  i64: "int",
  u32: "int",
  u64: "int",
  uint: "int",
  number: "int",
  boolean: "bool",
};

/**
 * `=>` for `->`, `<=>` for `<->`, copy and swap arrows mixed up, `to` for `->`. What was written
 * is a run of adjacent tokens; a string stands for a name (an Identifier with that text).
 */
const ARROWS: readonly {
  readonly written: readonly (TokenType | string)[];
  readonly expected: string;
  readonly write: string;
}[] = [
  { written: [P["="], P[">"]], expected: "'->'", write: "->" },
  { written: ["to"], expected: "'->'", write: "->" },
  { written: [P["<->"]], expected: "'->'", write: "->" },
  { written: [P["<="], P[">"]], expected: "'<->'", write: "<->" },
  { written: [P["->"]], expected: "'<->'", write: "<->" },
];

export const PARSE_HINTS: readonly HintRow[] = [
  {
    mistake: "a size unit written apart from its number (`4 KiB`)",
    match: (s) => {
      const t = at(s);
      const n = at(s, -1);
      if (!isType(t, Identifier) || !Object.hasOwn(SIZE_UNITS, t!.image) || n === undefined)
        return undefined;
      if (!isType(n, IntLiteral)) return undefined;
      const gap = s.file.text.slice(n.startOffset + n.image.length, t!.startOffset);
      if (!/^[ \t]+$/.test(gap)) return undefined;
      return {
        hint: `write ${n.image}${t!.image} without a space`,
        fix: replace({ start: n.startOffset, end: spanOf(t!).end }, `${n.image}${t!.image}`),
      };
    },
  },
  {
    mistake: "`let` at file level",
    match: (s) => {
      const t = at(s);
      if (!isType(t, KEYWORDS.let) || !expects(s, "'schedule'")) return undefined;
      return {
        hint: "'let' is only allowed inside a schedule; use 'const' at file level",
        fix: replace(spanOf(t!), "const"),
      };
    },
  },
  {
    mistake: "the wrong arrow: `=>`, `to` or `<->` in a copy, `<=>` or `->` in a swap",
    match: (s) => {
      const t = at(s);
      if (t === undefined) return undefined;
      for (const row of ARROWS) {
        if (!expects(s, row.expected)) continue;
        const run = row.written.map((_, k) => at(s, k));
        const matches = run.every((x, k) => {
          const w = row.written[k]!;
          const same =
            typeof w === "string" ? isType(x, Identifier) && x!.image === w : isType(x, w);
          return same && (k === 0 || adjacent(run[k - 1]!, x));
        });
        if (!matches) continue;
        const last = run[run.length - 1]!;
        const what = row.write === "->" ? "a copy" : "a swap";
        return {
          hint: `${what} is written with '${row.write}'`,
          fix: replace({ start: t.startOffset, end: spanOf(last).end }, row.write),
        };
      }
      return undefined;
    },
  },
  {
    mistake: "an expression after `@` without parentheses (`buf@r+1[...]`)",
    match: (s) => {
      const t = at(s);
      if (t === undefined || !ARITHMETIC.has(t.tokenType)) return undefined;
      // The rank the parser took: one operand, or a parenthesised group (`buf@(r+1) % n`).
      const first = rankStart(s.tokens, s.index - 1);
      const atSign = s.tokens[first - 1];
      const name = s.tokens[first - 2];
      const rank = s.tokens[first];
      if (rank === undefined || !isType(atSign, P["@"]) || !isType(name, Identifier))
        return undefined;
      const end = arithmeticEnd(s.tokens, first);
      if (end < s.index) return undefined;
      // Only where a region or signal can end after it: `buf@r+1[`, `buf@r+1 ->`, or the end of
      // the line. `buf@r * chunk +: n]` lost its `[`; parentheses would not help.
      const after = s.tokens[end + 1];
      if (
        after !== undefined &&
        !REGION_FOLLOW.has(after.tokenType) &&
        !endsLine(s.file, s.tokens[end]!, after)
      )
        return undefined;
      const span = { start: rank.startOffset, end: spanOf(s.tokens[end]!).end };
      const text = s.file.text.slice(span.start, span.end);
      return {
        hint: `write ${name!.image}@(${text})`,
        fix: replace(span, `(${text})`),
        span,
        expected: "one name or number after '@', or an expression in parentheses",
      };
    },
  },
  {
    mistake: "`sdma 2` or `sdma2` for `sdma(2)`",
    match: (s) => {
      const t = at(s);
      const glued = isType(t, Identifier) ? /^sdma([0-9]+)$/.exec(t!.image) : null;
      if (glued !== null && expects(s, "'sdma'")) {
        return {
          hint: `the engine number goes in parentheses: sdma(${glued[1]})`,
          fix: replace(spanOf(t!), `sdma(${glued[1]})`),
        };
      }
      if (!isType(at(s, -1), KEYWORDS.sdma) || t === undefined || !OPERAND.has(t.tokenType))
        return undefined;
      const sdma = spanOf(at(s, -1)!);
      return {
        hint: `the engine number goes in parentheses: sdma(${t.image})`,
        fix: replace({ start: sdma.end, end: spanOf(t).end }, `(${t.image})`),
      };
    },
  },
  {
    mistake: "a near-miss of `ranks` as a loop range (`for r in rank`)",
    match: (s) => {
      if (s.rules[s.rules.length - 1] !== "loopRange" || !expects(s, "'..'")) return undefined;
      const from = loopRangeStart(s);
      if (from === undefined || from !== s.index - 1) return undefined;
      const word = s.tokens[from]!;
      if (!isType(word, Identifier) || closestName(word.image, ["ranks"]) === undefined)
        return undefined;
      return {
        hint: "did you mean 'ranks'?",
        fix: replace(spanOf(word), "ranks"),
        span: spanOf(word),
        expected: "'ranks' or a range 'A..B'",
      };
    },
  },
  {
    mistake: "`:` for `..` in a range or region (`[0:n]`, `for i in 0:n`)",
    match: (s) => {
      const t = at(s);
      if (!isType(t, P[":"]) || !expects(s, "'..'")) return undefined;
      const form = expects(s, "'+:'")
        ? "a region is [start..end] or [start +: length]"
        : "a range is written A..B (B excluded)";
      return { hint: form, fix: replace(spanOf(t!), "..") };
    },
  },
  {
    mistake: "an assignment (`x = 1`) as a statement",
    match: (s) => {
      const t = at(s);
      if (!isType(t, Identifier) || !isType(at(s, 1), P["="])) return undefined;
      if (!s.expected.includes("a statement")) return undefined;
      return {
        hint: "a name is given its value once, with 'let': values never change",
        fix: { span: { start: t!.startOffset, end: t!.startOffset }, replacement: "let " },
      };
    },
  },
  {
    mistake: "`=>` or `=<` for `>=` or `<=` in a comparison",
    match: (s) => {
      const t = at(s);
      const eq = at(s, -1);
      if (!(isType(t, P[">"]) || isType(t, P["<"])) || !isType(eq, P["="]) || !adjacent(eq!, t))
        return undefined;
      const swapped = `${t!.image}=`;
      return {
        hint: `write '${swapped}': the '=' comes second`,
        fix: replace({ start: eq!.startOffset, end: spanOf(t!).end }, swapped),
        span: { start: eq!.startOffset, end: spanOf(t!).end },
      };
    },
  },
  {
    mistake: "another language's type name for a parameter (`chunk: size`, `n: u32`)",
    match: (s) => {
      const t = at(s);
      if (s.rules[s.rules.length - 1] !== "typeName" || !isType(t, Identifier)) return undefined;
      const meant = TYPE_ALIASES[t!.image.toLowerCase()];
      if (meant === undefined) return undefined;
      return {
        hint: `a parameter's type is 'int', 'bytes' or 'bool': a ${meant === "bytes" ? "size" : "value like this"} is '${meant}'`,
        fix: replace(spanOf(t!), meant),
      };
    },
  },
  {
    mistake: "two loop variables without `,` between them (`for r in ranks p in ranks`)",
    match: (s) => {
      if (!s.rules.includes("forStmt")) return undefined;
      // The parser stops at the end of the first range (`ranks`) or at the second name.
      const k = [0, 1].find(
        (j) => isType(at(s, j), Identifier) && isType(at(s, j + 1), KEYWORDS.in),
      );
      const before = k === undefined ? undefined : at(s, k - 1);
      if (k === undefined || before === undefined) return undefined;
      const end = spanOf(before).end;
      return {
        hint: "separate loop variables with ',': for r in ranks, p in ranks",
        fix: replace({ start: end, end }, ","),
      };
    },
  },
  {
    mistake: "a C-style loop (`for (i = 0; i < n; i++)`)",
    match: (s) => {
      if (s.rules[s.rules.length - 1] !== "loopVar" || !isType(at(s), P["("])) return undefined;
      const hint = "a loop is written 'for i in 0..n { ... }' (n excluded) or 'for r in ranks'";
      const c = cStyleLoop(s);
      return c ? { hint, fix: replace(c.span, `${c.name} in ${c.from}..${c.to}`) } : { hint };
    },
  },
  {
    mistake: "a misspelt keyword (`cpy`, `fil`, `width` for `with`, `byte` for `bytes`)",
    match: (s) => {
      const t = at(s);
      if (!isType(t, Identifier) && !KEYWORD_BY_TYPE.has(t?.tokenType as TokenType))
        return undefined;
      // One letter where a statement starts is a name, not a typo (`i` is not `if`).
      if (t!.image.length < 2 && s.expected.includes("a statement")) return undefined;
      const best = closestName(t!.image, expectedKeywords(s));
      if (best === undefined) return undefined;
      return { hint: `did you mean '${best}'?`, fix: replace(spanOf(t!), best) };
    },
  },
  {
    mistake: "a loop variable without `in` (`for r ranks`)",
    match: (s) => {
      const t = at(s);
      if (s.rules[s.rules.length - 1] !== "loopVar" || !expects(s, "'in'") || t === undefined)
        return undefined;
      const hint = "a loop variable takes its range after 'in': for r in ranks";
      // `for r ranks`: insert. `for r = ranks`, `for r : ranks`: the token stands for `in`.
      if (EXPRESSION_START.has(t.tokenType))
        return {
          hint,
          fix: { span: { start: t.startOffset, end: t.startOffset }, replacement: "in " },
        };
      return { hint, fix: replace(spanOf(t), "in") };
    },
  },
  {
    mistake: "a loop range that is one number or name (`for i in n`)",
    match: (s) => {
      if (s.rules[s.rules.length - 1] !== "loopRange" || !expects(s, "'..'")) return undefined;
      return {
        hint: "a loop range is 'ranks' or 'A..B' (B excluded), e.g. 'for i in 0..n'",
      };
    },
  },
  {
    mistake: "a block opened with `:` at the end of the line (Python style)",
    match: (s) => {
      // The `:` itself, or the token after a loop range that `:` made ambiguous (`in ranks:`).
      const k = isType(at(s), P[":"]) ? 0 : isType(at(s, 1), P[":"]) ? 1 : -1;
      const colon = at(s, k);
      if (k < 0 || colon === undefined || !endsLine(s.file, colon, at(s, k + 1))) return undefined;
      if (k === 0 && !expects(s, "'{'") && !expects(s, "'..'")) return undefined;
      return {
        hint: "a block is written in braces, `{ ... }`, not after a `:`",
        span: spanOf(colon),
        expected: "'{'",
      };
    },
  },
  {
    mistake: "a keyword used as a name",
    match: (s) => {
      const t = at(s);
      if (t === undefined || !KEYWORD_BY_TYPE.has(t.tokenType)) return undefined;
      if (!/a name|a region|a signal/.test(s.expected)) return undefined;
      return { hint: `'${t.image}' is a keyword and cannot be used as a name` };
    },
  },
];

/** The hint of the first row that recognises the mistake, or undefined. */
export function parseHint(site: SyntaxErrorSite): ParseHint | undefined {
  for (const row of PARSE_HINTS) {
    const h = row.match(site);
    if (h !== undefined) return h;
  }
  return undefined;
}
