// Comments for the formatter. The lexer skips `//` and `/* */` comments and sets `///` apart, so
// the parser never sees them; here they are recovered from the gaps between the parser's tokens
// (in a file that lexed without errors a gap holds only blanks and comments). attach.ts attaches
// each comment to a node by position; the handlers below move the few whose default place would
// print them somewhere that a second run would attach differently (formatting must be
// idempotent). Each handler costs a constant (or the depth of the tree) per comment: what they
// ask of the text around a comment is measured once for all comments (Context).

import type { IToken } from "chevrotain";
import { attach, type Handlers, type Placed, type Tree } from "./attach.js";
import { CHILD_KEYS, type FmtNode } from "./tree.js";

export type CommentKind = "line" | "block" | "doc";

export interface CommentNode {
  readonly type: "comment";
  readonly kind: CommentKind;
  /** The comment as written, delimiters included (prettier's messages read `value`). */
  readonly value: string;
  readonly start: number;
  readonly end: number;
  /** Where the first token after the comment starts (the text's length after the last one). */
  readonly tokenAfter: number;
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
        tokenAfter: end,
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

/** What the handlers need to know of the text around each comment, measured once. */
interface Context {
  readonly text: string;
  readonly tree: Tree;
  /** By comment index: the last line break before the comment, not inside a comment (or -1). */
  readonly lastLineBreak: readonly number[];
  /** By comment index: where the last earlier comment that breaks its line starts (or -1). */
  readonly lastBreaking: readonly number[];
  /** File-level statements whose comments up to a `///` in them lead them: that comment's start. */
  readonly hoists: Map<FmtNode, number>;
}

/** Does the comment end its line (`//`, `///`) or span lines? */
const breaksLine = (c: CommentNode): boolean => c.kind !== "block" || /[\n\r]/.test(c.value);

/** The handlers for the comments of one file (attach.ts). */
export function commentHandlers(
  text: string,
  comments: readonly CommentNode[],
  tree: Tree,
): Handlers {
  const lastLineBreak: number[] = [];
  const lastBreaking: number[] = [];
  let lineBreak = -1;
  let breaking = -1;
  comments.forEach((c, i) => {
    const from = comments[i - 1]?.end ?? 0;
    for (let at = c.start - 1; at >= from && lineBreak < from; at--) {
      if (text[at] === "\n" || text[at] === "\r") lineBreak = at;
    }
    lastLineBreak.push(lineBreak);
    lastBreaking.push(breaking);
    if (breaksLine(c)) breaking = c.start;
  });
  const x: Context = { text, tree, lastLineBreak, lastBreaking, hoists: new Map() };
  return {
    ownLine: (p) =>
      insideStatement(p, x) ||
      beforeParams(p) ||
      beforeElse(p) ||
      headOfBlock(p, x) ||
      beforeCloser(p),
    endOfLine: (p) =>
      insideStatement(p, x) ||
      beforeParams(p) ||
      beforeElse(p) ||
      headOfBlock(p, x) ||
      firstLineOfBlock(p) ||
      afterLineBreak(p, x),
    remaining: (p) => insideStatement(p, x) || beforeElse(p) || afterLineBreak(p, x),
    finish: () => x.hoists.forEach((upTo, statement) => hoistEarlierComments(statement, upTo)),
  };
}

/**
 * A comment on the line of a block's `{`, right before or after the brace, belongs to that line:
 * printed after `{`. By default prettier would make one before the brace a trailing comment of
 * the header (printed after `{` anyway, where the next run would attach it to the first
 * statement) and one after the brace a leading comment of the first statement.
 */
function headOfBlock(p: Placed, x: Context): boolean {
  const block = p.followingNode;
  // Linear overall: the blanks after each comment are scanned once.
  const direct = block !== undefined && /^\s*$/.test(x.text.slice(p.comment.end, block.start));
  if (block?.type === "block" && direct) return attach(block, p.comment, "dangling", HEAD);
  return false;
}

function firstLineOfBlock(p: Placed): boolean {
  const block = p.enclosingNode;
  if (block?.type === "block" && p.precedingNode === undefined) {
    return attach(block, p.comment, "dangling", HEAD);
  }
  return false;
}

/** Comments between an `if`'s `}` and its `else` stay there (the printer breaks before `else`). */
function beforeElse(p: Placed): boolean {
  const node = p.enclosingNode;
  if (node?.type === "if" && p.precedingNode === node.then && p.followingNode === node.else) {
    return attach(node.then, p.comment, "trailing");
  }
  return false;
}

/**
 * A comment at the end of a line whose node ends on an earlier line (`;` or a closing bracket
 * lies between) leads what follows. Prettier's default, a trailing comment of that node, would
 * print it before the comments in between.
 */
function afterLineBreak(p: Placed, x: Context): boolean {
  const before = p.precedingNode;
  if (before === undefined || p.followingNode === undefined) return false;
  if (x.lastLineBreak[p.index]! < before.end) return false;
  return attach(p.followingNode, p.comment, "leading");
}

/**
 * A comment on a line of its own before a closing bracket (`)` of a parameter list) trails what
 * precedes it; leading what follows the bracket, it would be printed after the bracket.
 */
function beforeCloser(p: Placed): boolean {
  const before = p.precedingNode;
  const after = p.followingNode;
  if (before === undefined || after === undefined) return false;
  return p.comment.tokenAfter < after.start ? attach(before, p.comment, "trailing") : false;
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

/** The block that ends the header of `node`, if it has one. */
function bodyOf(node: FmtNode): FmtNode | undefined {
  const body = HEADER_BODY[node.type];
  return body === undefined ? undefined : (node as unknown as Record<string, FmtNode>)[body];
}

/** The innermost one-line statement or statement header around `c`. */
function statementAround(p: Placed, tree: Tree): FmtNode | undefined {
  const c = p.comment;
  for (let node = p.enclosingNode; node !== undefined; node = tree.parentOf(node)) {
    const body = bodyOf(node);
    const inHeader = body !== undefined && headerStart(node) <= c.start && c.end <= body.start;
    if (LINE_NODES.has(node.type) || inHeader) return node;
  }
  return undefined;
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
function insideStatement(p: Placed, x: Context): boolean {
  const c = p.comment;
  const statement = statementAround(p, x.tree);
  if (statement === undefined || c.start <= statement.start || statement.end <= c.end) return false;
  if (!breaksLine(c) && x.lastBreaking[p.index]! < statement.start) return false;
  // Before a file-level declaration, not after it: after, a `///` could end up right above the
  // next schedule and become part of its documentation.
  const fileLevel = x.tree.parentOf(statement) === x.tree.root;
  if (c.kind === "doc" && fileLevel && statement.type !== "schedule") {
    x.hoists.set(statement, c.start);
    return attach(statement, c, "leading");
  }
  const body = bodyOf(statement);
  if (body === undefined) return attach(statement, c, "trailing");
  return attach(body, c, "dangling", HEAD);
}

/**
 * A comment that ends its line between a schedule's name and its first parameter leads that
 * parameter (the list then goes one parameter per line), or the body when there is none.
 */
function beforeParams(p: Placed): boolean {
  const node = p.enclosingNode;
  const c = p.comment;
  if (node?.type !== "schedule" || c.end > (node.params[0]?.start ?? node.body.start)) return false;
  if (c.start < node.name.end || (c.kind === "block" && !/[\n\r]/.test(c.value))) return false;
  const first = node.params[0];
  return first !== undefined ? attach(first, c, "leading") : attach(node.body, c, "dangling", HEAD);
}

/**
 * Makes the comments inside `statement` up to its last `///` (at `upTo`) lead it, in text order,
 * after the comments written before it and before those attached to it after `upTo`. Done once
 * per statement when all comments are attached: the `///` comments lead it already, and the
 * comments before them, attached inside it, must stay before them.
 */
function hoistEarlierComments(statement: FmtNode, upTo: number): void {
  const inside = (c: CommentNode): boolean => statement.start < c.start && c.start <= upTo;
  const moved: CommentNode[] = [];
  const pending: FmtNode[] = [statement];
  while (pending.length > 0) {
    const node = pending.pop()!;
    const host = node as { comments?: CommentNode[] };
    moved.push(...(host.comments ?? []).filter(inside));
    if (host.comments !== undefined) host.comments = host.comments.filter((c) => !inside(c));
    const record = node as unknown as Record<string, unknown>;
    for (const key of CHILD_KEYS[node.type]) {
      const value = record[key];
      for (const child of Array.isArray(value) ? value : [value]) {
        if (child !== undefined) pending.push(child as FmtNode);
      }
    }
  }
  moved.sort((a, b) => a.start - b.start);
  for (const c of moved) Object.assign(c, { leading: true, trailing: false });
  // What is left on the statement: comments written before it, and after `upTo`.
  const host = statement as { comments?: CommentNode[] };
  const left = host.comments ?? [];
  const written = left.filter((c) => c.start < statement.start);
  host.comments = [...written, ...moved, ...left.filter((c) => c.start > upTo)];
}
