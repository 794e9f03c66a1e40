// `--format json` on every command: stdout carries exactly one JSON document, valid against the
// command's published schema (schemas/<command>.schema.json; sim, sweep and disasm have theirs
// from before), and nothing else; human text (tables, listings, reports) is left out, and what
// still goes to stderr (progress, a note) is not part of the document. The documents share one
// shape where they can: `version: 1`, the command's own fields, and `diagnostics` as
// `--format json` prints them everywhere (diagnostics/render.ts jsonDiagnostics: sorted,
// de-duplicated, with spans and fixes). A command that stops before it has a result (a bad
// option, an unreadable input) prints only `{ version, diagnostics }`: the diagnostics document
// (schemas/diagnostics.schema.json), which every command's schema also accepts.
//
// `--json` (sim, sweep, disasm) stays as an alias of `--format json`.

import { hasErrors, sortDiagnostics, type Diagnostic } from "../diagnostics/diagnostic.js";
import { jsonDiagnostics } from "../diagnostics/render.js";
import type { PlanResult } from "../passes/plan.js";
import { EXIT_OK, EXIT_USER_ERROR } from "./io.js";
import type { CliContext } from "./main.js";

/** The version of every command's document (the `version` field). */
export const JSON_DOCUMENT_VERSION = 1;

/** `--format json`, or its alias `--json` where a command has it. */
export function wantsJson(opts: {
  readonly format?: string | undefined;
  readonly json?: boolean | undefined;
}): boolean {
  return opts.format === "json" || opts.json === true;
}

/** `{ version, ...fields, diagnostics }` (diagnostics sorted and de-duplicated). */
export function jsonDocument(
  fields: Readonly<Record<string, unknown>>,
  diagnostics: readonly Diagnostic[],
): Record<string, unknown> {
  return {
    version: JSON_DOCUMENT_VERSION,
    ...fields,
    diagnostics: jsonDiagnostics(sortDiagnostics(diagnostics)),
  };
}

/** Prints one document on stdout (2-space indented, one final newline). */
export function printJson(ctx: CliContext, doc: unknown): void {
  ctx.streams.out(JSON.stringify(doc, null, 2) + "\n");
}

/**
 * Prints the command's document and returns its exit code: 1 when a diagnostic is an error or
 * the command `failed` in its own terms (a golden that differs, a file `fmt --check` would change),
 * else 0.
 */
export function reportJson(
  ctx: CliContext,
  fields: Readonly<Record<string, unknown>>,
  diagnostics: readonly Diagnostic[],
  failed = false,
): number {
  printJson(ctx, jsonDocument(fields, diagnostics));
  return failed || hasErrors(diagnostics) ? EXIT_USER_ERROR : EXIT_OK;
}

/** The -O2 plan as JSON (`plan` of sim's and compile's documents: sim.schema.json#/definitions/plan). */
export function planJson(plan: PlanResult | undefined): unknown {
  if (!plan) return undefined;
  return {
    chosen: plan.chosen.label,
    predictedUs: plan.chosen.timeUs,
    work: plan.work,
    candidates: plan.entries.map((e) => ({
      label: e.label,
      predictedUs: e.timeUs,
      verified: e.verified,
      ...(e.sameAs !== undefined ? { sameAs: e.sameAs } : {}),
      ...(e.note !== undefined ? { note: e.note } : {}),
    })),
  };
}

/** A number for a document: NaN and the infinities (no prediction, no error) become null. */
export const jsonNumber = (x: number): number | null => (Number.isFinite(x) ? x : null);
