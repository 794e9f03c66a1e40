// The CSV reading under `dmac calibrate`'s measurements files (measurements.ts): lines of
// fields with their offsets in the file, so every later problem points at its cell.

import type { SourceFile, Span } from "../source/source-file.js";

export interface Field {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** Quoted with "" escapes inside: offsets within the text do not map 1:1 to the file. */
  readonly escaped: boolean;
}

export interface Line {
  readonly number: number;
  readonly start: number;
  readonly end: number;
  readonly fields: Field[];
}

type Bad = (span: Span, message: string) => void;

/** A field and the position after it (at the `,`, a comment or the line's end). */
interface Read {
  readonly field: Field;
  readonly pos: number;
}

const isBlank = (c: string | undefined): boolean => c === " " || c === "\t";

/** A quoted field from its opening `"` at `pos`: `""` is a quote inside. */
function quotedField(text: string, pos: number, end: number, bad: Bad): Read {
  let i = pos + 1;
  let value = "";
  let escaped = false;
  let closed = false;
  while (i < end) {
    if (text[i] === '"') {
      if (text[i + 1] === '"') {
        value += '"';
        escaped = true;
        i += 2;
        continue;
      }
      closed = true;
      break;
    }
    value += text[i];
    i++;
  }
  if (!closed) {
    bad({ start: pos, end }, 'unterminated quote (a quoted field ends with " on its line)');
    return { field: { text: value, start: pos + 1, end, escaped }, pos: end };
  }
  const field = { text: value, start: pos + 1, end: i, escaped };
  let after = i + 1;
  while (after < end && isBlank(text[after])) after++;
  if (after < end && text[after] !== "," && text[after] !== "#") {
    let j = after;
    while (j < end && text[j] !== "," && text[j] !== "#") j++;
    bad({ start: after, end: j }, "text after a quoted field (expected , or the line's end)");
    after = j;
  }
  return { field, pos: after };
}

/** An unquoted field from `pos` up to the next `,` or comment, trimmed. */
function plainField(text: string, pos: number, end: number): Read {
  let i = pos;
  while (i < end && text[i] !== "," && text[i] !== "#") i++;
  let j = i;
  while (j > pos && isBlank(text[j - 1])) j--;
  return { field: { text: text.slice(pos, j), start: pos, end: j, escaped: false }, pos: i };
}

/** The fields of the line [start, end); undefined when it holds nothing but blanks or a comment. */
function lineFields(text: string, start: number, end: number, bad: Bad): Field[] | undefined {
  const fields: Field[] = [];
  let pos = start;
  let blank = true;
  for (;;) {
    while (pos < end && isBlank(text[pos])) pos++;
    if (pos < end && text[pos] === "#" && fields.length === 0) break;
    const quoted = pos < end && text[pos] === '"';
    const read = quoted ? quotedField(text, pos, end, bad) : plainField(text, pos, end);
    if (quoted || read.field.end > read.field.start) blank = false;
    fields.push(read.field);
    pos = read.pos;
    if (pos < end && text[pos] === ",") {
      pos++;
      blank = false;
      continue;
    }
    break; // end of line or a comment
  }
  return blank ? undefined : fields;
}

/**
 * Splits the text into lines of fields: `,` separates fields, `"..."` quotes one (`""` is a
 * quote inside), `#` outside quotes starts a comment that runs to the end of the line, and lines
 * with nothing but a comment or blanks are skipped. Fields are trimmed.
 */
export function splitLines(file: SourceFile, bad: Bad): Line[] {
  const text = file.text;
  const lines: Line[] = [];
  for (let l = 0; l < file.lineStarts.length; l++) {
    const start = file.lineStarts[l]!;
    let end = l + 1 < file.lineStarts.length ? file.lineStarts[l + 1]! - 1 : text.length;
    if (end > start && text[end - 1] === "\r") end--;
    const fields = lineFields(text, start, end, bad);
    if (fields) lines.push({ number: l + 1, start, end, fields });
  }
  return lines;
}
