// Instantiation: one CheckedSchedule -> one IrModule (concrete ops on byte regions).
//
// Contract: `instantiate(checked, { maxOps })` evaluates file-level consts and parameters, declares
// buffers and signals, unrolls `for` (several variables = nested loops, `where` filters the combined
// instance), resolves `if`, evaluates regions and appends ops to the OpTable in program order. It
// never throws for user errors: every check that needs values reports a Diagnostic at the source
// span, naming the loop variables' values (`when r = 7, p = 3`); the module is undefined when any
// error was reported. The op table never grows past `maxOps` (DMAC3010 stops instantiation first),
// and loops are bounded too (DMAC3019), so hostile inputs cannot exhaust memory or time.
//
// How it is fast: the schedule is compiled once into a tree of closures (statements -> Exec,
// expressions -> CompiledExpr over one environment array of numbers, regions -> writers into
// preallocated scratch records), and the closures are then run. Per op there is no allocation
// besides the table's amortised growth and the loop values in bindValues (shared by all ops of one
// loop instance at one depth).
//
// Errors: an instance that fails a check throws an EvalStop (see eval.ts); the enclosing block
// reports it and goes on with its next statement (after a failed `let`, the rest of the block
// instance is skipped, because it may use the binding). Per statement and code, only the first
// failing instance is reported, with "(and N more instances)" appended.

import type {
  Block,
  CompareOp,
  Expr,
  ForStmt,
  LetStmt,
  Placement,
  Program,
  Region,
  Stmt,
  TypeName,
} from "../frontend/ast.js";
import type { CheckedSchedule } from "../check/checked.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { diag } from "../diagnostics/diagnostic.js";
import type { SourceFile, Span } from "../source/source-file.js";
import type { Target } from "../target/target.js";
import { assertNever } from "../util/assert-never.js";
import { InternalError } from "../util/internal-error.js";
import { affineIn, mentionsName, mentionsSlot } from "./affine.js";
import { setCopyRuns } from "./copy-runs.js";
import { compileExpr, EvalStop, stop, type CompiledExpr, type Env } from "./eval.js";
import {
  allocOpTable,
  HOST,
  HOST_REGION_RANK,
  COMPARE_OPS,
  OP_KINDS,
  resizeOpTable,
  type IrBuffer,
  type IrCollective,
  type IrEnsure,
  type IrModule,
  type IrRegion,
  type IrSignal,
  type IrStmt,
  type OpTable,
} from "./ir.js";

/**
 * The default `--max-ops`. 2,000,000: the heaviest programs of that size (the pipelined
 * `forwardProgram` of bench/gen.js, 6M packets) compile in 31 s with a 2.5 GiB peak, inside the
 * default 4 GiB heap; at 4,000,000 they ran out of memory (docs/safety.md has the measurements).
 */
export const DEFAULT_MAX_OPS = 2_000_000;

/** Total loop iterations (over all loops) allowed per allowed op: bounds loops that emit nothing. */
const ITERATIONS_PER_OP = 4;
/** Largest value a 32-bit signal word can hold. */
const U32_MAX = 0xffff_ffff;

export interface InstantiateOptions {
  readonly maxOps: number;
  /**
   * The module's typed arrays (ops, loop values) in shared memory: built on a thread for another
   * to read (sim/session/helper-work.ts), without a copy.
   */
  readonly shared?: boolean | undefined;
  /** Every op through the general path, none through runPlainCopies (tests compare the two). */
  readonly generic?: boolean | undefined;
}

export interface InstantiateResult {
  readonly diagnostics: Diagnostic[];
  readonly module: IrModule | undefined;
}

// ---- internal shapes ---------------------------------------------------------------------------

type Exec = (env: Env) => void;

/** A statement position: where diagnostics point, and which loop variables are in scope there. */
interface Site {
  readonly id: number;
  readonly span: Span;
  readonly names: readonly string[];
  readonly slots: readonly number[];
  /** Index into IrModule.stmts for statements that produce ops or ensures; -1 otherwise. */
  readonly stmt: number;
}

/** Scratch record a compiled region writes its value into (one per operand, reused per instance). */
interface RegionOut {
  rank: number;
  buf: number;
  off: number;
  len: number;
}
type RegionFn = (env: Env, out: RegionOut) => void;

/** Thrown (and caught) to drop an instance silently: its cause was already reported. */
const SKIP = { skip: true } as const;

/** Thrown to end instantiation at once (a limit was reached); carries the one diagnostic. */
class LimitStop {
  constructor(readonly diagnostic: Diagnostic) {}
}

interface State {
  readonly file: SourceFile;
  readonly target: Target;
  readonly ranks: number;
  readonly maxOps: number;
  readonly types: ReadonlyMap<Expr, TypeName>;
  readonly generic: boolean;
  /** Runs of copies that continue one another (copy-runs.ts): (first op, end) pairs. */
  readonly copyRuns: number[];
  // compile time
  readonly scopes: Map<string, number>[];
  nextSlot: number;
  readonly loopNames: string[];
  readonly loopSlots: number[];
  readonly bufferIds: Map<string, number>;
  readonly signalIds: Map<string, number>;
  readonly bufferNames: string[];
  readonly signalNames: string[];
  readonly stmts: IrStmt[];
  nextSite: number;
  /** Nesting depth of blocks below the schedule body (buffers/signals live at depth 0). */
  blockDepth: number;
  // run time
  ops: OpTable;
  bindValues: Float64Array;
  bindCount: number;
  /** Bumped whenever any loop variable changes; a cached bind offset is valid for one stamp. */
  stamp: number;
  readonly bindStamp: number[];
  readonly bindOffset: number[];
  guard: number;
  readonly bufSize: number[];
  readonly bufRank: number[];
  readonly sigRank: number[];
  /** Per signal id: thermometer-coded (its `when`s are bit tests, V in 1..32). */
  readonly sigThermometer: boolean[];
  readonly buffers: IrBuffer[];
  readonly signals: IrSignal[];
  readonly ensures: IrEnsure[];
  iterations: number;
  readonly iterationBudget: number;
  readonly diagnostics: Diagnostic[];
  readonly seen: Map<string, { index: number; more: number }>;
  /** The file consts' values when known (fileConstValues); undefined: compiled as lets. */
  readonly consts: ReadonlyMap<string, number> | undefined;
  /** The slots given to the known consts this schedule names, with their values. */
  readonly constSlots: [number, number][];
}

// ---- entry point -------------------------------------------------------------------------------

