// Hover text, in Markdown:
//   - a name (declaration or use): what it is, its type, and its value at the default
//     parameters (a buffer: its size and rank; a schedule: its signature, doc and op count);
//   - a region (`buf@r[lo +: len]`, cursor on `@`, brackets or the buffer name): the byte ranges
//     it stands for at the default parameters, one per instance the IR made of its statement;
//   - the keyword of a copy, swap or fill: the ops it instantiates to and the engines that run
//     them (a pinned `on sdma(E)`, or the target's recommended engine for the pair of GPUs,
//     which is what -O0 uses; -O2 may choose others).
// Instances come from the verified IR (analysis.modules), so files with errors get the names'
// hovers but no byte ranges or op counts.

import type { Hover } from "vscode-languageserver";
import { SYMBOL_LABEL } from "../check/scope.js";
import { lex } from "../frontend/lexer.js";
import { KEYWORDS } from "../frontend/tokens.js";
import type { Block, Program, Region, ScheduleDecl, Stmt } from "../frontend/ast.js";
import { describeBinding, opKind, type IrModule, type IrRegion } from "../ir/ir.js";
import { signalContract } from "../ir/signal-contract.js";
import type { Span } from "../source/source-file.js";
import type { Target } from "../target/target.js";
import type { DocumentAnalysis } from "./analysis.js";
import { toRange } from "./positions.js";
import { nameAt, type Decl } from "./symbol-index.js";
import { checkedSchedule, describeValue, typeOf, valueOf } from "./values.js";

/** Instances listed in a hover before "... and N more". */
const MAX_LISTED = 8;

const inside = (s: Span, offset: number) => s.start <= offset && offset <= s.end;

export function hoverAt(doc: DocumentAnalysis, offset: number): Hover | null {
  const found = nameAt(doc.symbols(), offset);
  const site = statementAt(doc.program(), offset);
  const region = site?.regions.find((r) => inside(r.region.span, offset));
  const onBufferName = region !== undefined && inside(region.region.buffer.span, offset);
  if (found && !onBufferName) {
    const decl = "decl" in found ? found.decl : found.use.decl;
    const span = "decl" in found ? found.span : found.use.span;
    return decl ? hover(doc, span, describeDecl(doc, decl)) : null;
  }
  if (site && region) {
    const buffer = found && "use" in found ? found.use.decl : undefined;
    const lines = [describeRegion(doc, site.schedule, site.stmt, region.role, region.region)];
    if (buffer) lines.push(describeDecl(doc, buffer));
    return hover(doc, region.region.span, lines.join("\n\n---\n\n"));
  }
  const ranks = ranksAt(doc, offset);
  if (ranks) return ranks;
  const s = site?.stmt;
  if (s && (s.kind === "copy" || s.kind === "swap" || s.kind === "fill")) {
    const keyword = { start: s.span.start, end: s.span.start + s.kind.length };
    if (inside(keyword, offset)) {
      return hover(doc, keyword, describeOps(doc, site.schedule, s));
    }
  }
  return null;
}

/** `ranks`: the GPU count of the file's target. */
function ranksAt(doc: DocumentAnalysis, offset: number): Hover | null {
  const token = lex(doc.file).tokens.find(
    (t) => t.startOffset <= offset && offset <= t.startOffset + t.image.length,
  );
  const target = doc.checked()[0]?.target;
  if (token?.tokenType !== KEYWORDS.ranks || !target) return null;
  const span = { start: token.startOffset, end: token.startOffset + token.image.length };
  return hover(
    doc,
    span,
    `${code("ranks: int")}\n\n= ${target.gpus}: the GPUs of target ${target.name}`,
  );
}

function hover(doc: DocumentAnalysis, span: Span, markdown: string): Hover {
  return { contents: { kind: "markdown", value: markdown }, range: toRange(doc, span) };
}

function code(text: string): string {
  return "```dmac\n" + text + "\n```";
}

/** The checker's names for each kind (its messages say "binding 'x'" too), and schedules. */
const KIND_LABEL: Readonly<Record<Decl["kind"], string>> = {
  schedule: "schedule",
  ...SYMBOL_LABEL,
};

