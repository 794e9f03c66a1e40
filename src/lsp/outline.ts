// Document symbols (the editor's outline): file-level constants, and each schedule with its
// parameters and the names its body declares, nested as the blocks nest them.

import { SymbolKind, type DocumentSymbol } from "vscode-languageserver";
import type { DocumentAnalysis } from "./analysis.js";
import { toRange } from "./positions.js";
import type { Decl, DeclKind } from "./symbol-index.js";

const KIND: Readonly<Record<DeclKind, SymbolKind>> = {
  schedule: SymbolKind.Function,
  parameter: SymbolKind.TypeParameter,
  const: SymbolKind.Constant,
  let: SymbolKind.Variable,
  buffer: SymbolKind.Array,
  signal: SymbolKind.Event,
  "loop-var": SymbolKind.Variable,
};

export function documentSymbols(doc: DocumentAnalysis): DocumentSymbol[] {
  const decls = doc.symbols().decls;
  const symbol = (d: Decl, children: DocumentSymbol[] = []): DocumentSymbol => ({
    name: d.name,
    detail: d.kind === "schedule" ? "" : d.kind,
    kind: KIND[d.kind],
    range: toRange(doc, d.span),
    selectionRange: toRange(doc, d.nameSpan),
    ...(children.length > 0 ? { children } : {}),
  });
  const top: DocumentSymbol[] = [];
  for (const d of decls) {
    if (d.kind === "const" && d.schedule === undefined) top.push(symbol(d));
    if (d.kind !== "schedule") continue;
    const members = decls.filter((m) => m.schedule?.name.span === d.nameSpan);
    top.push(
      symbol(
        d,
        members.map((m) => symbol(m)),
      ),
    );
  }
  return top.sort((a, b) => a.range.start.line - b.range.start.line);
}
