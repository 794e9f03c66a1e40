// Names of one parsed file for the editor: every declaration (schedules, parameters, file-level
// constants, bindings, buffers, signals, loop variables) and every use, each use resolved to its
// declaration by the checker's scoping rules (src/check/check.ts, src/check/scope.ts):
//   - file-level constants are visible to later constants and to every schedule;
//   - parameters and the schedule body's top-level names are visible to the end of the schedule
//     (`implements` arguments are resolved after the body, so they see every top-level buffer);
//   - a binding is visible from the end of its statement to the end of its block; loop
//     variables in their `where` and body.
// The checker keeps its scopes to itself; this walk rebuilds them from the AST, which is also
// there (recovered) when the file has syntax errors, so outline and navigation keep working.

import type {
  Block,
  Expr,
  FlagRef,
  Item,
  LetStmt,
  Placement,
  Program,
  Region,
  ScheduleDecl,
  SignalEncoding,
  Stmt,
  TypeName,
} from "../frontend/ast.js";
import type { SymbolKind } from "../check/scope.js";
import type { Span } from "../source/source-file.js";
import { assertNever } from "../util/assert-never.js";

/** The checker's symbol kinds (src/check/scope.ts), and schedules. */
export type DeclKind = "schedule" | SymbolKind;

export interface Decl {
  readonly kind: DeclKind;
  readonly name: string;
  /** The declaring identifier. */
  readonly nameSpan: Span;
  /** The whole declaration (statement, parameter or schedule). */
  readonly span: Span;
  /** Where the name can be used; a use outside every one of these spans does not see it. */
  readonly visible: readonly Span[];
  /** The schedule it belongs to; undefined for file-level constants and schedules. */
  readonly schedule: ScheduleDecl | undefined;
  /** Inside a `for` body: its value differs per iteration. */
  readonly inLoop: boolean;
  /** Declared type (parameters, typed bindings; loop variables are int). */
  readonly type: TypeName | undefined;
  /** What gives it its value: a parameter's default, a binding's value, a buffer's size. */
  readonly value: Expr | undefined;
  /** Buffers and signals: `on RANK`. */
  readonly rank: Expr | undefined;
  /** Signals: what outside code stores to raise the flag (the hover states it). */
  readonly encoding?: SignalEncoding | undefined;
}

export interface Use {
  readonly name: string;
  readonly span: Span;
  readonly decl: Decl | undefined;
}

export interface SymbolIndex {
  readonly decls: readonly Decl[];
  readonly uses: readonly Use[];
}

interface Walk {
  readonly decls: Decl[];
  /** Uses, resolved where they occur (a name declared later in the same scope is not seen). */
  readonly uses: Use[];
}

interface Scope {
  readonly parent: Scope | undefined;
  readonly names: Map<string, Decl>;
  readonly schedule: ScheduleDecl | undefined;
  readonly inLoop: boolean;
  /** Where names declared in this scope stop being visible. */
  readonly end: number;
}

const contains = (s: Span, offset: number) => s.start <= offset && offset <= s.end;

export function indexSymbols(program: Program): SymbolIndex {
  const w: Walk = { decls: [], uses: [] };
  const end = program.span.end;
  const fileScope: Scope = {
    parent: undefined,
    names: new Map(),
    schedule: undefined,
    inLoop: false,
    end,
  };
  const schedules = program.items.filter((i): i is ScheduleDecl => i.kind === "schedule");
  const fileConsts: { item: Item; decl: LetStmt }[] = [];
  for (const item of program.items) {
    if (item.kind === "const-item") fileConsts.push({ item, decl: item.decl });
  }
  // File constants: visible after their declaration and in every schedule.
  for (const { decl } of fileConsts) {
    useExpr(w, decl.value, fileScope);
    declare(w, fileScope, {
      kind: "const",
      name: decl.name.name,
      nameSpan: decl.name.span,
      span: decl.span,
      visible: [{ start: decl.span.end, end }, ...schedules.map((s) => s.span)],
      schedule: undefined,
      inLoop: false,
      type: decl.type,
      value: decl.value,
      rank: undefined,
    });
  }
  for (const s of schedules) indexSchedule(w, fileScope, s);
  return { decls: w.decls, uses: w.uses };
}

