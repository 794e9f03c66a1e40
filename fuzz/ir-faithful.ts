// Property "ir-faithful": every IR op says what its source statement says. Found by the red team
// (issue 11): `copy a@0 -> a@1, a@2, a@3, a@99` compiled to a broadcast to a@1 and a@2 only,
// and every later phase verified the shortened program. This checks the instantiated IR against
// the AST, independently of the instantiator: the op kind matches the statement (a copy with one
// destination is a copy, with two a broadcast, never anything else), and every region an op
// reads or writes is non-empty and lies inside its buffer on an existing rank.

import type { Program } from "../src/frontend/ast.js";
import { OP_KIND_BY_CODE, OP_KINDS, type IrModule, type OpKind } from "../src/ir/ir.js";
import { pushAll } from "../src/util/arrays.js";

interface StmtNode {
  readonly kind: string;
  readonly span: { readonly start: number; readonly end: number };
  readonly dsts?: readonly unknown[];
  readonly value?: { readonly span: { readonly end: number } };
}

const STMT_KINDS = new Set(["copy", "swap", "fill", "when", "notify"]);

/** Every statement of the program that instantiates to ops, by its span. */
function statementsBySpan(program: Program): Map<string, StmtNode> {
  const out = new Map<string, StmtNode>();
  const stack: unknown[] = [program];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== "object") continue;
    if (Array.isArray(node)) {
      pushAll(stack, node);
      continue;
    }
    const n = node as StmtNode;
    // A `when`'s ops point at its header (`when F@r OP V`), not the whole block.
    const end = n.kind === "when" ? n.value?.span.end : n.span?.end;
    if (STMT_KINDS.has(n.kind) && n.span) out.set(`${n.span.start}:${end}`, n);
    for (const v of Object.values(node)) if (typeof v === "object") stack.push(v);
  }
  return out;
}

/** The op kind a statement must instantiate to, or undefined if it must be rejected. */
function expectedKind(s: StmtNode): OpKind | undefined {
  if (s.kind === "copy")
    return s.dsts?.length === 1 ? "copy" : s.dsts?.length === 2 ? "bcast" : undefined;
  if (s.kind === "when") return "wait";
  return s.kind as OpKind;
}

const REGION_FIELDS = {
  src: ["srcRank", "srcBuf", "srcOff"],
  dst: ["dstRank", "dstBuf", "dstOff"],
  dst2: ["dst2Rank", "dst2Buf", "dst2Off"],
} as const;

/** The problems found (empty: the IR is faithful to the source). */
export function irFaithfulness(program: Program, module: IrModule): string[] {
  const problems: string[] = [];
  const stmts = statementsBySpan(program);
  const t = module.ops;
  for (let i = 0; i < t.count && problems.length < 5; i++) {
    const kind = OP_KIND_BY_CODE[t.kind[i]!]!;
    const span = module.stmts[t.stmt[i]!]?.span;
    const node = span && stmts.get(`${span.start}:${span.end}`);
    if (!node) {
      problems.push(`op ${i} (${kind}) has no source statement`);
      continue;
    }
    const want = expectedKind(node);
    if (want !== kind) {
      problems.push(
        `op ${i} is a ${kind} but its statement is a ${node.kind}${node.dsts ? ` with ${node.dsts.length} destinations` : ""}`,
      );
      continue;
    }
    const spec = OP_KINDS[kind];
    for (const field of new Set<keyof typeof REGION_FIELDS>([...spec.reads, ...spec.writes])) {
      const [rf, bf, of] = REGION_FIELDS[field];
      const rank = t[rf][i]!;
      const buf = module.buffers[t[bf][i]!];
      const off = t[of][i]!;
      const len = t.len[i]!;
      if (!buf || rank < 0 || rank >= module.ranks || len <= 0 || off < 0 || off + len > buf.size) {
        problems.push(
          `op ${i} (${kind}) ${field} is not a region inside a buffer: rank ${rank}, buffer ${t[bf][i]}, [${off} +: ${len}]`,
        );
      }
    }
  }
  return problems;
}
