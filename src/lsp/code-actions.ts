// Quick fixes: a diagnostic whose hint is a did-you-mean (src/check/suggest.ts) carries the
// suggested text in its data (diagnostics.ts); the fix replaces the diagnostic's range with it.

import { CodeActionKind, type CodeAction, type Diagnostic } from "vscode-languageserver";
import type { FixData } from "./diagnostics.js";

function fixOf(d: Diagnostic): FixData | undefined {
  const data = d.data as Partial<FixData> | undefined;
  return typeof data?.replacement === "string" ? { replacement: data.replacement } : undefined;
}

export function codeActions(uri: string, diagnostics: readonly Diagnostic[]): CodeAction[] {
  const actions: CodeAction[] = [];
  for (const d of diagnostics) {
    const fix = fixOf(d);
    if (!fix) continue;
    actions.push({
      title: `Change to '${fix.replacement}'`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [d],
      isPreferred: true,
      edit: { changes: { [uri]: [{ range: d.range, newText: fix.replacement }] } },
    });
  }
  return actions;
}
