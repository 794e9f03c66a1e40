// lex(file): the token vector for the parser, the `///` doc comments (stripped, with spans), and
// lexical diagnostics. Never throws for any input. Error tokens (see tokens.ts) and chevrotain's
// own "no token matches here" errors become coded diagnostics; number literals are range-checked
// here so that the parser and cst-to-ast can assume every literal is a safe integer.

import type { IToken } from "chevrotain";
import { Lexer } from "./chevrotain.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { SourceFile, Span } from "../source/source-file.js";
import {
  ALL_TOKENS,
  BadHexLiteral,
  BadSizeLiteral,
  DOC_GROUP,
  ERROR_GROUP,
  HexLiteral,
  IntLiteral,
  SIZE_UNITS,
  SizeLiteral,
  SpacedBadSizeLiteral,
  UnterminatedBlockComment,
  UnterminatedString,
  type SizeUnit,
} from "./tokens.js";

export interface DocComment {
  /** The line without `///` and at most one following space. */
  readonly text: string;
  readonly span: Span;
}

export interface LexResult {
  readonly tokens: IToken[];
  readonly docComments: readonly DocComment[];
  readonly diagnostics: Diagnostic[];
}

/** A lexer for the token table. `validate` runs chevrotain's checks of the token patterns: they
 * only find mistakes in tokens.ts and cost ~15 ms of every `dmac` start, so the process-wide
 * lexer skips them and a test (test/unit/perf/startup.test.ts) builds a validating one. */
export function buildLexer(validate: boolean): InstanceType<typeof Lexer> {
  return new Lexer(ALL_TOKENS as import("chevrotain").TokenType[], {
    positionTracking: "onlyOffset",
    ensureOptimizations: true,
    skipValidations: !validate,
  });
}

// One lexer for the process, built on first use: building it optimises the token table (~4 ms),
// which commands that read no source (`dmac sim DIR` on its main thread) need not pay.
let lexer: InstanceType<typeof Lexer> | undefined;

export function lex(file: SourceFile): LexResult {
  const result = (lexer ??= buildLexer(false)).tokenize(file.text);
  const diagnostics: Diagnostic[] = [];
  const at = (start: number, end: number) => ({ file, span: { start, end } });

  for (const e of result.errors) {
    // chevrotain reports one error per run of characters that no token matches.
    const text = file.text.slice(e.offset, e.offset + e.length);
    diagnostics.push(diag("DMAC1001", at(e.offset, e.offset + e.length), [describeChars(text)]));
  }

  for (const t of result.groups[ERROR_GROUP] ?? []) {
    const start = t.startOffset;
    const end = start + t.image.length;
    if (t.tokenType === UnterminatedBlockComment) {
      diagnostics.push(
        diag("DMAC1002", at(start, end), [], { hint: "add '*/' where the comment should end" }),
      );
    } else if (t.tokenType === UnterminatedString) {
      diagnostics.push(
        diag("DMAC1011", at(start, end), [], {
          hint: "close the string with '\"' on the same line",
        }),
      );
    }
  }

  for (const t of result.tokens) {
    if (t.tokenType === BadSizeLiteral || t.tokenType === SpacedBadSizeLiteral) {
      const m = /^([0-9][0-9_]*)[ \t]*(.*)$/.exec(t.image);
      const digits = m?.[1] ?? t.image;
      const unit = m?.[2] ?? "";
      const span = { start: t.startOffset, end: t.startOffset + t.image.length };
      diagnostics.push(
        diag("DMAC1003", { file, span }, [unit], { hint: sizeUnitHint(digits, unit) }),
      );
    }
    if (t.tokenType === BadHexLiteral) {
      const span = { start: t.startOffset, end: t.startOffset + t.image.length };
      const { detail, hint } = badHexProblem(t.image);
      diagnostics.push(diag("DMAC1005", { file, span }, [t.image, detail], { hint }));
    }
    if (t.tokenType === IntLiteral || t.tokenType === HexLiteral || t.tokenType === SizeLiteral) {
      if (literalValue(t.image) === undefined) {
        const span = { start: t.startOffset, end: t.startOffset + t.image.length };
        diagnostics.push(diag("DMAC1004", { file, span }, [t.image]));
      }
    }
  }

  const docComments = (result.groups[DOC_GROUP] ?? []).map((t) => ({
    text: t.image.slice(3).replace(/^ /, "").replace(/\r$/, ""),
    span: { start: t.startOffset, end: t.startOffset + t.image.length },
  }));

  return { tokens: result.tokens, docComments, diagnostics };
}

