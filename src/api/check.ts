// The library's front half: `check` parses, type-checks, instantiates and verifies every
// selected schedule of a source, then runs every legality check compile runs for its target
// (what `dmac check` does, through src/driver/analyze.ts analyzeSource). Of the back end it loads only
// those checks and the lowering they need (backend/target-legality.ts), not the passes,
// emitters or executor, so `dmac check`, which runs on it, starts fast. No I/O besides a
// source's own `target "file.json"` (relative to the `path` option's directory). User errors
// come back as diagnostics, never as exceptions.

import { dirname } from "node:path";
import { diag, hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { IrModule } from "../ir/ir.js";
import { analyzeSource } from "../driver/analyze.js";
import { makeSourceFile } from "../source/source-file.js";
import { builtinTarget, type SyncMode, type Target } from "../target/target.js";
import { parseFrontEndLimits, parsePositiveInt } from "../options/options.js";

/** The name a source has in diagnostics when the caller gives none. */
export const DEFAULT_SOURCE_NAME = "input.dmac";

export interface CheckOptions {
  /**
   * The source's file name: shown in diagnostics, recorded in the manifest and trace, and the
   * directory that `target "file.json"` in the source is relative to. Default "input.dmac".
   */
  readonly path?: string | undefined;
  /** Schedule parameters, as `-D name=value` gives them: `{ chunk: "1MiB", steps: 4 }`. */
  readonly defines?: Readonly<Record<string, string | number | boolean>> | undefined;
  /** The schedule (needed by `compile` when the file has several; `check` checks all by default). */
  readonly schedule?: string | undefined;
  /** A built-in target's name or a target description (`loadTarget`), instead of the source's. */
  readonly target?: string | Target | undefined;
  /** Most instantiated operations (`--max-ops`). Limits are positive integers, as the CLI's. */
  readonly maxOps?: number | undefined;
  /** Front-end limits (`--max-source-bytes`, `--max-nesting`; DMAC1012, DMAC1013). */
  readonly maxSourceBytes?: number | undefined;
  readonly maxNesting?: number | undefined;
  /** `--sync`: the sync forms compile would use (DMAC4020); default: the target's. */
  readonly sync?: SyncMode | undefined;
}

export interface CheckResult {
  /** No errors (warnings allowed). */
  readonly ok: boolean;
  readonly diagnostics: Diagnostic[];
  /** The verified IR of every schedule whose phases all succeeded. */
  readonly modules: IrModule[];
}

/** The target option as a description, or a diagnostic naming the unknown built-in. */
export function resolveTarget(target: string | Target | undefined): {
  target: Target | undefined;
  diagnostics: Diagnostic[];
} {
  if (target === undefined || typeof target !== "string") return { target, diagnostics: [] };
  const found = builtinTarget(target);
  return found
    ? { target: found, diagnostics: [] }
    : { target: undefined, diagnostics: [diag("DMAC2006", undefined, [target])] };
}

/** `-D` values as text (numbers and booleans as they print). */
export function defineTexts(defines: CheckOptions["defines"]): Record<string, string> {
  // fromEntries makes own keys, so a parameter named `__proto__` stays a parameter.
  return Object.fromEntries(Object.entries(defines ?? {}).map(([k, v]) => [k, String(v)]));
}

/**
 * A library option's value as the CLI's option would take it (its text), so that one set of rules
 * checks both: `maxOps: -5` is refused as `--max-ops -5` is.
 */
export const optionText = (v: unknown): string | undefined =>
  v === undefined ? undefined : String(v);

/** The limits as the CLI's options take them. */
export function limitText(o: CheckOptions): {
  maxOps: string | undefined;
  maxSourceBytes: string | undefined;
  maxNesting: string | undefined;
} {
  return {
    maxOps: optionText(o.maxOps),
    maxSourceBytes: optionText(o.maxSourceBytes),
    maxNesting: optionText(o.maxNesting),
  };
}

/** Parse, type-check, instantiate and verify every selected schedule of `source`. */
export function check(source: string, options: CheckOptions = {}): CheckResult {
  const resolved = resolveTarget(options.target);
  const given = limitText(options);
  const limits = parseFrontEndLimits(given);
  const maxOps = parsePositiveInt("--max-ops", given.maxOps);
  const pre = [...resolved.diagnostics, ...limits.diagnostics, ...maxOps.diagnostics];
  if (pre.length > 0) return { ok: false, diagnostics: pre, modules: [] };
  const path = options.path ?? DEFAULT_SOURCE_NAME;
  const r = analyzeSource(makeSourceFile(path, source), {
    defines: defineTexts(options.defines),
    schedule: options.schedule,
    baseDir: dirname(path),
    targetOverride: resolved.target,
    maxOps: maxOps.value,
    maxSourceBytes: limits.maxSourceBytes,
    maxNesting: limits.maxNesting,
    sync: options.sync,
  });
  return { ok: !hasErrors(r.diagnostics), diagnostics: r.diagnostics, modules: r.modules };
}
