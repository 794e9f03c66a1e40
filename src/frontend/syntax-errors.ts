// chevrotain's recognition errors -> diagnostics a person can act on.
//   - A block left open (the parser reaches the end of the file, or the next `schedule`, still
//     expecting '}') is DMAC1015 at the `{` that is never closed, with the place the parser gave
//     up as a note: the end of the file is where the parser noticed, not where the mistake is.
//   - Every other error is DMAC1010 "expected X, found Y", with a hint and, where certain, a fix
//     from the table of common mistakes (parse-hints.ts).
// Several errors at one token (recovery cascading out of nested rules) are reported once. A file
// that ends inside an unterminated `/*` (DMAC1002) gets no error at its end: the comment took the
// rest of the file, and its own diagnostic says what to do.

import type { IRecognitionException, IToken } from "chevrotain";
import { EOF } from "./chevrotain.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { lineCol, type SourceFile, type Span } from "../source/source-file.js";
import { parseHint, type SyntaxErrorSite } from "./parse-hints.js";
import { KEYWORDS, PUNCTUATION } from "./tokens.js";

export function syntaxDiagnostics(
  file: SourceFile,
  lexed: { readonly tokens: readonly IToken[]; readonly diagnostics: readonly Diagnostic[] },
  errors: readonly IRecognitionException[],
): Diagnostic[] {
  const tokens = lexed.tokens;
  const out: Diagnostic[] = [];
  const seen = new Set<number>();
  if (lexed.diagnostics.some((d) => d.code === "DMAC1002")) seen.add(file.text.length);
  const braces = new BraceScan(file, tokens);
  for (const e of errors) {
    const t = e.token;
    const atEof = t.tokenType === EOF || Number.isNaN(t.startOffset);
    const span: Span = atEof
      ? { start: file.text.length, end: file.text.length }
      : { start: t.startOffset, end: t.startOffset + t.image.length };
    if (seen.has(span.start)) continue;
    seen.add(span.start);
    const site: SyntaxErrorSite = {
      file,
      tokens,
      index: atEof ? tokens.length : tokenIndex(tokens, t.startOffset),
      expected: e.message,
      rules: e.context.ruleStack,
    };
    const unclosed = unclosedBlock(site, span, braces);
    if (unclosed !== undefined) {
      out.push(unclosed);
      continue;
    }
    const h = parseHint(site);
    const expected = h?.expected ?? e.message;
    const found =
      h?.expected !== undefined && h.span !== undefined
        ? describeFound(file.text.slice(h.span.start, h.span.end))
        : atEof
          ? "end of file"
          : describeFound(t.image);
    out.push(
      diag("DMAC1010", { file, span: h?.span ?? span }, [expected, found], {
        hint: h?.hint,
        fix: h?.fix,
      }),
    );
  }
  return out;
}

function describeFound(text: string): string {
  const image = text.length > 24 ? `${text.slice(0, 24)}...` : text;
  return `'${image}'`;
}

/** Index of the token starting at `offset` (tokens are sorted by offset). */
function tokenIndex(tokens: readonly IToken[], offset: number): number {
  let lo = 0;
  let hi = tokens.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (tokens[mid]!.startOffset < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Tokens at which a missing '}' shows: the end of the file, or the next file-level item. */
const GIVES_UP_AT = new Set([KEYWORDS.schedule, KEYWORDS.target]);

/**
 * DMAC1015 when the parser stopped because a block was never closed; undefined for any other
 * error.
 */
function unclosedBlock(
  site: SyntaxErrorSite,
  span: Span,
  braces: BraceScan,
): Diagnostic | undefined {
  if (!site.expected.includes("'}'")) return undefined;
  const t = site.tokens[site.index];
  if (t !== undefined && !GIVES_UP_AT.has(t.tokenType)) return undefined;
  const open = braces.unclosedBefore(site.index);
  if (open === undefined) return undefined;
  const where =
    t === undefined
      ? "the file ends here, still inside the block"
      : `the parser gave up here: '${t.image}' cannot appear inside a block`;
  return diag(
    "DMAC1015",
    { file: site.file, span: { start: open.startOffset, end: open.startOffset + 1 } },
    [],
    { hint: "add '}' where the block should end", related: [{ message: where, span }] },
  );
}

/** The indentation of the line `offset` is on (blanks before its first character), and
 * whether the token at `offset` is that first character. */
function lineIndent(file: SourceFile, offset: number): { indent: number; first: boolean } {
  const { col } = lineCol(file, offset);
  const before = file.text.slice(offset - (col - 1), offset);
  const indent = /^[ \t]*/.exec(before)![0].length;
  return { indent, first: indent === before.length };
}

/**
 * Finds the `{` that is never closed. Braces are matched by indentation where the code is
 * indented: a `}` that starts a line closes the open `{` whose line has the same indentation,
 * and the `{`s opened after it are unclosed (the innermost of them is reported: it is the
 * likeliest to have lost its `}`). Without a matching indentation, a `}` closes the innermost
 * `{`, as the parser does. One pass over the tokens for all the errors of a file (they come in
 * source order), so many errors cost no more than one.
 */
class BraceScan {
  private readonly open: { token: IToken; indent: number }[] = [];
  private suspect: IToken | undefined;
  private next = 0;

  constructor(
    private readonly file: SourceFile,
    private readonly tokens: readonly IToken[],
  ) {}

  /** The unclosed `{` before token `index`; it counts as closed from now on. */
  unclosedBefore(index: number): IToken | undefined {
    for (; this.next < index && this.next < this.tokens.length; this.next++) {
      this.visit(this.tokens[this.next]!);
    }
    const found = this.suspect ?? this.open.pop()?.token;
    this.suspect = undefined;
    return found;
  }

  private visit(t: IToken): void {
    if (t.tokenType === PUNCTUATION["{"]) {
      this.open.push({ token: t, indent: lineIndent(this.file, t.startOffset).indent });
    } else if (t.tokenType === PUNCTUATION["}"]) {
      const { indent, first } = lineIndent(this.file, t.startOffset);
      const match = first ? findLastIndex(this.open, (o) => o.indent === indent) : -1;
      if (match >= 0 && match < this.open.length - 1) {
        this.suspect ??= this.open[this.open.length - 1]!.token;
        this.open.length = match;
      } else {
        this.open.pop();
      }
    }
  }
}

function findLastIndex<T>(xs: readonly T[], p: (x: T) => boolean): number {
  for (let i = xs.length - 1; i >= 0; i--) if (p(xs[i]!)) return i;
  return -1;
}
