// The golden workflow as data: plan (discover the test files, read each one's configurations),
// run one test (a configuration: produce each artefact, compare it with its golden, write it when
// the update mode says so), and find the obsolete goldens (dmac wrote them, their schedule or
// configuration is gone). Nothing here prints: report.ts renders the outcomes for the CLI and
// src/testing.ts turns each test into a vitest test. Files are read through read-input.ts and
// written or removed through backend/output.ts (never through a link, never over an input).

import { dirname, resolve, sep } from "node:path";
import { OutputError, removeOutputFile, writeOutputFile } from "../backend/output.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { makeSourceFile, type SourceFile } from "../source/source-file.js";
import { InputFileError, readInputText } from "../util/read-input.js";
import { parseFrontEndLimits, readErrorReason, readSourceFile } from "../cli/options.js";
import { artefact, type ArtefactKind } from "./artefacts.js";
import { readConfigs, type GoldenConfig } from "./config.js";
import { renderConfigArgs, shellQuote, type ConfigOptions } from "./config-options.js";
import { discover, goldenFilesIn, shownPath, type GoldenScope, type TestFile } from "./discover.js";
import { unifiedDiff } from "./diff.js";
import {
  goldenPath,
  isGoldenText,
  parseGolden,
  recordedSource,
  renderGolden,
  sourceFromGolden,
} from "./golden-file.js";
import { makeProducts, type Products } from "./products.js";
import { runTests } from "./parallel.js";

/** What a run may write: nothing (CI), only missing goldens (vitest's default), everything. */
export type UpdateMode = "none" | "new" | "all";

/** The largest golden read (a listing of 10^6 operations is about 400 MB). */
export const MAX_GOLDEN_BYTES = 256 << 20;

export interface GoldenTest {
  readonly file: TestFile;
  /** `tests/ring.dmac [O2]`: what --filter matches and reports show. */
  readonly name: string;
  readonly source: SourceFile | undefined;
  /** Absent for a file that could not be read or has a bad `/// golden:` line. */
  readonly config: GoldenConfig | undefined;
  /** Why the file has no (or one fewer) configuration: DMAC5001, DMAC1012, DMAC5008. */
  readonly problems: readonly Diagnostic[];
}

export interface GoldenPlan {
  /** Every test of the inputs; `selected` are those --filter keeps. */
  readonly tests: readonly GoldenTest[];
  readonly selected: readonly GoldenTest[];
  readonly scopes: readonly GoldenScope[];
  /** Bad inputs and bad command-line options. */
  readonly diagnostics: readonly Diagnostic[];
}

export interface PlanOptions {
  readonly inputs: readonly string[];
  /** The command line's configuration options (config.ts says how they combine). */
  readonly options?: ConfigOptions | undefined;
  /** Keep the tests whose name contains this text. */
  readonly filter?: string | undefined;
  /** Goldens in this tree, mirroring each input directory, instead of beside the files. */
  readonly goldenDir?: string | undefined;
}

export type GoldenStatus = "passed" | "failed" | "new" | "written" | "updated";

export interface GoldenOutcome {
  readonly kind: ArtefactKind;
  /** Absolute path of the golden. */
  readonly path: string;
  readonly status: GoldenStatus;
  /** Unified diff of a failed comparison. */
  readonly diff?: string | undefined;
  /** Why it failed or what moved (sim's tolerance). */
  readonly note?: string | undefined;
  readonly diagnostics?: readonly Diagnostic[] | undefined;
}

export interface TestOutcome {
  readonly test: GoldenTest;
  readonly goldens: readonly GoldenOutcome[];
  readonly failed: boolean;
}

export interface Obsolete {
  readonly path: string;
  readonly removed: boolean;
  readonly diagnostics?: readonly Diagnostic[] | undefined;
}

export interface RunReport {
  readonly plan: GoldenPlan;
  readonly outcomes: readonly TestOutcome[];
  readonly obsolete: readonly Obsolete[];
  readonly update: UpdateMode;
}

const testName = (f: TestFile, label: string): string =>
  label === "" ? f.shown : `${f.shown} [${label}]`;

