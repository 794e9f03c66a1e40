// Completion: the names visible at the cursor (with their kind), the collectives after
// `implements`, the built-in targets after `target`, and every keyword. The editor filters by
// the word being typed, so the list is not narrowed here beyond what the context implies.

import { CompletionItemKind, type CompletionItem } from "vscode-languageserver";
import { KEYWORDS } from "../frontend/tokens.js";
import { COLLECTIVES } from "../check/collectives.js";
import { BUILTIN_TARGETS } from "../target/target.js";
import type { DocumentAnalysis } from "./analysis.js";
import { visibleAt, type DeclKind } from "./symbol-index.js";

const KIND: Readonly<Record<DeclKind, CompletionItemKind>> = {
  schedule: CompletionItemKind.Function,
  parameter: CompletionItemKind.TypeParameter,
  const: CompletionItemKind.Constant,
  let: CompletionItemKind.Variable,
  buffer: CompletionItemKind.Field,
  signal: CompletionItemKind.Event,
  "loop-var": CompletionItemKind.Variable,
};

export function completionsAt(doc: DocumentAnalysis, offset: number): CompletionItem[] {
  const before = doc.file.text.slice(Math.max(0, offset - 200), offset);
  if (/\bimplements\s+[A-Za-z0-9_]*$/.test(before)) {
    return Object.entries(COLLECTIVES).map(([name, spec]) => ({
      label: name,
      kind: CompletionItemKind.Function,
      detail: spec.signatures
        .map((s) => `${name}(${s.args.map((a) => a.name).join(", ")})`)
        .join(" | "),
    }));
  }
  if (/\btarget\s+[A-Za-z0-9_]*$/.test(before)) {
    return BUILTIN_TARGETS.map((name) => ({ label: name, kind: CompletionItemKind.Module }));
  }
  const names: CompletionItem[] = visibleAt(doc.symbols(), offset).map((d) => ({
    label: d.name,
    kind: KIND[d.kind],
    detail: d.kind,
    sortText: `0${d.name}`,
  }));
  const keywords: CompletionItem[] = Object.keys(KEYWORDS).map((k) => ({
    label: k,
    kind: CompletionItemKind.Keyword,
    sortText: `1${k}`,
  }));
  return [...names, ...keywords];
}
