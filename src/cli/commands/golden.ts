// `dmac golden INPUT... [--update] [--filter TEXT]`: golden-file tests of schedules. The workflow
// lives in src/golden (configurations from `/// golden:` lines, the artefact table, the runner,
// diffs, the report); this command parses the options, runs it and prints the report. Exit 0 when
// nothing failed (new and obsolete goldens are reported, not failures), 1 otherwise.
// `--format json`: the report as one document (schemas/golden.schema.json).

import type { Command } from "commander";
import { hasErrors } from "../../diagnostics/diagnostic.js";
import { checkConfigOptions } from "../../golden/config.js";
import { addConfigOptions, pickConfig, type ConfigOptions } from "../../golden/config-options.js";
import { renderReport, countOutcomes } from "../../golden/report.js";
import { runGoldenTests } from "../../golden/run.js";
import type { CliContext } from "../main.js";
import { reportJson } from "../json-output.js";
import type { RunReport } from "../../golden/run.js";
import { EXIT_OK, EXIT_USER_ERROR, useColor } from "../io.js";
import { parsePositiveInt } from "../../options/options.js";
import { addDiagnosticOptions, reportDiagnostics, type DiagnosticOutput } from "../options.js";

export interface GoldenCommandOptions extends ConfigOptions, DiagnosticOutput {
  readonly update?: boolean | undefined;
  readonly filter?: string | undefined;
  readonly goldenDir?: string | undefined;
  readonly jobs?: string | undefined;
}

export async function runGolden(
  inputs: readonly string[],
  opts: GoldenCommandOptions,
  ctx: CliContext,
): Promise<number> {
  const options = pickConfig(opts);
  const jobs = parsePositiveInt("--jobs", opts.jobs, 256);
  const bad = [...checkConfigOptions(options), ...jobs.diagnostics];
  if (bad.length > 0) return reportDiagnostics(ctx, bad, opts);
  const report = await runGoldenTests({
    inputs,
    options,
    filter: opts.filter,
    goldenDir: opts.goldenDir,
    update: opts.update ? "all" : "none",
    jobs: jobs.value,
  });
  const color = useColor(opts.color, ctx.streams);
  // Text: the report, then the inputs' diagnostics. JSON: one document of every diagnostic (a
  // failed golden is DMAC5005, with those of a test that did not compile or could not be read).
  if (opts.format !== "json") ctx.streams.out(renderReport(report, color));
  const diagnostics =
    opts.format === "json"
      ? [
          ...report.plan.diagnostics,
          ...report.outcomes.flatMap((o) => [
            ...o.test.problems,
            ...(o.warnings ?? []),
            ...o.goldens.flatMap((g) => g.diagnostics ?? []),
          ]),
          ...report.obsolete.flatMap((o) => o.diagnostics ?? []),
          ...report.indexDiagnostics,
        ]
      : [...report.plan.diagnostics, ...report.indexDiagnostics];
  const failed =
    countOutcomes(report).failed > 0 ||
    hasErrors(report.plan.diagnostics) ||
    hasErrors(report.indexDiagnostics);
  if (opts.format === "json") return reportJson(ctx, goldenJson(report), diagnostics, failed);
  const code = reportDiagnostics(ctx, diagnostics, opts);
  return code === EXIT_OK && !failed ? EXIT_OK : EXIT_USER_ERROR;
}

/** The report's fields of the `--format json` document: counts, each test's goldens, obsolete ones. */
function goldenJson(report: RunReport): Record<string, unknown> {
  return {
    summary: countOutcomes(report),
    tests: report.outcomes.map((o) => ({
      name: o.test.name,
      failed: o.failed,
      goldens: o.goldens.map((g) => ({
        kind: g.kind,
        path: g.path,
        status: g.status,
        ...(g.note !== undefined ? { note: g.note } : {}),
        ...(g.diff !== undefined ? { diff: g.diff } : {}),
      })),
    })),
    obsolete: report.obsolete.map((o) => ({ path: o.path, reason: o.reason, removed: o.removed })),
  };
}

export function registerGolden(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("golden")
    .description(
      "golden-file tests: compile each .dmac (per its '/// golden:' lines) and compare its packet listing, IR, trace, diagnostics or simulation summary with the goldens beside it",
    )
    .argument("<inputs...>", ".dmac files, directories (searched recursively) or quoted globs")
    .option("--update", "write new and changed goldens and remove those whose test is gone")
    .option("--filter <text>", "run only the tests whose name (FILE [LABEL]) contains this text")
    .option(
      "--golden-dir <dir>",
      "keep goldens in this directory (mirroring each test's path from the working directory) instead of beside the files",
    )
    .option(
      "-j, --jobs <n>",
      "worker threads running tests (default: one per 4 tests, at most one per core and 8; 1: none)",
    );
  addConfigOptions(cmd);
  addDiagnosticOptions(cmd).action(async (inputs: string[], opts: GoldenCommandOptions) => {
    ctx.exit(await runGolden(inputs, opts, ctx));
  });
}
