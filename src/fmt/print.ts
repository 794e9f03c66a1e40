// The prettier printer for .dmac: one function per node type (PRINTERS), prettier's doc builders
// for the layout. The style is the one of examples/*.dmac: two-space indentation, `{` at the end
// of the line that opens a block, one statement per line, at most one blank line kept between
// statements, spaces around binary operators, `->`, `<->`, `==`, `+:` and a slice's `..`, none
// around a loop range's `..`. A line that does not fit breaks at the outermost place first: a
// schedule's `implements` clause moves to its own line (and `{` below it), a parameter or
// argument list puts one entry per line, a copy puts `->` with its destinations and placements
// on a line of their own, and an expression breaks after its lowest-precedence operators.

import type { AstPath, Doc, ParserOptions } from "prettier";
import { builders } from "prettier/doc";
import { util } from "prettier";
import { BINARY_PRECEDENCE } from "../frontend/cst-to-ast.js";
import type { BinaryOp } from "../frontend/ast.js";
import { HEAD, type CommentNode } from "./comments.js";
import type { FmtNode } from "./tree.js";

const { group, indent, join, line, softline, hardline, literalline, lineSuffix, breakParent } =
  builders;

type Node = FmtNode | CommentNode;
type Print = (selector?: string | number | (string | number)[]) => Doc;
type Options = ParserOptions<Node>;
type NodePrinter<T> = (node: T, print: Print, path: AstPath<Node>, options: Options) => Doc;
type ByType = { [K in FmtNode["type"]]: NodePrinter<Extract<FmtNode, { type: K }>> };

interface Commented {
  comments?: (CommentNode & { leading?: boolean; trailing?: boolean; marker?: string })[];
}

const PRINTERS: ByType = {
  program: (node, print, path, options) => {
    const items = statements(path, print, options, "items");
    const dangling = danglingComments(path, options);
    const body = [items, items.length > 0 && dangling.length > 0 ? hardline : "", dangling];
    return node.items.length === 0 && dangling.length === 0 ? "" : [body, hardline];
  },
  target: (_node, print) => ["target ", print("value")],
  let: (node, print) => [
    node.keyword,
    " ",
    print("name"),
    node.typeName === undefined ? "" : [": ", print("typeName")],
    " = ",
    print("value"),
  ],
  schedule: (node, print, path) => {
    const header = ["schedule ", print("name"), list(path, print, "params")];
    const implementsClause =
      node.implements === undefined ? " " : [indent([line, print("implements")]), line];
    return [group([header, implementsClause]), print("body")];
  },
  param: (node, print) => [
    print("name"),
    ": ",
    print("typeName"),
    node.value === undefined ? "" : [" = ", print("value")],
  ],
  implements: (_node, print, path) => [
    "implements ",
    print("collective"),
    list(path, print, "args"),
  ],
  block: (node, print, path, options) => {
    // The first comment of the `{` line stays there; more go on lines of their own below it.
    const head: Doc[] = [];
    const more: Doc[] = [];
    eachComment(path, (p) => {
      if (!isComment(p.node, HEAD)) return;
      if (head.length === 0) head.push(" ", printCommentNow(p, options));
      else more.push(printCommentNow(p, options));
    });
    const stmts = statements(path, print, options, "stmts");
    const dangling = danglingComments(path, options);
    const body = [stmts, stmts.length > 0 && dangling.length > 0 ? hardline : "", dangling];
    if (node.stmts.length === 0 && dangling.length === 0) {
      if (head.length === 0) return "{}";
      const rest = more.length > 0 ? indent([hardline, join(hardline, more)]) : breakParent;
      return ["{", head, rest, hardline, "}"];
    }
    const first = more.length > 0 ? [join(hardline, more), hardline] : "";
    return ["{", head, indent([hardline, first, body]), hardline, "}"];
  },
  buffer: (node, print) => [
    "buffer ",
    print("name"),
    ": ",
    print("size"),
    node.rank === undefined ? "" : [" on ", print("rank")],
  ],
  signal: (node, print) => [
    "signal ",
    print("name"),
    node.rank === undefined ? "" : [" on ", print("rank")],
    node.thermometer ? " thermometer" : "",
  ],
  if: (node, print, _path, options) => {
    if (node.else === undefined) return ["if ", print("cond"), " ", print("then")];
    const beforeElse = endsWithLineBreak(node.then, options) ? hardline : " ";
    return ["if ", print("cond"), " ", print("then"), beforeElse, "else ", print("else")];
  },
  for: (node, print, path) => [
    group([
      "for ",
      indent([
        join([",", line], each(path, print, "vars")),
        node.where === undefined ? "" : [line, "where ", print("where")],
      ]),
    ]),
    " ",
    print("body"),
  ],
  "loop-var": (_node, print) => [print("name"), " in ", print("range")],
  range: (node, print) => [
    print("from"),
    "..",
    print("to"),
    node.step === undefined ? "" : [" step ", print("step")],
  ],
  copy: (_node, print, path) =>
    group([
      "copy ",
      print("src"),
      indent([
        line,
        group([
          "-> ",
          group(join([",", line], each(path, print, "dsts"))),
          placements(path, print),
        ]),
      ]),
    ]),
  swap: (_node, print, path) =>
    group([
      "swap ",
      print("a"),
      indent([line, group(["<-> ", print("b"), placements(path, print)])]),
    ]),
  fill: (_node, print, path) =>
    group([
      "fill ",
      print("dst"),
      indent([line, group(["with ", print("value"), placements(path, print)])]),
    ]),
  placement: (node, print) =>
    node.keyword === "on" ? ["on sdma(", print("value"), ")"] : ["by ", print("value")],
  when: (node, print) => [
    "when ",
    print("flag"),
    " ",
    node.op,
    " ",
    print("value"),
    " ",
    print("body"),
  ],
  notify: (_node, print) => ["notify ", print("flag")],
  ensure: (_node, print) =>
    group(["ensure ", print("dst"), indent([line, "== ", print("expected")])]),
  region: (_node, print) => [print("name"), "@", print("rank"), print("slice")],
  slice: (node, print) => ["[", print("lo"), " ", node.sep, " ", print("hi"), "]"],
  leaf: (node) => node.text,
  chain: (node, print, path) => group(chain(each(path, print, "operands"), node.ops)),
  unary: (node, print) => [node.op, print("operand")],
  paren: (_node, print) => ["(", print("expr"), ")"],
  call: (_node, print, path) => [print("callee"), list(path, print, "args")],
};

