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

export interface Diagnostic {
  readonly code: DiagnosticCode;
  readonly severity: Severity;
  readonly message: string;
  /** Undefined for diagnostics that are not about source text (files, options, packet streams). */
  readonly file: SourceFile | undefined;
  readonly span: Span | undefined;
  readonly related: readonly Related[];
  readonly hint: string | undefined;
}

export interface DiagnosticExtras {
  readonly hint?: string | undefined;
  readonly related?: readonly Related[] | undefined;
}

/** Builds a diagnostic whose message comes from the catalogue entry for `code`. */
export function diag<C extends DiagnosticCode>(
  code: C,
  at: { readonly file: SourceFile; readonly span: Span } | undefined,
  args: MessageArgs<C>,
  extras: DiagnosticExtras = {},
): Diagnostic {
  const spec = DIAGNOSTICS[code];
  const message = (spec.message as (...a: MessageArgs<C>) => string)(...args);
  return {
    code,
    severity: spec.severity,
    message,
    file: at?.file,
    span: at?.span,
    related: extras.related ?? [],
    hint: extras.hint,
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
