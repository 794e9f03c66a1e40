// Formatting: `dmac fmt`'s formatter (src/fmt/format.ts) over the whole document, answered as one
// edit that replaces the text. A document with syntax errors is left as it is (the formatter
// refuses it; its errors are already among the published diagnostics).

import type { TextEdit } from "vscode-languageserver";
import type { TextDocument } from "vscode-languageserver-textdocument";
import { formatDmac } from "../fmt/format.js";

export async function formatDocument(doc: TextDocument): Promise<TextEdit[] | null> {
  const text = doc.getText();
  const result = await formatDmac(text, doc.uri);
  if (!result.ok) return null;
  if (result.text === text) return [];
  return [
    { range: { start: doc.positionAt(0), end: doc.positionAt(text.length) }, newText: result.text },
  ];
}
