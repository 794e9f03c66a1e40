// The token vocabulary of .dmac: one table of keywords, one of punctuation, and the literal and
// error tokens, all as chevrotain TokenTypes. ALL_TOKENS is the lexer's definition; its order is
// significant because chevrotain takes the FIRST pattern that matches, not the longest:
//   1. whitespace and comments (so that `//` and `/*` never lex as a slash);
//   2. error tokens that must win over a shorter valid prefix (`/*` without `*/`, `"` without `"`);
//   3. number-like tokens, most specific first: hex, bad hex, size literal, bad size, spaced bad
//      size, int;
//   4. string literal;
//   5. keywords, longest first (`int` before `in`, `bytes` before `by`), each with
//      longer_alt: Identifier so that `copy_count` is one identifier, not `copy` + `_count`;
//   6. Identifier;
//   7. punctuation, longest first (`<->` before `<=` before `<`, `->` before `-`, `+:` before `+`).
// Error tokens (group "errors") never reach the parser: the lexer turns them into diagnostics.
// `///` doc comments go to group "docs" so parse.ts can attach them to the next schedule.

import type { TokenType } from "chevrotain";
import { createToken, Lexer } from "./chevrotain.js";

/** Size units: the only spellings accepted after a number. Binary multiples on purpose. */
export const SIZE_UNITS = {
  B: 1,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
  TiB: 1024 ** 4,
} as const satisfies Record<string, number>;

export type SizeUnit = keyof typeof SIZE_UNITS;

/** Groups of tokens that the lexer keeps out of the parser's token vector. */
export const DOC_GROUP = "docs";
export const ERROR_GROUP = "errors";

// ---- trivia ------------------------------------------------------------------------------------

export const WhiteSpace = createToken({
  name: "WhiteSpace",
  pattern: /[ \t\r\n\f\v]+/,
  group: Lexer.SKIPPED,
});
/** `///` but not `////` (a line of slashes is decoration, not documentation). */
export const DocComment = createToken({
  name: "DocComment",
  pattern: /\/\/\/(?!\/)[^\n\r]*/,
  group: DOC_GROUP,
});
export const LineComment = createToken({
  name: "LineComment",
  pattern: /\/\/[^\n\r]*/,
  group: Lexer.SKIPPED,
});
/** Block comments do not nest: the first `*\/` ends the comment. */
export const BlockComment = createToken({
  name: "BlockComment",
  pattern: /\/\*[\s\S]*?\*\//,
  group: Lexer.SKIPPED,
});

// ---- error tokens (group "errors"; reported by lexer.ts, never parsed) -------------------------

/** `/*` with no `*\/` before the end of the file: matches only when BlockComment did not. */
export const UnterminatedBlockComment = createToken({
  name: "UnterminatedBlockComment",
  pattern: /\/\*[\s\S]*/,
  group: ERROR_GROUP,
});
/** A string that reaches the end of its line: matches only when StringLiteral did not. */
export const UnterminatedString = createToken({
  name: "UnterminatedString",
  pattern: /"(?:[^"\\\n\r]|\\[^\n\r])*\\?/,
  group: ERROR_GROUP,
});
/** Digits immediately followed by letters that are not a unit: `4KB`, `16mb`, `3kib`. */
export const BadSizeLiteral = createToken({
  name: "BadSizeLiteral",
  pattern: /[0-9][0-9_]*[A-Za-z][A-Za-z0-9_]*/,
  // Kept in the token stream (not ERROR_GROUP): the parser accepts it as a literal, so a bad unit
  // is reported once (DMAC1003 by the lexer) instead of also as a syntax error.
});

const SPACED_UNIT = /[0-9][0-9_]*[ \t]+([A-Za-z]+)(?![A-Za-z0-9_])/y;
const UNIT_LIKE = /^[kmgtp]i?b$/i;
/**
 * A number, blanks, then a word that looks like a (wrong) size unit: `4 KB`, `3 kib`. Such input
 * is never valid (no construct puts a name right after a number), so it is safe to claim it here
 * and give the unit hint instead of a generic syntax error. Correct units written with a space
 * (`4 KiB`) are left to the parser, which adds a "remove the space" hint.
 */
export const SpacedBadSizeLiteral = createToken({
  name: "SpacedBadSizeLiteral",
  pattern: {
    exec(text: string, offset: number): RegExpExecArray | null {
      SPACED_UNIT.lastIndex = offset;
      const m = SPACED_UNIT.exec(text);
      if (m === null) return null;
      const unit = m[1] ?? "";
      return UNIT_LIKE.test(unit) && !Object.hasOwn(SIZE_UNITS, unit) ? m : null;
    },
  },
  start_chars_hint: ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"],
  line_breaks: false,
  // In the token stream, like BadSizeLiteral.
});

// ---- literals ------------------------------------------------------------------------------------

export const HexLiteral = createToken({
  name: "HexLiteral",
  pattern: /0[xX][0-9A-Fa-f][0-9A-Fa-f_]*(?![A-Za-z0-9_])/,
  label: "an integer",
});
/**
 * `0x` followed by anything but a well-formed hex number: `0x`, `0xG`, `0x_1`, `0x10KiB`. Matches
 * only where HexLiteral did not; reported as DMAC1005 by the lexer and, like BadSizeLiteral, kept
 * in the token stream so the parser takes it as a literal instead of adding a syntax error.
 */
