// `dmac golden DIR [--update]`: golden-file tests for users' own schedules (and dmac's). For each
// NAME.dmac under DIR (recursively, sorted), compile it and compare dump.txt with NAME.dump.txt
// beside it (and, with --emit including trace, trace.json with NAME.trace.json). Prints a
// unified-style diff of the first differences; exit 1 (DMAC5005) on any mismatch. --update
// rewrites the goldens instead. A schedule that does not compile counts as a mismatch.

import { readdirSync } from "node:fs";
import { InputFileError, readInputText } from "../../util/read-input.js";
import { OutputError, writeOutputFile } from "../../backend/output.js";
import { join, relative } from "node:path";
import type { Command } from "commander";
import { outputText, type OutputFile } from "../../backend/compile-pipeline.js";
import { diag, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { renderDiagnostics } from "../../diagnostics/render.js";
import { EXIT_OK, EXIT_USER_ERROR, useColor } from "../io.js";
import type { CliContext } from "../main.js";
import {
  addDiagnosticOptions,
  readErrorReason,
  reportDiagnostics,
  type DiagnosticOutput,
} from "../options.js";
import { addBuildOptions, compileFileToOutputs, type BuildCommandOptions } from "./compile.js";

export interface GoldenCommandOptions extends BuildCommandOptions, DiagnosticOutput {
  readonly update?: boolean | undefined;
}

/** Every .dmac file under dir, sorted by path. */
export function findSources(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && e.name.endsWith(".dmac")) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

/** A unified-style diff of the first differing hunk (3 lines of context, at most `max` lines). */
export function firstDiff(expected: string, actual: string, max = 40): string {
  const a = expected.split("\n");
  const b = actual.split("\n");
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const from = Math.max(0, start - 3);
  const after = Math.min(a.length, endA + 3);
  const lines = [
    `@@ -${from + 1},${after - from} +${from + 1},${Math.min(b.length, endB + 3) - from} @@`,
  ];
  for (let i = from; i < start; i++) lines.push(` ${a[i]}`);
  // Show both sides of the change even when it is long: at most max/2 lines of each.
  const half = Math.max(1, Math.floor(max / 2));
  const side = (xs: string[], lo: number, hi: number, mark: string): void => {
    for (let i = lo; i < Math.min(hi, lo + half); i++) lines.push(`${mark}${xs[i]}`);
    if (hi - lo > half) lines.push(`${mark}... (${hi - lo - half} more lines)`);
  };
  side(a, start, endA, "-");
  side(b, start, endB, "+");
  for (let i = endA; i < after; i++) lines.push(` ${a[i]}`);
  return lines.join("\n");
}

/** The largest golden file read (a listing of 10^6 operations is about 400 MB). */
export const MAX_GOLDEN_BYTES = 256 << 20;

/**
 * A golden's text, or undefined if there is none; throws InputFileError for one that is not a
 * regular file (a FIFO, a device, a directory: never read) or is larger than MAX_GOLDEN_BYTES.
 */
function readOrUndefined(path: string): string | undefined {
  try {
    return readInputText(path, { maxBytes: MAX_GOLDEN_BYTES, what: "a golden file" });
  } catch (e) {
    if (e instanceof InputFileError && e.code === "ENOENT") return undefined;
    throw e;
  }
}

const text = (f: OutputFile | undefined): string | undefined =>
  f === undefined ? undefined : outputText(f);

export function runGolden(dir: string, opts: GoldenCommandOptions, ctx: CliContext): number {
  let sources: string[];
  try {
    sources = findSources(dir);
  } catch (e) {
    const reason = (e as { code?: string }).code === "ENOENT" ? "no such directory" : String(e);
    return reportDiagnostics(ctx, [diag("DMAC5001", undefined, [dir, reason])], opts);
  }
  const diagnostics: Diagnostic[] = [];
  const color = useColor(opts.color, ctx.streams);
  let passed = 0;
  let updated = 0;
  for (const src of sources) {
    const base = src.slice(0, -".dmac".length);
    const shown = relative(process.cwd(), src) || src;
    const result = compileFileToOutputs(src, { ...opts, dump: true }); // dump.txt is what is compared
    if (!result.files) {
      ctx.streams.err(`FAIL ${shown}: does not compile\n`);
      if (result.diagnostics.length > 0)
        ctx.streams.err(renderDiagnostics(result.diagnostics, "concise", { color }));
      diagnostics.push(diag("DMAC5005", undefined, [shown]));
      continue;
    }
    const artifacts: [string, string | undefined][] = [
      [`${base}.dump.txt`, text(result.files.find((f) => f.name === "dump.txt"))],
    ];
    const trace = text(result.files.find((f) => f.name === "trace.json"));
    if (trace !== undefined) artifacts.push([`${base}.trace.json`, trace]);
    let ok = true;
    for (const [golden, actual] of artifacts) {
      if (actual === undefined) continue;
      let expected: string | undefined;
      try {
        expected = readOrUndefined(golden);
      } catch (e) {
        ok = false;
        diagnostics.push(diag("DMAC5001", undefined, [golden, readErrorReason(e)]));
        continue;
      }
      if (expected === actual) continue;
      if (opts.update) {
        try {
          writeOutputFile(golden, actual, {
            inputs: [src, ...(opts.target !== undefined ? [opts.target] : [])],
          });
          updated++;
        } catch (e) {
          if (!(e instanceof OutputError)) throw e;
          diagnostics.push(diag("DMAC5002", undefined, [e.path, e.reason]));
        }
        continue;
      }
      ok = false;
      const g = relative(process.cwd(), golden) || golden;
      if (expected === undefined)
        ctx.streams.err(`FAIL ${shown}: no golden ${g} (run with --update to create it)\n`);
      else
        ctx.streams.err(
          `FAIL ${shown}: differs from ${g}\n--- ${g}\n+++ ${shown} (compiled)\n${firstDiff(expected, actual)}\n`,
        );
      diagnostics.push(diag("DMAC5005", undefined, [g]));
    }
    if (ok) passed++;
  }
  const summary = opts.update
    ? `${sources.length} schedules, ${updated} goldens written\n`
    : `${passed} of ${sources.length} schedules match their goldens\n`;
  ctx.streams.out(summary);
  const code = reportDiagnostics(ctx, diagnostics, opts);
  return code === EXIT_OK && diagnostics.length === 0 ? EXIT_OK : EXIT_USER_ERROR;
}

export function registerGolden(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("golden")
    .description(
      "compile every .dmac under DIR and compare dump.txt (and trace.json) with NAME.dump.txt / NAME.trace.json",
    )
    .argument("<dir>", "directory searched recursively for .dmac files")
    .option("--update", "rewrite the goldens instead of comparing");
  addBuildOptions(cmd);
  addDiagnosticOptions(cmd).action((dir: string, opts: GoldenCommandOptions) => {
    ctx.exit(runGolden(dir, opts, ctx));
  });
}