export function instantiate(
  checked: CheckedSchedule,
  opts: InstantiateOptions = { maxOps: DEFAULT_MAX_OPS },
): InstantiateResult {
  const st = newState(checked, opts, fileConstValues(checked));
  // Compile: file consts, then parameters, then the schedule body, each in its own scope. Consts
  // whose values are known (fileConstValues) get a slot only where the schedule names one.
  const consts =
    st.consts === undefined ? fileConsts(checked.program).map((decl) => compileLet(st, decl)) : [];
  st.scopes.push(new Map());
  const paramSlots = checked.params.map((p) => {
    const slot = st.nextSlot++;
    st.scopes[st.scopes.length - 1]!.set(p.name, slot);
    return { slot, value: typeof p.value === "boolean" ? (p.value ? 1 : 0) : p.value };
  });
  const impl = checked.schedule.implements;
  const implArgs = impl?.args.map((a) => compileImplementsArg(st, a)) ?? [];
  const body = compileBlock(st, checked.schedule.body);

  // Run.
  const env: Env = new Array<number>(st.nextSlot).fill(0);
  for (const [slot, value] of st.constSlots) env[slot] = value;
  let limitHit = false;
  try {
    runSequence(st, consts, env);
    for (const p of paramSlots) env[p.slot] = p.value;
    body(env);
  } catch (x) {
    if (!(x instanceof LimitStop)) throw x;
    limitHit = true;
    st.diagnostics.push(x.diagnostic);
  }
  let collective: IrCollective | undefined;
  if (impl && !limitHit) {
    const args: IrCollective["args"][number][] = [];
    for (const a of implArgs) {
      const v = runCaught(st, a.site, env, () => a.eval(env));
      if (v === undefined) break;
      args.push(v);
    }
    collective = { name: impl.collective.name, args, span: impl.span };
  }

  const diagnostics = finishDiagnostics(st);
  if (diagnostics.some((d) => d.severity === "error")) return { diagnostics, module: undefined };
  setCopyRuns(st.ops, st.copyRuns);
  const module: IrModule = {
    schedule: checked.schedule.name.name,
    doc: checked.schedule.doc,
    target: checked.target.name,
    ranks: st.ranks,
    params: checked.params.map((p) => ({ name: p.name, type: p.type, value: p.value })),
    buffers: st.buffers,
    signals: st.signals,
    stmts: st.stmts,
    bindValues: st.bindValues.subarray(0, st.bindCount),
    ops: st.ops,
    ensures: st.ensures,
    collective,
    edges: undefined,
    file: st.file,
  };
  return { diagnostics, module };
}

/** Each program's file-level consts, found once per program. */
const FILE_CONSTS = new WeakMap<Program, readonly LetStmt[]>();

/**
 * The file-level consts of `program`. Found once, not once per schedule: a file of n schedules
 * had its n items scanned n times (100,000 tiny schedules did not check in a minute).
 */
function fileConsts(program: Program): readonly LetStmt[] {
  let consts = FILE_CONSTS.get(program);
  if (consts === undefined) {
    consts = program.items.flatMap((it) => (it.kind === "const-item" ? [it.decl] : []));
    FILE_CONSTS.set(program, consts);
  }
  return consts;
}

/** A fresh instantiation state; `consts`: the file consts' values, when known. */
function newState(
  checked: CheckedSchedule,
  opts: InstantiateOptions,
  consts: ReadonlyMap<string, number> | undefined,
): State {
  const maxOps = Math.max(0, Math.floor(opts.maxOps));
  return {
    file: checked.file,
    target: checked.target,
    ranks: checked.target.gpus,
    maxOps,
    types: checked.types,
    generic: opts.generic === true,
    copyRuns: [],
    scopes: [new Map()],
    nextSlot: 0,
    loopNames: [],
    loopSlots: [],
    bufferIds: new Map(),
    signalIds: new Map(),
    bufferNames: [],
    signalNames: [],
    stmts: [],
    nextSite: 0,
    blockDepth: 0,
    // Small to start (the tables double as they fill): a file of many tiny schedules keeps one
    // module per schedule, and 1,024 rows each came to 90 KB a schedule.
    ops: allocOpTable(Math.min(maxOps, 16), opts.shared === true),
    bindValues: floats(16, opts.shared === true),
    bindCount: 0,
    stamp: 0,
    bindStamp: [],
    bindOffset: [],
    guard: -1,
    bufSize: [],
    bufRank: [],
    sigRank: [],
    sigThermometer: [],
    buffers: [],
    signals: [],
    ensures: [],
    iterations: 0,
    iterationBudget: Math.max(maxOps, 1) * ITERATIONS_PER_OP,
    diagnostics: [],
    seen: new Map(),
    consts,
    constSlots: [],
  };
}

/** Each program's file-const values, per target (null: their evaluation reported something). */
const CONST_VALUES = new WeakMap<Program, WeakMap<Target, ReadonlyMap<string, number> | null>>();

/**
 * The values of the file's consts, evaluated once per program and target: they cannot name a
 * schedule's parameters, so they are the same in every schedule. Before, every schedule evaluated
 * every const (n consts and n schedules: n^2). Undefined when their evaluation reports a problem:
 * each schedule then evaluates them itself, and reports it, as before.
 */
function fileConstValues(checked: CheckedSchedule): ReadonlyMap<string, number> | undefined {
  const byTarget = CONST_VALUES.get(checked.program) ?? new WeakMap();
  CONST_VALUES.set(checked.program, byTarget);
  let values = byTarget.get(checked.target);
  if (values === undefined) {
    const st = newState(checked, { maxOps: 0 }, undefined);
    const list = fileConsts(checked.program).map((decl) => compileLet(st, decl));
    const env: Env = new Array<number>(st.nextSlot).fill(0);
    runSequence(st, list, env);
    const known = new Map([...st.scopes[0]!].map(([name, slot]) => [name, env[slot]!]));
    values = st.diagnostics.length === 0 ? known : null;
    byTarget.set(checked.target, values);
  }
  return values ?? undefined;
}

// ---- diagnostics -------------------------------------------------------------------------------

function binding(site: Site, env: Env): string {
  if (site.names.length === 0) return "";
  return " when " + site.names.map((n, k) => `${n} = ${env[site.slots[k]!]}`).join(", ");
}

function report(st: State, site: Site, env: Env, x: EvalStop): void {
  const key = `${site.id}:${x.code}:${x.span.start}:${x.span.end}`;
  const prev = st.seen.get(key);
  if (prev) {
    prev.more++;
    return;
  }
  st.seen.set(key, { index: st.diagnostics.length, more: 0 });
  st.diagnostics.push(x.build(st.file, binding(site, env)));
}

function finishDiagnostics(st: State): Diagnostic[] {
  const out = [...st.diagnostics];
  for (const { index, more } of st.seen.values()) {
    if (more === 0) continue;
    const d = out[index]!;
    out[index] = {
      ...d,
      message: `${d.message} (and ${more} more instance${more === 1 ? "" : "s"})`,
    };
  }
  return out;
}

/** Runs `f`, reporting an EvalStop at `site`; undefined when it failed. */
function runCaught<T>(st: State, site: Site, env: Env, f: () => T): T | undefined {
  try {
    return f();
  } catch (x) {
    if (x === SKIP) return undefined;
    if (!(x instanceof EvalStop)) throw x;
    report(st, site, env, x);
    return undefined;
  }
}

// ---- compile: scopes, sites, expressions -------------------------------------------------------

function slotOf(st: State, name: string, span: Span): number {
  for (let i = st.scopes.length - 1; i >= 0; i--) {
    const slot = st.scopes[i]!.get(name);
    if (slot !== undefined) return slot;
  }
  const value = st.consts?.get(name);
  if (value !== undefined) {
    // A known const, named here first: its slot, in the file's scope, holds its value.
    const slot = st.nextSlot++;
    st.scopes[0]!.set(name, slot);
    st.constSlots.push([slot, value]);
    return slot;
  }
  throw new InternalError(`unresolved name '${name}' at ${span.start} survived checking`);
}

function expr(st: State, e: Expr): CompiledExpr {
  return compileExpr(e, {
    types: st.types,
    ranks: st.ranks,
    slotOf: (name, span) => slotOf(st, name, span),
  });
}

function site(st: State, span: Span, producesOps: boolean): Site {
  const names = [...st.loopNames];
  let stmt = -1;
  if (producesOps) {
    stmt = st.stmts.length;
    st.stmts.push({ span, loopVars: names });
  }
  return { id: st.nextSite++, span, names, slots: [...st.loopSlots], stmt };
}

interface Compiled {
  readonly site: Site;
  readonly exec: Exec;
  /** A failed binding makes the rest of its block instance meaningless. */
  readonly binds: boolean;
  /** A copy that a loop of plain copies may write straight into the op table (runPlainCopies). */
  readonly plain?: PlainCopy | undefined;
}

