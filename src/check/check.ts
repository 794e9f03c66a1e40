// The checker: names, scopes and types of a parsed program, checked symbolically (without
// instantiating loops). Entry point: checkProgram(file, program, options).
//
// Contract: every schedule in the file is checked; a CheckedSchedule is returned for each
// *selected* schedule (options.schedule, or all of them) that has no errors and no file-level
// errors, with its parameter values resolved (default or -D) and the type of every expression
// node recorded (buffer names given as `implements` arguments are not expressions of a type and
// are absent). Checks that need concrete values (bounds, ranks, engines) belong to instantiation.

import type {
  Block,
  Expr,
  FlagRef,
  ForStmt,
  Implements,
  LetStmt,
  Placement,
  Program,
  Region,
  ScheduleDecl,
  SignalEncoding,
  Stmt,
  TypeName,
} from "../frontend/ast.js";
import type { SourceFile } from "../source/source-file.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { COLLECTIVES, isCollectiveName } from "./collectives.js";
import type { Target } from "../target/target.js";
import { assertNever } from "../util/assert-never.js";
import type { CheckedSchedule, CheckOptions, Value } from "./checked.js";
import { evaluateDefine } from "./defines.js";
import { expectType, typeExpr, type ExprContext } from "./expr-types.js";
import { resolveTarget } from "./resolve-target.js";
import {
  closeScope,
  declare,
  lookup,
  newScope,
  SYMBOL_LABEL,
  visibleNames,
  type Scope,
  type Sym,
} from "./scope.js";
import { didYouMean, nameSuggestion } from "../diagnostics/suggest.js";
import { pushAll } from "../util/arrays.js";

export { selectSchedule } from "./select-schedule.js";

export interface CheckResult {
  readonly diagnostics: Diagnostic[];
  readonly schedules: CheckedSchedule[];
}

interface Ctx extends ExprContext {
  /** True directly in a schedule body (where buffers and signals may be declared). */
  readonly topLevel: boolean;
}

/** Whether `ds` has an error from index `from` on (only the new ones are looked at: linear). */
const errorsSince = (ds: readonly Diagnostic[], from: number): boolean => {
  for (let i = from; i < ds.length; i++) if (ds[i]!.severity === "error") return true;
  return false;
};

export function checkProgram(
  file: SourceFile,
  program: Program,
  options: CheckOptions,
): CheckResult {
  const diagnostics: Diagnostic[] = [];
  const { target } = resolveTarget(file, program, options, diagnostics);
  const ranks = target.gpus;

  // File level: constants (visible in every schedule, in declaration order) and schedule names.
  const fileScope = newScope(undefined);
  const fileTypes = new Map<Expr, TypeName>();
  const fileCtx: Ctx = {
    file,
    scope: fileScope,
    types: fileTypes,
    diagnostics,
    ranks,
    topLevel: false,
  };
  const decls: ScheduleDecl[] = [];
  const byName = new Map<string, ScheduleDecl>();
  for (const item of program.items) {
    switch (item.kind) {
      case "target":
        break;
      case "const-item":
        checkLet(fileCtx, item.decl);
        break;
      case "schedule": {
        const first = byName.get(item.name.name);
        if (first) {
          diagnostics.push(
            diag("DMAC2002", { file, span: item.name.span }, [item.name.name], {
              related: [
                {
                  message: `schedule '${first.name.name}' is first declared here`,
                  file,
                  span: first.name.span,
                },
              ],
            }),
          );
        } else byName.set(item.name.name, item);
        decls.push(item);
        break;
      }
      default:
        assertNever(item, "item");
    }
  }
  if (decls.length === 0) {
    diagnostics.push(
      diag("DMAC2014", { file, span: { start: 0, end: 0 } }, [], {
        hint: "declare one with 'schedule NAME() { ... }'",
      }),
    );
    closeScope(file, fileScope, diagnostics);
    return { diagnostics, schedules: [] };
  }

  let selected: readonly ScheduleDecl[] = decls;
  if (options.schedule !== undefined) {
    const chosen = byName.get(options.schedule);
    if (!chosen) {
      diagnostics.push(
        diag("DMAC2020", undefined, [options.schedule], {
          hint:
            didYouMean(options.schedule, byName.keys()) ??
            `the file declares: ${[...byName.keys()].join(", ")}`,
        }),
      );
    }
    selected = chosen ? [chosen] : [];
  }

  // -D names must belong to at least one selected schedule.
  for (const name of Object.keys(options.defines)) {
    if (selected.some((s) => s.params.some((p) => p.name.name === name))) continue;
    if (selected.length === 0) continue; // DMAC2020 already explains
    const params = selected.flatMap((s) => s.params.map((p) => p.name.name));
    diagnostics.push(
      diag("DMAC2009", undefined, [name, selected.map((s) => s.name.name).join("' or '")], {
        hint:
          didYouMean(name, params) ??
          (params.length
            ? `the parameters are: ${[...new Set(params)].join(", ")}`
            : "the schedule has no parameters"),
      }),
    );
  }
  const fileErrors = errorsSince(diagnostics, 0);

  const schedules: CheckedSchedule[] = [];
  const chosen = new Set(selected);
  for (const decl of decls) {
    const isSelected = chosen.has(decl);
    const checked = checkSchedule(fileCtx, program, decl, target, options, isSelected);
    if (checked && isSelected) schedules.push(checked);
  }
  closeScope(file, fileScope, diagnostics);
  return { diagnostics, schedules: fileErrors ? [] : schedules };
}

