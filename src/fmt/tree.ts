// The formatter's syntax tree, built from chevrotain's CST of a file that parsed without errors.
// It keeps what the AST drops because it does not change meaning but the writer chose it:
// parentheses, the spelling of literals (`0xff`, `1_000`, `8KiB`), `const` or `let`, and the
// operators of an expression in the order written (the printer groups them by precedence only
// to decide where a long line breaks). Stray `;` are not kept. Every node has a half-open
// [start, end) range: prettier attaches comments by it.

import type { CstElement, CstNode, IToken } from "chevrotain";
import { InternalError } from "../util/internal-error.js";

interface At {
  readonly start: number;
  readonly end: number;
}

/** A single token printed as written: a name, a literal, a type, `ranks`. */
export interface Leaf extends At {
  readonly type: "leaf";
  readonly text: string;
}

export interface ProgramNode extends At {
  readonly type: "program";
  readonly items: readonly ItemNode[];
}

export type ItemNode = TargetNode | LetNode | ScheduleNode;

export interface TargetNode extends At {
  readonly type: "target";
  readonly value: Leaf;
}

/** A `const` (file level or in a block) or a `let`. */
export interface LetNode extends At {
  readonly type: "let";
  readonly keyword: "const" | "let";
  readonly name: Leaf;
  readonly typeName: Leaf | undefined;
  readonly value: ExprNode;
}

export interface ScheduleNode extends At {
  readonly type: "schedule";
  readonly name: Leaf;
  readonly params: readonly ParamNode[];
  readonly implements: ImplementsNode | undefined;
  readonly body: BlockNode;
}

export interface ParamNode extends At {
  readonly type: "param";
  readonly name: Leaf;
  readonly typeName: Leaf;
  readonly value: ExprNode | undefined;
}

export interface ImplementsNode extends At {
  readonly type: "implements";
  readonly collective: Leaf;
  readonly args: readonly ExprNode[];
}

export interface BlockNode extends At {
  readonly type: "block";
  readonly stmts: readonly StmtNode[];
}

export type StmtNode =
  | LetNode
  | BufferNode
  | SignalNode
  | IfNode
  | ForNode
  | CopyNode
  | SwapNode
  | FillNode
  | WhenNode
  | NotifyNode
  | EnsureNode;

export interface BufferNode extends At {
  readonly type: "buffer";
  readonly name: Leaf;
  readonly size: ExprNode;
  readonly rank: ExprNode | undefined;
}

export interface SignalNode extends At {
  readonly type: "signal";
  readonly name: Leaf;
  readonly rank: ExprNode | undefined;
  readonly thermometer: boolean;
}

export interface IfNode extends At {
  readonly type: "if";
  readonly cond: ExprNode;
  readonly then: BlockNode;
  readonly else: BlockNode | IfNode | undefined;
}

export interface ForNode extends At {
  readonly type: "for";
  readonly vars: readonly LoopVarNode[];
  readonly where: ExprNode | undefined;
  readonly body: BlockNode;
}

export interface LoopVarNode extends At {
  readonly type: "loop-var";
  readonly name: Leaf;
  /** `ranks`, or `from .. to [step s]`. */
  readonly range: Leaf | RangeNode;
}

export interface RangeNode extends At {
  readonly type: "range";
  readonly from: ExprNode;
  readonly to: ExprNode;
  readonly step: ExprNode | undefined;
}

export interface CopyNode extends At {
  readonly type: "copy";
  readonly src: RegionNode;
  readonly dsts: readonly RegionNode[];
  readonly placements: readonly PlacementNode[];
}

export interface SwapNode extends At {
  readonly type: "swap";
  readonly a: RegionNode;
  readonly b: RegionNode;
  readonly placements: readonly PlacementNode[];
}

export interface FillNode extends At {
  readonly type: "fill";
  readonly dst: RegionNode;
  readonly value: ExprNode;
  readonly placements: readonly PlacementNode[];
}

/** `on sdma(E)` or `by R`. */
export interface PlacementNode extends At {
  readonly type: "placement";
  readonly keyword: "on" | "by";
  readonly value: ExprNode;
}

export interface WhenNode extends At {
  readonly type: "when";
  readonly flag: RefNode;
  readonly op: string;
  readonly value: ExprNode;
  readonly body: BlockNode;
}

export interface NotifyNode extends At {
  readonly type: "notify";
  readonly flag: RefNode;
}

export interface EnsureNode extends At {
  readonly type: "ensure";
  readonly dst: RegionNode;
  readonly expected: RegionNode | ExprNode;
}