function runSequence(st: State, list: readonly Compiled[], env: Env): void {
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    try {
      c.exec(env);
    } catch (x) {
      if (x === SKIP) {
        if (c.binds) return;
        continue;
      }
      if (!(x instanceof EvalStop)) throw x;
      report(st, c.site, env, x);
      if (c.binds) return;
    }
  }
}

/** The block as one Exec; `out`: receives its compiled statements. */
function compileBlock(st: State, block: Block, out?: Compiled[]): Exec {
  st.scopes.push(new Map());
  const list = block.stmts.map((s) => compileStmt(st, s));
  st.scopes.pop();
  if (out) out.push(...list);
  return (env) => runSequence(st, list, env);
}

/** A nested block (if/for/when bodies): buffers and signals are not allowed there. */
function compileNested(st: State, block: Block, out?: Compiled[]): Exec {
  st.blockDepth++;
  const exec = compileBlock(st, block, out);
  st.blockDepth--;
  return exec;
}

function compileLet(st: State, s: LetStmt): Compiled {
  const value = expr(st, s.value);
  const slot = st.nextSlot++;
  // Declared after compiling the value: `let x = x + 1` refers to an outer x.
  st.scopes[st.scopes.length - 1]!.set(s.name.name, slot);
  return {
    site: site(st, s.span, false),
    binds: true,
    exec: (env) => {
      env[slot] = value(env);
    },
  };
}

function compileImplementsArg(
  st: State,
  a: Expr,
): { site: Site; eval: (env: Env) => IrCollective["args"][number] } {
  const s = site(st, a.span, false);
  // Buffers are declared in the body; resolve the name when the body has been compiled.
  if (a.kind === "name") {
    let valueSlot: number | undefined;
    try {
      valueSlot = slotOf(st, a.name, a.span);
    } catch {
      valueSlot = undefined;
    }
    if (valueSlot === undefined) {
      return {
        site: s,
        eval: () => {
          const id = st.bufferIds.get(a.name);
          if (id === undefined)
            throw new InternalError(`implements argument '${a.name}' is not a buffer or value`);
          return { kind: "buffer", id };
        },
      };
    }
  }
  const f = expr(st, a);
  return { site: s, eval: (env) => ({ kind: "int", value: f(env) }) };
}

// ---- compile: statements -----------------------------------------------------------------------

function compileStmt(st: State, s: Stmt): Compiled {
  switch (s.kind) {
    case "let":
      return compileLet(st, s);
    case "buffer":
      return compileBuffer(st, s);
    case "signal":
      return compileSignal(st, s);
    case "if":
      return compileIf(st, s);
    case "for":
      return compileFor(st, s);
    case "copy":
      return compileCopy(st, s);
    case "swap":
      return compileSwap(st, s);
    case "fill":
      return compileFill(st, s);
    case "when":
      return compileWhen(st, s);
    case "notify":
      return compileNotify(st, s);
    case "ensure":
      return compileEnsure(st, s);
    default:
      return assertNever(s, "statement");
  }
}

function checkRank(st: State, rank: number, span: Span): number {
  if (!Number.isInteger(rank) || rank < 0 || rank >= st.ranks)
    stop("DMAC3003", span, [rank, st.ranks]);
  return rank;
}

/**
 * Numbers a top-level buffer or signal declaration in order (its id indexes the per-id tables)
 * and makes its name resolvable; the checker only lets them appear outside blocks.
 */
function declare(st: State, what: "buffer" | "signal", name: string): number {
  if (st.blockDepth > 0)
    throw new InternalError(`${what} declared inside a block survived checking`);
  const names = what === "buffer" ? st.bufferNames : st.signalNames;
  const id = names.length;
  names.push(name);
  (what === "buffer" ? st.bufferIds : st.signalIds).set(name, id);
  return id;
}

/**
 * The `on RANK` of a declaration: the checked rank, -1 (every rank) when there is none, or HOST
 * for `on host` (the checker allows that for buffers only).
 */
function compileHomeRank(st: State, e: Expr | undefined): (env: Env) => number {
  if (!e) return () => -1;
  if (e.kind === "host") return () => HOST;
  const rank = expr(st, e);
  return (env) => checkRank(st, rank(env), e.span);
}

function compileBuffer(st: State, s: Extract<Stmt, { kind: "buffer" }>): Compiled {
  const id = declare(st, "buffer", s.name.name);
  st.bufSize.push(-1);
  st.bufRank.push(-1);
  const size = expr(st, s.size);
  const home = compileHomeRank(st, s.rank);
  return {
    site: site(st, s.span, false),
    binds: false,
    exec: (env) => {
      const n = size(env);
      if (n < 1) stop("DMAC3013", s.size.span, [`the size of buffer '${s.name.name}'`, n, 1]);
      const r = home(env);
      st.bufSize[id] = n;
      st.bufRank[id] = r;
      st.buffers.push({ id, name: s.name.name, size: n, rank: r, span: s.span });
    },
  };
}

function compileSignal(st: State, s: Extract<Stmt, { kind: "signal" }>): Compiled {
  const id = declare(st, "signal", s.name.name);
  st.sigRank.push(-2); // -2: declaration failed; -1: every rank
  st.sigThermometer.push(s.encoding === "thermometer");
  const home = compileHomeRank(st, s.rank);
  return {
    site: site(st, s.span, false),
    binds: false,
    exec: (env) => {
      const r = home(env);
      st.sigRank[id] = r;
      st.signals.push({ id, name: s.name.name, rank: r, encoding: s.encoding, span: s.span });
    },
  };
}

function compileIf(st: State, s: Extract<Stmt, { kind: "if" }>): Compiled {
  const cond = expr(st, s.cond);
  const then = compileNested(st, s.then);
  let otherwise: Exec | undefined;
  if (s.else?.kind === "block") otherwise = compileNested(st, s.else);
  else if (s.else?.kind === "if") {
    const inner = compileIf(st, s.else);
    otherwise = (env) => runSequence(st, [inner], env);
  }
  return {
    site: site(st, s.span, false),
    binds: false,
    exec: (env) => {
      if (cond(env) !== 0) then(env);
      else if (otherwise) otherwise(env);
    },
  };
}

interface LoopLevel {
  readonly slot: number;
  readonly from: CompiledExpr;
  readonly to: CompiledExpr;
  readonly step: CompiledExpr | undefined;
  readonly stepSpan: Span;
  readonly span: Span;
}

