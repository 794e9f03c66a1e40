// Offsets in a SourceFile <-> LSP positions (0-based line, UTF-16 character). SourceFile and LSP
// agree on line ends (`\n`, `\r\n`, a lone `\r`) and on counting UTF-16 code units; the one
// difference is a byte order mark, which the editor's text has and SourceFile drops.

import type { Position, Range } from "vscode-languageserver";
import { lineCol, type Span } from "../source/source-file.js";
import type { DocumentAnalysis } from "./analysis.js";

type Located = Pick<DocumentAnalysis, "file" | "bom">;

export function toPosition(doc: Located, offset: number): Position {
  const { line, col } = lineCol(doc.file, Math.max(0, Math.min(offset, doc.file.text.length)));
  return { line: line - 1, character: col - 1 + (line === 1 ? doc.bom : 0) };
}

export function toRange(doc: Located, span: Span): Range {
  return { start: toPosition(doc, span.start), end: toPosition(doc, span.end) };
}

export function toOffset(doc: Located, pos: Position): number {
  const starts = doc.file.lineStarts;
  const line = Math.max(0, Math.min(pos.line, starts.length - 1));
  const start = starts[line] ?? 0;
  const next = starts[line + 1] ?? doc.file.text.length;
  const character = pos.character - (line === 0 ? doc.bom : 0);
  return Math.max(start, Math.min(start + character, next));
}