/** `name@rank`, a flag or a region, with an optional slice `[lo .. hi]` / `[lo +: len]`. */
export interface RegionNode extends At {
  readonly type: "region";
  readonly name: Leaf;
  readonly rank: ExprNode;
  readonly slice: SliceNode | undefined;
}

export type RefNode = RegionNode;

export interface SliceNode extends At {
  readonly type: "slice";
  readonly lo: ExprNode;
  readonly sep: ".." | "+:";
  readonly hi: ExprNode;
}

export type ExprNode = Leaf | ChainNode | UnaryNode | ParenNode | CallNode;

/** `a op b op c ...` exactly as written (operands.length === ops.length + 1). */
export interface ChainNode extends At {
  readonly type: "chain";
  readonly operands: readonly ExprNode[];
  readonly ops: readonly string[];
}

export interface UnaryNode extends At {
  readonly type: "unary";
  readonly op: string;
  readonly operand: ExprNode;
}

export interface ParenNode extends At {
  readonly type: "paren";
  readonly expr: ExprNode;
}

export interface CallNode extends At {
  readonly type: "call";
  readonly callee: Leaf;
  readonly args: readonly ExprNode[];
}

export type FmtNode =
  | ProgramNode
  | ItemNode
  | ParamNode
  | ImplementsNode
  | BlockNode
  | StmtNode
  | LoopVarNode
  | RangeNode
  | PlacementNode
  | RegionNode
  | SliceNode
  | ExprNode;

/** The child fields of every node type, in source order: prettier walks them to place comments. */
export const CHILD_KEYS: Readonly<Record<FmtNode["type"], readonly string[]>> = {
  program: ["items"],
  target: ["value"],
  let: ["name", "typeName", "value"],
  schedule: ["name", "params", "implements", "body"],
  param: ["name", "typeName", "value"],
  implements: ["collective", "args"],
  block: ["stmts"],
  buffer: ["name", "size", "rank"],
  signal: ["name", "rank"],
  if: ["cond", "then", "else"],
  for: ["vars", "where", "body"],
  "loop-var": ["name", "range"],
  range: ["from", "to", "step"],
  copy: ["src", "dsts", "placements"],
  swap: ["a", "b", "placements"],
  fill: ["dst", "value", "placements"],
  placement: ["value"],
  when: ["flag", "value", "body"],
  notify: ["flag"],
  ensure: ["dst", "expected"],
  region: ["name", "rank", "slice"],
  slice: ["lo", "hi"],
  leaf: [],
  chain: ["operands"],
  unary: ["operand"],
  paren: ["expr"],
  call: ["callee", "args"],
};

/** The CST of a file that parsed cleanly always has what its rule requires. */
function broken(message: string): never {
  throw new InternalError(message);
}

// ---- CST -> tree -------------------------------------------------------------------------------

function isNode(el: CstElement): el is CstNode {
  return "children" in el;
}

// First and last offsets of CST nodes, memoised: every tree node asks for its range, and without
// the cache a statement's range would be walked again for each node around it.
const starts = new WeakMap<CstNode, number>();
const ends = new WeakMap<CstNode, number>();

function startOf(el: CstElement): number {
  if (!isNode(el)) return el.startOffset;
  let min = starts.get(el);
  if (min !== undefined) return min;
  min = Infinity;
  for (const key in el.children) {
    const first = el.children[key]?.[0];
    if (first !== undefined) min = Math.min(min, startOf(first));
  }
  starts.set(el, min);
  return min;
}

function endOf(el: CstElement): number {
  if (!isNode(el)) return el.startOffset + el.image.length;
  let max = ends.get(el);
  if (max !== undefined) return max;
  max = -Infinity;
  for (const key in el.children) {
    const list = el.children[key];
    const last = list?.[list.length - 1];
    if (last !== undefined) max = Math.max(max, endOf(last));
  }
  ends.set(el, max);
  return max;
}

/** The child of a node that has exactly one (a statement, a type name, a literal). */
function onlyChild(n: CstNode): CstElement | undefined {
  for (const key in n.children) return n.children[key]?.[0];
  return undefined;
}

/** All children of a node in source order (chevrotain groups them by name). */
function elements(n: CstNode): CstElement[] {
  return Object.values(n.children)
    .flat()
    .sort((a, b) => startOf(a) - startOf(b));
}

function sub(n: CstNode, key: string, i = 0): CstNode {
  const el = n.children[key]?.[i];
  if (el === undefined || !isNode(el)) broken(`fmt: CST '${n.name}' has no ${key}[${i}]`);
  return el;
}

function optSub(n: CstNode, key: string, i = 0): CstNode | undefined {
  return n.children[key]?.[i] === undefined ? undefined : sub(n, key, i);
}