function compileFor(st: State, s: ForStmt): Compiled {
  const outer = site(st, s.span, false);
  st.scopes.push(new Map());
  const levels: LoopLevel[] = [];
  const earlier = new Set<string>();
  let dependent = false;
  for (const v of s.vars) {
    const r = v.range;
    let from: CompiledExpr;
    let to: CompiledExpr;
    let step: CompiledExpr | undefined;
    let stepSpan = r.span;
    switch (r.kind) {
      case "ranks": {
        const n = st.ranks;
        from = () => 0;
        to = () => n;
        break;
      }
      case "range":
        from = expr(st, r.from);
        to = expr(st, r.to);
        step = r.step && expr(st, r.step);
        stepSpan = r.step?.span ?? r.span;
        if (
          [r.from, r.to, ...(r.step ? [r.step] : [])].some((e) =>
            mentionsName(e, (n) => earlier.has(n.name)),
          )
        )
          dependent = true;
        break;
      case "expr":
        throw new InternalError("`for x in EXPR` survived checking");
      default:
        return assertNever(r, "loop range");
    }
    const slot = st.nextSlot++;
    st.scopes[st.scopes.length - 1]!.set(v.name.name, slot);
    st.loopNames.push(v.name.name);
    st.loopSlots.push(slot);
    earlier.add(v.name.name);
    levels.push({ slot, from, to, step, stepSpan, span: v.span });
  }
  const inner = site(st, s.span, false);
  // The loop values each iteration's ops record (bindFor: one set per iteration and depth).
  const bindDepth = st.loopSlots.length;
  const where = s.where && expr(st, s.where);
  const stmts: Compiled[] = [];
  const body = compileNested(st, s.body, stmts);
  // A body of plain copies (no `where`): each run of the innermost range is written at once.
  const plain =
    !where && !st.generic && stmts.length > 0 && stmts.every((c) => c.plain !== undefined)
      ? stmts.map((c) => c.plain!)
      : undefined;
  st.loopNames.length -= s.vars.length;
  st.loopSlots.length -= s.vars.length;
  st.scopes.pop();

  const n = levels.length;
  const limit = st.maxOps;
  const opsPerIteration = s.where ? 0 : opsOfFlatBody(s.body);
  const trips = (lv: LoopLevel, env: Env): { from: number; step: number; count: number } => {
    const from = lv.from(env);
    const to = lv.to(env);
    const step = lv.step ? lv.step(env) : 1;
    if (step <= 0) stop("DMAC3015", lv.stepSpan, [step]);
    const count = to > from ? Math.ceil((to - from) / step) : 0;
    if (count > limit) stop("DMAC3019", lv.span, ["loop runs", String(count), String(limit)]);
    return { from, step, count };
  };
  // Combined instances of this `for` (one execution of it), checked against the limit too.
  let instances = 0;
  const run = (k: number, env: Env): void => {
    const lv = levels[k]!;
    const { from, step, count } = trips(lv, env);
    const slot = lv.slot;
    const last = k === n - 1;
    if (
      last &&
      plain !== undefined &&
      (!dependent || instances + count <= limit) &&
      runPlainCopies(st, plain, env, slot, from, step, count)
    ) {
      instances += count;
      return;
    }
    for (let i = 0; i < count; i++) {
      env[slot] = from + i * step;
      st.stamp++;
      if (++st.iterations > st.iterationBudget) {
        throw new LimitStop(
          diag(
            "DMAC3019",
            { file: st.file, span: s.span },
            [
              "this loop and the loops around it run",
              `${st.iterations}`,
              String(st.iterationBudget),
            ],
            {
              hint: `all loops together may run ${ITERATIONS_PER_OP} iterations per allowed operation (--max-ops ${limit}); instantiation stopped here${binding(inner, env)}`,
            },
          ),
        );
      }
      if (!last) {
        run(k + 1, env);
        continue;
      }
      if (dependent && ++instances > limit)
        stop("DMAC3019", s.span, ["loop runs at least", String(instances), String(limit)]);
      if (where && where(env) === 0) continue;
      body(env);
    }
  };
  return {
    site: outer,
    binds: false,
    exec: (env) => {
      if (!dependent && (n > 1 || opsPerIteration > 0)) {
        // Independent ranges: the combined count is a product, known before running anything.
        let product = 1;
        for (const lv of levels) product *= trips(lv, env).count;
        if (product > limit)
          stop("DMAC3019", s.span, ["loop runs", String(product), String(limit)]);
        if (opsPerIteration > 0) reserve(st, product, opsPerIteration, bindDepth);
      }
      instances = 0;
      run(0, env);
    },
  };
}

// ---- compile: regions and placement ------------------------------------------------------------

function newRegionOut(): RegionOut {
  return { rank: -1, buf: -1, off: 0, len: 0 };
}

function fmtRegion(st: State, r: RegionOut): string {
  return `${st.bufferNames[r.buf]}@${placeText(r.rank)}[${r.off} +: ${r.len}]`;
}

/** A region's rank as written: a number, or `host`. */
function placeText(rank: number): string {
  return rank === HOST ? "host" : String(rank);
}

function bytes(n: number): string {
  return `${n} byte${n === 1 ? "" : "s"}`;
}

function overlaps(a: RegionOut, b: RegionOut): boolean {
  return a.rank === b.rank && a.buf === b.buf && a.off < b.off + b.len && b.off < a.off + a.len;
}

function compileRegion(st: State, r: Region): RegionFn {
  const name = r.buffer.name;
  const id = st.bufferIds.get(name);
  if (id === undefined) throw new InternalError(`unknown buffer '${name}' survived checking`);
  const rankSpan = r.rank.span;
  const onHost = r.rank.kind === "host";
  const rankF = onHost ? () => HOST : expr(st, r.rank);
  const rankOf = (env: Env): number => {
    if (st.bufSize[id]! < 0) throw SKIP; // the declaration failed and was reported
    const home = st.bufRank[id]!;
    if (onHost !== (home === HOST))
      stop(
        "DMAC3040",
        rankSpan,
        [
          onHost
            ? `buffer '${name}' lives on GPUs, not on the host`
            : `buffer '${name}' is declared on host: name it '${name}@host'`,
        ],
        onHost ? `declare it with 'buffer ${name}: SIZE on host'` : undefined,
      );
    if (onHost) return HOST;
    const rank = checkRank(st, rankF(env), rankSpan);
    if (home >= 0 && home !== rank)
      stop(
        "DMAC3023",
        rankSpan,
        [`buffer '${name}'`, rank],
        `'${name}' is declared on rank ${home} only`,
      );
    return rank;
  };
  const sl = r.slice;
  if (sl === undefined) {
    return (env, out) => {
      out.rank = rankOf(env);
      out.buf = id;
      out.off = 0;
      out.len = st.bufSize[id]!;
    };
  }
  const lo = expr(st, sl.lo);
  const loSpan = sl.lo.span;
  if (sl.kind === "range") {
    const hi = expr(st, sl.hi);
    return (env, out) => {
      const rank = rankOf(env);
      const a = lo(env);
      const b = hi(env);
      const size = st.bufSize[id]!;
      if (a < 0 || b < a || b > size) {
        const text = `${name}@${placeText(rank)}[${a} .. ${b}]`;
        if (a < 0) stop("DMAC3013", loSpan, [`the start of ${text}`, a, 0]);
        if (b < a) stop("DMAC3013", sl.span, [`the length of ${text}`, b - a, 0]);
        stop("DMAC3001", r.span, [text, bytes(size)]);
      }
      out.rank = rank;
      out.buf = id;
      out.off = a;
      out.len = b - a;
    };
  }
  const len = expr(st, sl.len);
  const lenSpan = sl.len.span;
  return (env, out) => {
    const rank = rankOf(env);
    const a = lo(env);
    const n = len(env);
    const size = st.bufSize[id]!;
    if (a < 0 || n < 0 || a + n > size) {
      const text = `${name}@${placeText(rank)}[${a} +: ${n}]`;
      if (a < 0) stop("DMAC3013", loSpan, [`the start of ${text}`, a, 0]);
      if (n < 0) stop("DMAC3013", lenSpan, [`the length of ${text}`, n, 0]);
      stop("DMAC3001", r.span, [text, bytes(size)]);
    }
    out.rank = rank;
    out.buf = id;
    out.off = a;
    out.len = n;
  };
}

interface PlacementFns {
  readonly by: CompiledExpr | undefined;
  readonly bySpan: Span;
  readonly engine: CompiledExpr | undefined;
  readonly engineSpan: Span;
}

function compilePlacement(st: State, list: readonly Placement[], span: Span): PlacementFns {
  let by: CompiledExpr | undefined;
  let bySpan = span;
  let engine: CompiledExpr | undefined;
  let engineSpan = span;
  for (const p of list) {
    switch (p.kind) {
      case "driver":
        by = expr(st, p.rank);
        bySpan = p.rank.span;
        break;
      case "engine":
        engine = expr(st, p.engine);
        engineSpan = p.span;
        break;
      default:
        assertNever(p, "placement");
    }
  }
  return { by, bySpan, engine, engineSpan };
}

