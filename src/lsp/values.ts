// The value a name has at the default parameters, for hover: a parameter's resolved value (the
// checker's), and for constants and bindings outside loops their expression evaluated with the
// IR's own evaluator (src/ir/eval.ts) over the values of the names it uses. Names inside loops
// have one value per iteration and get none here; so does anything in a file that does not
// check (types are needed to evaluate, and they come from the checker).

import type { CheckedSchedule } from "../check/checked.js";
import type { Expr, ScheduleDecl, TypeName } from "../frontend/ast.js";
import { compileExpr, formatValue } from "../ir/eval.js";
import type { DocumentAnalysis } from "./analysis.js";
import type { Decl } from "./symbol-index.js";
import { formatSizeExact } from "../util/format-size.js";

/** The checked schedule a declaration belongs to (any schedule for file-level constants). */
export function checkedFor(doc: DocumentAnalysis, decl: Decl): CheckedSchedule | undefined {
  return checkedSchedule(doc, decl.schedule);
}

export function checkedSchedule(
  doc: DocumentAnalysis,
  schedule: ScheduleDecl | undefined,
): CheckedSchedule | undefined {
  const all = doc.checked();
  return schedule === undefined ? all[0] : all.find((c) => c.schedule === schedule);
}

/** The type of a declared name: declared, or the checker's type of its value. */
export function typeOf(doc: DocumentAnalysis, decl: Decl): TypeName | undefined {
  if (decl.type !== undefined) return decl.type;
  if (decl.value === undefined || (decl.kind !== "const" && decl.kind !== "let")) return undefined;
  return checkedFor(doc, decl)?.types.get(decl.value);
}

/** The value of `decl` at the default parameters, or undefined when it has none. */
export function valueOf(doc: DocumentAnalysis, decl: Decl): number | boolean | undefined {
  const checked = checkedFor(doc, decl);
  if (checked === undefined || decl.inLoop) return undefined;
  if (decl.kind === "parameter") return checked.params.find((p) => p.name === decl.name)?.value;
  if ((decl.kind !== "const" && decl.kind !== "let") || decl.value === undefined) return undefined;
  const v = evaluate(doc, checked, decl.value, new Set([decl]));
  if (v === undefined) return undefined;
  return typeOf(doc, decl) === "bool" ? v !== 0 : v;
}

/** `expr` evaluated at the default parameters (bools as 1/0), or undefined. */
export function evaluate(
  doc: DocumentAnalysis,
  checked: CheckedSchedule,
  expr: Expr,
  visiting: Set<Decl> = new Set(),
): number | undefined {
  const uses = doc.symbols().uses;
  const env: number[] = [];
  try {
    const run = compileExpr(expr, {
      types: checked.types,
      ranks: checked.target.gpus,
      slotOf(name, span) {
        const decl = uses.find((u) => u.span.start === span.start && u.name === name)?.decl;
        if (decl === undefined || visiting.has(decl)) throw new NoValue();
        visiting.add(decl);
        const v = valueOf(doc, decl);
        visiting.delete(decl);
        if (v === undefined) throw new NoValue();
        env.push(typeof v === "boolean" ? (v ? 1 : 0) : v);
        return env.length - 1;
      },
    });
    return run(env);
  } catch {
    // NoValue, an evaluation error the checker or instantiation reports (division by zero), or
    // an expression without a checked type: no value to show.
    return undefined;
  }
}

class NoValue extends Error {}

/** `8192 bytes (8 KiB)`, `7`, `true`. */
export function describeValue(v: number | boolean, type: TypeName | undefined): string {
  if (typeof v === "boolean") return String(v);
  const text = formatValue(v, type);
  return type === "bytes" ? `${text}${binarySize(v)}` : text;
}

/** ` (8 KiB)` for a whole number of a binary unit, "" otherwise. */
function binarySize(bytes: number): string {
  const exact = formatSizeExact(bytes);
  return exact.endsWith(" B") ? "" : ` (${exact})`;
}
