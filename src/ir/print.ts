// The IR text form: a stable, line-oriented rendering of an IrModule (printed by `dmac ir`, used in
// golden tests, parsed back by parse-text.ts; printIr(parseIr(text).module) === text).
//
// Format, version 1. One item per line, single spaces, in this order:
//
//   ; dmac ir v1
//   schedule NAME target TARGET ranks N
//   doc "JSON string"                            (only when the schedule has a doc comment)
//   param NAME: TYPE = VALUE                     (int/bytes: integer, bool: true/false)
//   buffer ID NAME size BYTES on RANK|* at SPAN  (* = one instance on every rank)
//   signal ID NAME on RANK|* [thermometer] at SPAN  (thermometer: declared so; else a count)
//   stmt ID at SPAN [vars V1 V2 ...]             (source statements; loop variables outermost first)
//   collective NAME(ARG, ...) at SPAN            (buffer args by name, int args as numbers)
//   op I copy   REGION -> REGION ATTRS
//   op I bcast  REGION -> REGION, REGION ATTRS
//   op I swap   REGION <-> REGION ATTRS
//   op I fill   REGION with BYTE ATTRS
//   op I wait   SIGNAL@RANK CMP VALUE ATTRS      (CMP one of == != < <= > >=)
//   op I notify SIGNAL@RANK ATTRS
//   ensure REGION == REGION|BYTE stmt S [bind ...]
//   edges COUNT                                  (only with deps: the edges were inferred)
//   deps I <- P1 P2 ...                          (only ops that have predecessors)
//
// REGION is `BUFFER@RANK[OFFSET +: LEN]`. ATTRS are, in this order and each only when set:
// `driver D` (copy/bcast/swap/fill), `engine E` (pinned), `guard W` (the innermost wait op),
// `stmt S`, `bind V1=x V2=y` (the loop variables' values of this instance).
// SPAN is `LINE:COL-LINE:COL` (1-based, end exclusive) when the module knows its source file, or
// `#START-END` (byte offsets) when it does not. Ids are dense and in order (op I is line I).

import type { SourceFile, Span } from "../source/source-file.js";
import { lineCol } from "../source/source-file.js";
import { assertNever } from "../util/assert-never.js";
import { COMPARE_OPS, HOST, opKind, type IrModule, type IrRegion } from "./ir.js";

export const IR_TEXT_HEADER = "; dmac ir v1";

export interface PrintOptions {
  /** Print the happens-before edges (`edges` and `deps` lines) when the module has them. */
  readonly deps?: boolean | undefined;
}

export function formatSpan(file: SourceFile | undefined, s: Span): string {
  if (!file) return `#${s.start}-${s.end}`;
  const a = lineCol(file, s.start);
  const b = lineCol(file, s.end);
  return `${a.line}:${a.col}-${b.line}:${b.col}`;
}

/** `buf@3[8192 +: 4096]`. */
export function formatRegion(m: IrModule, r: IrRegion): string {
  return `${m.buffers[r.buffer]?.name ?? `?${r.buffer}`}@${placeOf(m, r.buffer, r.rank)}[${r.offset} +: ${r.len}]`;
}

/** The rank of a region as written: `host` for a host buffer (whose regions carry a placeholder rank). */
function placeOf(m: IrModule, buffer: number, rank: number): string {
  return m.buffers[buffer]?.rank === HOST ? "host" : String(rank);
}

function bindText(m: IrModule, stmt: number, bind: number): string {
  const vars = m.stmts[stmt]?.loopVars ?? [];
  if (vars.length === 0 || bind < 0) return "";
  let s = " bind";
  for (let k = 0; k < vars.length; k++) s += ` ${vars[k]}=${m.bindValues[bind + k]}`;
  return s;
}

/** Names of buffers and signals by id (`?ID` for an id the module does not declare). */
interface Names {
  readonly buf: readonly string[];
  readonly sig: readonly string[];
}

function namesOf(m: IrModule): Names {
  return { buf: m.buffers.map((b) => b.name), sig: m.signals.map((s) => s.name) };
}

