// formatDmac: the formatter as a function, for the CLI (`dmac fmt`), the language server and any
// other tool. Text with parse errors is never formatted: the caller gets the diagnostics. The
// layout options are fixed (plugin.ts), whatever prettier configuration lies around; the output
// has LF line ends and no byte order mark.

import { format } from "prettier";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { parseErrors } from "./parse.js";
import plugin, { defaultOptions } from "./plugin.js";

export type FormatResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly diagnostics: Diagnostic[] };

/** `text` formatted (docs/editors.md, "Formatting"); `path` names the file in diagnostics. */
export async function formatDmac(text: string, path?: string): Promise<FormatResult> {
  const errors = parseErrors(text, path);
  if (errors.length > 0) return { ok: false, diagnostics: errors };
  // Like every dmac input, a leading byte order mark is not part of the text (makeSourceFile).
  const formatted = await format(text.replace(/^\uFEFF/, ""), {
    ...defaultOptions,
    parser: "dmac",
    plugins: [plugin],
    endOfLine: "lf",
  });
  return { ok: true, text: formatted };
}