/**
 * The pinned engine (or -1), checked against the target: it must exist (DMAC3004) and be able to
 * drive a transfer that touches `ranks` (DMAC3005): PCIe engines serve only their own GPU, and an
 * engine in neither list serves nothing.
 */
function checkEngine(
  st: State,
  p: PlacementFns,
  env: Env,
  driver: number,
  r1: number,
  r2: number,
  r3: number,
): number {
  if (!p.engine) return -1;
  const e = p.engine(env);
  const eng = st.target.engines;
  if (!Number.isInteger(e) || e < 0 || e >= eng.count)
    stop("DMAC3004", p.engineSpan, [e, eng.count]);
  if (eng.xgmi.includes(e)) return e;
  if (eng.pcie.includes(e)) {
    if (r1 === driver && r2 === driver && r3 === driver) return e;
    const peers = [...new Set([driver, r1, r2, r3])].sort((a, b) => a - b).join(", ");
    stop(
      "DMAC3005",
      p.engineSpan,
      [e, `is a host<->GPU (PCIe) engine and cannot drive a transfer between GPUs ${peers}`],
      `use one of the xGMI engines ${eng.xgmi.join(", ")}, or leave the engine to the compiler`,
    );
  }
  stop("DMAC3005", p.engineSpan, [
    e,
    `is neither a PCIe nor an xGMI engine of target '${st.target.name}' and cannot drive transfers`,
  ]);
}

// ---- run time: op emission ---------------------------------------------------------------------

function bindFor(st: State, site: Site, env: Env): number {
  const depth = site.slots.length;
  if (depth === 0) return -1;
  if (st.bindStamp[depth] === st.stamp) return st.bindOffset[depth]!;
  if (st.bindCount + depth > st.bindValues.length) {
    const next = floats(
      Math.max(st.bindValues.length * 2, st.bindCount + depth),
      st.bindValues.buffer instanceof SharedArrayBuffer,
    );
    next.set(st.bindValues);
    st.bindValues = next;
  }
  const at = st.bindCount;
  for (let k = 0; k < depth; k++) st.bindValues[at + k] = env[site.slots[k]!]!;
  st.bindCount += depth;
  st.bindStamp[depth] = st.stamp;
  st.bindOffset[depth] = at;
  return at;
}

/** A Float64Array of n, in shared memory or not (InstantiateOptions.shared). */
function floats(n: number, shared: boolean): Float64Array {
  return new Float64Array(shared ? new SharedArrayBuffer(8 * n) : new ArrayBuffer(8 * n));
}

/**
 * The ops one run of `body` emits when that is known from its text: a body of data and notify
 * statements (one op each) and lets; 0 for any other (a nested loop, `if`, `when`), which
 * reserves nothing.
 */
function opsOfFlatBody(body: Block): number {
  let ops = 0;
  for (const x of body.stmts) {
    if (x.kind === "copy" || x.kind === "swap" || x.kind === "fill" || x.kind === "notify") ops++;
    else if (x.kind !== "let") return 0;
  }
  return ops;
}

/**
 * Room for the ops (at most maxOps) and loop values of `iterations` iterations of a loop whose
 * body emits `opsPerIteration` ops each, at loop depth `depth`, before it runs: the tables grow
 * once instead of by doubling through them (a 262,144-copy loop copied its op table 8 times).
 * Growth is at least doubling, which bounds it when loops reserve little each, many times.
 */
function reserve(st: State, iterations: number, opsPerIteration: number, depth: number): void {
  const t = st.ops;
  const ops = t.count + iterations * opsPerIteration;
  if (ops > t.kind.length)
    st.ops = resizeOpTable(t, Math.min(st.maxOps, Math.max(ops, t.kind.length * 2)));
  const values = st.bindCount + iterations * depth;
  const v = st.bindValues;
  if (values > v.length && iterations * opsPerIteration <= st.maxOps) {
    const next = floats(Math.max(values, v.length * 2), v.buffer instanceof SharedArrayBuffer);
    next.set(v.subarray(0, st.bindCount));
    st.bindValues = next;
  }
}

/** Appends one op of `kind` with every operand field unset (-1 / 0); returns its index. */
function emit(st: State, site: Site, env: Env, kind: number): number {
  let t = st.ops;
  const i = t.count;
  if (i >= st.maxOps) {
    throw new LimitStop(
      diag("DMAC3010", { file: st.file, span: site.span }, [String(st.maxOps)], {
        hint: `instantiation stopped here${binding(site, env)}; raise the limit with --max-ops if the schedule really is this large`,
      }),
    );
  }
  if (i >= t.kind.length)
    t = st.ops = resizeOpTable(t, Math.min(st.maxOps, Math.max(64, t.kind.length * 2)));
  t.count = i + 1;
  t.kind[i] = kind;
  t.stmt[i] = site.stmt;
  t.bind[i] = bindFor(st, site, env);
  t.guard[i] = st.guard;
  t.driver[i] = -1;
  t.engine[i] = -1;
  t.srcRank[i] = -1;
  t.srcBuf[i] = -1;
  t.srcOff[i] = 0;
  t.dstRank[i] = -1;
  t.dstBuf[i] = -1;
  t.dstOff[i] = 0;
  t.dst2Rank[i] = -1;
  t.dst2Buf[i] = -1;
  t.dst2Off[i] = 0;
  t.len[i] = 0;
  t.value[i] = 0;
  t.signal[i] = -1;
  t.sigRank[i] = -1;
  t.cmp[i] = 0;
  return i;
}

function irRegion(r: RegionOut): IrRegion {
  return { rank: irRank(r.rank), buffer: r.buf, offset: r.off, len: r.len };
}

/** The IR rank of a region: host regions carry the placeholder (see ir.ts, HOST). */
function irRank(rank: number): number {
  return rank === HOST ? HOST_REGION_RANK : rank;
}

/**
 * The regions a data op moves between: a fill has no source, a broadcast copy two destinations.
 * Built once per statement around its reused RegionOut buffers, so emitting allocates nothing.
 */
interface DataRegions {
  readonly src?: RegionOut | undefined;
  readonly dst: RegionOut;
  readonly dst2?: RegionOut | undefined;
}

/**
 * Places and appends one data op (copy, bcast, swap, fill): the driver is `by` or else the rank
 * of the source (of the destination for a fill), the pinned engine is checked against every rank
 * the op touches, and the regions and length are recorded. Returns the op's index.
 */
function emitData(
  st: State,
  me: Site,
  env: Env,
  kind: number,
  pl: PlacementFns,
  { src, dst, dst2 }: DataRegions,
): number {
  const from = src ?? dst;
  const host = src?.rank === HOST || dst.rank === HOST || dst2?.rank === HOST;
  const driver = host
    ? hostDriver(st, me, pl, env, kind, src, dst, dst2)
    : pl.by
      ? checkRank(st, pl.by(env), pl.bySpan)
      : from.rank;
  const engine = host
    ? hostEngine(st, pl, env, src?.rank === HOST)
    : checkEngine(st, pl, env, driver, from.rank, dst.rank, (dst2 ?? from).rank);
  const i = emit(st, me, env, kind);
  const t = st.ops;
  t.driver[i] = driver;
  t.engine[i] = engine;
  if (src) {
    t.srcRank[i] = irRank(src.rank);
    t.srcBuf[i] = src.buf;
    t.srcOff[i] = src.off;
  }
  t.dstRank[i] = irRank(dst.rank);
  t.dstBuf[i] = dst.buf;
  t.dstOff[i] = dst.off;
  if (dst2) {
    t.dst2Rank[i] = irRank(dst2.rank);
    t.dst2Buf[i] = dst2.buf;
    t.dst2Off[i] = dst2.off;
  }
  t.len[i] = from.len;
  return i;
}

