// Source files and spans. A span is a half-open byte range [start, end) into one SourceFile's text.
// Line and column numbers are computed only when a diagnostic is rendered.

export interface Span {
  readonly start: number;
  readonly end: number;
}

export interface SourceFile {
  /** The name shown in diagnostics (the path as the user gave it). */
  readonly name: string;
  readonly text: string;
  /** Offsets at which each line starts; lineStarts[0] === 0. */
  readonly lineStarts: readonly number[];
}

export const NO_SPAN: Span = { start: 0, end: 0 };

/**
 * A source file of `text`. A leading UTF-8 byte order mark (U+FEFF, which some Windows editors
 * write) is dropped, so offsets and columns count from the first character the user sees. Lines
 * end at `\n`, `\r\n` or a lone `\r` (old Mac files), the same three everywhere: line numbers,
 * columns and code frames agree with what an editor shows for any of them.
 */
export function makeSourceFile(name: string, text: string): SourceFile {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) lineStarts.push(i + 1);
    else if (c === 13 && text.charCodeAt(i + 1) !== 10) lineStarts.push(i + 1);
  }
  return { name, text, lineStarts };
}

export function span(start: number, end: number): Span {
  return { start, end };
}

/** The smallest span that covers both. */
export function joinSpans(a: Span, b: Span): Span {
  return { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
}

/** 1-based line and column (column counts UTF-16 code units, as editors do for ASCII sources). */
export function lineCol(file: SourceFile, offset: number): { line: number; col: number } {
  const starts = file.lineStarts;
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((starts[mid] ?? 0) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, col: offset - (starts[lo] ?? 0) + 1 };
}

/** The text of 1-based line `line`, without its line terminator (`\n`, `\r\n` or `\r`). */
export function lineText(file: SourceFile, line: number): string {
  const start = file.lineStarts[line - 1] ?? file.text.length;
  const next = file.lineStarts[line];
  let end = next === undefined ? file.text.length : next;
  if (end > start && file.text.charCodeAt(end - 1) === 10) end--;
  if (end > start && file.text.charCodeAt(end - 1) === 13) end--;
  return file.text.slice(start, end);
}
