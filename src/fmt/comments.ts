// Comments for the formatter. The lexer skips `//` and `/* */` comments and sets `///` apart, so
// the parser never sees them; here they are recovered from the gaps between the parser's tokens
// (in a file that lexed without errors a gap holds only blanks and comments). Prettier attaches
// each comment to a node by position; the handlers below move the few whose default place would
// print them somewhere that a second run would attach differently (formatting must be
// idempotent).

import type { IToken } from "chevrotain";
import type { FmtNode } from "./tree.js";

export type CommentKind = "line" | "block" | "doc";

export interface CommentNode {
  readonly type: "comment";
  readonly kind: CommentKind;
  /** The comment as written, delimiters included (prettier's messages read `value`). */
  readonly value: string;
  readonly start: number;
  readonly end: number;
}

/** Prettier's view of a comment while it attaches it (the fields it adds). */
interface AttachingComment extends CommentNode {
  readonly enclosingNode?: FmtNode;
  readonly precedingNode?: FmtNode;
  readonly followingNode?: FmtNode;
  marker?: string;
}

const COMMENT = /\/\/\/(?!\/)[^\n\r]*|\/\/[^\n\r]*|\/\*[\s\S]*?\*\//g;

/** Every comment of `text`, in order, given the parser's tokens (in order). */
export function scanComments(text: string, tokens: readonly IToken[]): CommentNode[] {
  const out: CommentNode[] = [];
  let from = 0;
  const scan = (end: number): void => {
    const gap = text.slice(from, end);
    for (const m of gap.matchAll(COMMENT)) {
      const start = from + (m.index ?? 0);
      out.push({
        type: "comment",
        kind: kindOf(m[0]),
        value: m[0],
        start,
        end: start + m[0].length,
      });
    }
  };
  for (const t of tokens) {
    scan(t.startOffset);
    from = t.startOffset + t.image.length;
  }
  scan(text.length);
  return out;
}

function kindOf(text: string): CommentKind {
  if (text.startsWith("/*")) return "block";
  return /^\/\/\/(?!\/)/.test(text) ? "doc" : "line";
}

/** The comment that a block prints right after its `{`, on the same line. */
export const HEAD = "head";

/**
 * A comment on the line of a block's `{`, right before or after the brace (`for r in ranks { // why`),
 * belongs to that line: printed after `{`. By default prettier would make one before the brace a
 * trailing comment of the header (printed after `{` anyway, where the next run would attach it to
 * the first statement) and one after the brace a leading comment of the first statement.
 */
function headOfBlock(c: AttachingComment, text: string): boolean {
  const block = c.followingNode;
  const direct = block !== undefined && /^\s*$/.test(text.slice(c.end, block.start));
  if (block?.type === "block" && direct) return attach(block, c, HEAD);
  return false;
}

function firstLineOfBlock(c: AttachingComment): boolean {
  const block = c.enclosingNode;
  if (block?.type === "block" && c.precedingNode === undefined) return attach(block, c, HEAD);
  return false;
}

/** Comments between an `if`'s `}` and its `else` stay there (the printer breaks before `else`). */
function beforeElse(c: AttachingComment): boolean {
  const node = c.enclosingNode;
  if (node?.type === "if" && c.precedingNode === node.then && c.followingNode === node.else) {
    return attach(node.then, c, "trailing");
  }
  return false;
}

function attach(node: FmtNode, c: AttachingComment, how: "trailing" | typeof HEAD): boolean {
  const mutable = c as { leading?: boolean; trailing?: boolean; marker?: string };
  mutable.leading = false;
  mutable.trailing = how === "trailing";
  if (how === HEAD) mutable.marker = HEAD;
  const host = node as { comments?: CommentNode[] };
  (host.comments ??= []).push(c);
  return true;
}

export const handleComments = {
  ownLine: (c: AttachingComment, text: string): boolean => beforeElse(c) || headOfBlock(c, text),
  endOfLine: (c: AttachingComment, text: string): boolean =>
    beforeElse(c) || headOfBlock(c, text) || firstLineOfBlock(c),
  remaining: (c: AttachingComment): boolean => beforeElse(c),
};
