// Test helper: builds an IrModule (and a SourceFile whose lines are the ops, so spans resolve to
// line:col) from a compact description, without the front end or instantiation.
//
// Lines (one op each, numbers only):
//   copy buf@0[0 +: 8] -> buf@1[0 +: 8]          copy a@0 -> b@1, b@2   (broadcast)
//   swap buf@0[0 .. 8] <-> buf@1[8 +: 8]         fill buf@1[0 +: 4] with 255
//   when flag@0 >= 1 {   ...   }                  notify flag@0
//   ensure buf@1[0 +: 8] == buf@0[0 +: 8]        ensure buf@1 == 0
// Optional suffix `| r = 1, p = 3` gives the loop variables' values; optional prefix `[label]`
// makes lines with the same label instances of one statement (like one statement in a loop).

import { makeSourceFile, type SourceFile, type Span } from "../../../src/source/source-file.js";
import {
  allocOpTable,
  COMPARE_OPS,
  growOpTable,
  OP_KINDS,
  setOpDst,
  setOpDst2,
  setOpSrc,
  type IrBuffer,
  type IrCollective,
  type IrEnsure,
  type IrModule,
  type IrRegion,
  type IrSignal,
  type IrStmt,
  type OpKind,
  type OpTable,
} from "../../../src/ir/ir.js";
import type { CompareOp } from "../../../src/frontend/ast.js";

export interface IrSpec {
  readonly ranks: number;
  /** name -> size (on every rank) or { size, rank } (on one rank). In declaration order. */
  readonly buffers: Readonly<Record<string, number | { size: number; rank: number }>>;
  readonly signals?: readonly string[];
  /** e.g. "all_gather_inplace(buf)" or "broadcast(buf, 0)". */
  readonly implements?: string;
  readonly lines: readonly string[];
}

export interface BuiltIr {
  readonly m: IrModule;
  readonly file: SourceFile;
}

