// Diagnostic rendering: the one place that turns Diagnostic values into text.
//   full    rustc/ruff layout: a header, a `-->` location, a code frame with the line above for
//           context and carets under the span (tabs kept so carets line up), multi-line spans
//           elided to their first two and last two lines, `= hint:`, a suggested fix as a
//           `help:` frame showing the corrected line, related spans as `note:` frames, and a
//           summary line.
//   concise one line each: `file:line:col: CODE message` (`file: CODE message` without a span).
//   json    one document: { version: 1, diagnostics: [...] } with 1-based lines and columns; a
//           diagnostic with a suggested fix has `fix: { span, replacement }`.
// Diagnostics are sorted and de-duplicated first. Colour (ANSI) only when opts.color; trailing
// whitespace is never emitted, so the output is stable in golden files.

import { lineCol, lineText, type SourceFile, type Span } from "../source/source-file.js";
import {
  elideEcho,
  sortDiagnostics,
  type Diagnostic,
  type Fix,
  type Severity,
} from "./diagnostic.js";
import { assertNever } from "../util/assert-never.js";
import { pushAll } from "../util/arrays.js";

export type RenderFormat = "full" | "concise" | "json";

export interface RenderOptions {
  readonly color: boolean;
}

const ANSI = { bold: "1", red: "31", yellow: "33", blue: "34", cyan: "36" } as const;
type Style = keyof typeof ANSI;

interface Painter {
  (text: string, ...styles: Style[]): string;
}

function painter(color: boolean): Painter {
  if (!color) return (text) => text;
  return (text, ...styles) =>
    text === "" ? text : `\x1b[${styles.map((s) => ANSI[s]).join(";")}m${text}\x1b[0m`;
}

const SEVERITY_STYLE: Readonly<Record<Severity, Style>> = {
  error: "red",
  warning: "yellow",
  note: "cyan",
};

export function renderDiagnostics(
  diags: readonly Diagnostic[],
  format: RenderFormat,
  opts: RenderOptions,
): string {
  const sorted = sortDiagnostics(diags);
  switch (format) {
    case "full":
      return renderFull(sorted, painter(opts.color));
    case "concise":
      return renderConcise(sorted, painter(opts.color));
    case "json":
      return renderJson(sorted);
    default:
      return assertNever(format, "diagnostic format");
  }
}

// ---- concise ------------------------------------------------------------------------------

function location(file: SourceFile | undefined, span: Span | undefined): string | undefined {
  if (!file) return undefined;
  if (!span) return file.name;
  const { line, col } = lineCol(file, span.start);
  return `${elideEcho(file.name)}:${line}:${col}`;
}

function renderConcise(diags: readonly Diagnostic[], paint: Painter): string {
  return diags
    .map((d) => {
      const where = location(d.file, d.span);
      const code = paint(d.code, SEVERITY_STYLE[d.severity], "bold");
      return `${where ? `${where}: ` : ""}${code} ${d.message}\n`;
    })
    .join("");
}

// ---- json ---------------------------------------------------------------------------------

function jsonSpan(file: SourceFile | undefined, span: Span | undefined) {
  if (!file || !span) return null;
  const start = lineCol(file, span.start);
  const end = lineCol(file, span.end);
  return {
    start: span.start,
    end: span.end,
    line: start.line,
    column: start.col,
    endLine: end.line,
    endColumn: end.col,
  };
}

function renderJson(diags: readonly Diagnostic[]): string {
  return JSON.stringify({ version: 1, diagnostics: jsonDiagnostics(diags) }, null, 2) + "\n";
}

/**
 * The `diagnostics` array of the `--format json` document (schemas/diagnostics.schema.json), in
 * the given order, for documents that carry diagnostics inside them (`sweep --json`).
 */
export function jsonDiagnostics(diags: readonly Diagnostic[]): object[] {
  return diags.map((d) => ({
    code: d.code,
    severity: d.severity,
    message: d.message,
    file: d.file?.name ?? null,
    span: jsonSpan(d.file, d.span),
    hint: d.hint ?? null,
    related: d.related.map((r) => {
      const file = r.file ?? d.file;
      return { message: r.message, file: file?.name ?? null, span: jsonSpan(file, r.span) };
    }),
    ...(d.fix !== undefined
      ? { fix: { span: jsonSpan(d.file, d.fix.span), replacement: d.fix.replacement } }
      : {}),
  }));
}

