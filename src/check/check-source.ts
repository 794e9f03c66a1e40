// The front half of the pipeline for one source file: parse, then check. Syntax errors stop
// before the checker (a recovered, partial tree would only add follow-on errors). This is the
// single function `dmac check` runs; later phases extend the pipeline after it.

import { parseSource, type ParseOptions } from "../frontend/parse.js";
import { sortDiagnostics, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { SourceFile } from "../source/source-file.js";
import { checkProgram } from "./check.js";
import type { CheckedSchedule, CheckOptions } from "./checked.js";

export interface CheckSourceOptions extends CheckOptions, ParseOptions {
  /** Limit on instantiated operations (--max-ops), for the phases after checking. */
  readonly maxOps?: number | undefined;
}

export function checkSource(
  file: SourceFile,
  options: CheckSourceOptions,
): { diagnostics: Diagnostic[]; schedules: CheckedSchedule[] } {
  const parsed = parseSource(file, options);
  if (parsed.diagnostics.some((d) => d.severity === "error")) {
    return { diagnostics: sortDiagnostics(parsed.diagnostics), schedules: [] };
  }
  const checked = checkProgram(file, parsed.program, options);
  return {
    diagnostics: sortDiagnostics([...parsed.diagnostics, ...checked.diagnostics]),
    schedules: checked.schedules,
  };
}
