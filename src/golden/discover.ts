// Which test files a run covers and where their goldens live. An input is a .dmac file, a
// directory (every .dmac below it, sorted; hidden directories and node_modules skipped) or a glob
// (`"tests/**/*.dmac"`, for shells that do not expand it; tinyglobby, loaded only for a glob).
// Goldens live beside their file, or with --golden-dir in a tree of their own that mirrors the
// working directory (goldenDirOf). Bad inputs are diagnostics (DMAC5001 unreadable, DMAC5004 not
// a test input), never exceptions.

import { readdirSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { readErrorReason } from "../options/options.js";

export interface TestFile {
  /** Absolute path of the .dmac file. */
  readonly path: string;
  /** As the report shows it: relative to the working directory when below it. */
  readonly shown: string;
  /** `dir/NAME`: the goldens are `dir/NAME[.LABEL].KIND.golden`. */
  readonly stem: string;
}

/** A directory of goldens the run looks after: those there no test uses are reported (obsolete.ts). */
export interface GoldenScope {
  readonly dir: string;
  readonly recursive: boolean;
  /** Goldens of these sources only (file inputs); undefined: of any source below `sourceRoot`. */
  readonly sources?: ReadonlySet<string> | undefined;
  readonly sourceRoot?: string | undefined;
}

export interface Discovered {
  readonly files: TestFile[];
  readonly scopes: GoldenScope[];
  readonly diagnostics: Diagnostic[];
}

const GLOB = /[*?[\]{}]/;
const SKIPPED_DIRS = new Set(["node_modules"]);

/** A path for reports: relative to the working directory unless that climbs out of it. */
export function shownPath(path: string): string {
  const r = relative(process.cwd(), path);
  return r === "" ? "." : r.startsWith("..") ? path : r;
}

/** Every .dmac file below `dir`, sorted. */
function walk(dir: string, out: string[]): void {
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
    a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
  )) {
    const p = join(dir, e.name);
    if (e.isDirectory() && !e.name.startsWith(".") && !SKIPPED_DIRS.has(e.name)) walk(p, out);
    else if (e.name.endsWith(".dmac") && !e.isDirectory()) out.push(p);
  }
}

const badInput = (detail: string): Diagnostic => diag("DMAC5004", undefined, ["input", detail]);

/**
 * Where the goldens of what lies in `dir` go: `dir` itself, or with --golden-dir the same path
 * below it as `dir` has below the working directory. One tree for every run from there, so two
 * sources never share a golden, whichever inputs a run names; undefined for a directory outside
 * the working directory (its goldens would land outside the golden directory).
 */
function goldenDirOf(dir: string, goldenDir: string | undefined): string | undefined {
  if (goldenDir === undefined) return dir;
  const below = relative(process.cwd(), dir);
  if (below === ".." || below.startsWith(`..${sep}`) || isAbsolute(below)) return undefined;
  return join(resolve(goldenDir), below);
}

const outside = (input: string): Diagnostic =>
  diag("DMAC5004", undefined, [
    "--golden-dir",
    `${input} is outside the working directory; goldens there mirror each test's path from the working directory, so run from a directory that holds it`,
  ]);

/** The test files of `inputs` (files, directories, globs) and the golden scopes they own. */
export async function discover(inputs: readonly string[], goldenDir?: string): Promise<Discovered> {
  const files = new Map<string, TestFile>();
  const scopes: GoldenScope[] = [];
  const diagnostics: Diagnostic[] = [];
  const fileScopes = new Map<string, Set<string>>();
  /** The golden directory of `path`'s directory, or undefined (reported) for none. */
  const addFile = (path: string): string | undefined => {
    const dir = goldenDirOf(dirname(path), goldenDir);
    if (dir === undefined) diagnostics.push(outside(shownPath(path)));
    else if (!files.has(path))
      files.set(path, { path, shown: shownPath(path), stem: join(dir, basename(path, ".dmac")) });
    return dir;
  };
  const addSingle = (path: string): void => {
    const dir = addFile(path);
    if (dir !== undefined) fileScopes.set(dir, (fileScopes.get(dir) ?? new Set()).add(path));
  };
  for (const input of inputs) {
    if (GLOB.test(input)) {
      const { glob } = await import("tinyglobby");
      const matches = (await glob(input, { absolute: true, onlyFiles: true })).filter((p) =>
        p.endsWith(".dmac"),
      );
      if (matches.length === 0) diagnostics.push(badInput(`no .dmac file matches ${input}`));
      for (const m of matches.sort()) addSingle(resolve(m));
      continue;
    }
    const path = resolve(input);
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch (e) {
      diagnostics.push(diag("DMAC5001", undefined, [input, readErrorReason(e)]));
      continue;
    }
    if (!isDir) {
      if (path.endsWith(".dmac")) addSingle(path);
      else diagnostics.push(badInput(`${input} is neither a .dmac file nor a directory`));
      continue;
    }
    const found: string[] = [];
    try {
      walk(path, found);
    } catch (e) {
      const where = (e as { path?: unknown }).path;
      diagnostics.push(
        diag("DMAC5001", undefined, [
          typeof where === "string" ? where : input,
          readErrorReason(e),
        ]),
      );
      continue;
    }
    if (found.length === 0) diagnostics.push(badInput(`${input} has no .dmac file below it`));
    const dir = goldenDirOf(path, goldenDir);
    if (dir === undefined) {
      diagnostics.push(outside(input));
      continue;
    }
    for (const f of found) addFile(f);
    scopes.push({ dir, recursive: true, sourceRoot: path });
  }
  for (const [dir, sources] of fileScopes) scopes.push({ dir, recursive: false, sources });
  return { files: [...files.values()], scopes, diagnostics };
}

/** A directory of a scope and the `*.golden` files it holds (sorted). */
export interface GoldenDir {
  readonly dir: string;
  readonly goldens: readonly string[];
}

/**
 * The directories of a scope, with the directories below it when it is recursive (hidden ones and
 * node_modules skipped, as the walk for tests skips them); unreadable directories are skipped.
 */
export function goldenDirsIn(scope: GoldenScope): GoldenDir[] {
  const out: GoldenDir[] = [];
  const visit = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    const goldens: string[] = [];
    for (const e of entries) {
      const p = join(dir, e.name);
      if (e.isDirectory()) {
        if (scope.recursive && !e.name.startsWith(".") && !SKIPPED_DIRS.has(e.name)) visit(p);
      } else if (e.isFile() && e.name.endsWith(".golden")) goldens.push(p);
    }
    out.push({ dir, goldens: goldens.sort() });
  };
  visit(scope.dir);
  return out;
}
