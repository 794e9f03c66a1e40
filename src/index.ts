// dmac as a library: the documented public API (docs/api.md), what `import ... from "dmac"`
// gives. Data in, data out: sources are strings, outputs are values (manifest, streams as
// Uint32Array, trace, summaries); nothing here writes files or prints, and the only reads are
// the ones named (`loadTarget`, and a source's own `target "file.json"`). User errors are
// Diagnostic values in each result, never exceptions; an exception is a bug in dmac.
//
// Keep this surface small and stable: the CLI (src/cli) is built on the same entry functions,
// and the JSON documents (manifest, trace, `--json` outputs) have schemas under schemas/,
// validated by `validateDocument`.

export { check, type CheckOptions, type CheckResult } from "./api/check.js";
export {
  compile,
  type CompiledFile,
  type CompileFailure,
  type CompileOptions,
  type CompileResult,
  type CompileSuccess,
} from "./api/compile.js";
export {
  simulate,
  type SimulateInput,
  type SimulateOptions,
  type SimulateResult,
} from "./api/simulate.js";
export {
  doublings,
  MAX_SWEEP_SIZES,
  sweep,
  type SweepOptions,
  type SweepPoint,
  type SweepResult,
} from "./api/sweep.js";
export {
  SCHEMA_NAMES,
  checkExecutorInput,
  schemaPath,
  validateDocument,
  type SchemaName,
  type SchemaProblem,
} from "./schemas.js";

export type { Diagnostic, Related, Severity } from "./diagnostics/diagnostic.js";
export { hasErrors } from "./diagnostics/diagnostic.js";
export type { RenderFormat } from "./diagnostics/render.js";
export type { Span, SourceFile } from "./source/source-file.js";
export type { IrModule } from "./ir/ir.js";
export type { QueueProgram } from "./queues/queue-program.js";
export type { Manifest } from "./backend/sdma/manifest.js";
export type { Trace, TraceCmd } from "./backend/trace/trace.js";
export type { EmitKind } from "./driver/outputs.js";
export type { OutputFile } from "./backend/output.js";
export type { Target } from "./target/target.js";
export type { EngineStats, LinkStats } from "./sim/execute.js";

import { renderDiagnostics as render, type RenderFormat } from "./diagnostics/render.js";
import type { Diagnostic } from "./diagnostics/diagnostic.js";
import { explainCode, normalizeCode } from "./diagnostics/docs.js";
import { builtinTarget, loadTargetFile, type Target } from "./target/target.js";
import { disassemble as listing } from "./backend/sdma/disasm.js";

/** The dmac version (the one manifests and traces record). */
export { VERSION as version } from "./version.js";

/**
 * Diagnostics as the CLI prints them: "full" (code frames), "concise" (one line each) or "json"
 * (the `--format json` document, schemas/diagnostics.schema.json). Colour only when asked.
 */
export function formatDiagnostics(
  diagnostics: readonly Diagnostic[],
  format: RenderFormat = "full",
  options: { readonly color?: boolean } = {},
): string {
  return render(diagnostics, format, { color: options.color === true });
}

/** The documentation of a diagnostic code ("DMAC2004", "dmac2004", "2004"), as `dmac explain`. */
export function explain(code: string): string | undefined {
  const known = normalizeCode(code);
  return known ? explainCode(known) : undefined;
}

/** The listing of a gfx942 SDMA packet stream, as `dmac disasm` prints it. */
export function disassemble(
  words: Uint32Array | readonly number[],
  options: { readonly baseOffset?: number } = {},
): string {
  return listing(words, options.baseOffset !== undefined ? { baseOffset: options.baseOffset } : {});
}

/**
 * A target description: a built-in one by name ("mi300x"), or (reads the file) a JSON
 * description such as `dmac calibrate -o` writes. Throws on an unknown name or a bad file.
 */
export function loadTarget(nameOrPath: string): Target {
  return builtinTarget(nameOrPath) ?? loadTargetFile(nameOrPath);
}

/** `dmac fmt` as a function: the formatted text, or the syntax errors that prevent formatting. */
export { formatDmac as format, type FormatResult } from "./fmt/format.js";