/**
 * The driving GPU of an operation that touches host memory: only a copy between the host and
 * one GPU qualifies (DMAC3040 otherwise), and the GPU end drives it; `by R` may only name it.
 */
function hostDriver(
  st: State,
  me: Site,
  pl: PlacementFns,
  env: Env,
  kind: number,
  src: RegionOut | undefined,
  dst: RegionOut,
  dst2: RegionOut | undefined,
): number {
  const why =
    kind === OP_KINDS.fill.code
      ? "a fill cannot write host memory (no DMA engine fills it): copy from a host buffer holding the byte, or fill it on the host"
      : kind === OP_KINDS.swap.code
        ? "a swap cannot involve host memory: copy through a staging buffer"
        : dst2
          ? "a broadcast cannot involve host memory: write two copies"
          : src?.rank === HOST && dst.rank === HOST
            ? "a copy from host memory to host memory involves no GPU (use memcpy on the host)"
            : undefined;
  if (why !== undefined) stop("DMAC3040", me.span, [why]);
  const gpu = src!.rank === HOST ? dst.rank : src!.rank;
  if (pl.by) {
    const by = checkRank(st, pl.by(env), pl.bySpan);
    if (by !== gpu)
      stop("DMAC3040", pl.bySpan, [
        `a copy between the host and GPU ${gpu} is driven by GPU ${gpu}, not by ${by}`,
      ]);
  }
  return gpu;
}

/**
 * The engine of a host<->GPU copy: a pinned one must be one of the target's PCIe engines
 * (DMAC3005); otherwise uploads take the first PCIe engine and downloads the last, so the two
 * directions overlap (MI300X: engines 0 and 1). A target without PCIe engines leaves it to the
 * back end (-1).
 */
function hostEngine(st: State, pl: PlacementFns, env: Env, upload: boolean): number {
  const pcie = st.target.engines.pcie;
  if (pl.engine) {
    const e = pl.engine(env);
    const eng = st.target.engines;
    if (!Number.isInteger(e) || e < 0 || e >= eng.count)
      stop("DMAC3004", pl.engineSpan, [e, eng.count]);
    if (!pcie.includes(e))
      stop(
        "DMAC3005",
        pl.engineSpan,
        [e, "is not a host<->GPU (PCIe) engine and cannot reach host memory"],
        pcie.length ? `use one of the PCIe engines ${pcie.join(", ")}` : undefined,
      );
    return e;
  }
  if (pcie.length === 0) return -1;
  return upload ? pcie[0]! : pcie[pcie.length - 1]!;
}

function compileCopy(st: State, s: Extract<Stmt, { kind: "copy" }>): Compiled {
  const src = compileRegion(st, s.src);
  const d1 = s.dsts[0];
  if (!d1) throw new InternalError("copy without destination");
  const dst = compileRegion(st, d1);
  // The checker rejects more than two (DMAC2023); dropping one here would be a silent miscompile.
  if (s.dsts.length > 2) throw new InternalError("copy with more than two destinations");
  const d2 = s.dsts[1];
  const dst2 = d2 && compileRegion(st, d2);
  const pl = compilePlacement(st, s.placement, s.span);
  const me = site(st, s.span, true);
  const a = newRegionOut();
  const b = newRegionOut();
  const c = newRegionOut();
  const kind = dst2 ? OP_KINDS.bcast.code : OP_KINDS.copy.code;
  const regions: DataRegions = { src: a, dst: b, dst2: dst2 ? c : undefined };
  /** The regions into a, b (and c), checked; throws what the statement reports. */
  const regionsOf = (env: Env): void => {
    src(env, a);
    dst(env, b);
    if (a.len !== b.len) stop("DMAC3002", d1.span, [bytes(a.len), bytes(b.len)]);
    if (dst2) {
      dst2(env, c);
      if (a.len !== c.len) stop("DMAC3002", d2!.span, [bytes(a.len), bytes(c.len)]);
    }
    if (a.len === 0) stop("DMAC3007", s.src.span, [dst2 ? "broadcast copy" : "copy"]);
    if (overlaps(a, b)) stop("DMAC3008", d1.span, [fmtRegion(st, a), fmtRegion(st, b)]);
    if (dst2) {
      if (overlaps(a, c)) stop("DMAC3008", d2!.span, [fmtRegion(st, a), fmtRegion(st, c)]);
      if (overlaps(b, c)) stop("DMAC3014", d2!.span, [fmtRegion(st, b), fmtRegion(st, c)]);
    }
  };
  const plain =
    !dst2 && isPlainCopy(st, s)
      ? { me, pl, a, b, regionsOf, end0: newCopyEnd(), end1: newCopyEnd() }
      : undefined;
  return {
    site: me,
    binds: false,
    exec: (env) => {
      regionsOf(env);
      emitData(st, me, env, kind, pl, regions);
    },
    plain,
  };
}

// ---- loops of plain copies ---------------------------------------------------------------------
// A `for` whose body is only copies with one destination, whose ranks and placement do not
// depend on the innermost variable v and whose offsets and lengths are affine in it (affine.ts):
// each run of the innermost range is checked at its two ends and then written straight into the
// op table, with no call per op (a 262,144-copy all-to-all instantiated in ~275 ns per op through
// the closures). Affine values that pass the statement's checks at both ends pass them
// everywhere between, and evaluate without error there (affine.ts); anything else (a failing
// end, a range that may overlap itself, a limit that would be reached inside the run) runs the
// range through the general path, which reports exactly what it would have. The op table and
// the loop values come out the same either way (test/unit/ir/instantiate-plain.test.ts).

/** A plain copy: its site, placement, scratch regions and its checked regions' evaluation. */
interface PlainCopy {
  readonly me: Site;
  readonly pl: PlacementFns;
  readonly a: RegionOut;
  readonly b: RegionOut;
  /** Evaluates and checks the regions into a and b; throws what the statement reports. */
  readonly regionsOf: (env: Env) => void;
  /** The copy at the first and the last value of the run (scratch). */
  readonly end0: CopyEnd;
  readonly end1: CopyEnd;
}

/** One instance of a plain copy: source and destination (rank, buffer, offset), length, placement. */
interface CopyEnd {
  sRank: number;
  sBuf: number;
  sOff: number;
  dRank: number;
  dBuf: number;
  dOff: number;
  len: number;
  driver: number;
  engine: number;
}

function newCopyEnd(): CopyEnd {
  return { sRank: 0, sBuf: 0, sOff: 0, dRank: 0, dBuf: 0, dOff: 0, len: 0, driver: 0, engine: 0 };
}

/** Whether copy `s` (one destination) is plain in the innermost loop variable (see above). */
function isPlainCopy(st: State, s: Extract<Stmt, { kind: "copy" }>): boolean {
  const v = st.loopSlots[st.loopSlots.length - 1];
  if (v === undefined) return false;
  const slotOfName = (e: { name: string; span: Span }): number => slotOf(st, e.name, e.span);
  const constant = (e: Expr): boolean => !mentionsSlot(e, v, slotOfName);
  const affine = (e: Expr): boolean => affineIn(e, v, slotOfName);
  const region = (r: Region): boolean =>
    r.rank.kind !== "host" &&
    constant(r.rank) &&
    (r.slice === undefined ||
      (r.slice.kind === "len"
        ? affine(r.slice.lo) && affine(r.slice.len)
        : affine(r.slice.lo) && affine(r.slice.hi)));
  return (
    region(s.src) &&
    region(s.dsts[0]!) &&
    s.placement.every((p) => constant(p.kind === "driver" ? p.rank : p.engine))
  );
}

/**
 * The instance of `c` at env into `end`, as its statement would emit it; false where the
 * statement would report something (or skip the instance).
 */