function checkSchedule(
  fileCtx: Ctx,
  program: Program,
  decl: ScheduleDecl,
  target: Target,
  options: CheckOptions,
  isSelected: boolean,
): CheckedSchedule | undefined {
  const { file, diagnostics } = fileCtx;
  const before = diagnostics.length;
  const scope = newScope(fileCtx.scope);
  // One map of types for the whole file: every expression node is typed once, so the schedules
  // can share it (a copy of the file's types per schedule was quadratic in a file of many).
  const ctx: Ctx = { ...fileCtx, scope, topLevel: true };

  // Parameters: defaults may use earlier parameters, so their values are visible while defaults
  // are checked, then hidden again: the body is checked for every value of the parameters.
  const params: { name: string; type: TypeName; value: Value | undefined }[] = [];
  const paramSyms: Sym[] = [];
  for (const p of decl.params) {
    let value: Value | undefined;
    if (p.default) {
      const t = expectType(ctx, p.default, p.type);
      if (t.type !== undefined && t.value === undefined) {
        diagnostics.push(
          diag("DMAC2022", { file, span: p.default.span }, [p.name.name], {
            hint: "use literals, ranks, file-level constants and earlier parameters",
          }),
        );
      }
      value = t.value;
    }
    const text = Object.hasOwn(options.defines, p.name.name)
      ? options.defines[p.name.name]
      : undefined;
    if (isSelected && text !== undefined) {
      const r = evaluateDefine(p.name.name, text, p.type, fileCtx.scope, fileCtx.ranks);
      pushAll(diagnostics, r.diagnostics);
      value = r.value;
    } else if (isSelected && !p.default) {
      diagnostics.push(diag("DMAC2016", { file, span: p.name.span }, [p.name.name]));
    }
    const sym: Sym = {
      kind: "parameter",
      name: p.name.name,
      span: p.name.span,
      type: p.type,
      value,
      used: false,
    };
    declare(file, scope, sym, diagnostics);
    paramSyms.push(sym);
    params.push({ name: p.name.name, type: p.type, value });
  }
  for (const sym of paramSyms) sym.value = undefined;

  checkStmts(ctx, decl.body.stmts);
  if (decl.implements) checkImplements(ctx, decl.implements);
  closeScope(file, scope, diagnostics);

  if (errorsSince(diagnostics, before)) return undefined;
  const resolved: { name: string; type: TypeName; value: Value }[] = [];
  for (const p of params) {
    if (p.value === undefined) return undefined;
    resolved.push({ name: p.name, type: p.type, value: p.value });
  }
  return { file, program, schedule: decl, target, params: resolved, types: ctx.types };
}