// ---- full ---------------------------------------------------------------------------------

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function renderFull(diags: readonly Diagnostic[], paint: Painter): string {
  const out: string[] = [];
  for (const d of diags) {
    const style = SEVERITY_STYLE[d.severity];
    const lines = [
      `${paint(`${d.severity}[${d.code}]`, style, "bold")}${paint(`: ${d.message}`, "bold")}`,
    ];
    let width = 0;
    if (d.file && d.span) {
      const frame = codeFrame(d.file, d.span, paint, style);
      width = frame.width;
      pushAll(lines, frame.lines);
    }
    if (d.hint !== undefined) {
      // rustc closes the frame with an empty gutter line before `= help:`.
      const pad = " ".repeat(width);
      if (d.file && d.span) lines.push(paint(`${pad} |`, "blue", "bold"));
      lines.push(`${pad} ${paint("=", "blue", "bold")} ${paint("hint", "bold")}: ${d.hint}`);
    }
    if (d.fix !== undefined && d.file) pushAll(lines, fixFrame(d.file, d.fix, paint));
    for (const r of d.related) {
      const file = r.file ?? d.file;
      lines.push(`${paint("note", SEVERITY_STYLE.note, "bold")}${paint(`: ${r.message}`, "bold")}`);
      if (file) pushAll(lines, codeFrame(file, r.span, paint, SEVERITY_STYLE.note).lines);
    }
    // trimEnd, not /\s+$/: that regex backtracks quadratically on a caret line under a long
    // source line (thousands of spaces before the carets), found by the fuzzer.
    out.push(lines.map((l) => l.trimEnd()).join("\n") + "\n\n");
  }
  const errors = diags.filter((d) => d.severity === "error").length;
  const warnings = diags.filter((d) => d.severity === "warning").length;
  if (errors + warnings > 0) {
    const parts = [
      errors ? plural(errors, "error") : "",
      warnings ? plural(warnings, "warning") : "",
    ];
    out.push(`${parts.filter(Boolean).join(", ")} emitted\n`);
  }
  return out.join("");
}

/** `replace 'rank' with 'ranks'`, `insert 'in '`: a fix in words (also a code action's title). */
export function fixTitle(file: SourceFile, fix: Fix): string {
  const old = file.text.slice(fix.span.start, fix.span.end);
  if (old === "") return `insert '${elideEcho(fix.replacement)}'`;
  if (fix.replacement === "") return `remove '${elideEcho(old)}'`;
  return `replace '${elideEcho(old)}' with '${elideEcho(fix.replacement)}'`;
}

/**
 * `help: replace ...` and the line as it reads after the fix, with `~` under the new text (as
 * rustc shows a suggestion). Only for a fix within one line that inserts no line break; any
 * other fix is described by its title alone.
 */
function fixFrame(file: SourceFile, fix: Fix, paint: Painter): string[] {
  const lines = [`${paint("help", "cyan", "bold")}${paint(`: ${fixTitle(file, fix)}`, "bold")}`];
  const start = lineCol(file, fix.span.start);
  const end = lineCol(file, fix.span.end);
  if (start.line !== end.line || /[\r\n]/.test(fix.replacement)) return lines;
  const text = lineText(file, start.line);
  const from = start.col - 1;
  const fixed = text.slice(0, from) + fix.replacement + text.slice(end.col - 1);
  const win = frameWindow(fixed, from, from + fix.replacement.length);
  const width = String(start.line).length;
  const gutter = (label: string) => paint(`${label.padStart(width)} |`, "blue", "bold");
  const prefix = win.text.slice(0, win.from).replace(/[^\t]/g, " ");
  const marks = "~".repeat(Math.max(1, win.to - win.from));
  lines.push(
    gutter(""),
    `${gutter(String(start.line))} ${win.text}`,
    `${gutter("")} ${prefix}${paint(marks, "cyan", "bold")}`,
  );
  return lines;
}

