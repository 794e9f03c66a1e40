// The plugin's parser: .dmac text -> the formatter's tree (tree.ts) with its comments. Text that
// does not parse cleanly is refused with the first error diagnostic (prettier shows it with a
// code frame); `dmac fmt` reports all of them through formatDmac before prettier runs.

import { parseSource } from "../frontend/parse.js";
import { lex } from "../frontend/lexer.js";
import { theParser } from "../frontend/parser.js";
import { lineCol, makeSourceFile } from "../source/source-file.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { attachComments } from "./attach.js";
import { commentHandlers, scanComments, type CommentNode } from "./comments.js";
import { buildTree, type ProgramNode } from "./tree.js";

export type ParsedFile = ProgramNode & { readonly comments: CommentNode[] };

/** Thrown for text with errors; `loc` is where prettier draws its code frame. */
export class DmacSyntaxError extends SyntaxError {
  readonly loc: { readonly start: { readonly line: number; readonly column: number } };
  constructor(readonly diagnostics: readonly Diagnostic[]) {
    const first = diagnostics[0];
    super(first === undefined ? "syntax error" : `${first.message} (${first.code})`);
    const file = first?.file;
    const at = file === undefined ? { line: 1, col: 1 } : lineCol(file, first?.span?.start ?? 0);
    this.loc = { start: { line: at.line, column: at.col } };
  }
}

/** The error diagnostics of parsing `text` (lexer, parser and limits; not the checker's). */
export function parseErrors(text: string, path = "<input>"): Diagnostic[] {
  return parseSource(makeSourceFile(path, text)).diagnostics.filter((d) => d.severity === "error");
}

export function parseDmac(text: string): ParsedFile {
  const errors = parseErrors(text);
  if (errors.length > 0) throw new DmacSyntaxError(errors);
  const file = makeSourceFile("<input>", text);
  const { tokens } = lex(file);
  const parser = theParser();
  parser.input = tokens;
  const cst = parser.program();
  parser.input = [];
  const tree = buildTree(cst, file.text.length);
  const comments = scanComments(file.text, tokens);
  attachComments(tree, comments, file.text, (t) => commentHandlers(file.text, comments, t));
  // Prettier takes `comments` to check that each was printed (it attaches none: plugin.ts).
  return Object.assign(tree, { comments });
}
