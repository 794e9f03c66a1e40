// Attaching comments to the formatter's tree, in linear time. The rules are prettier's (each
// comment gets its enclosing, preceding and following node by position; it is on a line of its
// own, at the end of a line or elsewhere; comments.ts's handlers place the special cases, the
// rest lead or trail a node, and a run between two nodes is split by the text between them). Its
// own pass decides "own line" and "end of line" by walking over every comment on the same line
// for each comment, quadratic in a line of comments (8,000 block comments in one statement took
// 25 s): here each run is measured once. The plugin's printer has no `canAttachComment`, so
// prettier skips its pass, prints the comments attached here, and still checks that each was.

import { util } from "prettier";
import { InternalError } from "../util/internal-error.js";
import type { CommentNode } from "./comments.js";
import { CHILD_KEYS, type FmtNode, type ProgramNode } from "./tree.js";

/** A comment with its place in the tree (prettier's "decorated" comment). */
export interface Placed {
  readonly comment: CommentNode;
  /** Its index in the file's comments. */
  readonly index: number;
  /** The innermost node around it; undefined at file level. */
  readonly enclosingNode: FmtNode | undefined;
  readonly precedingNode: FmtNode | undefined;
  readonly followingNode: FmtNode | undefined;
}

/** The tree as the handlers see it: its root, and each node's parent. */
export interface Tree {
  readonly root: ProgramNode;
  parentOf(node: FmtNode): FmtNode | undefined;
}

/** Places a comment if it is a special case (returns true), as prettier's handleComments. */
export type Handler = (p: Placed) => boolean;

export interface Handlers {
  readonly ownLine: Handler;
  readonly endOfLine: Handler;
  readonly remaining: Handler;
  /** Runs once every comment is attached. */
  readonly finish: () => void;
}

export type Role = "leading" | "trailing" | "dangling";

/** Attaches `c` to `node` (printed before it, after it, or by the node's own printer). */
export function attach(node: FmtNode, c: CommentNode, role: Role, marker?: string): true {
  const mutable = c as { leading?: boolean; trailing?: boolean; marker?: string };
  mutable.leading = role === "leading";
  mutable.trailing = role === "trailing";
  if (marker !== undefined) mutable.marker = marker;
  ((node as { comments?: CommentNode[] }).comments ??= []).push(c);
  return true;
}

/** Attaches `comments` (in text order) to the nodes of `root`. */
export function attachComments(
  root: ProgramNode,
  comments: readonly CommentNode[],
  text: string,
  handlersFor: (tree: Tree) => Handlers,
): void {
  const tree = new ChildIndex(root);
  const placed = comments.map((comment, index) => ({ comment, index, ...tree.place(comment) }));
  const ownLine = ownLineFlags(placed, text);
  const endOfLine = endOfLineFlags(placed, text);
  const handlers = handlersFor(tree);
  const ties: Placed[] = [];
  for (const p of placed) {
    const { comment: c, precedingNode: before, followingNode: after } = p;
    if (ownLine[p.index]) {
      if (handlers.ownLine(p)) continue;
      if (after !== undefined) attach(after, c, "leading");
      else if (before !== undefined) attach(before, c, "trailing");
      else attach(p.enclosingNode ?? root, c, "dangling");
    } else if (endOfLine[p.index]) {
      if (handlers.endOfLine(p)) continue;
      if (before !== undefined) attach(before, c, "trailing");
      else if (after !== undefined) attach(after, c, "leading");
      else attach(p.enclosingNode ?? root, c, "dangling");
    } else {
      if (handlers.remaining(p)) continue;
      if (before !== undefined && after !== undefined) {
        if (ties.length > 0 && ties[ties.length - 1]!.followingNode !== after)
          breakTies(ties, text);
        ties.push(p);
      } else if (before !== undefined) attach(before, c, "trailing");
      else if (after !== undefined) attach(after, c, "leading");
      else attach(p.enclosingNode ?? root, c, "dangling");
    }
  }
  breakTies(ties, text);
  handlers.finish();
}

/** No line break and nothing but blanks. */
const blankOnOneLine = (text: string, from: number, to: number): boolean =>
  !/[\S\n\u2028\u2029]/.test(text.slice(from, to));

/**
 * Whether each comment is on a line of its own: a line break comes before the first comment of
 * its run (the comments before it with the same preceding node and only blanks between).
 */