/** Source lines longer than this are shown as a window of FRAME_WINDOW columns around the span. */
export const MAX_FRAME_LINE = 160;
const FRAME_WINDOW = 120;
/** Columns of the window shown before the span's first column. */
const FRAME_LEAD = 40;

/**
 * The part of a source line a frame shows, and the span's columns [from, to) within it: the
 * whole line when it is short, else FRAME_WINDOW columns starting a little before `from`, with
 * `...` where text was left out (a 1 MB line of one literal prints as one short line).
 */
function frameWindow(
  text: string,
  from: number,
  to: number,
): { text: string; from: number; to: number } {
  if (text.length <= MAX_FRAME_LINE) return { text, from, to };
  const start = Math.max(0, Math.min(from - FRAME_LEAD, text.length - FRAME_WINDOW));
  const end = Math.min(text.length, start + FRAME_WINDOW);
  const lead = start > 0 ? "..." : "";
  const shown = `${lead}${text.slice(start, end)}${end < text.length ? "..." : ""}`;
  const at = (c: number) => Math.min(Math.max(c, start), end) - start + lead.length;
  return { text: shown, from: at(from), to: Math.max(at(from), at(to)) };
}

/** Lines a frame shows: all lines of short spans, else the first two, an ellipsis, the last two. */
function shownLines(first: number, last: number): (number | "...")[] {
  const all: number[] = [];
  for (let l = first; l <= last; l++) all.push(l);
  if (all.length <= 4) return all;
  return [first, first + 1, "...", last - 1, last];
}

/**
 * The code frame of one span: ` --> file:line:col`, an empty gutter line, the line above the span
 * (when it has text) for context, and each shown line with carets under the part in the span.
 */
function codeFrame(
  file: SourceFile,
  span: Span,
  paint: Painter,
  style: Style,
): { lines: string[]; width: number } {
  const start = lineCol(file, span.start);
  // A span that ends right after a newline ends on the line before.
  const endOffset = span.end > span.start ? span.end - 1 : span.end;
  const end = lineCol(file, Math.max(span.start, endOffset));
  const context =
    start.line > 1 && lineText(file, start.line - 1).trim() !== "" ? start.line - 1 : undefined;
  const shown = shownLines(start.line, end.line);
  const width = String(end.line).length;
  const gutter = (label: string) => paint(`${label.padStart(width)} |`, "blue", "bold");
  const lines = [
    `${" ".repeat(width)}${paint("-->", "blue", "bold")} ${elideEcho(file.name)}:${start.line}:${start.col}`,
    gutter(""),
  ];
  if (context !== undefined) {
    const above = frameWindow(lineText(file, context), start.col - 1, start.col - 1);
    lines.push(`${gutter(String(context))} ${above.text}`);
  }
  for (const line of shown) {
    if (line === "...") {
      lines.push(paint("...", "blue", "bold"));
      continue;
    }
    const full = lineText(file, line);
    // Columns (0-based) of the spanned part of this line.
    let from = line === start.line ? start.col - 1 : full.length - full.trimStart().length;
    let to = line === end.line ? (span.end > span.start ? end.col : start.col - 1) : full.length;
    if (line === start.line && line === end.line && span.end === span.start) to = from; // empty span
    from = Math.min(from, full.length);
    // A span that includes the line break ends at the end of the text (at least one caret).
    to = Math.min(to, Math.max(full.length, from + 1));
    if (to < from) to = from;
    const win = frameWindow(full, from, to);
    const text = win.text;
    lines.push(`${gutter(String(line))} ${text}`);
    if (to === from && !(line === start.line)) continue; // nothing of the span on this line
    from = win.from;
    to = win.to;
    const prefix = text.slice(0, from).replace(/[^\t]/g, " ");
    const carets = "^".repeat(Math.max(1, to - from));
    lines.push(`${gutter("")} ${prefix}${paint(carets, style, "bold")}`);
  }
  return { lines, width };
}
