// The golden workflow as data: plan (discover the test files, read each one's configurations,
// check who owns each golden name: owners.ts), run one test (a configuration: produce each
// artefact, compare it with its golden, write it when the update mode says so), then the obsolete
// goldens (obsolete.ts) and the golden indexes (owners.ts). Nothing here prints: report.ts renders
// the outcomes for the CLI and src/testing.ts turns each test into a vitest test. Files are read
// through read-input.ts and written or removed through backend/output.ts (never through a link,
// never over an input).

import { dirname, resolve } from "node:path";
import { OutputError, writeOutputFile } from "../backend/output.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { makeSourceFile, type SourceFile } from "../source/source-file.js";
import { InputFileError, readInputText } from "../util/read-input.js";
import { parseFrontEndLimits, readErrorReason, readSourceFile } from "../options/options.js";
import { artefact, type ArtefactKind } from "./artefacts.js";
import { readConfigs, type GoldenConfig } from "./config.js";
import { renderConfigArgs, shellQuote, type ConfigOptions } from "./config-options.js";
import { discover, shownPath, type GoldenScope, type TestFile } from "./discover.js";
import { unifiedDiff } from "./diff.js";
import {
  goldenPath,
  parseGolden,
  recordedSource,
  renderGolden,
  sourceFromGolden,
} from "./golden-file.js";
import { IndexCache } from "./golden-index.js";
import { findObsolete, removeObsolete, type Obsolete } from "./obsolete.js";
import { claimOwners, recordOwners } from "./owners.js";
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
  /** Goldens in this tree, mirroring each test's path from the working directory (discover.ts). */
  readonly goldenDir?: string | undefined;
}

export type GoldenStatus = "passed" | "failed" | "new" | "written" | "updated";

export interface GoldenOutcome {
  readonly kind: ArtefactKind;
  /** Absolute path of the golden. */
  readonly path: string;
  readonly status: GoldenStatus;
  /** Unified diff of a failed comparison (after the artefact's summary lines, for a listing). */
  readonly diff?: string | undefined;
  /** Why it failed or what moved (sim's tolerance). */
  readonly note?: string | undefined;
  readonly diagnostics?: readonly Diagnostic[] | undefined;
  /** A passed golden whose header names this test and artefact (owners.ts may record it). */
  readonly headerNamesTest?: boolean | undefined;
}

export interface TestOutcome {
  readonly test: GoldenTest;
  readonly goldens: readonly GoldenOutcome[];
  readonly failed: boolean;
  /** The compile's warnings (shown whether the goldens pass or not). */
  readonly warnings?: readonly Diagnostic[] | undefined;
}

export interface RunReport {
  readonly plan: GoldenPlan;
  readonly outcomes: readonly TestOutcome[];
  readonly obsolete: readonly Obsolete[];
  /** Golden indexes that could not be written (DMAC5002) or read (DMAC5031) after the run. */
  readonly indexDiagnostics: readonly Diagnostic[];
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
  const owned = claimOwners(tests, new IndexCache());
  return {
    tests: owned,
    selected: filter === undefined ? owned : owned.filter((t) => t.name.includes(filter)),
    scopes: found.scopes,
    diagnostics: found.diagnostics,
  };
}

/**
 * The goldens a test compares (and may write), or those it declares: every artefact, unless its
 * own `/// golden:` line chooses them with --emit (obsolete.ts: the others are not its any more).
 */
export function goldensOf(
  t: GoldenTest,
  which: "compared" | "declared" = "compared",
): { kind: ArtefactKind; path: string }[] {
  const kinds = which === "compared" ? t.config?.artefacts : t.config?.declared;
  return (kinds ?? []).map((kind) => ({
    kind,
    path: goldenPath(t.file.stem, t.config!.label, kind),
  }));
}

/** A golden's text, undefined if there is none; never a FIFO, a directory or a huge file. */
export function readGolden(path: string): string | undefined {
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
  if (cmp.same) {
    const f = golden.fields;
    const headerNamesTest =
      recordedSource(path, f) === t.file.path &&
      (f.get("configuration") ?? "") === t.config.label &&
      f.get("artefact") === kind;
    return { kind, path, status: "passed", note: cmp.note, headerNamesTest };
  }
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
    diff:
      (a.summarize?.(golden.body, produced.text) ?? "") +
      unifiedDiff(shownPath(path), `${t.name} (${kind} now)`, golden.body, produced.text),
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
  const warnings = products.warnings();
  return {
    test: t,
    goldens,
    failed: goldens.some((g) => g.status === "failed"),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

export interface RunOptions extends PlanOptions {
  readonly update?: UpdateMode | undefined;
  /** Worker threads (parallel.ts; default: by the number of tests and cores, 1: none). */
  readonly jobs?: number | undefined;
}

/**
 * Plans and runs every selected test, then reports the obsolete goldens (with update "all"
 * removing those whose test is gone) and records in the golden indexes what the run wrote.
 */
export async function runGoldenTests(opts: RunOptions): Promise<RunReport> {
  const update = opts.update ?? "none";
  const plan = await planGolden(opts);
  // A bad input does not stop the others (as lit and vitest run what they find).
  const outcomes = await runTests(plan.selected, update, opts.jobs);
  const stale = findObsolete(plan, opts.filter);
  const obsolete = removeObsolete(stale, update);
  const removed = obsolete.filter((o) => o.removed).map((o) => o.path);
  const indexDiagnostics = recordOwners(outcomes, update, removed);
  return { plan, outcomes, obsolete, indexDiagnostics, update };
}
