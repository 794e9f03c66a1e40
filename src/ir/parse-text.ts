// Parses the IR text form (see print.ts for the format) back into an IrModule.
//
// Contract: `parseIr(text)` never throws for bad input; it returns the module (undefined when any
// line is malformed) and a list of `line N: problem` errors. It is for tests and tools, so it checks
// the syntax and that every reference (buffer, signal, stmt, guard, dep) names something declared,
// not the schedule's semantics (run the verifier for that).
//
// Spans: `#START-END` spans become those offsets. `LINE:COL-LINE:COL` spans are mapped into a
// synthetic SourceFile whose line k starts at offset (k - 1) * 2^20, so that printing the parsed
// module reproduces the same positions without the original source.

import type { SourceFile, Span } from "../source/source-file.js";
import type { TypeName, CompareOp } from "../frontend/ast.js";
import {
  allocOpTable,
  COMPARE_OPS,
  OP_KINDS,
  setOpDst,
  setOpDst2,
  setOpSrc,
  HOST,
  HOST_REGION_RANK,
  type IrBuffer,
  type IrCollective,
  type IrEdges,
  type IrEnsure,
  type IrModule,
  type IrRegion,
  type IrSignal,
  type IrStmt,
  type OpKind,
  type OpTable,
} from "./ir.js";
import { IR_TEXT_HEADER } from "./print.js";

export interface ParseIrResult {
  readonly module: IrModule | undefined;
  readonly errors: string[];
}

const LINE_STRIDE = 1 << 20;

class LineError {
  constructor(readonly message: string) {}
}

/** A cursor over one line; every reader throws LineError on mismatch. */
function cursor(line: string) {
  let i = 0;
  const fail = (what: string): never => {
    throw new LineError(
      `expected ${what} at column ${i + 1}, found '${line.slice(i, i + 12) || "end of line"}'`,
    );
  };
  const c = {
    peek: (lit: string) => line.startsWith(lit, i),
    peekChar: () => line.charAt(i),
    lit(lit: string): void {
      if (!line.startsWith(lit, i)) fail(`'${lit}'`);
      i += lit.length;
    },
    /** An optional literal: consumes it and returns true when present. */
    opt(lit: string): boolean {
      if (!line.startsWith(lit, i)) return false;
      i += lit.length;
      return true;
    },
    ident(): string {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(line.slice(i));
      if (!m) return fail("a name");
      i += m[0].length;
      return m[0];
    },
    int(): number {
      const m = /^-?\d+/.exec(line.slice(i));
      if (!m) return fail("an integer");
      const v = Number(m[0]);
      if (!Number.isSafeInteger(v)) fail("an integer below 2^53");
      i += m[0].length;
      return v;
    },
    rest(): string {
      const s = line.slice(i);
      i = line.length;
      return s;
    },
    end(): void {
      if (i < line.length) fail("end of line");
    },
  };
  return c;
}
type Cursor = ReturnType<typeof cursor>;

