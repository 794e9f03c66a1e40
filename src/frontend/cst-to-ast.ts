// CST -> AST. The only module that sees chevrotain's CST (children keyed by rule and token names)
// and its inclusive `endOffset`; everything it returns uses half-open spans.
//
// After error recovery the CST may be partial: nodes marked `recoveredNode`, children missing,
// tokens inserted by the parser (no position). Converting such a part throws the private
// `Broken` signal, which the nearest statement or item catches: that statement or item is left
// out, so the AST never holds `undefined` where its type forbids it. The parser has already
// reported the syntax error, so skipping is silent.

import type { CstElement, CstNode, IToken } from "chevrotain";
import type {
  BinaryOp,
  Block,
  CompareOp,
  EnsureStmt,
  Expr,
  FlagRef,
  ForStmt,
  Ident,
  IfStmt,
  Implements,
  Item,
  LetStmt,
  LoopRange,
  LoopVar,
  Param,
  Placement,
  Program,
  Region,
  ScheduleDecl,
  Stmt,
  TypeName,
} from "./ast.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { SourceFile, Span } from "../source/source-file.js";
import type { DocComment } from "./lexer.js";
import { literalValue } from "./lexer.js";

/** Thrown inside this module only, for a part of the CST that error recovery left incomplete. */
class Broken {}

interface Ctx {
  readonly file: SourceFile;
  readonly diagnostics: Diagnostic[];
}

export function cstToProgram(
  file: SourceFile,
  cst: CstNode,
  docComments: readonly DocComment[],
): { program: Program; diagnostics: Diagnostic[] } {
  const ctx: Ctx = { file, diagnostics: [] };
  const docs = docAttacher(file.text, docComments);
  const items: Item[] = [];
  for (const el of elements(cst)) {
    if (!isNode(el)) continue; // `;`
    const item = guard(() => convertItem(ctx, el, docs));
    if (item !== undefined) items.push(item);
  }
  checkTargetPlacement(ctx, items);
  return {
    program: { kind: "program", items, span: { start: 0, end: file.text.length } },
    diagnostics: ctx.diagnostics,
  };
}

/** The expression of an `expressionOnly` CST, or undefined if recovery left it incomplete. */
export function cstToExpr(
  file: SourceFile,
  cst: CstNode,
): { expr: Expr | undefined; diagnostics: Diagnostic[] } {
  const ctx: Ctx = { file, diagnostics: [] };
  const expr = guard(() => expression(ctx, sub(cst, "expression")));
  return { expr, diagnostics: ctx.diagnostics };
}

// ---- CST access --------------------------------------------------------------------------------

function guard<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch (e) {
    if (e instanceof Broken) return undefined;
    throw e;
  }
}

function isNode(el: CstElement): el is CstNode {
  return "children" in el;
}

/** All children of a node in source order (chevrotain groups them by name). */
function elements(node: CstNode): CstElement[] {
  const all = Object.values(node.children).flat();
  return all.sort((a, b) => startOf(a) - startOf(b));
}

/** The first child of a node that has exactly one kind of child (no allocation: hot path). */
function firstChild(n: CstNode): CstElement | undefined {
  for (const key in n.children) return n.children[key]?.[0];
  return undefined;
}

function startOf(el: CstElement): number {
  if (!isNode(el)) return Number.isNaN(el.startOffset) ? Infinity : el.startOffset;
  let min = Infinity;
  for (const list of Object.values(el.children)) {
    const first = list[0];
    if (first !== undefined) min = Math.min(min, startOf(first));
  }
  return min;
}

function node(n: CstNode): CstNode {
  if (n.recoveredNode === true) throw new Broken();
  return n;
}

function sub(n: CstNode, key: string, i = 0): CstNode {
  const el = n.children[key]?.[i];
  if (el === undefined || !isNode(el)) throw new Broken();
  return node(el);
}

function optSub(n: CstNode, key: string, i = 0): CstNode | undefined {
  return n.children[key]?.[i] === undefined ? undefined : sub(n, key, i);
}

function subs(n: CstNode, key: string): CstNode[] {
  return (n.children[key] ?? []).map((el) => {
    if (!isNode(el)) throw new Broken();
    return node(el);
  });
}