function resolve(scope: Scope | undefined, name: string): Decl | undefined {
  for (let s = scope; s; s = s.parent) {
    const d = s.names.get(name);
    if (d) return d;
  }
  return undefined;
}

function use(w: Walk, name: string, span: Span, scope: Scope): void {
  w.uses.push({ name, span, decl: resolve(scope, name) });
}

function declare(w: Walk, scope: Scope, d: Decl): void {
  w.decls.push(d);
  // The first declaration wins, as in the checker (a duplicate is DMAC2002).
  if (!scope.names.has(d.name)) scope.names.set(d.name, d);
}

function child(scope: Scope, block: Span, inLoop = scope.inLoop): Scope {
  return { parent: scope, names: new Map(), schedule: scope.schedule, inLoop, end: block.end };
}

function indexSchedule(w: Walk, fileScope: Scope, s: ScheduleDecl): void {
  w.decls.push({
    kind: "schedule",
    name: s.name.name,
    nameSpan: s.name.span,
    span: s.span,
    visible: [],
    schedule: undefined,
    inLoop: false,
    type: undefined,
    value: undefined,
    rank: undefined,
  });
  const scope: Scope = { ...child(fileScope, s.span), schedule: s };
  for (const p of s.params) {
    if (p.default) useExpr(w, p.default, scope);
    declare(w, scope, {
      kind: "parameter",
      name: p.name.name,
      nameSpan: p.name.span,
      span: p.span,
      visible: [s.span],
      schedule: s,
      inLoop: false,
      type: p.type,
      value: p.default,
      rank: undefined,
    });
  }
  indexStmts(w, scope, s.body.stmts);
  for (const a of s.implements?.args ?? []) useExpr(w, a, scope);
}

function indexBlock(w: Walk, scope: Scope, b: Block, inLoop = scope.inLoop): void {
  indexStmts(w, child(scope, b.span, inLoop), b.stmts);
}

function indexStmts(w: Walk, scope: Scope, stmts: readonly Stmt[]): void {
  for (const s of stmts) indexStmt(w, scope, s);
}

function visibleAfter(scope: Scope, span: Span): Span[] {
  return [{ start: span.end, end: scope.end }];
}

function indexStmt(w: Walk, scope: Scope, s: Stmt): void {
  const base = { schedule: scope.schedule, inLoop: scope.inLoop, span: s.span };
  switch (s.kind) {
    case "let":
      useExpr(w, s.value, scope);
      declare(w, scope, {
        ...base,
        kind: s.keyword,
        name: s.name.name,
        nameSpan: s.name.span,
        visible: visibleAfter(scope, s.span),
        type: s.type,
        value: s.value,
        rank: undefined,
      });
      return;
    case "buffer":
    case "signal":
      if (s.kind === "buffer") useExpr(w, s.size, scope);
      if (s.rank) useExpr(w, s.rank, scope);
      declare(w, scope, {
        ...base,
        kind: s.kind,
        name: s.name.name,
        nameSpan: s.name.span,
        visible: visibleAfter(scope, s.span),
        type: undefined,
        value: s.kind === "buffer" ? s.size : undefined,
        rank: s.rank,
        encoding: s.kind === "signal" ? s.encoding : undefined,
      });
      return;
    case "if":
      useExpr(w, s.cond, scope);
      indexBlock(w, scope, s.then);
      if (s.else?.kind === "block") indexBlock(w, scope, s.else);
      else if (s.else) indexStmt(w, scope, s.else);
      return;
    case "for": {
      const loop = child(scope, s.span, true);
      for (const v of s.vars) {
        const r = v.range;
        if (r.kind === "range") {
          for (const e of [r.from, r.to, r.step]) if (e) useExpr(w, e, loop);
        } else if (r.kind === "expr") useExpr(w, r.expr, loop);
        declare(w, loop, {
          ...base,
          inLoop: true,
          kind: "loop-var",
          name: v.name.name,
          nameSpan: v.name.span,
          visible: [{ start: v.span.end, end: s.span.end }],
          type: "int",
          value: undefined,
          rank: undefined,
        });
      }
      if (s.where) useExpr(w, s.where, loop);
      indexBlock(w, loop, s.body, true);
      return;
    }
    case "copy":
      useRegion(w, s.src, scope);
      for (const d of s.dsts) useRegion(w, d, scope);
      usePlacement(w, s.placement, scope);
      return;
    case "swap":
      useRegion(w, s.a, scope);
      useRegion(w, s.b, scope);
      usePlacement(w, s.placement, scope);
      return;
    case "fill":
      useRegion(w, s.dst, scope);
      useExpr(w, s.value, scope);
      usePlacement(w, s.placement, scope);
      return;
    case "when":
      useFlag(w, s.flag, scope);
      useExpr(w, s.value, scope);
      indexBlock(w, scope, s.body);
      return;
    case "notify":
      useFlag(w, s.flag, scope);
      return;
    case "ensure":
      useRegion(w, s.dst, scope);
      if (s.expected.kind === "region") useRegion(w, s.expected, scope);
      else useExpr(w, s.expected, scope);
      return;
    default:
      assertNever(s, "statement");
  }
}

