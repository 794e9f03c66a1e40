// `dmac/testing`: golden-file tests of schedules inside a project's own vitest run.
//
//   import { goldenSuite } from "dmac/testing";
//   await goldenSuite("golden");                 // every .dmac below ./golden
//
// registers one vitest test per configuration (each `/// golden:` line of each file, named
// `FILE [LABEL]`) and one that no golden is unused. It runs the workflow of `dmac golden`
// (src/golden) and honours vitest's snapshot update flag: `vitest -u` writes new and changed
// goldens and removes those whose test is gone (golden/obsolete.ts); vitest's default outside CI
// writes only new ones; in CI (`CI` set) nothing is written and a missing golden fails. What a
// suite wrote is recorded in the golden indexes (golden/owners.ts) once, after its tests. vitest is imported when goldenSuite
// is called, so loading dmac (or this module) never loads it: it is the caller's peer.

import { fileURLToPath } from "node:url";
import { parseConfigArgs } from "./golden/config-options.js";
import { checkConfigOptions } from "./golden/config.js";
import { renderDiagnostics } from "./diagnostics/render.js";
import { obsoleteLine, testReport } from "./golden/report.js";
import { planGolden, runTest, type TestOutcome, type UpdateMode } from "./golden/run.js";
import { findObsolete, removeObsolete } from "./golden/obsolete.js";
import { recordOwners } from "./golden/owners.js";

export interface GoldenSuiteOptions {
  /**
   * Options for every configuration, as on `dmac golden`'s command line (a file's own
   * `/// golden:` lines win): `["--emit", "dump,ir", "-O2"]`.
   */
  readonly args?: readonly string[] | undefined;
  /** Keep goldens in this directory, mirroring each test's path from the working directory. */
  readonly goldenDir?: string | URL | undefined;
  /** Register only the tests whose name contains this text. */
  readonly filter?: string | undefined;
  /** The name of the describe block (default "golden"). */
  readonly name?: string | undefined;
}

const path = (p: string | URL): string => (p instanceof URL ? fileURLToPath(p) : p);

/** vitest's snapshot update state as the golden runner's update mode. */
function updateMode(state: string | undefined): UpdateMode {
  return state === "all" ? "all" : state === "new" ? "new" : "none";
}

/**
 * Registers the golden tests of `inputs` (.dmac files, directories, globs; paths relative to the
 * working directory, or URLs) in a describe block. Await it at the top of a test file.
 */
export async function goldenSuite(
  inputs: string | URL | readonly (string | URL)[],
  options: GoldenSuiteOptions = {},
): Promise<void> {
  const { afterAll, describe, expect, it } = await import("vitest");
  const parsed = parseConfigArgs(options.args ?? []);
  if ("error" in parsed) throw new Error(`goldenSuite: bad args: ${parsed.error}`);
  const bad = checkConfigOptions(parsed.options);
  if (bad.length > 0) throw new Error(`goldenSuite: ${bad[0]!.message}`);
  const list = (Array.isArray(inputs) ? inputs : [inputs]) as readonly (string | URL)[];
  const plan = await planGolden({
    inputs: list.map(path),
    options: parsed.options,
    filter: options.filter,
    goldenDir: options.goldenDir === undefined ? undefined : path(options.goldenDir),
  });
  const mode = (): UpdateMode =>
    updateMode(
      (expect.getState().snapshotState as { snapshotUpdateState?: string } | undefined)
        ?.snapshotUpdateState,
    );
  describe(options.name ?? "golden", () => {
    // Recorded in the golden indexes once, after the tests (each index read and written once).
    const outcomes: TestOutcome[] = [];
    let update: UpdateMode = "none";
    afterAll(() => {
      const problems = recordOwners(outcomes, update);
      if (problems.length > 0)
        throw new Error(renderDiagnostics(problems, "concise", { color: false }));
    });
    if (plan.diagnostics.length > 0)
      it("inputs", () => {
        throw new Error(renderDiagnostics(plan.diagnostics, "concise", { color: false }));
      });
    for (const t of plan.selected) {
      it(t.name, () => {
        update = mode();
        const outcome = runTest(t, update);
        outcomes.push(outcome);
        if (outcome.failed)
          throw new Error(
            `${testReport(outcome, false)}(if the change is intended, re-bless with vitest -u)`,
          );
      });
    }
    it("has no obsolete goldens", () => {
      const stale = findObsolete(plan, options.filter);
      if (stale.length === 0) return;
      const all = mode() === "all";
      const obsolete = removeObsolete(stale, mode());
      const removed = obsolete.filter((o) => o.removed).map((o) => o.path);
      const problems = [
        ...obsolete.flatMap((o) => o.diagnostics ?? []),
        ...recordOwners([], mode(), removed),
      ];
      const left = obsolete.filter((o) => !o.removed);
      if (left.length === 0 && problems.length === 0) return;
      throw new Error(
        `goldens no test uses (${all ? "" : "vitest -u removes those whose test is gone; "}the others stay until you delete them):\n` +
          left.map((o) => `  ${obsoleteLine(o)}`).join("") +
          renderDiagnostics(problems, "concise", { color: false }),
      );
    });
  });
}