function tok(n: CstNode, key: string, i = 0): IToken {
  const el = n.children[key]?.[i];
  if (el === undefined || isNode(el)) throw new Broken();
  return checkToken(el);
}

function optTok(n: CstNode, key: string): IToken | undefined {
  return n.children[key] === undefined ? undefined : tok(n, key);
}

function toks(n: CstNode, key: string): IToken[] {
  return (n.children[key] ?? []).map((el) => {
    if (isNode(el)) throw new Broken();
    return checkToken(el);
  });
}

function checkToken(t: IToken): IToken {
  if (t.isInsertedInRecovery === true || Number.isNaN(t.startOffset)) throw new Broken();
  return t;
}

/** chevrotain's endOffset is inclusive; ours is not. This is the one place that converts. */
function tokSpan(t: IToken): Span {
  return { start: t.startOffset, end: t.startOffset + t.image.length };
}

function from(a: { readonly span: Span } | IToken, b: { readonly span: Span } | IToken): Span {
  const s = "span" in a ? a.span.start : a.startOffset;
  const e = "span" in b ? b.span.end : b.startOffset + b.image.length;
  return { start: s, end: e };
}

function ident(t: IToken): Ident {
  return { name: t.image, span: tokSpan(t) };
}

// ---- items -------------------------------------------------------------------------------------

function convertItem(ctx: Ctx, n: CstNode, docs: DocAttacher): Item {
  switch (n.name) {
    case "targetDecl":
      return targetDecl(n);
    case "constItem": {
      const decl = binding(ctx, node(n), tok(n, "Kw_const"), "const");
      return { kind: "const-item", decl, span: decl.span };
    }
    case "scheduleDecl":
      return scheduleDecl(ctx, node(n), docs);
    default:
      throw new Broken();
  }
}

function targetDecl(n: CstNode): Item {
  node(n);
  const kw = tok(n, "Kw_target");
  const name = optTok(n, "Identifier");
  const str = optTok(n, "StringLiteral");
  const last = name ?? str;
  if (last === undefined) throw new Broken();
  return {
    kind: "target",
    name: name === undefined ? undefined : ident(name),
    path: str === undefined ? undefined : { value: unquote(str.image), span: tokSpan(str) },
    span: from(kw, last),
  };
}

function unquote(image: string): string {
  return image
    .slice(1, -1)
    .replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c === "t" ? "\t" : c));
}

function scheduleDecl(ctx: Ctx, n: CstNode, docs: DocAttacher): ScheduleDecl {
  const kw = tok(n, "Kw_schedule");
  const name = ident(tok(n, "Identifier"));
  tok(n, "RParen");
  const params = subs(n, "param").map((p) => param(ctx, p));
  const implNode = optSub(n, "implementsClause");
  const body = block(ctx, sub(n, "block"));
  return {
    kind: "schedule",
    doc: docs.docFor(kw.startOffset),
    name,
    params,
    implements: implNode === undefined ? undefined : implementsClause(ctx, implNode),
    body,
    span: from(kw, body),
  };
}

function param(ctx: Ctx, n: CstNode): Param {
  const name = tok(n, "Identifier");
  const t = typeName(sub(n, "typeName"));
  const dflt = optSub(n, "expression");
  const value = dflt === undefined ? undefined : expression(ctx, dflt);
  return {
    name: ident(name),
    type: t.type,
    typeSpan: t.span,
    default: value,
    span: from(name, value ?? { span: t.span }),
  };
}

function typeName(n: CstNode): { type: TypeName; span: Span } {
  const t = optTok(n, "Kw_int") ?? optTok(n, "Kw_bytes") ?? optTok(n, "Kw_bool");
  if (t === undefined) throw new Broken();
  return { type: t.image as TypeName, span: tokSpan(t) };
}

function implementsClause(ctx: Ctx, n: CstNode): Implements {
  const kw = tok(n, "Kw_implements");
  return {
    collective: ident(tok(n, "Identifier")),
    args: subs(n, "expression").map((e) => expression(ctx, e)),
    span: from(kw, tok(n, "RParen")),
  };
}

