// Who owns each golden: checked before any test runs, recorded after. A golden belongs to the one
// test (source file and configuration label) and artefact that blessed it, as the golden index of
// its directory records (golden-index.ts). Before a run: two tests whose goldens would have the
// same names (`a.dmac` with `-O2` and a file `a.O2.dmac`), or a test whose golden the index says
// another test blessed while that test's file still exists, are DMAC5030; a directory whose index
// cannot be used is DMAC5031. Such tests do not run, so none writes a golden that is not its own.
// After a run that may write: the index records the goldens it wrote (and, with --update, those
// already there whose header names the test that passed them: goldens from before the index).

import { readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { SourceFile, Span } from "../source/source-file.js";
import { ARTEFACTS } from "./artefacts.js";
import { shownPath } from "./discover.js";
import { goldenBase, goldenPath } from "./golden-file.js";
import { IndexCache, INDEX_NAME, sameOwner, writeIndex, type Owner } from "./golden-index.js";
import type { GoldenTest, TestOutcome, UpdateMode } from "./run.js";

type DiagnosticAt = { readonly file: SourceFile; readonly span: Span } | undefined;

/** `FILE [LABEL]`, as test names read. */
const ownerName = (o: { source: string; label: string }): string =>
  o.label === "" ? shownPath(o.source) : `${shownPath(o.source)} [${o.label}]`;

/**
 * `isGone(path)`: nothing is at `path`, not even a name that differs only in letter case. Such a
 * name is the same file on macOS and Windows, so a tree gives the same answer on every system;
 * anything else there (a directory, a file no walk finds) means the file's goldens stay.
 */
export function goneCheck(): (path: string) => boolean {
  const listings = new Map<string, Set<string> | undefined>();
  const listing = (dir: string): Set<string> | undefined => {
    if (!listings.has(dir)) {
      let names: Set<string> | undefined;
      try {
        names = new Set(readdirSync(dir).map((n) => n.toLowerCase()));
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        // No such directory: gone. Unreadable: unknown, so kept (an empty set would say gone).
        names = code === "ENOENT" || code === "ENOTDIR" ? new Set() : undefined;
      }
      listings.set(dir, names);
    }
    return listings.get(dir);
  };
  return (path) => listing(dirname(path))?.has(basename(path).toLowerCase()) === false;
}

/** The tests with each one that must not run turned into a failure naming why (DMAC5030/5031). */
export function claimOwners(tests: readonly GoldenTest[], indexes: IndexCache): GoldenTest[] {
  const problems = new Map<GoldenTest, Diagnostic[]>();
  // Located at the test's `/// golden:` line when it has one.
  const fail = (t: GoldenTest, make: (at: DiagnosticAt) => Diagnostic): void => {
    const at = t.config?.span && t.source ? { file: t.source, span: t.config.span } : undefined;
    problems.set(t, [...(problems.get(t) ?? []), make(at)]);
  };
  const isGone = goneCheck();
  const byBase = new Map<string, GoldenTest>();
  for (const t of tests) {
    if (!t.config) continue;
    const label = t.config.label;
    const base = goldenBase(t.file.stem, label);
    const names = `${shownPath(base)}.*.golden`;
    const other = byBase.get(base);
    if (other) {
      for (const x of [other, t])
        fail(x, (at) => diag("DMAC5030", at, [names, other.name, t.name]));
      continue;
    }
    byBase.set(base, t);
    const index = indexes.get(dirname(base));
    if ("error" in index) {
      const path = shownPath(join(dirname(base), INDEX_NAME));
      fail(t, (at) => diag("DMAC5031", at, [path, index.error]));
      continue;
    }
    const owner = ARTEFACTS.map((a) =>
      index.goldens.get(basename(goldenPath(t.file.stem, label, a.kind))),
    ).find((o) => o && (o.source !== t.file.path || o.label !== label) && !isGone(o.source));
    if (owner) fail(t, (at) => diag("DMAC5030", at, [names, ownerName(owner), t.name]));
  }
  return tests.map((t) => {
    const p = problems.get(t);
    return p ? { ...t, config: undefined, problems: [...t.problems, ...p] } : t;
  });
}

/** The owner each written golden now has, in the runs that write (and passed goldens with --update). */
function blessed(outcomes: readonly TestOutcome[], update: UpdateMode): Map<string, Owner> {
  const out = new Map<string, Owner>();
  for (const { test, goldens } of outcomes)
    for (const g of goldens) {
      const wrote = g.status === "written" || g.status === "updated";
      if (wrote || (update === "all" && g.status === "passed" && g.headerNamesTest))
        out.set(g.path, { source: test.file.path, label: test.config!.label, kind: g.kind });
    }
  return out;
}

/**
 * Brings the golden indexes up to date after a run that may write: the goldens it wrote (and
 * adopted) get their owner, those `removed` and those no longer there lose their entry. Each
 * index is read and written once (atomically, through dmac's writer).
 */
export function recordOwners(
  outcomes: readonly TestOutcome[],
  update: UpdateMode,
  removed: readonly string[] = [],
): Diagnostic[] {
  if (update === "none") return [];
  const byDir = new Map<string, Map<string, Owner | undefined>>();
  const set = (path: string, owner: Owner | undefined): void => {
    const dir = dirname(path);
    byDir.set(
      dir,
      (byDir.get(dir) ?? new Map<string, Owner | undefined>()).set(basename(path), owner),
    );
  };
  for (const path of removed) set(path, undefined);
  for (const [path, owner] of blessed(outcomes, update)) set(path, owner);
  const indexes = new IndexCache();
  const diagnostics: Diagnostic[] = [];
  for (const [dir, changes] of byDir) {
    const index = indexes.get(dir);
    if ("error" in index) {
      diagnostics.push(
        diag("DMAC5031", undefined, [shownPath(join(dir, INDEX_NAME)), index.error]),
      );
      continue;
    }
    let changed = false;
    for (const [name, owner] of changes) {
      const was = index.goldens.get(name);
      if (owner && (!was || !sameOwner(was, owner))) index.goldens.set(name, owner);
      else if (!owner && was) index.goldens.delete(name);
      else continue;
      changed = true;
    }
    diagnostics.push(...writeIndex(index, changed));
  }
  return diagnostics;
}