function describeDecl(doc: DocumentAnalysis, d: Decl): string {
  const text = doc.file.text;
  const source = (s: Span) => text.slice(s.start, s.end);
  switch (d.kind) {
    case "schedule":
      return describeSchedule(doc, d);
    case "buffer": {
      const size = moduleOf(doc, d.schedule)?.buffers.find((b) => b.name === d.name);
      const where = size ? (size.rank < 0 ? "every rank" : `rank ${size.rank}`) : undefined;
      const lines = [code(source(d.span))];
      if (size) lines.push(`buffer of ${describeValue(size.size, "bytes")} on ${where}`);
      return lines.join("\n\n");
    }
    case "signal": {
      const sig = moduleOf(doc, d.schedule)?.signals.find((s) => s.name === d.name);
      const where = sig ? (sig.rank < 0 ? "every rank" : `rank ${sig.rank}`) : undefined;
      return [
        code(source(d.span)),
        `32-bit flag word${where ? ` on ${where}` : ""}`,
        signalContract(d.encoding),
      ].join("\n\n");
    }
    default: {
      const type = typeOf(doc, d);
      const value = valueOf(doc, d);
      const head = `${KIND_LABEL[d.kind]} ${d.name}${type ? `: ${type}` : ""}`;
      const lines = [code(head)];
      if (value !== undefined) {
        const at = d.kind === "parameter" ? " (default)" : "";
        lines.push(`= ${describeValue(value, type)}${at}`);
      } else if (d.inLoop) lines.push("one value per loop iteration");
      return lines.join("\n\n");
    }
  }
}

function describeSchedule(doc: DocumentAnalysis, d: Decl): string {
  const text = doc.file.text;
  const schedule = doc
    .program()
    .items.find((i): i is ScheduleDecl => i.kind === "schedule" && i.name.span === d.nameSpan);
  const head = schedule ? text.slice(schedule.span.start, schedule.body.span.start).trim() : "";
  const lines = [code(head || `schedule ${d.name}`)];
  if (schedule?.doc) lines.push(schedule.doc);
  const m = moduleOf(doc, schedule);
  if (m) {
    const params = m.params.map((p) => `${p.name} = ${describeValue(p.value, p.type)}`);
    lines.push(
      `${m.ops.count} ops on ${m.ranks} GPUs at ${params.length ? params.join(", ") : "no parameters"}`,
    );
  }
  return lines.join("\n\n");
}

function moduleOf(doc: DocumentAnalysis, s: ScheduleDecl | undefined): IrModule | undefined {
  return s ? doc.modules.find((m) => m.schedule === s.name.name) : undefined;
}

// ---- statements and regions ----------------------------------------------------------------------

type Role = "src" | "dst" | "dst2" | "ensure-dst" | "ensure-src" | "flag";

interface Site {
  readonly schedule: ScheduleDecl;
  readonly stmt: Stmt;
  readonly regions: readonly { readonly role: Role; readonly region: Region }[];
}

/** The innermost statement that contains `offset`, with its regions. */
function statementAt(program: Program, offset: number): Site | undefined {
  for (const item of program.items) {
    if (item.kind !== "schedule" || !inside(item.span, offset)) continue;
    let block: Block | undefined = item.body;
    let found: Stmt | undefined;
    while (block) {
      const s: Stmt | undefined = block.stmts.find((st) => inside(st.span, offset));
      if (!s) break;
      found = s;
      block = innerBlock(s, offset);
    }
    return found ? { schedule: item, stmt: found, regions: regionsOf(found) } : undefined;
  }
  return undefined;
}

function innerBlock(s: Stmt, offset: number): Block | undefined {
  switch (s.kind) {
    case "if": {
      if (inside(s.then.span, offset)) return s.then;
      const e = s.else;
      if (e?.kind === "block") return inside(e.span, offset) ? e : undefined;
      // `else if`: search the nested if as a one-statement block.
      return e ? { kind: "block", stmts: [e], span: e.span } : undefined;
    }
    case "for":
    case "when":
      return inside(s.body.span, offset) ? s.body : undefined;
    default:
      return undefined;
  }
}

function regionsOf(s: Stmt): Site["regions"] {
  switch (s.kind) {
    case "copy":
      return [
        { role: "src", region: s.src },
        ...s.dsts
          .slice(0, 2)
          .map((region, i) => ({ role: i === 0 ? "dst" : "dst2", region }) as const),
      ];
    case "swap":
      return [
        { role: "src", region: s.a },
        { role: "dst", region: s.b },
      ];
    case "fill":
      return [{ role: "dst", region: s.dst }];
    case "ensure":
      return s.expected.kind === "region"
        ? [
            { role: "ensure-dst", region: s.dst },
            { role: "ensure-src", region: s.expected },
          ]
        : [{ role: "ensure-dst", region: s.dst }];
    default:
      return [];
  }
}

/** Indices into module.stmts of the statement at `span` (none if it made no ops). */
function stmtIndex(m: IrModule, span: Span): number {
  return m.stmts.findIndex((s) => s.span.start === span.start && s.span.end === span.end);
}

function regionText(m: IrModule, r: IrRegion): string {
  const name = m.buffers[r.buffer]?.name ?? `#${r.buffer}`;
  return `${name}@${r.rank}[${r.offset} .. ${r.offset + r.len}]`;
}

