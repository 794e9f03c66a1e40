// Where a command came from in the source: its statement's file:line:col, the statement's first
// line, and a span over it (for code frames). From the IR when it is known (a command row's ops
// -> the op's statement -> its span in the module's file), else from the program's own locator
// (a manifest's source map: a position, no text).

import { describeInstances, irBindings } from "../../ir/instances.js";
import type { IrModule } from "../../ir/ir.js";
import { lineCol, type SourceFile, type Span } from "../../source/source-file.js";
import type { PackedProgram } from "../program.js";

export interface SourcePlace {
  /** `file:line:col`. */
  readonly where: string;
  /** The statement's first line (trailing ` {` and blanks cut); absent without the source. */
  readonly text?: string | undefined;
  /** The file and the statement's first line as a span, when the source is known. */
  readonly file?: SourceFile | undefined;
  readonly span?: Span | undefined;
}

/** A function from (queue index, command row) to the command's source place, if known. */
export function sourceLocator(
  p: PackedProgram,
  module: IrModule | undefined,
): (q: number, row: number) => SourcePlace | undefined {
  const C = p.cmds;
  const file = module?.file;
  const byStmt = new Map<number, SourcePlace>();
  const ofStmt = (s: number): SourcePlace | undefined => {
    const stmt = module!.stmts[s];
    if (!stmt || !file) return undefined;
    let place = byStmt.get(s);
    if (!place) {
      const start = stmt.span.start;
      const nl = file.text.indexOf("\n", start);
      const lineEnd = Math.min(stmt.span.end, nl < 0 ? file.text.length : nl);
      const text = file.text.slice(start, lineEnd).replace(/\s*\{?\s*$/, "");
      const { line, col } = lineCol(file, start);
      place = {
        where: `${file.name}:${line}:${col}`,
        text,
        file,
        span: { start, end: start + Math.max(1, text.length) },
      };
      byStmt.set(s, place);
    }
    return place;
  };
  return (q, row) => {
    if (file && C.opsLo[row]! >= 0 && C.opsHi[row]! > C.opsLo[row]!) {
      const place = ofStmt(module!.ops.stmt[C.ops[C.opsLo[row]!]!]!);
      if (place) return place;
    }
    const where = p.locate?.(q, C.at[row]!);
    return where === undefined ? undefined : { where };
  };
}

/**
 * A function from a command row to the loop instance(s) its ops are (`s=1 k=0..3`, of the
 * statement of its first op: ir/instances.ts), or "" (outside loops, or without the IR).
 */
export function instanceLocator(
  p: PackedProgram,
  module: IrModule | undefined,
): (row: number) => string {
  const C = p.cmds;
  const bindings = module && irBindings(module);
  return (row) => {
    const lo = C.opsLo[row]!;
    const hi = C.opsHi[row]!;
    if (!bindings || lo < 0 || hi <= lo) return "";
    const ops = C.ops.subarray(lo, hi);
    return describeInstances(bindings, module!.ops.stmt[ops[0]!]!, ops);
  };
}

/** The row of queue q at position `at` (a queue's rows are in position order), or -1. */
export function rowAt(p: PackedProgram, q: number, at: number): number {
  const { first, count } = p.queues[q]!;
  const A = p.cmds.at;
  let lo = first;
  let hi = first + count - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (A[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return count > 0 && A[lo] === at ? lo : -1;
}