export async function planGolden(opts: PlanOptions): Promise<GoldenPlan> {
  const found = await discover(opts.inputs, opts.goldenDir);
  const cli = opts.options ?? {};
  const limits = parseFrontEndLimits(cli);
  const tests: GoldenTest[] = [];
  for (const file of found.files) {
    const read = readSourceFile(file.shown, limits.maxSourceBytes);
    if (!read.file) {
      tests.push({
        file,
        name: file.shown,
        source: undefined,
        config: undefined,
        problems: read.diagnostics,
      });
      continue;
    }
    // Named by its base name in every artefact, so goldens do not depend on where the run starts.
    const source = makeSourceFile(file.path.slice(dirname(file.path).length + 1), read.file.text);
    const { configs, diagnostics } = readConfigs(source, cli, dirname(file.path));
    if (diagnostics.length > 0)
      tests.push({ file, name: file.shown, source, config: undefined, problems: diagnostics });
    for (const config of configs)
      tests.push({ file, name: testName(file, config.label), source, config, problems: [] });
  }
  const filter = opts.filter;
  return {
    tests,
    selected: filter === undefined ? tests : tests.filter((t) => t.name.includes(filter)),
    scopes: found.scopes,
    diagnostics: found.diagnostics,
  };
}

/** The goldens a test compares (and may write). */
export function goldensOf(t: GoldenTest): { kind: ArtefactKind; path: string }[] {
  return (t.config?.artefacts ?? []).map((kind) => ({
    kind,
    path: goldenPath(t.file.stem, t.config!.label, kind),
  }));
}

/** A golden's text, undefined if there is none; never a FIFO, a directory or a huge file. */
function readGolden(path: string): string | undefined {
  try {
    return readInputText(path, { maxBytes: MAX_GOLDEN_BYTES, what: "a golden file" });
  } catch (e) {
    if (e instanceof InputFileError && e.code === "ENOENT") return undefined;
    throw e;
  }
}

function write(
  t: GoldenTest & { config: GoldenConfig },
  kind: ArtefactKind,
  path: string,
  body: string,
): Diagnostic[] {
  const config = t.config;
  const source = sourceFromGolden(dirname(path), t.file.path);
  const command = ["dmac", "golden", source, ...renderConfigArgs(config.options)]
    .map(shellQuote)
    .join(" ");
  const text = renderGolden({ source, label: config.label, kind, command }, body);
  const target = config.options.target;
  try {
    writeOutputFile(path, text, {
      rewrites: true, // the golden it read
      inputs: [
        t.file.path,
        ...(target !== undefined ? [resolve(dirname(t.file.path), target)] : []),
      ],
    });
    return [];
  } catch (e) {
    if (!(e instanceof OutputError)) throw e;
    return [diag("DMAC5002", undefined, [e.path, e.reason])];
  }
}

/** One golden of a test: produce, read the golden, compare; write when `update` allows. */
function checkGolden(
  t: GoldenTest & { config: GoldenConfig },
  kind: ArtefactKind,
  path: string,
  products: Products,
  update: UpdateMode,
): GoldenOutcome {
  const a = artefact(kind);
  const produced = a.produce(products);
  if ("failure" in produced)
    return {
      kind,
      path,
      status: "failed",
      note: produced.failure,
      diagnostics: produced.diagnostics,
    };
  let text: string | undefined;
  try {
    text = readGolden(path);
  } catch (e) {
    const d = diag("DMAC5001", undefined, [shownPath(path), readErrorReason(e)]);
    return { kind, path, status: "failed", note: "unreadable golden", diagnostics: [d] };
  }
  if (text === undefined) {
    if (update === "none") return { kind, path, status: "new" };
    const d = write(t, kind, path, produced.text);
    return { kind, path, status: d.length > 0 ? "failed" : "written", diagnostics: d };
  }
  const golden = parseGolden(text);
  if ("error" in golden)
    return { kind, path, status: "failed", note: `cannot use ${shownPath(path)}: ${golden.error}` };
  const cmp = a.compare(golden.body, produced.text, t.config.tolerance);
  if (cmp.same) return { kind, path, status: "passed", note: cmp.note };
  if (update === "all") {
    const d = write(t, kind, path, produced.text);
    return {
      kind,
      path,
      status: d.length > 0 ? "failed" : "updated",
      note: cmp.note,
      diagnostics: d,
    };
  }
  return {
    kind,
    path,
    status: "failed",
    note: cmp.note,
    diff: unifiedDiff(shownPath(path), `${t.name} (${kind} now)`, golden.body, produced.text),
    diagnostics: [diag("DMAC5005", undefined, [`${t.name}: ${kind}`])],
  };
}

