// `-D name=value` values: the value text is parsed as an expression and must fold to a constant of
// the parameter's type, using only literals, `ranks` and file-level constants. Every problem is
// one DMAC2010 naming the parameter (the value has no place in the source file to point at).

import type { Expr, TypeName } from "../frontend/ast.js";
import { parseExpression } from "../frontend/parse.js";
import { makeSourceFile } from "../source/source-file.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { Value } from "./checked.js";
import { typeExpr } from "./expr-types.js";
import type { Scope } from "./scope.js";

export interface DefineResult {
  readonly value: Value | undefined;
  readonly diagnostics: readonly Diagnostic[];
}

export function evaluateDefine(
  name: string,
  text: string,
  type: TypeName,
  scope: Scope,
  ranks: number | undefined,
): DefineResult {
  const bad = (detail: string, hint?: string): DefineResult => ({
    value: undefined,
    diagnostics: [diag("DMAC2010", undefined, [name, detail], { hint })],
  });
  if (text.trim() === "") return bad("the value is empty", `write -D ${name}=VALUE`);
  const file = makeSourceFile(`-D ${name}`, text);
  const parsed = parseExpression(file);
  const parseError = parsed.diagnostics.find((d) => d.severity === "error");
  if (parseError || !parsed.expr) return bad(parseError?.message ?? "not an expression");
  const inner: Diagnostic[] = [];
  const typed = typeExpr(
    { file, scope, types: new Map<Expr, TypeName>(), diagnostics: inner, ranks },
    parsed.expr,
    type,
  );
  const firstError = inner.find((d) => d.severity === "error");
  if (firstError || typed.type === undefined) return bad(firstError?.message ?? "not a constant");
  if (typed.type !== type) {
    const hint =
      type === "bytes" && typed.type === "int"
        ? `sizes need a unit: -D ${name}=${text.trim()}B or ${text.trim()}KiB`
        : undefined;
    return bad(`expected ${type}, found ${typed.type}`, hint);
  }
  if (typed.value === undefined) return bad("the value is not a constant");
  return { value: typed.value, diagnostics: [] };
}
