// One output file through the safe writer (backend/output.ts), for commands that report rather
// than stop: a refused write (an input's path, a symlink, a full disk) is DMAC5002; anything
// else is a bug and propagates.

import { OutputError, writeOutputFile, type WriteGuard } from "../backend/output.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";

/** Writes `data` to `path`; undefined when written, DMAC5002 when the writer refused. */
export function writeOutputOrReport(
  path: string,
  data: string | Uint8Array,
  guard: WriteGuard = {},
): Diagnostic | undefined {
  try {
    writeOutputFile(path, data, guard);
    return undefined;
  } catch (e) {
    if (e instanceof OutputError) return diag("DMAC5002", undefined, [e.path, e.reason]);
    throw e;
  }
}