/** A file has at most one target, before the first schedule (DMAC1014). */
function checkTargetPlacement(ctx: Ctx, items: readonly Item[]): void {
  let firstTarget: Item | undefined;
  let firstSchedule: Item | undefined;
  for (const item of items) {
    if (item.kind === "schedule") firstSchedule ??= item;
    if (item.kind !== "target") continue;
    const at = { file: ctx.file, span: item.span };
    if (firstTarget !== undefined) {
      ctx.diagnostics.push(
        diag("DMAC1014", at, ["only one 'target' declaration is allowed"], {
          related: [{ message: "the first target is here", span: firstTarget.span }],
        }),
      );
    } else if (firstSchedule !== undefined) {
      ctx.diagnostics.push(
        diag("DMAC1014", at, ["'target' must come before the first schedule"], {
          hint: "move the target declaration to the top of the file",
          related: [{ message: "the first schedule is here", span: firstSchedule.span }],
        }),
      );
    }
    firstTarget ??= item;
  }
}

// ---- statements --------------------------------------------------------------------------------

function block(ctx: Ctx, n: CstNode): Block {
  const open = tok(n, "LBrace");
  const close = tok(n, "RBrace");
  const stmts: Stmt[] = [];
  for (const s of n.children["statement"] ?? []) {
    if (!isNode(s)) continue;
    const stmt = guard(() => statement(ctx, node(s)));
    if (stmt !== undefined) stmts.push(stmt);
  }
  return { kind: "block", stmts, span: from(open, close) };
}

function statement(ctx: Ctx, n: CstNode): Stmt {
  const inner = firstChild(n);
  if (inner === undefined || !isNode(inner)) throw new Broken();
  const s = node(inner);
  switch (s.name) {
    case "letStmt": {
      const kw = optTok(s, "Kw_const") ?? tok(s, "Kw_let");
      return binding(ctx, s, kw, kw.image as "const" | "let");
    }
    case "bufferStmt": {
      const kw = tok(s, "Kw_buffer");
      tok(s, "Colon");
      const size = expression(ctx, sub(s, "expression"));
      const rankNode = optSub(s, "expression", 1);
      const rank = rankNode === undefined ? undefined : expression(ctx, rankNode);
      if (rankNode === undefined && s.children["Kw_on"] !== undefined) throw new Broken();
      return {
        kind: "buffer",
        name: ident(tok(s, "Identifier")),
        size,
        rank,
        span: from(kw, rank ?? size),
      };
    }
    case "signalStmt": {
      const kw = tok(s, "Kw_signal");
      const name = tok(s, "Identifier");
      const rankNode = optSub(s, "expression");
      const rank = rankNode === undefined ? undefined : expression(ctx, rankNode);
      if (rankNode === undefined && s.children["Kw_on"] !== undefined) throw new Broken();
      const thermometer = optTok(s, "Kw_thermometer");
      return {
        kind: "signal",
        name: ident(name),
        rank,
        encoding: thermometer ? "thermometer" : "count",
        span: from(kw, thermometer ?? rank ?? name),
      };
    }
    case "ifStmt":
      return ifStmt(ctx, s);
    case "forStmt":
      return forStmt(ctx, s);
    case "copyStmt": {
      const kw = tok(s, "Kw_copy");
      tok(s, "Arrow");
      const regions = subs(s, "region").map((r) => region(ctx, r));
      const [src, ...dsts] = regions;
      if (src === undefined || dsts.length === 0) throw new Broken();
      const placement = placements(ctx, s);
      return {
        kind: "copy",
        src,
        dsts,
        placement,
        span: from(kw, placement.at(-1) ?? dsts[dsts.length - 1]!),
      };
    }
    case "swapStmt": {
      const kw = tok(s, "Kw_swap");
      tok(s, "SwapArrow");
      const a = region(ctx, sub(s, "region", 0));
      const b = region(ctx, sub(s, "region", 1));
      const placement = placements(ctx, s);
      return { kind: "swap", a, b, placement, span: from(kw, placement.at(-1) ?? b) };
    }
    case "fillStmt": {
      const kw = tok(s, "Kw_fill");
      tok(s, "Kw_with");
      const dst = region(ctx, sub(s, "region"));
      const value = expression(ctx, sub(s, "expression"));
      const placement = placements(ctx, s);
      return { kind: "fill", dst, value, placement, span: from(kw, placement.at(-1) ?? value) };
    }
    case "whenStmt": {
      const kw = tok(s, "Kw_when");
      const flag = flagRef(ctx, sub(s, "flagRef"));
      const op = (optTok(s, "CompareOp")?.image ??
        assignForCompare(ctx, tok(s, "Eq"))) as CompareOp;
      const value = expression(ctx, sub(s, "expression"));
      const body = block(ctx, sub(s, "block"));
      return { kind: "when", flag, op, value, body, span: from(kw, body) };
    }
    case "notifyStmt": {
      const kw = tok(s, "Kw_notify");
      const flag = flagRef(ctx, sub(s, "flagRef"));
      return { kind: "notify", flag, span: from(kw, flag) };
    }
    case "ensureStmt":
      return ensureStmt(ctx, s);
    default:
      throw new Broken();
  }
}