export function parseIr(text: string): ParseIrResult {
  const errors: string[] = [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();

  let head: { schedule: string; target: string; ranks: number } | undefined;
  let doc = "";
  const params: { name: string; type: TypeName; value: number | boolean }[] = [];
  const buffers: IrBuffer[] = [];
  const signals: IrSignal[] = [];
  const stmts: IrStmt[] = [];
  let collective: IrCollective | undefined;
  const ensures: IrEnsure[] = [];
  let ops: OpTable = allocOpTable(Math.max(16, lines.length));
  let bindValues: number[] = [];
  let edgeCount: number | undefined;
  const deps = new Map<number, number[]>();
  let maxLine = 0;
  let spanStyle: "linecol" | "offset" | undefined;
  const bufferByName = new Map<string, number>();
  const signalByName = new Map<string, number>();

  const spanOf = (c: Cursor): Span => {
    if (c.opt("#")) {
      const start = c.int();
      c.lit("-");
      const end = c.int();
      setStyle("offset");
      return { start, end };
    }
    const l1 = c.int();
    c.lit(":");
    const c1 = c.int();
    c.lit("-");
    const l2 = c.int();
    c.lit(":");
    const c2 = c.int();
    if (l1 < 1 || l2 < 1 || c1 < 1 || c2 < 1 || c1 > LINE_STRIDE || c2 > LINE_STRIDE)
      throw new LineError("line and column numbers must be positive (and columns below 2^20)");
    maxLine = Math.max(maxLine, l1, l2);
    setStyle("linecol");
    return { start: (l1 - 1) * LINE_STRIDE + c1 - 1, end: (l2 - 1) * LINE_STRIDE + c2 - 1 };
  };
  const setStyle = (s: "linecol" | "offset"): void => {
    if (spanStyle !== undefined && spanStyle !== s)
      throw new LineError("spans mix LINE:COL and #OFFSET forms");
    spanStyle = s;
  };
  const region = (c: Cursor): IrRegion => {
    const name = c.ident();
    const buffer = bufferByName.get(name);
    if (buffer === undefined) throw new LineError(`unknown buffer '${name}'`);
    c.lit("@");
    const onHost = c.opt("host");
    if (onHost !== (buffers[buffer]!.rank === HOST))
      throw new LineError(`buffer '${name}' is ${onHost ? "not " : ""}a host buffer`);
    const rank = onHost ? HOST_REGION_RANK : c.int();
    c.lit("[");
    const offset = c.int();
    c.lit(" +: ");
    const len = c.int();
    c.lit("]");
    return { rank, buffer, offset, len };
  };
  const flag = (c: Cursor): { signal: number; rank: number } => {
    const name = c.ident();
    const signal = signalByName.get(name);
    if (signal === undefined) throw new LineError(`unknown signal '${name}'`);
    c.lit("@");
    return { signal, rank: c.int() };
  };
  const rankOrStar = (c: Cursor): number => (c.opt("*") ? -1 : c.int());
  const bufferPlace = (c: Cursor): number => (c.opt("host") ? HOST : rankOrStar(c));
  const stmtRef = (c: Cursor): number => {
    c.lit(" stmt ");
    const s = c.int();
    if (s < 0 || s >= stmts.length) throw new LineError(`unknown stmt ${s}`);
    return s;
  };
  const bind = (c: Cursor, stmt: number): number => {
    const vars = stmts[stmt]!.loopVars;
    if (vars.length === 0) return -1;
    c.lit(" bind");
    const at = bindValues.length;
    for (const v of vars) {
      c.lit(` ${v}=`);
      bindValues.push(c.int());
    }
    return at;
  };
  const sameLen = (a: IrRegion, b: IrRegion): void => {
    if (a.len !== b.len) throw new LineError("regions of one op must have the same length");
  };

  const parseOp = (c: Cursor): void => {
    const i = c.int();
    if (i !== ops.count) throw new LineError(`expected op ${ops.count}, found op ${i}`);
    c.lit(" ");
    const kind = c.ident();
    if (!Object.hasOwn(OP_KINDS, kind)) throw new LineError(`unknown op kind '${kind}'`);
    const k = kind as OpKind;
    if (ops.count >= ops.kind.length) {
      const next = allocOpTable(ops.kind.length * 2);
      next.count = ops.count;
      for (const key of Object.keys(ops) as (keyof OpTable)[]) {
        if (key !== "count")
          (next[key] as { set(a: ArrayLike<number>): void }).set(ops[key] as ArrayLike<number>);
      }
      ops = next;
    }
    const t = ops;
    t.kind[i] = OP_KINDS[k].code;
    for (const a of [
      t.driver,
      t.engine,
      t.srcRank,
      t.srcBuf,
      t.dstRank,
      t.dstBuf,
      t.dst2Rank,
      t.dst2Buf,
      t.signal,
      t.sigRank,
      t.guard,
    ])
      a[i] = -1;
    c.lit(" ");
    let driven = true;
    switch (k) {
      case "copy":
      case "bcast": {
        const a = region(c);
        c.lit(" -> ");
        const b = region(c);
        sameLen(a, b);
        setOpSrc(t, i, a);
        setOpDst(t, i, b);
        if (k === "bcast") {
          c.lit(", ");
          const d = region(c);
          sameLen(a, d);
          setOpDst2(t, i, d);
        }
        break;
      }
      case "swap": {
        const a = region(c);
        c.lit(" <-> ");
        const b = region(c);
        sameLen(a, b);
        setOpSrc(t, i, a);
        setOpDst(t, i, b);
        break;
      }
      case "fill": {
        setOpDst(t, i, region(c));
        c.lit(" with ");
        t.value[i] = c.int();
        break;
      }
      case "wait": {
        const f = flag(c);
        t.signal[i] = f.signal;
        t.sigRank[i] = f.rank;
        c.lit(" ");
        // Longest operators first, so that `<=` is not read as `<`.
        const cmp = ["==", "!=", "<=", ">=", "<", ">"].find((op) => c.opt(op));
        if (cmp === undefined) throw new LineError("expected a comparison (== != < <= > >=)");
        t.cmp[i] = COMPARE_OPS.indexOf(cmp as CompareOp);
        c.lit(" ");
        t.value[i] = c.int();
        driven = false;
        break;
      }
      case "notify": {
        const f = flag(c);
        t.signal[i] = f.signal;
        t.sigRank[i] = f.rank;
        driven = false;
        break;
      }
    }
    if (driven) {
      c.lit(" driver ");
      t.driver[i] = c.int();
    }
    if (c.opt(" engine ")) t.engine[i] = c.int();
    if (c.opt(" guard ")) {
      const g = c.int();
      if (g < 0 || g >= i || t.kind[g] !== OP_KINDS.wait.code)
        throw new LineError(`guard ${g} is not an earlier wait op`);
      t.guard[i] = g;
    }
    const s = stmtRef(c);
    t.stmt[i] = s;
    t.bind[i] = bind(c, s);
    c.end();
    t.count = i + 1;
  };

  lines.forEach((line, n) => {
    const where = `line ${n + 1}`;
    try {
      if (n === 0) {
        if (line !== IR_TEXT_HEADER) throw new LineError(`expected '${IR_TEXT_HEADER}'`);
        return;
      }
      const c = cursor(line);
      const word = /^[a-z]+/.exec(line)?.[0] ?? "";
      if (word !== "schedule" && head === undefined)
        throw new LineError("expected the 'schedule' line first");
      c.lit(word);
      c.lit(" ");
      switch (word) {
        case "schedule": {
          if (head) throw new LineError("a second 'schedule' line");
          const schedule = c.ident();
          c.lit(" target ");
          const target = c.rest().split(" ranks ");
          if (target.length !== 2 || target[0] === "")
            throw new LineError("expected 'target NAME ranks N'");
          const ranks = Number(target[1]);
          if (!Number.isInteger(ranks) || ranks < 1)
            throw new LineError("ranks must be a positive integer");
          head = { schedule, target: target[0]!, ranks };
          return;
        }
        case "doc": {
          const v: unknown = JSON.parse(c.rest());
          if (typeof v !== "string") throw new LineError("doc must be a JSON string");
          doc = v;
          return;
        }
        case "param": {
          const name = c.ident();
          c.lit(": ");
          const type = c.ident();
          c.lit(" = ");
          if (type === "bool") {
            const v = c.rest();
            if (v !== "true" && v !== "false") throw new LineError("a bool param is true or false");
            params.push({ name, type, value: v === "true" });
          } else if (type === "int" || type === "bytes") {
            params.push({ name, type, value: c.int() });
          } else throw new LineError(`unknown type '${type}'`);
          break;
        }
        case "buffer": {
          const id = c.int();
          if (id !== buffers.length) throw new LineError(`expected buffer ${buffers.length}`);
          c.lit(" ");
          const name = c.ident();
          c.lit(" size ");
          const size = c.int();
          c.lit(" on ");
          const rank = bufferPlace(c);
          c.lit(" at ");
          const span = spanOf(c);
          if (bufferByName.has(name)) throw new LineError(`buffer '${name}' declared twice`);
          bufferByName.set(name, id);
          buffers.push({ id, name, size, rank, span });
          break;
        }
        case "signal": {
          const id = c.int();
          if (id !== signals.length) throw new LineError(`expected signal ${signals.length}`);
          c.lit(" ");
          const name = c.ident();
          c.lit(" on ");
          const rank = rankOrStar(c);
          const encoding = c.opt(" thermometer") ? "thermometer" : "count";
          c.lit(" at ");
          const span = spanOf(c);
          if (signalByName.has(name)) throw new LineError(`signal '${name}' declared twice`);
          signalByName.set(name, id);
          signals.push({ id, name, rank, encoding, span });
          break;
        }
        case "stmt": {
          const id = c.int();
          if (id !== stmts.length) throw new LineError(`expected stmt ${stmts.length}`);
          c.lit(" at ");
          const span = spanOf(c);
          const loopVars: string[] = [];
          if (c.opt(" vars")) while (c.opt(" ")) loopVars.push(c.ident());
          stmts.push({ span, loopVars });
          break;
        }
        case "collective": {
          if (collective) throw new LineError("a second 'collective' line");
          const name = c.ident();
          c.lit("(");
          const args: IrCollective["args"][number][] = [];
          while (!c.opt(")")) {
            if (args.length > 0) c.lit(", ");
            if (c.peek("-") || /\d/.test(c.peekChar())) args.push({ kind: "int", value: c.int() });
            else {
              const b = c.ident();
              const id = bufferByName.get(b);
              if (id === undefined) throw new LineError(`unknown buffer '${b}'`);
              args.push({ kind: "buffer", id });
            }
          }
          c.lit(" at ");
          collective = { name, args, span: spanOf(c) };
          break;
        }
        case "op":
          parseOp(c);
          return;
        case "ensure": {
          const dst = region(c);
          c.lit(" == ");
          let expected: IrEnsure["expected"];
          if (/\d|-/.test(c.peekChar())) expected = { kind: "byte", value: c.int() };
          else {
            const r = region(c);
            sameLen(dst, r);
            expected = { kind: "region", region: r };
          }
          const stmt = stmtRef(c);
          ensures.push({ dst, expected, stmt, bind: bind(c, stmt) });
          break;
        }
        case "edges":
          if (edgeCount !== undefined) throw new LineError("a second 'edges' line");
          edgeCount = c.int();
          break;
        case "deps": {
          if (edgeCount === undefined) throw new LineError("'deps' before 'edges'");
          const i = c.int();
          if (i < 0 || i >= ops.count) throw new LineError(`unknown op ${i}`);
          if (deps.has(i)) throw new LineError(`a second 'deps' line for op ${i}`);
          c.lit(" <-");
          const preds: number[] = [];
          while (c.opt(" ")) {
            const p = c.int();
            if (p < 0 || p >= i)
              throw new LineError(`predecessor ${p} does not come before op ${i}`);
            preds.push(p);
          }
          if (preds.length === 0) throw new LineError("'deps' without predecessors");
          deps.set(i, preds);
          break;
        }
        default:
          throw new LineError(`unknown line '${word || line}'`);
      }
      c.end();
    } catch (e) {
      if (e instanceof LineError) errors.push(`${where}: ${e.message}`);
      else if (e instanceof SyntaxError) errors.push(`${where}: ${e.message}`);
      else throw e;
    }
  });

  if (lines.length === 0) errors.push(`line 1: expected '${IR_TEXT_HEADER}'`);
  else if (!head && errors.length === 0) errors.push("missing the 'schedule' line");
  let edges: IrEdges | undefined;
  if (edgeCount !== undefined) {
    const predStart = new Int32Array(ops.count + 1);
    const predIdx = new Int32Array(edgeCount);
    let k = 0;
    for (let i = 0; i < ops.count; i++) {
      predStart[i] = k;
      for (const p of deps.get(i) ?? []) {
        if (k < edgeCount) predIdx[k] = p;
        k++;
      }
    }
    predStart[ops.count] = k;
    if (k !== edgeCount) errors.push(`'edges ${edgeCount}' but the deps lines list ${k}`);
    edges = { predStart, predIdx };
  }
  if (errors.length > 0 || !head) return { module: undefined, errors };
  const file: SourceFile | undefined =
    spanStyle === "linecol"
      ? {
          name: "<ir>",
          text: "",
          lineStarts: Array.from({ length: maxLine + 1 }, (_, k) => k * LINE_STRIDE),
        }
      : undefined;
  const module: IrModule = {
    schedule: head.schedule,
    doc,
    target: head.target,
    ranks: head.ranks,
    params,
    buffers,
    signals,
    stmts,
    bindValues: Float64Array.from(bindValues),
    ops,
    ensures,
    collective,
    edges,
    file,
  };
  return { module, errors };
}