export function buildIr(spec: IrSpec): BuiltIr {
  const header = spec.implements === undefined ? "// ir" : `implements ${spec.implements}`;
  const text = [header, ...spec.lines].join("\n") + "\n";
  const file = makeSourceFile("test.dmac", text);

  const buffers: IrBuffer[] = Object.entries(spec.buffers).map(([name, b], id) => ({
    id,
    name,
    size: typeof b === "number" ? b : b.size,
    rank: typeof b === "number" ? -1 : b.rank,
    span: { start: 0, end: 0 },
  }));
  const signals: IrSignal[] = (spec.signals ?? []).map((name, id) => ({
    id,
    name,
    rank: -1,
    encoding: "count" as const,
    span: { start: 0, end: 0 },
  }));
  const bufId = (name: string): number => {
    const b = buffers.find((x) => x.name === name);
    if (b === undefined) throw new Error(`unknown buffer ${name}`);
    return b.id;
  };
  const sigId = (name: string): number => {
    const s = signals.find((x) => x.name === name);
    if (s === undefined) throw new Error(`unknown signal ${name}`);
    return s.id;
  };
  const region = (txt: string): IrRegion => {
    const mm = /^(\w+)@(\d+)(?:\[\s*(\d+)\s*(\+:|\.\.)\s*(\d+)\s*\])?$/.exec(txt.trim());
    if (mm === null) throw new Error(`bad region ${txt}`);
    const buffer = bufId(mm[1]!);
    const rank = Number(mm[2]);
    if (mm[3] === undefined) return { rank, buffer, offset: 0, len: buffers[buffer]!.size };
    const lo = Number(mm[3]);
    const n = Number(mm[5]);
    return { rank, buffer, offset: lo, len: mm[4] === "+:" ? n : n - lo };
  };

  let ops: OpTable = allocOpTable(16);
  const stmts: IrStmt[] = [];
  const labels = new Map<string, number>();
  const binds: number[] = [];
  const ensures: IrEnsure[] = [];
  const guards: number[] = [];
  let collective: IrCollective | undefined;

  if (spec.implements !== undefined) {
    const mm = /^(\w+)\((.*)\)$/.exec(spec.implements)!;
    const args = mm[2]!
      .split(",")
      .map((a) => a.trim())
      .filter((a) => a !== "")
      .map((a) =>
        /^-?\d+$/.test(a)
          ? { kind: "int" as const, value: Number(a) }
          : { kind: "buffer" as const, id: bufId(a) },
      );
    collective = { name: mm[1]!, args, span: { start: "implements ".length, end: header.length } };
  }

  spec.lines.forEach((raw, li) => {
    const lineStart = file.lineStarts[li + 1]!;
    let body = raw;
    let annot = "";
    const bar = body.indexOf("|");
    if (bar >= 0) {
      annot = body.slice(bar + 1);
      body = body.slice(0, bar);
    }
    let label: string | undefined;
    const lm = /^\s*\[(\w+)\]\s*/.exec(body);
    if (lm !== null) label = lm[1];
    const content = body.slice(lm === null ? 0 : lm[0].length).trim();
    if (content === "}") {
      guards.pop();
      return;
    }
    if (content === "") return;
    const col = raw.indexOf(content);
    const span: Span = { start: lineStart + col, end: lineStart + col + content.length };
    const vars: string[] = [];
    const vals: number[] = [];
    for (const part of annot.split(",")) {
      const am = /^\s*(\w+)\s*=\s*(-?\d+)\s*$/.exec(part);
      if (am !== null) {
        vars.push(am[1]!);
        vals.push(Number(am[2]));
      }
    }
    let stmt = label === undefined ? undefined : labels.get(label);
    if (stmt === undefined) {
      stmt = stmts.length;
      stmts.push({ span, loopVars: vars });
      if (label !== undefined) labels.set(label, stmt);
    }
    let bind = -1;
    if (vals.length > 0) {
      bind = binds.length;
      binds.push(...vals);
    }

    if (content.startsWith("ensure ")) {
      const em = /^ensure\s+(.+?)\s*==\s*(.+)$/.exec(content)!;
      const dst = region(em[1]!);
      const rhs = em[2]!.trim();
      const expected = /^(0x[0-9a-f]+|\d+)$/i.test(rhs)
        ? { kind: "byte" as const, value: Number(rhs) }
        : { kind: "region" as const, region: region(rhs) };
      ensures.push({ dst, expected, stmt, bind });
      return;
    }

    const i = ops.count;
    ops = growOpTable(ops, i + 1);
    ops.count = i + 1;
    const t = ops;
    const setKind = (k: OpKind): void => {
      t.kind[i] = OP_KINDS[k].code;
    };
    t.stmt[i] = stmt;
    t.bind[i] = bind;
    t.engine[i] = -1;
    t.guard[i] = guards.length === 0 ? -1 : guards[guards.length - 1]!;
    for (const a of [t.srcRank, t.dstRank, t.dst2Rank, t.sigRank] as Int16Array[]) a[i] = -1;
    for (const a of [t.srcBuf, t.dstBuf, t.dst2Buf, t.signal] as Int32Array[]) a[i] = -1;
    let driver = -1;
    let rest = content;
    const by = / by (\d+)\s*$/.exec(rest);
    if (by !== null) {
      driver = Number(by[1]);
      rest = rest.slice(0, by.index);
    }
    let m: RegExpExecArray | null;
    if ((m = /^copy\s+(.+?)\s*->\s*(.+)$/.exec(rest)) !== null) {
      const src = region(m[1]!);
      const dsts = m[2]!.split(/,(?![^[]*\])/).map(region);
      setOpSrc(t, i, src);
      setOpDst(t, i, dsts[0]!);
      if (dsts.length === 2) {
        setKind("bcast");
        setOpDst2(t, i, dsts[1]!);
      } else setKind("copy");
      t.driver[i] = driver >= 0 ? driver : src.rank;
    } else if ((m = /^swap\s+(.+?)\s*<->\s*(.+)$/.exec(rest)) !== null) {
      setKind("swap");
      const a = region(m[1]!);
      setOpSrc(t, i, a);
      setOpDst(t, i, region(m[2]!));
      t.driver[i] = driver >= 0 ? driver : a.rank;
    } else if ((m = /^fill\s+(.+?)\s+with\s+(\w+)$/.exec(rest)) !== null) {
      setKind("fill");
      const d = region(m[1]!);
      setOpDst(t, i, d);
      t.value[i] = Number(m[2]);
      t.driver[i] = driver >= 0 ? driver : d.rank;
    } else if ((m = /^when\s+(\w+)@(\d+)\s*(==|!=|<=|>=|<|>)\s*(\d+)\s*\{$/.exec(rest)) !== null) {
      setKind("wait");
      t.signal[i] = sigId(m[1]!);
      t.sigRank[i] = Number(m[2]);
      t.cmp[i] = COMPARE_OPS.indexOf(m[3] as CompareOp);
      t.value[i] = Number(m[4]);
      t.driver[i] = Number(m[2]);
      guards.push(i);
    } else if ((m = /^notify\s+(\w+)@(\d+)$/.exec(rest)) !== null) {
      setKind("notify");
      t.signal[i] = sigId(m[1]!);
      t.sigRank[i] = Number(m[2]);
      t.driver[i] = Number(m[2]);
    } else {
      throw new Error(`bad line: ${raw}`);
    }
  });

  const m: IrModule = {
    schedule: "test",
    doc: "",
    target: "mi300x",
    ranks: spec.ranks,
    params: [],
    buffers,
    signals,
    stmts,
    bindValues: Float64Array.from(binds),
    ops,
    ensures,
    collective,
    edges: undefined,
  };
  return { m, file };
}

/** The preds of op i as a plain array (for assertions). */
export function predsOf(m: IrModule, i: number): number[] {
  const e = m.edges;
  if (e === undefined) throw new Error("no edges");
  return Array.from(e.predIdx.subarray(e.predStart[i]!, e.predStart[i + 1]!));
}

/**
 * A module of `count` copies made by `gen(i)` directly in the op table (no text), for scale
 * tests: gen returns [srcRank, srcBuf, srcOff, dstRank, dstBuf, dstOff, len].
 */
export function bulkCopies(
  ranks: number,
  buffers: readonly { name: string; size: number }[],
  count: number,
  gen: (i: number) => readonly [number, number, number, number, number, number, number],
): IrModule {
  const t = allocOpTable(count);
  t.count = count;
  t.guard.fill(-1);
  t.bind.fill(-1);
  t.engine.fill(-1);
  t.signal.fill(-1);
  t.sigRank.fill(-1);
  t.dst2Rank.fill(-1);
  t.dst2Buf.fill(-1);
  for (let i = 0; i < count; i++) {
    const [sr, sb, so, dr, db, doff, len] = gen(i);
    t.kind[i] = OP_KINDS.copy.code;
    t.srcRank[i] = sr;
    t.srcBuf[i] = sb;
    t.srcOff[i] = so;
    t.dstRank[i] = dr;
    t.dstBuf[i] = db;
    t.dstOff[i] = doff;
    t.len[i] = len;
    t.driver[i] = sr;
  }
  return {
    schedule: "bulk",
    doc: "",
    target: "mi300x",
    ranks,
    params: [],
    buffers: buffers.map((b, id) => ({
      id,
      name: b.name,
      size: b.size,
      rank: -1,
      span: { start: 0, end: 0 },
    })),
    signals: [],
    stmts: [{ span: { start: 0, end: 0 }, loopVars: [] }],
    bindValues: new Float64Array(0),
    ops: t,
    ensures: [],
    collective: undefined,
    edges: undefined,
  };
}