function binding(ctx: Ctx, n: CstNode, kw: IToken, keyword: "const" | "let"): LetStmt {
  const b = sub(n, "binding");
  tok(b, "Eq");
  const typeNode = optSub(b, "typeName");
  const value = expression(ctx, sub(b, "expression"));
  return {
    kind: "let",
    keyword,
    name: ident(tok(b, "Identifier")),
    type: typeNode === undefined ? undefined : typeName(typeNode).type,
    value,
    span: from(kw, value),
  };
}

function ifStmt(ctx: Ctx, n: CstNode): IfStmt {
  const kw = tok(n, "Kw_if");
  const cond = expression(ctx, sub(n, "expression"));
  const then = block(ctx, sub(n, "block"));
  let otherwise: Block | IfStmt | undefined;
  if (n.children["Kw_else"] !== undefined) {
    const elseIf = optSub(n, "ifStmt");
    otherwise = elseIf !== undefined ? ifStmt(ctx, elseIf) : block(ctx, sub(n, "block", 1));
  }
  return { kind: "if", cond, then, else: otherwise, span: from(kw, otherwise ?? then) };
}

function forStmt(ctx: Ctx, n: CstNode): ForStmt {
  const kw = tok(n, "Kw_for");
  const vars = subs(n, "loopVar").map((v) => loopVar(ctx, v));
  const whereNode = optSub(n, "expression");
  if (whereNode === undefined && n.children["Kw_where"] !== undefined) throw new Broken();
  const body = block(ctx, sub(n, "block"));
  if (vars.length === 0) throw new Broken();
  return {
    kind: "for",
    vars,
    where: whereNode === undefined ? undefined : expression(ctx, whereNode),
    body,
    span: from(kw, body),
  };
}

function loopVar(ctx: Ctx, n: CstNode): LoopVar {
  const name = tok(n, "Identifier");
  tok(n, "Kw_in");
  const r = sub(n, "loopRange");
  let range: LoopRange;
  const ranks = optTok(r, "Kw_ranks");
  if (ranks !== undefined) {
    range = { kind: "ranks", span: tokSpan(ranks) };
  } else {
    tok(r, "DotDot");
    const fromE = expression(ctx, sub(r, "expression", 0));
    const to = expression(ctx, sub(r, "expression", 1));
    const stepNode = optSub(r, "expression", 2);
    if (stepNode === undefined && r.children["Kw_step"] !== undefined) throw new Broken();
    const step = stepNode === undefined ? undefined : expression(ctx, stepNode);
    range = { kind: "range", from: fromE, to, step, span: from(fromE, step ?? to) };
  }
  return { name: ident(name), range, span: from(name, range) };
}

function placements(ctx: Ctx, n: CstNode): Placement[] {
  return subs(n, "placement").map((p): Placement => {
    const on = optTok(p, "Kw_on");
    if (on !== undefined) {
      tok(p, "Kw_sdma");
      const engine = expression(ctx, sub(p, "expression"));
      return { kind: "engine", engine, span: from(on, tok(p, "RParen")) };
    }
    const by = tok(p, "Kw_by");
    const rank = expression(ctx, sub(p, "expression"));
    return { kind: "driver", rank, span: from(by, rank) };
  });
}

