// The Diagnostic value: a coded, located message about the user's input. Phases return these as
// data and never throw for user errors; InternalError is for dmac's own bugs.

import type { SourceFile, Span } from "../source/source-file.js";
import { DIAGNOSTICS, type DiagnosticCode, type MessageArgs } from "./codes.js";

export type Severity = "error" | "warning" | "note";

export interface Related {
  readonly message: string;
  readonly file?: SourceFile | undefined;
  readonly span: Span;
}

/**
 * A machine-applicable suggestion: replace `span` of the diagnostic's file with `replacement`
 * (an empty span inserts). The renderer shows it as a corrected source line; the language server
 * offers it as a code action. One edit is enough for every fix dmac proposes today.
 */
export interface Fix {
  readonly span: Span;
  readonly replacement: string;
}

export interface Diagnostic {
  readonly code: DiagnosticCode;
  readonly severity: Severity;
  readonly message: string;
  /** Undefined for diagnostics that are not about source text (files, options, packet streams). */
  readonly file: SourceFile | undefined;
  readonly span: Span | undefined;
  readonly related: readonly Related[];
  readonly hint: string | undefined;
  /** A suggested edit of `file` (only on diagnostics that have a span). */
  readonly fix?: Fix | undefined;
}

export interface DiagnosticExtras {
  readonly hint?: string | undefined;
  readonly related?: readonly Related[] | undefined;
  readonly fix?: Fix | undefined;
}

/** A run of non-blank characters longer than this in a message is shortened (see elideEcho). */
export const MAX_ECHO_WORD = 160;
/** A message argument, hint or note longer than this is shortened as a whole (see elideEcho). */
export const MAX_ECHO_TEXT = 2000;

const LONG_WORD = new RegExp(`\\S{${MAX_ECHO_WORD + 1},}`, "g");

/** `text` cut to its first `head` and last `tail` characters around `...[N characters]...`. */
function cutMiddle(text: string, head: number, tail: number): string {
  // Never split a surrogate pair (a lone half prints as U+FFFD).
  if (/[\ud800-\udbff]/.test(text[head - 1] ?? "")) head--;
  if (/[\udc00-\udfff]/.test(text[text.length - tail] ?? "")) tail--;
  return `${text.slice(0, head)}...[${text.length} characters]...${text.slice(text.length - tail)}`;
}

/**
 * User text as a diagnostic echoes it: each run of non-blank characters longer than
 * MAX_ECHO_WORD (a literal, a name, a path, a -D value) keeps its first 64 and last 48
 * characters, and what is still longer than MAX_ECHO_TEXT keeps its first 1200 and last 400.
 * So a 1 MB literal or -D value costs a line of stderr, not megabytes, and the message still
 * says how long it was. dmac's own message text (short words, bounded lists) is never changed.
 */
export function elideEcho(text: string): string {
  if (text.length <= MAX_ECHO_WORD) return text;
  let out = text.replace(LONG_WORD, (w) => cutMiddle(w, 64, 48));
  if (out.length > MAX_ECHO_TEXT) out = cutMiddle(out, 1200, 400);
  return out;
}

/**
 * Builds a diagnostic whose message comes from the catalogue entry for `code`. Every string
 * argument, the hint and the notes go through elideEcho: this is the one place that bounds how
 * much of the user's input a diagnostic repeats (the code frame's source lines are bounded by
 * the renderer).
 */
export function diag<C extends DiagnosticCode>(
  code: C,
  at: { readonly file: SourceFile; readonly span: Span } | undefined,
  args: MessageArgs<C>,
  extras: DiagnosticExtras = {},
): Diagnostic {
  const spec = DIAGNOSTICS[code];
  const shortArgs = (args as readonly unknown[]).map((a) =>
    typeof a === "string" ? elideEcho(a) : a,
  ) as unknown as MessageArgs<C>;
  const message = (spec.message as (...a: MessageArgs<C>) => string)(...shortArgs);
  return {
    code,
    severity: spec.severity,
    message,
    file: at?.file,
    span: at?.span,
    related: (extras.related ?? []).map((r) =>
      r.message.length > MAX_ECHO_WORD ? { ...r, message: elideEcho(r.message) } : r,
    ),
    hint: extras.hint === undefined ? undefined : elideEcho(extras.hint),
    ...(extras.fix !== undefined && at !== undefined ? { fix: extras.fix } : {}),
  };
}

export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "error");
}

/**
 * Code-unit order. Not localeCompare: that follows the process's locale (LANG/LC_ALL), so `ä`
 * sorts after `z` under sv_SE and the same input would print its diagnostics in another order.
 */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorted by file, position and code, with exact duplicates removed (deterministic output). */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  const sorted = [...diagnostics].sort(
    (a, b) =>
      compareText(a.file?.name ?? "", b.file?.name ?? "") ||
      (a.span?.start ?? -1) - (b.span?.start ?? -1) ||
      (a.span?.end ?? -1) - (b.span?.end ?? -1) ||
      compareText(a.code, b.code) ||
      compareText(a.message, b.message),
  );
  return sorted.filter(
    (d, i) =>
      i === 0 ||
      !(
        d.code === sorted[i - 1]!.code &&
        d.message === sorted[i - 1]!.message &&
        d.file === sorted[i - 1]!.file &&
        d.span?.start === sorted[i - 1]!.span?.start &&
        d.span?.end === sorted[i - 1]!.span?.end
      ),
  );
}
