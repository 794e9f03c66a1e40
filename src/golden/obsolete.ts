// The goldens in a run's scopes that no test of the run uses, and why (the report says each):
// - gone: the golden index records the test that blessed it, and that test's file is gone
//   (owners.ts, goneCheck). The only ones `--update` removes.
// - unused: the index records its test, whose file is a test of this run that no longer has the
//   configuration (a `/// golden:` line deleted or commented out) or declares an `--emit` without
//   the artefact. The file is still there, so its goldens stay: the user deletes them.
// - unowned: a golden with dmac's header that the index does not record (written before the index
//   existed, or copied in): never removed.
// A golden a test of the run would name (any artefact: an `--emit` on the command line chooses
// what is compared, not what exists) is none of these, nor one whose file the run could not read
// or configure, nor, with --filter, one of a file the filter leaves out, nor one whose file still
// exists but is not a test of the run (in a hidden directory, a directory now, ...).

import { basename, sep } from "node:path";
import { OutputError, removeOutputFile } from "../backend/output.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { goldenDirsIn, shownPath, type GoldenScope } from "./discover.js";
import { isGoldenText, parseGolden, recordedSource } from "./golden-file.js";
import { IndexCache } from "./golden-index.js";
import { goneCheck } from "./owners.js";
import { goldensOf, readGolden, type GoldenPlan, type UpdateMode } from "./run.js";

export type StaleReason = "gone" | "unused" | "unowned";

export interface Stale {
  readonly path: string;
  readonly reason: StaleReason;
  /** The source of the test that blessed it (as the index, or for an unowned one the header, says). */
  readonly source: string;
}

export interface Obsolete extends Stale {
  readonly removed: boolean;
  readonly diagnostics?: readonly Diagnostic[] | undefined;
}

/** `inner` is `outer` or below it. */
const below = (inner: string, outer: string): boolean =>
  inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);

const inScope = (scope: GoldenScope, source: string): boolean =>
  scope.sources
    ? scope.sources.has(source)
    : scope.sourceRoot !== undefined && below(source, scope.sourceRoot);

/** The source a golden's header records, if it is a golden dmac wrote. */
function headerSource(path: string): string | undefined {
  let text: string | undefined;
  try {
    text = readGolden(path);
  } catch {
    return undefined;
  }
  if (text === undefined || !isGoldenText(text)) return undefined;
  const golden = parseGolden(text);
  return "error" in golden ? undefined : recordedSource(path, golden.fields);
}

/** The goldens of the plan's scopes that no test of it uses, sorted by path. */
export function findObsolete(plan: GoldenPlan, filter?: string): Stale[] {
  const claimed = new Set(plan.tests.flatMap((t) => goldensOf(t, "declared").map((g) => g.path)));
  const configured = new Set(plan.tests.filter((t) => t.config).map((t) => t.file.path));
  const unknown = new Set(plan.tests.filter((t) => !t.config).map((t) => t.file.path));
  const isGone = goneCheck();
  const indexes = new IndexCache();
  const out = new Map<string, Stale>();
  for (const scope of plan.scopes)
    for (const { dir, goldens } of goldenDirsIn(scope)) {
      const index = indexes.get(dir);
      if ("error" in index) continue; // reported with the tests that use it; nothing removed
      for (const path of goldens) {
        if (claimed.has(path) || out.has(path)) continue;
        const owner = index.goldens.get(basename(path));
        const source = owner?.source ?? headerSource(path);
        if (source === undefined || unknown.has(source) || !inScope(scope, source)) continue;
        if (filter !== undefined && !shownPath(source).includes(filter)) continue;
        const reason: StaleReason | undefined = !owner
          ? "unowned"
          : isGone(source)
            ? "gone"
            : configured.has(source)
              ? "unused"
              : undefined;
        if (reason) out.set(path, { path, reason, source });
      }
    }
  return [...out.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * With update "all", removes the goldens whose test is gone (only files that still carry dmac's
 * golden header); the others, and every one in a run that does not update, stay.
 */
export function removeObsolete(stale: readonly Stale[], update: UpdateMode): Obsolete[] {
  return stale.map((s) => {
    if (s.reason !== "gone" || update !== "all") return { ...s, removed: false };
    try {
      removeOutputFile(s.path, isGoldenText);
      return { ...s, removed: true };
    } catch (e) {
      if (!(e instanceof OutputError)) throw e;
      return {
        ...s,
        removed: false,
        diagnostics: [diag("DMAC5002", undefined, [e.path, e.reason])],
      };
    }
  });
}
