// Quick fixes: a diagnostic with a suggested fix (Diagnostic.fix: any edit, e.g. `rank` ->
// `ranks`, `buf@r+1[` -> `buf@(r+1)[`, an inserted `in `) or a did-you-mean hint
// (src/diagnostics/suggest.ts) carries the edit in its data (diagnostics.ts).

import { CodeActionKind, type CodeAction, type Diagnostic } from "vscode-languageserver";
import type { FixData } from "./diagnostics.js";

function fixOf(d: Diagnostic): FixData | undefined {
  const data = d.data as Partial<FixData> | undefined;
  return typeof data?.replacement === "string"
    ? { replacement: data.replacement, range: data.range, title: data.title }
    : undefined;
}

export function codeActions(uri: string, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const d of diagnostics) {
    const fix = fixOf(d);
    if (!fix) continue;
    actions.push({
      title: fix.title ?? `Change to '${fix.replacement}'`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [d],
      isPreferred: true,
      edit: { changes: { [uri]: [{ range: fix.range ?? d.range, newText: fix.replacement }] } },
    });
  }
  return actions;
}