function listed(lines: readonly string[]): string {
  const shown = lines.slice(0, MAX_LISTED).map((l) => `- ${l}`);
  if (lines.length > MAX_LISTED) shown.push(`- ... and ${lines.length - MAX_LISTED} more`);
  return shown.join("\n");
}

function describeRegion(
  doc: DocumentAnalysis,
  schedule: ScheduleDecl,
  stmt: Stmt,
  role: Role,
  region: Region,
): string {
  const head = code(doc.file.text.slice(region.span.start, region.span.end));
  const m = moduleOf(doc, schedule);
  const k = m ? stmtIndex(m, stmt.span) : -1;
  if (!m || k < 0)
    return `${head}\n\nno byte ranges: the schedule does not instantiate without errors`;
  const seen = new Set<string>();
  const lines: string[] = [];
  const add = (r: IrRegion, when: string) => {
    const text = regionText(m, r);
    if (seen.has(text)) return;
    seen.add(text);
    lines.push(`\`${text}\` (${r.len} bytes)${when ? `, ${when}` : ""}`);
  };
  if (role === "ensure-dst" || role === "ensure-src") {
    for (const e of m.ensures) {
      if (e.stmt !== k) continue;
      const r =
        role === "ensure-dst"
          ? e.dst
          : e.expected.kind === "region"
            ? e.expected.region
            : undefined;
      if (r) add(r, describeBinding(m, e.stmt, e.bind));
    }
  } else {
    const t = m.ops;
    for (let i = 0; i < t.count; i++) {
      if (t.stmt[i] !== k) continue;
      const rank = role === "src" ? t.srcRank : role === "dst" ? t.dstRank : t.dst2Rank;
      const buf = role === "src" ? t.srcBuf : role === "dst" ? t.dstBuf : t.dst2Buf;
      const off = role === "src" ? t.srcOff : role === "dst" ? t.dstOff : t.dst2Off;
      add(
        { rank: rank[i]!, buffer: buf[i]!, offset: off[i]!, len: t.len[i]! },
        describeBinding(m, k, t.bind[i]!),
      );
    }
  }
  const count = lines.length === 1 ? "1 byte range" : `${lines.length} byte ranges`;
  return `${head}\n\n${count} at the default parameters:\n\n${listed(lines)}`;
}

function describeOps(
  doc: DocumentAnalysis,
  schedule: ScheduleDecl,
  stmt: Extract<Stmt, { kind: "copy" | "swap" | "fill" }>,
): string {
  const m = moduleOf(doc, schedule);
  const k = m ? stmtIndex(m, stmt.span) : -1;
  const target = checkedSchedule(doc, schedule)?.target;
  if (!m || k < 0 || !target)
    return `\`${stmt.kind}\`: no ops (the schedule does not instantiate without errors)`;
  const engines = new Map<string, number>();
  let count = 0;
  let kind = "";
  const t = m.ops;
  for (let i = 0; i < t.count; i++) {
    if (t.stmt[i] !== k) continue;
    count++;
    kind = opKind(t, i);
    const key = engineOf(m, target, i);
    engines.set(key, (engines.get(key) ?? 0) + 1);
  }
  const lines = [
    `\`${stmt.kind}\` instantiates to ${count} ${kind || stmt.kind} op${count === 1 ? "" : "s"} at the default parameters`,
    "engines (pinned, or the target's recommended engine as -O0 uses; -O2 may choose others):",
    listed([...engines].map(([e, n]) => `${e}: ${n} op${n === 1 ? "" : "s"}`)),
  ];
  return lines.join("\n\n");
}

/** `GPU 0 sdma 2 (pinned)` or `GPU 0 sdma 5 (recommended for GPU 0 -> GPU 3)`. */
function engineOf(m: IrModule, target: Target, i: number): string {
  const t = m.ops;
  const driver = t.driver[i]!;
  if (t.engine[i]! >= 0) return `GPU ${driver} sdma ${t.engine[i]} (pinned)`;
  // The far side of the transfer, as lowering (src/queues/lower.ts) defines it.
  const kind = opKind(t, i);
  const src = t.srcRank[i]!;
  const dst = t.dstRank[i]!;
  const other =
    kind === "bcast"
      ? ([t.dst2Rank[i]!, dst].find((r) => r !== driver) ?? src)
      : kind === "fill"
        ? dst
        : src === driver
          ? dst
          : src;
  if (other === driver) return `GPU ${driver} sdma ${target.engines.localCopy} (local copy engine)`;
  const e = target.recommendedEngine.map[driver]?.[other];
  return `GPU ${driver} sdma ${e ?? "?"} (recommended for GPU ${driver} -> GPU ${other})`;
}