function inner(ctx: Ctx, scope: Scope = newScope(ctx.scope)): Ctx {
  return { ...ctx, scope, topLevel: false };
}

function checkBlock(ctx: Ctx, block: Block): void {
  const c = inner(ctx);
  checkStmts(c, block.stmts);
  closeScope(c.file, c.scope, c.diagnostics);
}

function checkStmts(ctx: Ctx, stmts: readonly Stmt[]): void {
  for (const s of stmts) checkStmt(ctx, s);
}

function checkStmt(ctx: Ctx, s: Stmt): void {
  const { file, diagnostics } = ctx;
  switch (s.kind) {
    case "let":
      checkLet(ctx, s);
      return;
    case "buffer":
    case "signal": {
      if (!ctx.topLevel) {
        diagnostics.push(
          diag(
            "DMAC2017",
            { file, span: s.span },
            [s.kind === "buffer" ? `buffer '${s.name.name}'` : `signal '${s.name.name}'`],
            {
              hint: "move the declaration to the top of the schedule body",
            },
          ),
        );
      }
      if (s.kind === "buffer") expectType(ctx, s.size, "bytes", "buffer size");
      // `on host` is a place, not a value (buffers only: a signal on host is DMAC2040).
      if (s.rank && !(s.kind === "buffer" && s.rank.kind === "host"))
        expectType(ctx, s.rank, "int", "rank");
      declare(
        file,
        ctx.scope,
        {
          kind: s.kind,
          name: s.name.name,
          span: s.name.span,
          type: undefined,
          value: undefined,
          used: false,
          encoding: s.kind === "signal" ? s.encoding : undefined,
        },
        diagnostics,
      );
      return;
    }
    case "if":
      expectType(ctx, s.cond, "bool");
      checkBlock(ctx, s.then);
      if (s.else?.kind === "block") checkBlock(ctx, s.else);
      else if (s.else) checkStmt(ctx, s.else);
      return;
    case "for":
      checkFor(ctx, s);
      return;
    case "copy":
      checkRegion(ctx, s.src);
      for (const d of s.dsts) checkRegion(ctx, d);
      if (s.dsts.length > 2) {
        const span = { start: s.dsts[2]!.span.start, end: s.dsts.at(-1)!.span.end };
        ctx.diagnostics.push(diag("DMAC2023", { file: ctx.file, span }, [s.dsts.length]));
      }
      checkPlacement(ctx, s.placement);
      return;
    case "swap":
      checkRegion(ctx, s.a);
      checkRegion(ctx, s.b);
      checkPlacement(ctx, s.placement);
      return;
    case "fill":
      checkRegion(ctx, s.dst);
      expectType(ctx, s.value, "int", "fill byte");
      checkPlacement(ctx, s.placement);
      return;
    case "when": {
      const encoding = checkFlag(ctx, s.flag);
      expectType(ctx, s.value, "int", "signal value");
      // A thermometer wait is a test of bit V-1: only a lower bound has one (DMAC2042).
      if (encoding === "thermometer" && s.op !== ">=" && s.op !== ">") {
        const span = { start: s.flag.span.start, end: s.value.span.end };
        const cond = ctx.file.text.slice(span.start, span.end);
        ctx.diagnostics.push(diag("DMAC2042", { file: ctx.file, span }, [cond]));
      }
      checkBlock(ctx, s.body);
      return;
    }
    case "notify":
      // notify adds 1 to the word, which is not "one more" in a bit code (DMAC2041).
      if (checkFlag(ctx, s.flag) === "thermometer")
        ctx.diagnostics.push(
          diag("DMAC2041", { file: ctx.file, span: s.span }, [s.flag.signal.name]),
        );
      return;
    case "ensure":
      checkRegion(ctx, s.dst);
      if (s.expected.kind === "region") checkRegion(ctx, s.expected);
      else expectType(ctx, s.expected, "int", "byte value");
      return;
    default:
      assertNever(s, "statement");
  }
}