/** The printed entries of a list field. */
function each(path: AstPath<Node>, print: Print, key: string): Doc[] {
  return path.map(() => print(), key as never);
}

/** `(a, b, c)`, or one entry per line when that does not fit (no trailing comma: the grammar). */
function list(path: AstPath<Node>, print: Print, key: string): Doc {
  const entries = each(path, print, key);
  if (entries.length === 0) return "()";
  return group(["(", indent([softline, join([",", line], entries)]), softline, ")"]);
}

function placements(path: AstPath<Node>, print: Print): Doc {
  return each(path, print, "placements").map((p) => [line, p]);
}

/**
 * `a op b op c` as written, grouped by precedence: the operators of the lowest precedence split
 * the chain into parts (each printed the same way, one level up), and a line that does not fit
 * breaks after those operators first. Iterative in the chain length, recursive only over the
 * five precedence levels.
 */
function chain(operands: readonly Doc[], ops: readonly string[]): Doc {
  if (ops.length === 0) return operands[0] ?? "";
  const prec = (op: string): number => BINARY_PRECEDENCE[op as BinaryOp];
  const lowest = Math.min(...ops.map(prec));
  const parts: Doc[] = [];
  const joins: string[] = [];
  let from = 0;
  for (let i = 0; i <= ops.length; i++) {
    const op = ops[i];
    if (op !== undefined && prec(op) !== lowest) continue;
    const part = chain(operands.slice(from, i + 1), ops.slice(from, i));
    parts.push(i - from > 0 ? group(part) : part);
    if (op !== undefined) joins.push(op);
    from = i + 1;
  }
  return [parts[0] ?? "", indent(joins.map((op, k) => [" ", op, line, parts[k + 1] ?? ""]))];
}

/** Statements or items, one per line, keeping at most one blank line where there was one. */
function statements(path: AstPath<Node>, print: Print, options: Options, key: string): Doc[] {
  const out: Doc[] = [];
  const nodes = (path.node as unknown as Record<string, readonly FmtNode[]>)[key] ?? [];
  path.each((_p, i) => {
    out.push(print());
    const node = nodes[i];
    if (i < nodes.length - 1 && node !== undefined) {
      out.push(hardline);
      if (util.isNextLineEmpty(options.originalText, options.locEnd(node))) out.push(hardline);
    }
  }, key as never);
  return out;
}

function isComment(node: unknown, marker?: string): node is CommentNode {
  const c = node as { type?: string; marker?: string; leading?: boolean; trailing?: boolean };
  if (c.type !== "comment") return false;
  if (marker !== undefined) return c.marker === marker;
  return c.leading !== true && c.trailing !== true && c.marker === undefined;
}

function eachComment(path: AstPath<Node>, f: (p: AstPath<Node>) => void): void {
  if ((path.node as Commented).comments !== undefined) path.each(f, "comments" as never);
}

/** The dangling comments of the current node (no statement to attach to), one per line. */
function danglingComments(path: AstPath<Node>, options: Options): Doc[] {
  const docs: Doc[] = [];
  eachComment(path, (p) => {
    if (!isComment(p.node)) return;
    if (docs.length > 0) {
      docs.push(hardline);
      if (util.isPreviousLineEmpty(options.originalText, p.node.start)) docs.push(hardline);
    }
    docs.push(printCommentNow(p, options));
  });
  return docs;
}

/** A comment the node prints itself: marked so prettier does not report it as lost. */
function printCommentNow(path: AstPath<Node>, options: Options): Doc {
  (path.node as { printed?: boolean }).printed = true;
  return printComment(path, options);
}

/** Does the node end with a comment that ends its line (so what follows must start a new one)? */
function endsWithLineBreak(node: FmtNode, options: Options): boolean {
  return ((node as Commented).comments ?? []).some(
    (c) =>
      c.trailing === true &&
      (c.kind !== "block" || util.hasNewline(options.originalText, c.start, { backwards: true })),
  );
}

/** A comment exactly as written; the lines of a block comment keep their own indentation. */
export function printComment(path: AstPath<Node>, _options: Options): Doc {
  const c = path.node as CommentNode;
  if (c.kind !== "block") return c.value;
  return join(literalline, c.value.split(/\r\n?|\n/));
}

export function printNode(path: AstPath<Node>, options: Options, print: Print): Doc {
  const node = path.node;
  if (node.type === "comment") return printComment(path, options);
  const printer = PRINTERS[node.type] as NodePrinter<FmtNode>;
  const doc = printer(node, print, path, options);
  if (node.type === "block" || node.type === "program") return doc;
  // Any other node has children around every place a comment can be, so this is a safety net:
  // a comment is never dropped, even where no rule above expected one.
  const dangling: Doc[] = [];
  eachComment(path, (p) => {
    if (!isComment(p.node)) return;
    const printed = printCommentNow(p, options);
    dangling.push(
      p.node.kind === "block" ? [" ", printed] : [lineSuffix([" ", printed]), breakParent],
    );
  });
  return dangling.length === 0 ? doc : [doc, dangling];
}