function plainEnd(st: State, c: PlainCopy, env: Env, end: CopyEnd): boolean {
  const { a, b, pl } = c;
  try {
    c.regionsOf(env);
    end.driver = pl.by ? checkRank(st, pl.by(env), pl.bySpan) : a.rank;
    end.engine = checkEngine(st, pl, env, end.driver, a.rank, b.rank, a.rank);
  } catch {
    return false;
  }
  end.sRank = a.rank;
  end.sBuf = a.buf;
  end.sOff = a.off;
  end.dRank = b.rank;
  end.dBuf = b.buf;
  end.dOff = b.off;
  end.len = a.len;
  return true;
}

/** (x1 - x0) / steps when that is an integer (it is for affine values), else NaN. */
function slope(x0: number, x1: number, steps: number): number {
  if (steps === 0) return 0;
  const d = (x1 - x0) / steps;
  return Number.isInteger(d) ? d : NaN;
}

/**
 * Emits `count` iterations (v = from, from + step, ...) of a body of plain copies into the op
 * table and the loop values, as the general path would; false (nothing done) where that path
 * must run them (see above).
 */
function runPlainCopies(
  st: State,
  copies: readonly PlainCopy[],
  env: Env,
  slot: number,
  from: number,
  step: number,
  count: number,
): boolean {
  const per = copies.length;
  if (count === 0) return true;
  if (st.iterations + count > st.iterationBudget || st.ops.count + count * per > st.maxOps)
    return false;
  const depth = copies[0]!.me.slots.length;
  const last = from + (count - 1) * step;
  for (const c of copies) {
    env[slot] = from;
    if (!plainEnd(st, c, env, c.end0)) return false;
    env[slot] = last;
    if (!plainEnd(st, c, env, c.end1)) return false;
    const e0 = c.end0;
    const e1 = c.end1;
    if (c.me.slots.length !== depth || c.me.slots[depth - 1] !== slot) return false;
    if (e0.sRank === e0.dRank && e0.sBuf === e0.dBuf) {
      // Apart at both ends on the same side: apart everywhere between (affine distances).
      const below = e0.sOff + e0.len <= e0.dOff && e1.sOff + e1.len <= e1.dOff;
      const above = e0.dOff + e0.len <= e0.sOff && e1.dOff + e1.len <= e1.sOff;
      if (!below && !above) return false;
    }
    const n = count - 1;
    if (Number.isNaN(slope(e0.sOff, e1.sOff, n) + slope(e0.dOff, e1.dOff, n))) return false;
    if (Number.isNaN(slope(e0.len, e1.len, n))) return false;
  }
  // Room, grown as emit and bindFor grow it.
  const need = st.ops.count + count * per;
  if (need > st.ops.kind.length)
    st.ops = resizeOpTable(st.ops, Math.min(st.maxOps, Math.max(need, st.ops.kind.length * 2)));
  const values = st.bindCount + count * depth;
  if (values > st.bindValues.length) {
    const next = floats(
      Math.max(st.bindValues.length * 2, values),
      st.bindValues.buffer instanceof SharedArrayBuffer,
    );
    next.set(st.bindValues.subarray(0, st.bindCount));
    st.bindValues = next;
  }
  // The loop values: one set per iteration, the outer ones as they are now.
  const slots = copies[0]!.me.slots;
  const at0 = st.bindCount;
  for (let k = 0; k < depth - 1; k++) st.bindValues[at0 + k] = env[slots[k]!]!;
  if (depth > 1) repeat(st.bindValues, at0, depth, count);
  stepped(st.bindValues, at0 + depth - 1, depth, count, from, step);
  for (let j = 0; j < per; j++)
    writePlainCopies(st, copies[j]!, st.ops.count + j, per, count, at0, depth);
  if (per === 1 && count > 1 && continues(copies[0]!, count))
    st.copyRuns.push(st.ops.count, st.ops.count + count);
  st.ops.count += count * per;
  st.bindCount += count * depth;
  st.iterations += count;
  st.stamp += count;
  st.bindStamp[depth] = st.stamp;
  st.bindOffset[depth] = at0 + (count - 1) * depth;
  env[slot] = last;
  return true;
}

/** Whether each of the `count` ops of c (one a row) copies the bytes right after the last's. */
function continues(c: PlainCopy, count: number): boolean {
  const e0 = c.end0;
  const e1 = c.end1;
  const n = count - 1;
  return (
    slope(e0.len, e1.len, n) === 0 &&
    slope(e0.sOff, e1.sOff, n) === e0.len &&
    slope(e0.dOff, e1.dOff, n) === e0.len
  );
}

/**
 * The `count` ops of plain copy c, at op first, first + stride, ...; loop values from `at0` by
 * `depth`. The columns an op of this kind leaves 0 are not written: the table is zero past its
 * count (fresh, or a copy of one), so their pages are never touched.
 */
function writePlainCopies(
  st: State,
  c: PlainCopy,
  first: number,
  stride: number,
  count: number,
  at0: number,
  depth: number,
): void {
  const t = st.ops;
  const e0 = c.end0;
  const e1 = c.end1;
  const n = count - 1;
  const fixed = (col: Int16Array | Int32Array | Uint8Array, v: number): void => {
    if (stride === 1) col.fill(v, first, first + count);
    else for (let o = first; o < first + count * stride; o += stride) col[o] = v;
  };
  fixed(t.kind, OP_KINDS.copy.code);
  fixed(t.stmt, c.me.stmt);
  fixed(t.guard, st.guard);
  fixed(t.driver, e0.driver);
  fixed(t.engine, e0.engine);
  fixed(t.srcRank, irRank(e0.sRank));
  fixed(t.srcBuf, e0.sBuf);
  fixed(t.dstRank, irRank(e0.dRank));
  fixed(t.dstBuf, e0.dBuf);
  fixed(t.dst2Rank, -1);
  fixed(t.dst2Buf, -1);
  fixed(t.signal, -1);
  fixed(t.sigRank, -1);
  stepped(t.bind, first, stride, count, at0, depth);
  stepped(t.srcOff, first, stride, count, e0.sOff, slope(e0.sOff, e1.sOff, n));
  stepped(t.dstOff, first, stride, count, e0.dOff, slope(e0.dOff, e1.dOff, n));
  stepped(t.len, first, stride, count, e0.len, slope(e0.len, e1.len, n));
}

/** col[at + i * stride] = x0 + i * dx for i < count. */
function stepped(
  col: Int32Array | Float64Array,
  at: number,
  stride: number,
  count: number,
  x0: number,
  dx: number,
): void {
  for (let i = 0, o = at; i < count; i++, o += stride) col[o] = x0 + i * dx;
}

/** Copies col[at .. at + size) to the count - 1 places after it (by doubling: a few copyWithin). */
function repeat(col: Float64Array, at: number, size: number, count: number): void {
  for (let done = 1; done < count; done *= 2) {
    const n = Math.min(done, count - done);
    col.copyWithin(at + done * size, at, at + n * size);
  }
}

function compileSwap(st: State, s: Extract<Stmt, { kind: "swap" }>): Compiled {
  const fa = compileRegion(st, s.a);
  const fb = compileRegion(st, s.b);
  const pl = compilePlacement(st, s.placement, s.span);
  const me = site(st, s.span, true);
  const a = newRegionOut();
  const b = newRegionOut();
  const regions: DataRegions = { src: a, dst: b };
  return {
    site: me,
    binds: false,
    exec: (env) => {
      fa(env, a);
      fb(env, b);
      if (a.len !== b.len) stop("DMAC3002", s.b.span, [bytes(a.len), bytes(b.len)]);
      if (a.len === 0) stop("DMAC3007", s.a.span, ["swap"]);
      if (overlaps(a, b)) stop("DMAC3009", s.b.span, [fmtRegion(st, a), fmtRegion(st, b)]);
      emitData(st, me, env, OP_KINDS.swap.code, pl, regions);
    },
  };
}