function ensureStmt(ctx: Ctx, n: CstNode): EnsureStmt {
  const kw = tok(n, "Kw_ensure");
  if (optTok(n, "EqEq") === undefined) assignForCompare(ctx, tok(n, "Eq"));
  const dst = region(ctx, sub(n, "region", 0));
  const rhsRegion = optSub(n, "region", 1);
  const expected =
    rhsRegion !== undefined ? region(ctx, rhsRegion) : expression(ctx, sub(n, "expression"));
  return { kind: "ensure", dst, expected, span: from(kw, expected) };
}

function flagRef(ctx: Ctx, n: CstNode): FlagRef {
  const name = tok(n, "Identifier");
  tok(n, "At");
  const rank = primary(ctx, sub(n, "primary"));
  return { signal: ident(name), rank, span: from(name, rank) };
}

function region(ctx: Ctx, n: CstNode): Region {
  const name = tok(n, "Identifier");
  tok(n, "At");
  const rank = primary(ctx, sub(n, "primary"));
  let slice: Region["slice"];
  const open = optTok(n, "LBracket");
  if (open !== undefined) {
    const close = tok(n, "RBracket");
    const lo = expression(ctx, sub(n, "expression", 0));
    const second = expression(ctx, sub(n, "expression", 1));
    const span = from(open, close);
    if (optTok(n, "DotDot") !== undefined) slice = { kind: "range", lo, hi: second, span };
    else {
      tok(n, "PlusColon");
      slice = { kind: "len", lo, len: second, span };
    }
  }
  return {
    kind: "region",
    buffer: ident(name),
    rank,
    slice,
    span: from(name, slice ?? rank),
  };
}

// ---- expressions -------------------------------------------------------------------------------

/**
 * Binding strength of the binary operators (higher binds tighter); all are left-associative
 * except comparisons, which do not associate. The parser reads `operand (op operand)*` flat.
 */
export const BINARY_PRECEDENCE = {
  "||": 1,
  "&&": 2,
  "==": 3,
  "!=": 3,
  "<": 3,
  "<=": 3,
  ">": 3,
  ">=": 3,
  "+": 4,
  "-": 4,
  "*": 5,
  "/": 5,
  "%": 5,
} as const satisfies Record<BinaryOp, number>;

const COMPARISON = 3;

/** Operator precedence over the flat list (shunting-yard: iterative, linear, no recursion). */
function expression(ctx: Ctx, n: CstNode): Expr {
  const operands = subs(n, "unaryExpr");
  const ops = operators(ctx, n);
  if (operands.length !== ops.length + 1) throw new Broken();
  const values: Expr[] = [unaryExpr(ctx, operands[0]!)];
  const pending: IToken[] = [];
  const reduce = (): void => {
    const op = pending.pop()!;
    const right = values.pop()!;
    const left = values.pop()!;
    values.push({
      kind: "binary",
      op: op.image as BinaryOp,
      left,
      right,
      span: from(left, right),
    });
  };
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    const prec = BINARY_PRECEDENCE[op.image as BinaryOp];
    while (pending.length > 0) {
      const top = BINARY_PRECEDENCE[pending[pending.length - 1]!.image as BinaryOp];
      if (top < prec) break;
      if (top === COMPARISON && prec === COMPARISON) chainedComparison(ctx, op);
      reduce();
    }
    pending.push(op);
    values.push(unaryExpr(ctx, operands[i + 1]!));
  }
  while (pending.length > 0) reduce();
  return values[0]!;
}

/**
 * The operator tokens of a flat expression, in source order. A `=` (the parser's error
 * production for `==`) is reported and stands for `==`, so the rest of the file is checked as
 * meant.
 */
function operators(ctx: Ctx, n: CstNode): IToken[] {
  const eqs = toks(n, "Eq");
  const ops = toks(n, "BinaryOp");
  if (eqs.length === 0) return ops;
  for (const eq of eqs) assignForCompare(ctx, eq);
  const asCompare = eqs.map((eq) => ({ ...eq, image: "==" }));
  return [...ops, ...asCompare].sort((a, b) => a.startOffset - b.startOffset);
}

/**
 * DMAC1010 for `=` where a comparison belongs, with the fix `==`; returns the meant operator.
 * `=>` and `=<` are `>=` and `<=` typed backwards (`when f@0 => 1`): the fix swaps them, since
 * `==>` would be worse.
 */