/**
 * The value of an int, hex or size literal, or undefined when it exceeds 2^53 - 1. BigInt keeps
 * the check exact for literals of any length.
 */
export function literalValue(image: string): number | undefined {
  const clean = image.includes("_") ? image.replace(/_/g, "") : image;
  // Fast path: up to 15 decimal digits is always exact and far below 2^53 (hot in big files).
  if (clean.length <= 15 && /^[0-9]+$/.test(clean)) return Number(clean);
  let n: bigint;
  const unitMatch = /^([0-9]+)(TiB|GiB|MiB|KiB|B)$/.exec(clean);
  if (unitMatch !== null) {
    const unit = unitMatch[2] as SizeUnit;
    n = BigInt(unitMatch[1] ?? "0") * BigInt(SIZE_UNITS[unit]);
  } else {
    n = BigInt(clean); // handles 0x too
  }
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? undefined : Number(n);
}

const UNIT_BY_PREFIX: Readonly<Record<string, SizeUnit>> = {
  k: "KiB",
  m: "MiB",
  g: "GiB",
  t: "TiB",
};
const DECIMAL: Readonly<Record<string, bigint>> = {
  k: 10n ** 3n,
  m: 10n ** 6n,
  g: 10n ** 9n,
  t: 10n ** 12n,
};

/** "write 4KiB (4096 bytes), or 4000B if you meant 4000" for `4KB`; generic text otherwise. */
export function sizeUnitHint(digits: string, unit: string): string {
  const n = digits.replace(/_/g, "");
  const m = /^([kmgt])(i?)b$/i.exec(unit);
  if (m !== null) {
    const prefix = (m[1] ?? "").toLowerCase();
    const binary = UNIT_BY_PREFIX[prefix];
    const decimal = DECIMAL[prefix];
    if (binary !== undefined && decimal !== undefined) {
      const bytes = BigInt(n) * BigInt(SIZE_UNITS[binary]);
      const dec = BigInt(n) * decimal;
      if (m[2] !== "") return `write ${n}${binary} (${bytes} bytes); units are case-sensitive`;
      return `write ${n}${binary} (${bytes} bytes), or ${dec}B if you meant ${dec}`;
    }
  }
  if (/^b$/i.test(unit)) return `write ${n}B for ${n} bytes`;
  return "size literals use the units B, KiB, MiB, GiB and TiB, written right after the number";
}

/** What is wrong with `0x...` that HexLiteral did not match, and how to write it. */
export function badHexProblem(image: string): { detail: string; hint: string } {
  const prefix = image.slice(0, 2);
  const rest = image.slice(2);
  if (rest === "")
    return { detail: `no digits after '${prefix}'`, hint: "write hex digits after 0x, e.g. 0xff" };
  if (rest.startsWith("_")) {
    const digits = rest.replace(/^_+/, "");
    return {
      detail: `'_' cannot come before the first digit`,
      hint: /^[0-9A-Fa-f][0-9A-Fa-f_]*$/.test(digits)
        ? `write ${prefix}${digits}`
        : "underscores only separate digits, as in 0xffff_0000",
    };
  }
  const m = /^([0-9A-Fa-f][0-9A-Fa-f_]*?)(KiB|MiB|GiB|TiB)$/.exec(rest);
  if (m !== null) {
    const digits = m[1]!.replace(/_/g, "");
    const unit = m[2] as SizeUnit;
    return {
      detail: `a hex number takes no size unit ('${unit}')`,
      hint: `write ${BigInt(`0x${digits}`)}${unit}, or ${prefix}${m[1]} * 1${unit}`,
    };
  }
  const bad = /[^0-9A-Fa-f_]/.exec(rest)?.[0] ?? rest[0]!;
  return { detail: `'${bad}' is not a hex digit`, hint: "hex digits are 0-9, a-f and A-F" };
}

/** `'$'` for one printable character, `'$$'` for a run, U+XXXX for invisible ones. */
function describeChars(text: string): string {
  const printable = /^[\x21-\x7e]+$/.test(text);
  if (printable) return `'${text.length > 20 ? text.slice(0, 20) + "..." : text}'`;
  const cps = [...text].slice(0, 4).map((c) => {
    const cp = c.codePointAt(0) ?? 0;
    return /[\x21-\x7e]/.test(c) ? `'${c}'` : `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;
  });
  return cps.join(" ") + ([...text].length > 4 ? " ..." : "");
}
