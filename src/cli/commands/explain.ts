// `dmac explain CODE`: prints a diagnostic code's title, severity, phase and documentation.
// Accepts DMAC2004, dmac2004 and 2004; an unknown code is DMAC5003 (exit 1).

import type { Command } from "commander";
import { diag } from "../../diagnostics/diagnostic.js";
import { explainCode, normalizeCode } from "../../diagnostics/docs.js";
import type { CliContext } from "../main.js";
import { EXIT_OK } from "../io.js";
import { reportDiagnostics } from "../options.js";

export function runExplain(code: string, ctx: CliContext): number {
  const known = normalizeCode(code);
  if (!known) {
    const d = diag("DMAC5003", undefined, [code], {
      hint: "codes look like DMAC2004; see docs/diagnostics.md for the list",
    });
    return reportDiagnostics(ctx, [d], { format: "full", color: "auto" });
  }
  ctx.streams.out(explainCode(known));
  return EXIT_OK;
}

export function registerExplain(program: Command, ctx: CliContext): void {
  program
    .command("explain")
    .description(
      "print the documentation of a diagnostic code (e.g. dmac explain DMAC2004, or 2004)",
    )
    .argument("<code>", "a diagnostic code: DMAC2004, dmac2004 or 2004")
    .action((code: string) => {
      ctx.exit(runExplain(code, ctx));
    });
}