/** `const`/`let` (file level or in a schedule): both are immutable bindings. */
function checkLet(ctx: Ctx, s: LetStmt): void {
  const t = s.type ? expectType(ctx, s.value, s.type) : typeExpr(ctx, s.value);
  const sym: Sym = {
    kind: s.keyword,
    name: s.name.name,
    span: s.name.span,
    // A declared type stands even when the value is wrong, so uses are not reported again.
    type: s.type ?? t.type,
    value: t.value,
    // A binding whose value is wrong is not also reported as unused.
    used: t.type === undefined,
  };
  declare(ctx.file, ctx.scope, sym, ctx.diagnostics);
}

function checkFor(ctx: Ctx, s: ForStmt): void {
  const { file, diagnostics } = ctx;
  const loop = inner(ctx);
  for (const v of s.vars) {
    const r = v.range;
    switch (r.kind) {
      case "ranks":
        break;
      case "range":
        for (const bound of r.step ? [r.from, r.to, r.step] : [r.from, r.to]) {
          const t = typeExpr(loop, bound);
          if (t.type !== undefined && t.type !== "int") {
            diagnostics.push(
              diag(
                "DMAC2015",
                { file, span: bound.span },
                [`loop bounds and steps must be int, found ${t.type}`],
                {
                  hint:
                    t.type === "bytes"
                      ? "divide by a size to count chunks, e.g. 'size / chunk'"
                      : undefined,
                },
              ),
            );
          }
        }
        break;
      case "expr": {
        const t = typeExpr(loop, r.expr);
        const text = file.text.slice(r.expr.span.start, r.expr.span.end);
        diagnostics.push(
          diag(
            "DMAC2015",
            { file, span: r.expr.span },
            [`'for ${v.name.name} in ${text}' needs a range or 'ranks'`],
            {
              hint:
                t.type === "int" || t.type === undefined
                  ? `write 'for ${v.name.name} in 0..${text}' to count from 0 to ${text} - 1`
                  : `a loop runs over a range of int values such as '0..n'`,
            },
          ),
        );
        break;
      }
      default:
        assertNever(r, "loop range");
    }
    declare(
      file,
      loop.scope,
      {
        kind: "loop-var",
        name: v.name.name,
        span: v.name.span,
        type: "int",
        value: undefined,
        used: false,
      },
      diagnostics,
    );
  }
  if (s.where) expectType(loop, s.where, "bool");
  checkBlock(loop, s.body);
  closeScope(file, loop.scope, diagnostics);
}

function checkPlacement(ctx: Ctx, placement: readonly Placement[]): void {
  for (const p of placement) {
    switch (p.kind) {
      case "engine":
        expectType(ctx, p.engine, "int", "engine");
        break;
      case "driver":
        expectType(ctx, p.rank, "int", "rank");
        break;
      default:
        assertNever(p, "placement");
    }
  }
}

/** Resolves NAME in `NAME@r` to a symbol of `kind`, reporting DMAC2001 / DMAC2011 / DMAC2012. */
function resolveStorage(
  ctx: Ctx,
  name: { name: string; span: Region["span"] },
  kind: "buffer" | "signal",
): Sym | undefined {
  const sym = lookup(ctx.scope, name.name);
  const at = { file: ctx.file, span: name.span };
  if (!sym) {
    const candidates = visibleNames(ctx.scope, (s) => s.kind === kind);
    ctx.diagnostics.push(
      diag("DMAC2001", at, [name.name], {
        hint:
          candidates.length === 0
            ? `declare it with '${kind} ${name.name}${kind === "buffer" ? ": SIZE" : ""}'`
            : undefined,
        ...nameSuggestion(name.name, candidates, name.span),
      }),
    );
    return undefined;
  }
  sym.used = true;
  if (sym.kind !== kind) {
    ctx.diagnostics.push(
      diag(kind === "buffer" ? "DMAC2011" : "DMAC2012", at, [name.name, SYMBOL_LABEL[sym.kind]], {
        related: [{ message: `'${name.name}' is declared here`, file: ctx.file, span: sym.span }],
      }),
    );
  }
  return sym;
}