function ownLineFlags(placed: readonly Placed[], text: string): boolean[] {
  let runStart = 0;
  return placed.map((p, i) => {
    const prev = placed[i - 1];
    const joined =
      prev !== undefined &&
      p.precedingNode !== undefined &&
      prev.precedingNode === p.precedingNode &&
      blankOnOneLine(text, prev.comment.end, p.comment.start);
    if (!joined) runStart = p.comment.start;
    return util.hasNewline(text, runStart, { backwards: true });
  });
}

/** Whether each comment ends its line: a line break follows the last comment of its run. */
function endOfLineFlags(placed: readonly Placed[], text: string): boolean[] {
  const out = new Array<boolean>(placed.length);
  let runEnd = 0;
  for (let i = placed.length - 1; i >= 0; i--) {
    const p = placed[i]!;
    const next = placed[i + 1];
    const joined =
      next !== undefined &&
      p.followingNode !== undefined &&
      next.followingNode === p.followingNode &&
      blankOnOneLine(text, p.comment.end, next.comment.start);
    if (!joined) runEnd = p.comment.end;
    out[i] = util.hasNewline(text, runEnd);
  }
  return out;
}

/**
 * Comments between the same two nodes: those followed only by blanks and `(` up to the next
 * node lead it, the ones before them trail the preceding node.
 */
function breakTies(ties: Placed[], text: string): void {
  const first = ties[0];
  if (first === undefined) return;
  const before = first.precedingNode!;
  const after = first.followingNode!;
  let gapEnd = after.start;
  let leadFrom = ties.length;
  for (; leadFrom > 0; leadFrom--) {
    const c = ties[leadFrom - 1]!.comment;
    if (!/^[\s(]*$/.test(text.slice(c.end, gapEnd))) break;
    gapEnd = c.start;
  }
  ties.forEach((p, i) =>
    attach(i < leadFrom ? before : after, p.comment, i < leadFrom ? "trailing" : "leading"),
  );
  for (const node of [before, after]) {
    (node as { comments?: CommentNode[] }).comments?.sort((a, b) => a.start - b.start);
  }
  ties.length = 0;
}

/** Each node's children in text order, and its parent, computed once per node. */
class ChildIndex implements Tree {
  private readonly children = new Map<FmtNode, readonly FmtNode[]>();
  private readonly parents = new Map<FmtNode, FmtNode>();
  constructor(readonly root: ProgramNode) {}

  parentOf(node: FmtNode): FmtNode | undefined {
    return this.parents.get(node);
  }

  /** The innermost node around `c`, and its children just before and after `c`. */
  place(c: CommentNode): Omit<Placed, "comment" | "index"> {
    let enclosingNode: FmtNode | undefined;
    let node: FmtNode = this.root;
    for (;;) {
      const kids = this.childrenOf(node);
      let precedingNode: FmtNode | undefined;
      let followingNode: FmtNode | undefined;
      let lo = 0;
      let hi = kids.length;
      let inside: FmtNode | undefined;
      while (lo < hi && inside === undefined) {
        const mid = (lo + hi) >> 1;
        const kid = kids[mid]!;
        if (kid.start <= c.start && c.end <= kid.end) inside = kid;
        else if (kid.end <= c.start) [precedingNode, lo] = [kid, mid + 1];
        else if (c.end <= kid.start) [followingNode, hi] = [kid, mid];
        else throw new InternalError(`fmt: a comment at ${c.start} overlaps a ${kid.type}`);
      }
      if (inside === undefined) return { enclosingNode, precedingNode, followingNode };
      enclosingNode = node = inside;
    }
  }

  private childrenOf(node: FmtNode): readonly FmtNode[] {
    const known = this.children.get(node);
    if (known !== undefined) return known;
    const record = node as unknown as Record<string, unknown>;
    const kids: FmtNode[] = [];
    for (const key of CHILD_KEYS[node.type]) {
      const value = record[key];
      for (const kid of Array.isArray(value) ? value : [value]) {
        if (kid !== undefined) kids.push(kid as FmtNode);
      }
    }
    kids.sort((a, b) => a.start - b.start || a.end - b.end);
    for (const kid of kids) this.parents.set(kid, node);
    this.children.set(node, kids);
    return kids;
  }
}