function assignForCompare(ctx: Ctx, eq: IToken): "==" {
  const span = tokSpan(eq);
  const next = ctx.file.text[span.end];
  const swapped = next === ">" || next === "<" ? `${next}=` : undefined;
  const fix = swapped
    ? { span: { start: span.start, end: span.end + 1 }, replacement: swapped }
    : { span, replacement: "==" };
  ctx.diagnostics.push(
    diag("DMAC1010", { file: ctx.file, span }, ["a comparison such as '=='", "'='"], {
      hint: swapped
        ? `write '${swapped}': the '=' comes second`
        : "compare with '=='; a single '=' only gives a name its value",
      fix,
    }),
  );
  return "==";
}

function chainedComparison(ctx: Ctx, op: IToken): never {
  ctx.diagnostics.push(
    diag(
      "DMAC1010",
      { file: ctx.file, span: tokSpan(op) },
      ["'&&' or '||' between two comparisons", `'${op.image}'`],
      { hint: "comparisons do not chain: write `a < b && b < c`" },
    ),
  );
  throw new Broken();
}

function unaryExpr(ctx: Ctx, n: CstNode): Expr {
  const p = optSub(n, "primary");
  if (p !== undefined) return primary(ctx, p);
  const opTok = optTok(n, "Minus") ?? tok(n, "Bang");
  const operand = unaryExpr(ctx, sub(n, "unaryExpr"));
  return { kind: "unary", op: opTok.image as "-" | "!", operand, span: from(opTok, operand) };
}

function primary(ctx: Ctx, n: CstNode): Expr {
  const call = optSub(n, "call");
  if (call !== undefined) {
    const callee = optTok(call, "Kw_min") ?? tok(call, "Kw_max");
    return {
      kind: "call",
      callee: ident(callee),
      args: subs(call, "expression").map((e) => expression(ctx, e)),
      span: from(callee, tok(call, "RParen")),
    };
  }
  const first = n.children["LParen"]?.[0] ?? firstChild(n);
  if (first === undefined || isNode(first)) throw new Broken();
  const t = checkToken(first);
  const span = tokSpan(t);
  switch (t.tokenType.name) {
    case "IntLiteral":
    case "HexLiteral": {
      const value = literalValue(t.image);
      if (value === undefined) throw new Broken(); // DMAC1004 already reported by the lexer
      return { kind: "int", value, span };
    }
    case "SizeLiteral": {
      const value = literalValue(t.image);
      if (value === undefined) throw new Broken();
      return { kind: "size", value, text: t.image, span };
    }
    case "Kw_true":
      return { kind: "bool", value: true, span };
    case "Kw_false":
      return { kind: "bool", value: false, span };
    case "Kw_ranks":
      return { kind: "ranks", span };
    case "Kw_host":
      return { kind: "host", span };
    case "Identifier":
      return { kind: "name", name: t.image, span };
    case "LParen": {
      // Widen the inner expression's span over the parentheses so diagnostics show them.
      const inner = expression(ctx, sub(n, "expression"));
      return { ...inner, span: from(t, tok(n, "RParen")) };
    }
    default:
      throw new Broken();
  }
}

// ---- doc comments ------------------------------------------------------------------------------

/**
 * Attaches `///` lines to the schedule right below them: the block of doc comments separated from
 * the `schedule` keyword, and from each other, by whitespace only. Schedules are asked in source
 * order, so one forward pointer suffices.
 */
interface DocAttacher {
  docFor(scheduleStart: number): string;
}

function docAttacher(text: string, docs: readonly DocComment[]): DocAttacher {
  let next = 0;
  const blank = (start: number, end: number): boolean => {
    for (let k = start; k < end; k++) {
      const c = text.charCodeAt(k);
      if (c !== 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12 && c !== 11) return false;
    }
    return true;
  };
  return {
    docFor(scheduleStart) {
      while (next < docs.length && docs[next]!.span.end <= scheduleStart) next++;
      const lines: string[] = [];
      let end = scheduleStart;
      for (let i = next - 1; i >= 0; i--) {
        const d = docs[i]!;
        if (!blank(d.span.end, end)) break;
        lines.push(d.text);
        end = d.span.start;
      }
      return lines.reverse().join("\n");
    },
  };
}