/** Runs one test: each of its goldens checked (and written as `update` allows). */
export function runTest(t: GoldenTest, update: UpdateMode): TestOutcome {
  const config = t.config;
  if (!config || !t.source) return { test: t, goldens: [], failed: true };
  const products = makeProducts(t.source, dirname(t.file.path), config.options);
  const goldens = goldensOf(t).map(({ kind, path }) =>
    checkGolden({ ...t, config }, kind, path, products, update),
  );
  return { test: t, goldens, failed: goldens.some((g) => g.status === "failed") };
}

/** `inner` is `outer` or below it. */
const below = (inner: string, outer: string): boolean =>
  inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);

/**
 * Goldens dmac wrote in the plan's scopes that no test of the plan produces: their schedule was
 * deleted or renamed, or lost the configuration or artefact. Goldens of a file that could not be
 * read or has a bad header are never counted (what it produces is unknown), nor, with --filter,
 * those of files the filter leaves out.
 */
export function findObsolete(plan: GoldenPlan, filter?: string): string[] {
  const produced = new Set(plan.tests.flatMap((t) => goldensOf(t).map((g) => g.path)));
  const unknown = new Set(plan.tests.filter((t) => !t.config).map((t) => t.file.path));
  const out = new Set<string>();
  for (const scope of plan.scopes) {
    for (const path of goldenFilesIn(scope)) {
      if (produced.has(path)) continue;
      let text: string | undefined;
      try {
        text = readGolden(path);
      } catch {
        continue;
      }
      if (text === undefined || !isGoldenText(text)) continue;
      const golden = parseGolden(text);
      if ("error" in golden) continue;
      const source = recordedSource(path, golden.fields);
      if (source === undefined || unknown.has(source)) continue;
      const owned = scope.sources
        ? scope.sources.has(source)
        : scope.sourceRoot !== undefined && below(source, scope.sourceRoot);
      if (!owned) continue;
      if (filter !== undefined && !shownPath(source).includes(filter)) continue;
      out.add(path);
    }
  }
  return [...out].sort();
}

/** Removes obsolete goldens (only files that still carry dmac's golden header). */
export function removeObsolete(paths: readonly string[]): Obsolete[] {
  return paths.map((path) => {
    try {
      removeOutputFile(path, isGoldenText);
      return { path, removed: true };
    } catch (e) {
      if (!(e instanceof OutputError)) throw e;
      return {
        path,
        removed: false,
        diagnostics: [diag("DMAC5002", undefined, [e.path, e.reason])],
      };
    }
  });
}

export interface RunOptions extends PlanOptions {
  readonly update?: UpdateMode | undefined;
  /** Worker threads (parallel.ts; default: by the number of tests and cores, 1: none). */
  readonly jobs?: number | undefined;
}

/** Plans and runs every selected test, then reports (and with update "all" removes) obsolete goldens. */
export async function runGoldenTests(opts: RunOptions): Promise<RunReport> {
  const update = opts.update ?? "none";
  const plan = await planGolden(opts);
  // A bad input does not stop the others (as lit and vitest run what they find).
  const outcomes = await runTests(plan.selected, update, opts.jobs);
  const stale = findObsolete(plan, opts.filter);
  const obsolete =
    update === "all" ? removeObsolete(stale) : stale.map((path) => ({ path, removed: false }));
  return { plan, outcomes, obsolete, update };
}
