// formatDmac: the formatter as a function, for the CLI (`dmac fmt`), the language server and any
// other tool. Source text with parse errors is never formatted: the caller gets the diagnostics.

import { parseSource } from "../frontend/parse.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { makeSourceFile } from "../source/source-file.js";

export type FormatResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly diagnostics: Diagnostic[] };

/** `text` formatted (the canonical layout of docs/editors.md, "Formatting"). */
export async function formatDmac(text: string, path?: string): Promise<FormatResult> {
  const file = makeSourceFile(path ?? "<input>", text);
  const parsed = parseSource(file);
  const errors = parsed.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0) return { ok: false, diagnostics: parsed.diagnostics };
  return { ok: true, text: file.text };
}