function useRegion(w: Walk, r: Region, scope: Scope): void {
  use(w, r.buffer.name, r.buffer.span, scope);
  useExpr(w, r.rank, scope);
  const sl = r.slice;
  if (sl?.kind === "range") {
    useExpr(w, sl.lo, scope);
    useExpr(w, sl.hi, scope);
  } else if (sl?.kind === "len") {
    useExpr(w, sl.lo, scope);
    useExpr(w, sl.len, scope);
  }
}

function useFlag(w: Walk, f: FlagRef, scope: Scope): void {
  use(w, f.signal.name, f.signal.span, scope);
  useExpr(w, f.rank, scope);
}

function usePlacement(w: Walk, placement: readonly Placement[], scope: Scope): void {
  for (const p of placement) useExpr(w, p.kind === "engine" ? p.engine : p.rank, scope);
}

/** Every name in `e`; iterative, so a long operator chain cannot overflow the stack. */
function useExpr(w: Walk, root: Expr, scope: Scope): void {
  const stack: Expr[] = [root];
  while (stack.length > 0) {
    const e = stack.pop()!;
    switch (e.kind) {
      case "name":
        use(w, e.name, e.span, scope);
        break;
      case "unary":
        stack.push(e.operand);
        break;
      case "binary":
        stack.push(e.left, e.right);
        break;
      case "call":
        stack.push(...e.args);
        break;
      case "int":
      case "size":
      case "bool":
      case "ranks":
      case "host":
        break;
      default:
        assertNever(e, "expression");
    }
  }
}

/** The declaration or use whose identifier covers `offset`. */
export function nameAt(
  index: SymbolIndex,
  offset: number,
): { readonly decl: Decl; readonly span: Span } | { readonly use: Use } | undefined {
  const decl = index.decls.find((d) => contains(d.nameSpan, offset));
  if (decl) return { decl, span: decl.nameSpan };
  const use = index.uses.find((u) => contains(u.span, offset));
  return use ? { use } : undefined;
}

/** The names visible at `offset` (for completion), innermost first, one per name. */
export function visibleAt(index: SymbolIndex, offset: number): Decl[] {
  const seen = new Map<string, Decl>();
  const width = (d: Decl) => Math.min(...d.visible.map((v) => v.end - v.start));
  const candidates = index.decls
    .filter((d) => d.visible.some((v) => contains(v, offset)))
    .sort((a, b) => width(a) - width(b));
  for (const d of candidates) if (!seen.has(d.name)) seen.set(d.name, d);
  return [...seen.values()];
}