function subs(n: CstNode, key: string): CstNode[] {
  return (n.children[key] ?? []).filter(isNode);
}

function tok(n: CstNode, key: string, i = 0): IToken {
  const el = n.children[key]?.[i];
  if (el === undefined || isNode(el)) broken(`fmt: CST '${n.name}' has no token ${key}`);
  return el;
}

function optTok(n: CstNode, key: string): IToken | undefined {
  return n.children[key] === undefined ? undefined : tok(n, key);
}

function toks(n: CstNode, key: string): IToken[] {
  return (n.children[key] ?? []).filter((el): el is IToken => !isNode(el));
}

function leaf(t: IToken): Leaf {
  return { type: "leaf", text: t.image, start: t.startOffset, end: t.startOffset + t.image.length };
}

function range(n: CstNode): At {
  return { start: startOf(n), end: endOf(n) };
}

/** The tree of a `program` CST with no syntax errors. */
export function buildTree(cst: CstNode, textLength: number): ProgramNode {
  const items = elements(cst)
    .filter(isNode)
    .map((el) => item(el));
  return { type: "program", items, start: 0, end: textLength };
}

function item(n: CstNode): ItemNode {
  switch (n.name) {
    case "targetDecl":
      return {
        type: "target",
        value: leaf(optTok(n, "Identifier") ?? tok(n, "StringLiteral")),
        ...range(n),
      };
    case "constItem":
      return binding(n, "const");
    case "scheduleDecl":
      return schedule(n);
    default:
      return broken(`fmt: unexpected item '${n.name}'`);
  }
}

function binding(n: CstNode, keyword: "const" | "let"): LetNode {
  const b = sub(n, "binding");
  const t = optSub(b, "typeName");
  return {
    type: "let",
    keyword,
    name: leaf(tok(b, "Identifier")),
    typeName: t === undefined ? undefined : typeName(t),
    value: expression(sub(b, "expression")),
    ...range(n),
  };
}

function typeName(n: CstNode): Leaf {
  const t = onlyChild(n);
  if (t === undefined || isNode(t)) return broken("fmt: empty type name");
  return leaf(t);
}

function schedule(n: CstNode): ScheduleNode {
  const impl = optSub(n, "implementsClause");
  return {
    type: "schedule",
    name: leaf(tok(n, "Identifier")),
    params: subs(n, "param").map((p) => ({
      type: "param",
      name: leaf(tok(p, "Identifier")),
      typeName: typeName(sub(p, "typeName")),
      value: mapOpt(optSub(p, "expression"), expression),
      ...range(p),
    })),
    implements:
      impl === undefined
        ? undefined
        : {
            type: "implements",
            collective: leaf(tok(impl, "Identifier")),
            args: subs(impl, "expression").map(expression),
            ...range(impl),
          },
    body: block(sub(n, "block")),
    ...range(n),
  };
}

function block(n: CstNode): BlockNode {
  return { type: "block", stmts: subs(n, "statement").map(statement), ...range(n) };
}

function statement(wrapper: CstNode): StmtNode {
  const s = onlyChild(wrapper);
  if (s === undefined || !isNode(s)) return broken("fmt: empty statement");
  const at = range(s);
  switch (s.name) {
    case "letStmt":
      return binding(s, optTok(s, "Kw_const") !== undefined ? "const" : "let");
    case "bufferStmt":
      return {
        type: "buffer",
        name: leaf(tok(s, "Identifier")),
        size: expression(sub(s, "expression")),
        rank: mapOpt(optSub(s, "expression", 1), expression),
        ...at,
      };
    case "signalStmt":
      return {
        type: "signal",
        name: leaf(tok(s, "Identifier")),
        rank: mapOpt(optSub(s, "expression"), expression),
        thermometer: s.children["Kw_thermometer"] !== undefined,
        ...at,
      };
    case "ifStmt":
      return ifStmt(s);
    case "forStmt":
      return {
        type: "for",
        vars: subs(s, "loopVar").map(loopVar),
        where: mapOpt(optSub(s, "expression"), expression),
        body: block(sub(s, "block")),
        ...at,
      };
    case "copyStmt": {
      const [src, ...dsts] = subs(s, "region").map(region);
      if (src === undefined) return broken("fmt: copy without a source");
      return { type: "copy", src, dsts, placements: placements(s), ...at };
    }
    case "swapStmt":
      return {
        type: "swap",
        a: region(sub(s, "region", 0)),
        b: region(sub(s, "region", 1)),
        placements: placements(s),
        ...at,
      };
    case "fillStmt":
      return {
        type: "fill",
        dst: region(sub(s, "region")),
        value: expression(sub(s, "expression")),
        placements: placements(s),
        ...at,
      };
    case "whenStmt":
      return {
        type: "when",
        flag: region(sub(s, "flagRef")),
        op: tok(s, "CompareOp").image,
        value: expression(sub(s, "expression")),
        body: block(sub(s, "block")),
        ...at,
      };
    case "notifyStmt":
      return { type: "notify", flag: region(sub(s, "flagRef")), ...at };
    case "ensureStmt": {
      const rhs = optSub(s, "region", 1);
      return {
        type: "ensure",
        dst: region(sub(s, "region")),
        expected: rhs !== undefined ? region(rhs) : expression(sub(s, "expression")),
        ...at,
      };
    }
    default:
      return broken(`fmt: unexpected statement '${s.name}'`);
  }
}

