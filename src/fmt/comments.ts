// Comments for the formatter. The lexer skips `//` and `/* */` comments and sets `///` apart, so
// the parser never sees them; here they are recovered from the gaps between the parser's tokens
// (in a file that lexed without errors a gap holds only blanks and comments). Prettier attaches
// each comment to a node by position; the handlers below move the few whose default place would
// print them somewhere that a second run would attach differently (formatting must be
// idempotent).

import type { IToken } from "chevrotain";
import { CHILD_KEYS, type FmtNode } from "./tree.js";

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
 * A comment on the line of a block's `{`, right before or after the brace, belongs to that line:
 * printed after `{`. By default prettier would make one before the brace a trailing comment of
 * the header (printed after `{` anyway, where the next run would attach it to the first
 * statement) and one after the brace a leading comment of the first statement.
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

/**
 * A comment at the end of a line whose node ends on an earlier line (`;` or a closing bracket
 * lies between) leads what follows. Prettier's default, a trailing comment of that node, would
 * print it before the comments in between.
 */
function afterLineBreak(c: AttachingComment, text: string): boolean {
  const before = c.precedingNode;
  if (before === undefined || c.followingNode === undefined) return false;
  const between = text.slice(before.end, c.start).replace(/\/\*[\s\S]*?\*\//g, "");
  if (!/[\n\r]/.test(between)) return false;
  return attach(c.followingNode, c, "leading");
}

/**
 * A comment on a line of its own before a closing bracket (`)` of a parameter list) trails what
 * precedes it; leading what follows the bracket, it would be printed after the bracket.
 */
function beforeCloser(c: AttachingComment, text: string): boolean {
  const before = c.precedingNode;
  const after = c.followingNode;
  if (before === undefined || after === undefined) return false;
  const between = text.slice(c.end, after.start).replace(COMMENT, "");
  return /\S/.test(between) ? attach(before, c, "trailing") : false;
}

/** Node types that print on one line of their own unless they are too long. */
const LINE_NODES: ReadonlySet<string> = new Set([
  "target",
  "let",
  "buffer",
  "signal",
  "copy",
  "swap",
  "fill",
  "notify",
  "ensure",
  "param",
]);

/** Statements with a block: where their header ends. */
const HEADER_BODY: Readonly<Record<string, string>> = {
  for: "body",
  if: "then",
  when: "body",
  schedule: "body",
};

/** Where a header begins, for comments: a schedule's after its parameters, at `implements`. */
function headerStart(node: FmtNode): number {
  return node.type === "schedule" ? (node.implements?.start ?? node.body.start) : node.start;
}

/**
 * A comment inside a one-line statement that ends its line (`//`, `///`) or spans lines, or one
 * that comes after such a comment, trails the statement: the statement is laid out as if it had
 * no comments, and the comment follows it. (A line comment would be pushed to the end of the
 * printed line anyway, and where it forced a line break the next run would find it elsewhere and
 * lay the line out differently.) In the header of a `for`, `if` or `when`, or in a schedule's
 * `implements` clause, such a comment goes after the `{`. A second comment goes on a line of its
 * own, so comments keep their order.
 */
function insideStatement(c: AttachingComment, text: string, ast: FmtNode | CommentNode): boolean {
  if (ast.type === "comment") return false;
  let node: FmtNode | undefined = ast;
  let statement: FmtNode | undefined;
  while (node !== undefined) {
    const body = HEADER_BODY[node.type];
    const bodyNode =
      body === undefined ? undefined : (node as unknown as Record<string, FmtNode>)[body];
    const inHeader =
      bodyNode !== undefined && headerStart(node) <= c.start && c.end <= bodyNode.start;
    if (LINE_NODES.has(node.type) || inHeader) {
      statement = node;
    }
    node = childAround(node, c);
  }
  if (statement === undefined || c.start <= statement.start || statement.end <= c.end) return false;
  const breaks = (value: string): boolean => value.startsWith("//") || /[\n\r]/.test(value);
  const earlier = [...text.slice(statement.start, c.start).matchAll(COMMENT)].map((m) => m[0]);
  if (!breaks(c.value) && !earlier.some(breaks)) return false;
  const body = HEADER_BODY[statement.type];
  // Before a file-level declaration, not after it: after, a `///` could end up right above the
  // next schedule and become part of its documentation.
  const fileLevel = childAround(ast, c) === statement;
  if (c.kind === "doc" && fileLevel && statement.type !== "schedule") {
    hoistEarlierComments(statement, c);
    return attach(statement, c, "leading");
  }
  if (body === undefined) return attach(statement, c, "trailing");
  return attach((statement as unknown as Record<string, FmtNode>)[body]!, c, HEAD);
}

/**
 * A comment that ends its line between a schedule's name and its first parameter leads that
 * parameter (the list then goes one parameter per line), or the body when there is none.
 */
function beforeParams(c: AttachingComment): boolean {
  const node = c.enclosingNode;
  if (node?.type !== "schedule" || c.end > (node.params[0]?.start ?? node.body.start)) return false;
  if (c.start < node.name.end || (c.kind === "block" && !/[\n\r]/.test(c.value))) return false;
  const first = node.params[0];
  return first !== undefined ? attach(first, c, "leading") : attach(node.body, c, HEAD);
}

/**
 * Moves the comments already attached inside `statement` and written before `c` to lead the
 * statement, so that `c`, which is about to lead it too, stays after them.
 */
function hoistEarlierComments(statement: FmtNode, c: CommentNode): void {
  const moved: CommentNode[] = [];
  const pending: FmtNode[] = [statement];
  while (pending.length > 0) {
    const node = pending.pop()!;
    const host = node as { comments?: CommentNode[] };
    const inside = (x: CommentNode): boolean => statement.start < x.start && x.start < c.start;
    moved.push(...(host.comments ?? []).filter(inside));
    if (host.comments !== undefined) host.comments = host.comments.filter((x) => !inside(x));
    const record = node as unknown as Record<string, unknown>;
    for (const key of CHILD_KEYS[node.type]) {
      const value = record[key];
      for (const child of Array.isArray(value) ? value : [value]) {
        if (child !== undefined) pending.push(child as FmtNode);
      }
    }
  }
  moved.sort((a, b) => a.start - b.start);
  for (const m of moved) attach(statement, m as AttachingComment, "leading");
}

function childAround(node: FmtNode, c: CommentNode): FmtNode | undefined {
  const record = node as unknown as Record<string, unknown>;
  for (const key of CHILD_KEYS[node.type]) {
    const value = record[key];
    for (const child of Array.isArray(value) ? value : [value]) {
      const n = child as FmtNode | undefined;
      if (n !== undefined && n.start <= c.start && c.end <= n.end) return n;
    }
  }
  return undefined;
}

function attach(
  node: FmtNode,
  c: AttachingComment,
  how: "leading" | "trailing" | typeof HEAD,
): boolean {
  const mutable = c as { leading?: boolean; trailing?: boolean; marker?: string };
  mutable.leading = how === "leading";
  mutable.trailing = how === "trailing";
  if (how === HEAD) mutable.marker = HEAD;
  const host = node as { comments?: CommentNode[] };
  (host.comments ??= []).push(c);
  return true;
}

type Ast = FmtNode | CommentNode;

export const handleComments = {
  ownLine: (c: AttachingComment, text: string, _options: unknown, ast: Ast): boolean =>
    insideStatement(c, text, ast) ||
    beforeParams(c) ||
    beforeElse(c) ||
    headOfBlock(c, text) ||
    beforeCloser(c, text),
  endOfLine: (c: AttachingComment, text: string, _options: unknown, ast: Ast): boolean =>
    insideStatement(c, text, ast) ||
    beforeParams(c) ||
    beforeElse(c) ||
    headOfBlock(c, text) ||
    firstLineOfBlock(c) ||
    afterLineBreak(c, text),
  remaining: (c: AttachingComment, text: string, _options: unknown, ast: Ast): boolean =>
    insideStatement(c, text, ast) || beforeElse(c) || afterLineBreak(c, text),
};