function checkRegion(ctx: Ctx, r: Region): void {
  resolveStorage(ctx, r.buffer, "buffer");
  if (r.rank.kind !== "host") expectType(ctx, r.rank, "int", "rank");
  const sl = r.slice;
  if (!sl) return;
  switch (sl.kind) {
    case "range":
      expectType(ctx, sl.lo, "bytes", "offset");
      expectType(ctx, sl.hi, "bytes", "offset");
      return;
    case "len":
      expectType(ctx, sl.lo, "bytes", "offset");
      expectType(ctx, sl.len, "bytes", "length");
      return;
    default:
      assertNever(sl, "region slice");
  }
}

/** Checks `FLAG@r`; the flag's encoding when it names a signal. */
function checkFlag(ctx: Ctx, f: FlagRef): SignalEncoding | undefined {
  const sym = resolveStorage(ctx, f.signal, "signal");
  expectType(ctx, f.rank, "int", "rank");
  return sym?.kind === "signal" ? sym.encoding : undefined;
}

function signatureText(name: string, args: readonly { name: string }[]): string {
  return `${name}(${args.map((a) => a.name).join(", ")})`;
}

/** `implements COLL(ARGS)`: checked against the schedule's top-level scope (buffers are declared in the body). */
function checkImplements(ctx: Ctx, imp: Implements): void {
  const { file, diagnostics } = ctx;
  const name = imp.collective.name;
  const markUsed = () => {
    for (const a of imp.args) {
      const sym = a.kind === "name" ? lookup(ctx.scope, a.name) : undefined;
      if (sym) sym.used = true;
    }
  };
  if (!isCollectiveName(name)) {
    markUsed();
    const names = Object.keys(COLLECTIVES);
    diagnostics.push(
      diag("DMAC2007", { file, span: imp.collective.span }, [`unknown collective '${name}'`], {
        hint: `the collectives are ${names.join(", ")}; state any other postcondition with 'ensure'`,
        ...nameSuggestion(name, names, imp.collective.span),
      }),
    );
    return;
  }
  const sigs = COLLECTIVES[name].signatures;
  const sig = sigs.find((s) => s.args.length === imp.args.length);
  if (!sig) {
    markUsed();
    const counts = [...new Set(sigs.map((s) => s.args.length))].join(" or ");
    diagnostics.push(
      diag(
        "DMAC2007",
        { file, span: imp.span },
        [`${name} takes ${counts} arguments, found ${imp.args.length}`],
        {
          hint: `write ${sigs.map((s) => signatureText(name, s.args)).join(" or ")}`,
        },
      ),
    );
    return;
  }
  sig.args.forEach((want, i) => {
    const arg = imp.args[i]!;
    const at = { file, span: arg.span };
    const sym = arg.kind === "name" ? lookup(ctx.scope, arg.name) : undefined;
    if (want.kind === "buffer") {
      if (arg.kind === "name" && !sym) {
        resolveStorage(ctx, { name: arg.name, span: arg.span }, "buffer");
      } else if (!sym || sym.kind !== "buffer") {
        if (sym) sym.used = true;
        const found = sym ? `, found ${SYMBOL_LABEL[sym.kind]} '${sym.name}'` : "";
        diagnostics.push(
          diag("DMAC2007", at, [`argument '${want.name}' of ${name} must be a buffer${found}`], {
            hint: `write ${signatureText(name, sig.args)} with buffers declared in the schedule`,
          }),
        );
      } else sym.used = true;
      return;
    }
    if (sym && (sym.kind === "buffer" || sym.kind === "signal")) {
      sym.used = true;
      diagnostics.push(
        diag(
          "DMAC2007",
          at,
          [
            `argument '${want.name}' of ${name} must be an int, found ${SYMBOL_LABEL[sym.kind]} '${sym.name}'`,
          ],
          {
            hint: `write ${signatureText(name, sig.args)}`,
          },
        ),
      );
      return;
    }
    expectType(ctx, arg, "int", want.name);
  });
}