function opText(m: IrModule, names: Names, i: number): string {
  const t = m.ops;
  const len = t.len[i]!;
  const b = (id: number): string => names.buf[id] ?? `?${id}`;
  let s: string;
  let driven = true;
  const kind = opKind(t, i);
  switch (kind) {
    case "copy":
    case "bcast":
    case "swap": {
      const src = `${b(t.srcBuf[i]!)}@${placeOf(m, t.srcBuf[i]!, t.srcRank[i]!)}[${t.srcOff[i]} +: ${len}]`;
      const dst = `${b(t.dstBuf[i]!)}@${placeOf(m, t.dstBuf[i]!, t.dstRank[i]!)}[${t.dstOff[i]} +: ${len}]`;
      if (kind === "swap") s = `swap ${src} <-> ${dst}`;
      else if (kind === "copy") s = `copy ${src} -> ${dst}`;
      else
        s = `bcast ${src} -> ${dst}, ${b(t.dst2Buf[i]!)}@${placeOf(m, t.dst2Buf[i]!, t.dst2Rank[i]!)}[${t.dst2Off[i]} +: ${len}]`;
      break;
    }
    case "fill":
      s = `fill ${b(t.dstBuf[i]!)}@${placeOf(m, t.dstBuf[i]!, t.dstRank[i]!)}[${t.dstOff[i]} +: ${len}] with ${t.value[i]}`;
      break;
    case "wait":
    case "notify": {
      const sig = `${names.sig[t.signal[i]!] ?? `?${t.signal[i]}`}@${t.sigRank[i]}`;
      s = kind === "wait" ? `wait ${sig} ${COMPARE_OPS[t.cmp[i]!]} ${t.value[i]}` : `notify ${sig}`;
      driven = false;
      break;
    }
    default:
      return assertNever(kind, "op kind");
  }
  if (driven) s += ` driver ${t.driver[i]}`;
  if (t.engine[i]! >= 0) s += ` engine ${t.engine[i]}`;
  if (t.guard[i]! >= 0) s += ` guard ${t.guard[i]}`;
  s += ` stmt ${t.stmt[i]}`;
  return s + bindText(m, t.stmt[i]!, t.bind[i]!);
}

/** The op's text without the leading `op I ` (also for diagnostics of later phases). */
export function formatOp(m: IrModule, i: number): string {
  return opText(m, namesOf(m), i);
}

export function printIr(m: IrModule, opts: PrintOptions = {}): string {
  const file = m.file;
  const out: string[] = [IR_TEXT_HEADER];
  out.push(`schedule ${m.schedule} target ${m.target} ranks ${m.ranks}`);
  if (m.doc !== "") out.push(`doc ${JSON.stringify(m.doc)}`);
  for (const p of m.params) out.push(`param ${p.name}: ${p.type} = ${String(p.value)}`);
  for (const b of m.buffers)
    out.push(
      `buffer ${b.id} ${b.name} size ${b.size} on ${b.rank === HOST ? "host" : b.rank < 0 ? "*" : b.rank} at ${formatSpan(file, b.span)}`,
    );
  for (const s of m.signals)
    out.push(
      `signal ${s.id} ${s.name} on ${s.rank < 0 ? "*" : s.rank}${s.encoding === "thermometer" ? " thermometer" : ""} at ${formatSpan(file, s.span)}`,
    );
  m.stmts.forEach((s, k) => {
    const vars = s.loopVars.length > 0 ? ` vars ${s.loopVars.join(" ")}` : "";
    out.push(`stmt ${k} at ${formatSpan(file, s.span)}${vars}`);
  });
  const c = m.collective;
  if (c) {
    const args = c.args.map((a) =>
      a.kind === "buffer" ? (m.buffers[a.id]?.name ?? `?${a.id}`) : String(a.value),
    );
    out.push(`collective ${c.name}(${args.join(", ")}) at ${formatSpan(file, c.span)}`);
  }
  const names = namesOf(m);
  for (let i = 0; i < m.ops.count; i++) out.push(`op ${i} ${opText(m, names, i)}`);
  for (const e of m.ensures) {
    const rhs =
      e.expected.kind === "region" ? formatRegion(m, e.expected.region) : String(e.expected.value);
    out.push(
      `ensure ${formatRegion(m, e.dst)} == ${rhs} stmt ${e.stmt}${bindText(m, e.stmt, e.bind)}`,
    );
  }
  const edges = m.edges;
  if (opts.deps && edges) {
    out.push(`edges ${edges.predStart[m.ops.count] ?? 0}`);
    for (let i = 0; i < m.ops.count; i++) {
      const a = edges.predStart[i]!;
      const b = edges.predStart[i + 1]!;
      if (a === b) continue;
      let s = `deps ${i} <-`;
      for (let k = a; k < b; k++) s += ` ${edges.predIdx[k]}`;
      out.push(s);
    }
  }
  return out.join("\n") + "\n";
}