export const BadHexLiteral = createToken({
  name: "BadHexLiteral",
  pattern: /0[xX][A-Za-z0-9_]*/,
});
export const SizeLiteral = createToken({
  name: "SizeLiteral",
  pattern: /[0-9][0-9_]*(?:TiB|GiB|MiB|KiB|B)(?![A-Za-z0-9_])/,
  label: "a size",
});
export const IntLiteral = createToken({
  name: "IntLiteral",
  pattern: /[0-9][0-9_]*/,
  label: "an integer",
});
export const StringLiteral = createToken({
  name: "StringLiteral",
  pattern: /"(?:[^"\\\n\r]|\\[^\n\r])*"/,
  label: "a string",
});
export const Identifier = createToken({
  name: "Identifier",
  pattern: /[A-Za-z_][A-Za-z0-9_]*/,
  label: "a name",
});

// ---- keywords ------------------------------------------------------------------------------------

/** Every reserved word (LANG decisions). Keys are the TokenType names used by the parser. */
const KEYWORD_TEXTS = [
  "target",
  "schedule",
  "implements",
  "ensure",
  "const",
  "let",
  "if",
  "else",
  "for",
  "in",
  "step",
  "where",
  "ranks",
  "buffer",
  "signal",
  "thermometer",
  "on",
  "by",
  "copy",
  "swap",
  "fill",
  "with",
  "sdma",
  "when",
  "notify",
  "true",
  "false",
  "int",
  "bytes",
  "bool",
  "min",
  "max",
  "host",
] as const;

export type KeywordText = (typeof KEYWORD_TEXTS)[number];

function keywordToken(text: string): TokenType {
  return createToken({
    name: `Kw_${text}`,
    pattern: text,
    longer_alt: Identifier,
    label: `'${text}'`,
  });
}

/** Keyword text -> TokenType. */
export const KEYWORDS: Readonly<Record<KeywordText, TokenType>> = Object.fromEntries(
  KEYWORD_TEXTS.map((t) => [t, keywordToken(t)]),
) as Record<KeywordText, TokenType>;

// ---- punctuation -------------------------------------------------------------------------------

/** Abstract categories: the grammar says "a comparison operator" or "a binary operator" once. */
export const CompareOp = createToken({
  name: "CompareOp",
  pattern: Lexer.NA,
  label: "a comparison operator",
});
export const BinaryOp = createToken({
  name: "BinaryOp",
  pattern: Lexer.NA,
  label: "a binary operator",
});

function punct(name: string, text: string, categories: TokenType[] = []): TokenType {
  return createToken({ name, pattern: text, label: `'${text}'`, categories });
}

/** Punctuation text -> TokenType. */
export const PUNCTUATION = {
  "<->": punct("SwapArrow", "<->"),
  "->": punct("Arrow", "->"),
  "+:": punct("PlusColon", "+:"),
  "..": punct("DotDot", ".."),
  "==": punct("EqEq", "==", [CompareOp, BinaryOp]),
  "!=": punct("NotEq", "!=", [CompareOp, BinaryOp]),
  "<=": punct("LtEq", "<=", [CompareOp, BinaryOp]),
  ">=": punct("GtEq", ">=", [CompareOp, BinaryOp]),
  "<": punct("Lt", "<", [CompareOp, BinaryOp]),
  ">": punct("Gt", ">", [CompareOp, BinaryOp]),
  "&&": punct("AndAnd", "&&", [BinaryOp]),
  "||": punct("OrOr", "||", [BinaryOp]),
  "=": punct("Eq", "="),
  "+": punct("Plus", "+", [BinaryOp]),
  "-": punct("Minus", "-", [BinaryOp]),
  "*": punct("Star", "*", [BinaryOp]),
  "/": punct("Slash", "/", [BinaryOp]),
  "%": punct("Percent", "%", [BinaryOp]),
  "!": punct("Bang", "!"),
  "@": punct("At", "@"),
  ":": punct("Colon", ":"),
  ",": punct("Comma", ","),
  ";": punct("Semicolon", ";"),
  "(": punct("LParen", "("),
  ")": punct("RParen", ")"),
  "{": punct("LBrace", "{"),
  "}": punct("RBrace", "}"),
  "[": punct("LBracket", "["),
  "]": punct("RBracket", "]"),
} as const satisfies Record<string, TokenType>;

export type PunctuationText = keyof typeof PUNCTUATION;

/** Short aliases for the parser (reads like the grammar). */
export const T = {
  ...PUNCTUATION,
  Identifier,
  IntLiteral,
  HexLiteral,
  SizeLiteral,
  StringLiteral,
  CompareOp,
  BinaryOp,
} as const;

const byLengthDesc = (a: string, b: string): number => b.length - a.length;

/** The lexer definition, in the order explained in the header comment. */
export const ALL_TOKENS: readonly TokenType[] = [
  WhiteSpace,
  DocComment,
  LineComment,
  BlockComment,
  UnterminatedBlockComment,
  StringLiteral,
  UnterminatedString,
  HexLiteral,
  BadHexLiteral,
  SizeLiteral,
  BadSizeLiteral,
  SpacedBadSizeLiteral,
  IntLiteral,
  ...[...KEYWORD_TEXTS].sort(byLengthDesc).map((t) => KEYWORDS[t]),
  Identifier,
  // Categories are not matched themselves, but chevrotain must know them.
  CompareOp,
  BinaryOp,
  ...Object.keys(PUNCTUATION)
    .sort(byLengthDesc)
    .map((t) => PUNCTUATION[t as PunctuationText]),
];