function ifStmt(n: CstNode): IfNode {
  const elseIf = optSub(n, "ifStmt");
  const elseBlock = optSub(n, "block", 1);
  return {
    type: "if",
    cond: expression(sub(n, "expression")),
    then: block(sub(n, "block")),
    else: elseIf !== undefined ? ifStmt(elseIf) : mapOpt(elseBlock, block),
    ...range(n),
  };
}

function loopVar(n: CstNode): LoopVarNode {
  const r = sub(n, "loopRange");
  const ranks = optTok(r, "Kw_ranks");
  return {
    type: "loop-var",
    name: leaf(tok(n, "Identifier")),
    range:
      ranks !== undefined
        ? leaf(ranks)
        : {
            type: "range",
            from: expression(sub(r, "expression", 0)),
            to: expression(sub(r, "expression", 1)),
            step: mapOpt(optSub(r, "expression", 2), expression),
            ...range(r),
          },
    ...range(n),
  };
}

function placements(n: CstNode): PlacementNode[] {
  return subs(n, "placement").map((p) => ({
    type: "placement",
    keyword: optTok(p, "Kw_on") !== undefined ? "on" : "by",
    value: expression(sub(p, "expression")),
    ...range(p),
  }));
}

/** A `region` or `flagRef` CST. */
function region(n: CstNode): RegionNode {
  const open = optTok(n, "LBracket");
  return {
    type: "region",
    name: leaf(tok(n, "Identifier")),
    rank: primary(sub(n, "primary")),
    slice:
      open === undefined
        ? undefined
        : {
            type: "slice",
            lo: expression(sub(n, "expression", 0)),
            sep: optTok(n, "DotDot") !== undefined ? ".." : "+:",
            hi: expression(sub(n, "expression", 1)),
            start: open.startOffset,
            end: tok(n, "RBracket").startOffset + 1,
          },
    ...range(n),
  };
}

function expression(n: CstNode): ExprNode {
  const operands = subs(n, "unaryExpr").map(unaryExpr);
  const ops = toks(n, "BinaryOp").map((t) => t.image);
  const first = operands[0];
  if (first === undefined) return broken("fmt: empty expression");
  if (ops.length === 0) return first;
  return { type: "chain", operands, ops, ...range(n) };
}

/** Iterative over a run of prefix operators (`- - - x`), so a long run costs no stack. */
function unaryExpr(n: CstNode): ExprNode {
  const prefix: IToken[] = [];
  let cur = n;
  for (
    let inner = optSub(cur, "unaryExpr");
    inner !== undefined;
    inner = optSub(cur, "unaryExpr")
  ) {
    prefix.push(optTok(cur, "Minus") ?? tok(cur, "Bang"));
    cur = inner;
  }
  let out = primary(sub(cur, "primary"));
  for (let i = prefix.length - 1; i >= 0; i--) {
    const t = prefix[i]!;
    out = { type: "unary", op: t.image, operand: out, start: t.startOffset, end: out.end };
  }
  return out;
}

function primary(n: CstNode): ExprNode {
  const call = optSub(n, "call");
  if (call !== undefined) {
    return {
      type: "call",
      callee: leaf(optTok(call, "Kw_min") ?? tok(call, "Kw_max")),
      args: subs(call, "expression").map(expression),
      ...range(call),
    };
  }
  const inner = optSub(n, "expression");
  if (inner !== undefined) return { type: "paren", expr: expression(inner), ...range(n) };
  const t = onlyChild(n);
  if (t === undefined || isNode(t)) return broken("fmt: empty primary");
  return leaf(t);
}

function mapOpt<A, B>(a: A | undefined, f: (a: A) => B): B | undefined {
  return a === undefined ? undefined : f(a);
}