function checkByte(v: number, span: Span): number {
  if (!Number.isInteger(v) || v < 0 || v > 255) stop("DMAC3016", span, [v]);
  return v;
}

function compileFill(st: State, s: Extract<Stmt, { kind: "fill" }>): Compiled {
  const fd = compileRegion(st, s.dst);
  const value = expr(st, s.value);
  const pl = compilePlacement(st, s.placement, s.span);
  const me = site(st, s.span, true);
  const d = newRegionOut();
  const regions: DataRegions = { dst: d };
  return {
    site: me,
    binds: false,
    exec: (env) => {
      fd(env, d);
      const v = checkByte(value(env), s.value.span);
      if (d.len === 0) stop("DMAC3007", s.dst.span, ["fill"]);
      const i = emitData(st, me, env, OP_KINDS.fill.code, pl, regions);
      st.ops.value[i] = v;
    },
  };
}

/** The signal id and checked rank of `FLAG@R`. */
function compileFlag(
  st: State,
  flag: Extract<Stmt, { kind: "notify" }>["flag"],
): (env: Env) => { id: number; rank: number } {
  const name = flag.signal.name;
  const id = st.signalIds.get(name);
  if (id === undefined) throw new InternalError(`unknown signal '${name}' survived checking`);
  const rankF = expr(st, flag.rank);
  const out = { id, rank: -1 };
  return (env) => {
    const home = st.sigRank[id]!;
    if (home === -2) throw SKIP;
    const rank = checkRank(st, rankF(env), flag.rank.span);
    if (home >= 0 && home !== rank)
      stop(
        "DMAC3023",
        flag.rank.span,
        [`signal '${name}'`, rank],
        `'${name}' is declared on rank ${home} only`,
      );
    out.rank = rank;
    return out;
  };
}

/** The least u32 value that `x OP v` allows. */
function least(op: CompareOp, v: number): number {
  if (op === ">") return Math.floor(v) + 1;
  return op === "==" || op === ">=" ? Math.ceil(v) : 0;
}

/**
 * Why `signal OP v` can never hold inside the `when`s around it (undefined if it can): an
 * enclosing wait on the same signal has seen it reach some value, and a signal only grows, so a
 * condition that no value from there on meets blocks forever (`when f >= 5 { when f <= 1 }`).
 * Costs the nesting depth: the enclosing waits are the chain of guards.
 */
function unsatisfiableInside(
  st: State,
  f: { readonly id: number; readonly rank: number },
  op: CompareOp,
  v: number,
): string | undefined {
  const t = st.ops;
  let floor = 0;
  let by = -1;
  for (let g = st.guard; g >= 0; g = t.guard[g]!) {
    if (t.signal[g] !== f.id || t.sigRank[g] !== f.rank) continue;
    const at = least(COMPARE_OPS[t.cmp[g]!]!, t.value[g]!);
    if (at > floor) [floor, by] = [at, g];
  }
  const never = op === "<" ? v <= floor : op === "<=" || op === "==" ? v < floor : false;
  if (!never || by < 0) return undefined;
  const outer = `${st.signalNames[f.id]}@${f.rank} ${COMPARE_OPS[t.cmp[by]!]} ${t.value[by]}`;
  return `an enclosing \`when ${outer}\` has seen it reach ${floor}, and signals only grow: never ${op} ${v}`;
}

/** Why `signal OP v` can never hold for a u32 signal, or undefined if some value satisfies it. */
export function unsatisfiable(op: string, v: number): string | undefined {
  const range = `signals are unsigned 32-bit values (0..${U32_MAX})`;
  switch (op) {
    case "==":
      return v < 0 || v > U32_MAX || !Number.isInteger(v) ? `${range}, never == ${v}` : undefined;
    case "!=":
      return undefined;
    case "<":
      return v <= 0 ? `${range}, never < ${v}` : undefined;
    case "<=":
      return v < 0 ? `${range}, never <= ${v}` : undefined;
    case ">":
      return v >= U32_MAX ? `${range}, never > ${v}` : undefined;
    case ">=":
      return v > U32_MAX ? `${range}, never >= ${v}` : undefined;
    default:
      throw new InternalError(`unknown comparison '${op}'`);
  }
}

/** The most a thermometer flag counts to: one bit of its 32-bit word per value. */
export const THERMOMETER_MAX = 32;

/** Whether `F op v` on a thermometer flag is a test of one bit, V-1 with V = v (>=) or v+1 (>). */
function thermometerValue(op: string, v: number): boolean {
  const V = op === ">" ? v + 1 : v;
  return Number.isInteger(V) && V >= 1 && V <= THERMOMETER_MAX;
}

function compileWhen(st: State, s: Extract<Stmt, { kind: "when" }>): Compiled {
  const flag = compileFlag(st, s.flag);
  const value = expr(st, s.value);
  const header = { start: s.span.start, end: s.value.span.end };
  const me = site(st, header, true);
  const cmp = COMPARE_OPS.indexOf(s.op);
  if (cmp < 0) throw new InternalError(`unknown comparison '${s.op}'`);
  const body = compileNested(st, s.body);
  return {
    site: me,
    binds: false,
    exec: (env) => {
      const f = flag(env);
      const v = value(env);
      // A thermometer flag counts in the bits of its word: `>= V` tests bit V-1 (DMAC2043).
      if (st.sigThermometer[f.id] === true && !thermometerValue(s.op, v))
        stop("DMAC2043", header, [`${s.flag.signal.name}@${f.rank} ${s.op} ${v}`]);
      const why = unsatisfiable(s.op, v) ?? unsatisfiableInside(st, f, s.op, v);
      if (why !== undefined) stop("DMAC3017", header, [why]);
      const i = emit(st, me, env, OP_KINDS.wait.code);
      const t = st.ops;
      t.signal[i] = f.id;
      t.sigRank[i] = f.rank;
      t.cmp[i] = cmp;
      t.value[i] = v;
      const saved = st.guard;
      st.guard = i;
      try {
        body(env);
      } finally {
        st.guard = saved;
      }
    },
  };
}

function compileNotify(st: State, s: Extract<Stmt, { kind: "notify" }>): Compiled {
  const flag = compileFlag(st, s.flag);
  const me = site(st, s.span, true);
  return {
    site: me,
    binds: false,
    exec: (env) => {
      const f = flag(env);
      const i = emit(st, me, env, OP_KINDS.notify.code);
      const t = st.ops;
      t.signal[i] = f.id;
      t.sigRank[i] = f.rank;
    },
  };
}

function compileEnsure(st: State, s: Extract<Stmt, { kind: "ensure" }>): Compiled {
  const fd = compileRegion(st, s.dst);
  const exp = s.expected;
  const fs = exp.kind === "region" ? compileRegion(st, exp) : undefined;
  const value = exp.kind === "region" ? undefined : expr(st, exp);
  const me = site(st, s.span, true);
  const d = newRegionOut();
  const r = newRegionOut();
  return {
    site: me,
    binds: false,
    exec: (env) => {
      fd(env, d);
      let expected: IrEnsure["expected"];
      if (fs) {
        fs(env, r);
        if (r.len !== d.len) stop("DMAC3002", exp.span, [bytes(r.len), bytes(d.len)]);
        expected = { kind: "region", region: irRegion(r) };
      } else {
        expected = { kind: "byte", value: checkByte(value!(env), exp.span) };
      }
      st.ensures.push({ dst: irRegion(d), expected, stmt: me.stmt, bind: bindFor(st, me, env) });
    },
  };
}
