// `dmac fmt PATH... [--check | --write]`: format .dmac files with dmac's prettier plugin
// (src/fmt). With no flag, prints the formatted text of one file; --check lists the files whose
// formatting differs and exits 1 if any does; --write rewrites them in place. A directory stands
// for every .dmac below it (not node_modules, dist or .git, nor what ./.prettierignore names).
// Safety (docs/safety.md): files, and ./.prettierignore, are read like every input (regular
// files only, size-limited); a file with errors is reported and never rewritten; a rewrite goes
// to a temporary file beside the original that is renamed over it (writeOutputFile: same mode,
// never through a symbolic link), and only if the file did not change while it was being
// formatted.
// `--format json`: one document of the files and whether each differs (was rewritten, with
// --write), the formatted text when printing one file, and the diagnostics
// (schemas/fmt.schema.json).

import { readdirSync, statSync, type Stats } from "node:fs";
import { join, resolve } from "node:path";
import type { Command } from "commander";
import { diag, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { InputFileError } from "../../util/read-input.js";
import { readIgnoreFile, type IsIgnored } from "../ignore-file.js";
import { writeOutputOrReport } from "../write-output.js";
import type { CliContext } from "../main.js";
import { reportJson } from "../json-output.js";
import { readErrorReason, readSourceFile } from "../../options/options.js";
import { addDiagnosticOptions, reportDiagnostics, type DiagnosticOutput } from "../options.js";

export interface FmtCommandOptions extends DiagnosticOutput {
  readonly check?: boolean | undefined;
  readonly write?: boolean | undefined;
}

/** Directories a directory walk never enters. */
const SKIPPED_DIRS: ReadonlySet<string> = new Set(["node_modules", "dist", ".git"]);
const IGNORE_FILE = ".prettierignore";

export async function runFmt(
  paths: readonly string[],
  opts: FmtCommandOptions,
  ctx: CliContext,
): Promise<number> {
  const diagnostics: Diagnostic[] = [];
  if (opts.check === true && opts.write === true) {
    diagnostics.push(diag("DMAC5004", undefined, ["--check", "use either --check or --write"]));
    return reportDiagnostics(ctx, diagnostics, opts);
  }
  // Loaded here, not at start-up: prettier is large and only this command needs it.
  const { formatDmac } = await import("../../fmt/format.js");
  const files = expand(paths, diagnostics);
  if (files === undefined) return reportDiagnostics(ctx, diagnostics, opts);
  const toStdout = opts.check !== true && opts.write !== true;
  if (toStdout && files.length !== 1) {
    const detail = `prints one file (${files.length} given); add --check or --write for several`;
    diagnostics.push(diag("DMAC5004", undefined, ["dmac fmt", detail]));
    return reportDiagnostics(ctx, diagnostics, opts);
  }
  let unformatted = 0;
  const json = opts.format === "json";
  const results: { file: string; changed: boolean; written?: boolean }[] = [];
  let printed: string | undefined;
  for (const path of files) {
    const before = statOrUndefined(path);
    const read = readSourceFile(path);
    diagnostics.push(...read.diagnostics);
    if (read.file === undefined) continue;
    const result = await formatDmac(read.file.text, path);
    if (!result.ok) {
      diagnostics.push(...result.diagnostics);
      continue;
    }
    const changed = result.text !== read.file.text;
    if (toStdout) {
      results.push({ file: path, changed });
      if (json) printed = result.text;
      else ctx.streams.out(result.text);
    } else if (changed) {
      if (opts.check === true) {
        if (!json) ctx.streams.out(`${path}\n`);
        results.push({ file: path, changed });
        unformatted++;
      } else {
        const written = rewrite(path, result.text, before);
        if (written !== undefined) diagnostics.push(written);
        results.push({ file: path, changed, written: written === undefined });
      }
    } else results.push({ file: path, changed });
  }
  if (json) {
    const fields = { files: results, ...(printed !== undefined ? { text: printed } : {}) };
    return reportJson(ctx, fields, diagnostics, unformatted > 0);
  }
  const code = reportDiagnostics(ctx, diagnostics, opts);
  return unformatted > 0 ? Math.max(code, 1) : code;
}

/** Replaces `path` by `text` unless it changed since `before`; a diagnostic if it cannot. */
function rewrite(path: string, text: string, before: Stats | undefined): Diagnostic | undefined {
  const now = statOrUndefined(path);
  if (before === undefined || now === undefined || changed(before, now)) {
    return diag("DMAC5002", undefined, [path, "it changed while being formatted; left as it is"]);
  }
  return writeOutputOrReport(path, text, { rewrites: true });
}

function changed(a: Stats, b: Stats): boolean {
  return a.size !== b.size || a.mtimeMs !== b.mtimeMs || a.ino !== b.ino;
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The files named, each directory replaced by its .dmac files (sorted, ignored ones left out);
 * undefined, with a diagnostic, when ./.prettierignore is needed and cannot be read (formatting
 * what it may name is not an option: --write would rewrite files the user wants left alone).
 */
function expand(paths: readonly string[], diagnostics: Diagnostic[]): string[] | undefined {
  const out: string[] = [];
  let ignored: IsIgnored | undefined;
  for (const path of paths) {
    if (!statOrUndefined(path)?.isDirectory()) {
      out.push(path); // read later: a missing or special file gets its DMAC5001 there
      continue;
    }
    try {
      ignored ??= ignoreFile();
    } catch (e) {
      diagnostics.push(diag("DMAC5001", undefined, [IGNORE_FILE, readErrorReason(e)]));
      return undefined;
    }
    out.push(...walk(path, diagnostics).filter((file) => !ignored!(file)));
  }
  return out;
}

/** What ./.prettierignore ignores (nothing when there is none); throws InputFileError. */
function ignoreFile(): IsIgnored {
  try {
    return readIgnoreFile(resolve(IGNORE_FILE));
  } catch (e) {
    if (e instanceof InputFileError && e.code === "ENOENT") return () => false;
    throw e;
  }
}

/** The .dmac files below `dir`, sorted; symbolic links are not followed. */
function walk(dir: string, diagnostics: Diagnostic[]): string[] {
  const out: string[] = [];
  const pending = [dir];
  while (pending.length > 0) {
    const at = pending.pop()!;
    let entries;
    try {
      entries = readdirSync(at, { withFileTypes: true });
    } catch (e) {
      diagnostics.push(diag("DMAC5001", undefined, [at, readErrorReason(e)]));
      continue;
    }
    for (const entry of entries) {
      const path = join(at, entry.name);
      if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) pending.push(path);
      else if (entry.isFile() && entry.name.endsWith(".dmac")) out.push(path);
    }
  }
  return out.sort();
}

export function registerFmt(program: Command, ctx: CliContext): void {
  const cmd = program
    .command("fmt")
    .description(
      "format .dmac files (prints one file; --check lists unformatted files, --write rewrites them)",
    )
    .argument("<paths...>", ".dmac files, or directories to search for them")
    .option("--check", "list the files whose formatting differs; exit 1 if there are any")
    .option("--write", "rewrite the files in place (atomically; files with errors are left alone)");
  addDiagnosticOptions(cmd).action(async (paths: string[], opts: FmtCommandOptions) => {
    ctx.exit(await runFmt(paths, opts, ctx));
  });
}
