// `dmac explain CODE`: prints a diagnostic code's title, severity, phase and documentation.
// Accepts DMAC2004, dmac2004 and 2004; an unknown code is DMAC5003 (exit 1). `--format json`:
// the same as one document (schemas/explain.schema.json).

import type { Command } from "commander";
import { diag } from "../../diagnostics/diagnostic.js";
import { DIAGNOSTICS, type DiagnosticSpec } from "../../diagnostics/codes.js";
import { explainCode, normalizeCode } from "../../diagnostics/docs.js";
import type { CliContext } from "../main.js";
import { EXIT_OK } from "../io.js";
import { reportJson } from "../json-output.js";
import { addDiagnosticOptions, reportDiagnostics, type DiagnosticOutput } from "../options.js";

export function runExplain(
  code: string,
  ctx: CliContext,
  opts: DiagnosticOutput = { format: "full", color: "auto" },
): number {
  const known = normalizeCode(code);
  if (!known) {
    const d = diag("DMAC5003", undefined, [code], {
      hint: "codes look like DMAC2004; see docs/diagnostics.md for the list",
    });
    return reportDiagnostics(ctx, [d], opts);
  }
  if (opts.format === "json") {
    const spec: DiagnosticSpec = DIAGNOSTICS[known];
    const { title, severity, phase, doc } = spec;
    const status = spec.status ?? "stable";
    return reportJson(ctx, { code: known, title, severity, phase, status, doc }, []);
  }
  ctx.streams.out(explainCode(known));
  return EXIT_OK;
}

export function registerExplain(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("explain")
    .description(
      "print the documentation of a diagnostic code (e.g. dmac explain DMAC2004, or 2004)",
    )
    .argument("<code>", "a diagnostic code: DMAC2004, dmac2004 or 2004");
  addDiagnosticOptions(cmd).action((code: string, opts: DiagnosticOutput) => {
    ctx.exit(runExplain(code, ctx, opts));
  });
}
