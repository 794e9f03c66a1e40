// Golden tests: every test/golden/cases/<area>/<name>.dmac is run through the pipeline and each
// artifact it asks for is compared with test/golden/expected/<area>/<name>.<ext>.
//
//   Re-bless after an intended change:  npx vitest run test/golden.test.ts -u
//
// A case configures itself with header directives (comment lines at the top of the file):
//   // @emit: diag[, ...]        artifacts to produce (default: diag); see ARTIFACTS
//   // @define: chunk=1MiB      a -D override (repeatable)
//   // @schedule: NAME          --schedule
//   // @max-nesting: N          parser limit (to reach DMAC1013 with a small file)
//   // @max-source-bytes: N     parser limit (to reach DMAC1012 with a small file)
// Artifact kinds (rows of ARTIFACTS): diag (every diagnostic of `dmac check`), ir (`dmac ir
// --dump-deps`), dump (the dump.txt of `dmac compile`, produced by the same function `dmac golden`
// uses) and trace (trace.json).
//
// The bundled examples/*.dmac are tested through dmac/testing (goldenSuite, the way users run
// their goldens in vitest), each with every artefact: their goldens are
// test/golden/expected/examples/<name>.<kind>.golden (docs/golden.md).

import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { outputText } from "../src/backend/output.js";
import { checkSource, type CheckSourceOptions } from "../src/check/check-source.js";
import { selectSchedule } from "../src/check/select-schedule.js";
import { compileFileToOutputs } from "../src/cli/commands/compile.js";
import { printIr } from "../src/ir/print.js";
import { analyzeSchedule, analyzeSource } from "../src/driver/analyze.js";
import { renderDiagnostics } from "../src/diagnostics/render.js";
import { makeSourceFile, type SourceFile } from "../src/source/source-file.js";
import { goldenSuite } from "../src/testing.js";

const GOLDEN = join(dirname(fileURLToPath(import.meta.url)), "golden");
const CASES = join(GOLDEN, "cases");
const EXPECTED = join(GOLDEN, "expected");
const EXAMPLES = join(GOLDEN, "..", "..", "examples");
/** The area of goldenSuite's goldens (it reports their obsolete ones itself). */
const EXAMPLES_AREA = "examples";

export interface GoldenCase {
  readonly area: string;
  readonly name: string;
  /** Absolute path of the .dmac file. */
  readonly path: string;
  /** The source as diagnostics show it: `<area>/<name>.dmac` (no machine-specific paths). */
  readonly file: SourceFile;
  readonly directives: ReadonlyMap<string, readonly string[]>;
}

interface Artifact {
  readonly kind: string;
  /** Extension of the expected file: test/golden/expected/<area>/<name>.<ext>. */
  readonly ext: string;
  readonly produce: (c: GoldenCase) => string;
}

const DIRECTIVES = ["emit", "define", "schedule", "max-nesting", "max-source-bytes"] as const;

function intDirective(c: GoldenCase, key: string): number | undefined {
  const v = c.directives.get(key)?.[0];
  return v === undefined ? undefined : Number(v);
}

/** The options the CLI would build from the case's directives. */
export function caseOptions(c: GoldenCase): CheckSourceOptions {
  const defines: Record<string, string> = {};
  for (const d of c.directives.get("define") ?? []) {
    const eq = d.indexOf("=");
    defines[eq < 0 ? d : d.slice(0, eq)] = eq < 0 ? "" : d.slice(eq + 1);
  }
  return {
    defines,
    schedule: c.directives.get("schedule")?.[0],
    baseDir: dirname(c.path),
    maxNesting: intDirective(c, "max-nesting"),
    maxSourceBytes: intDirective(c, "max-source-bytes"),
  };
}

/** Like TypeScript's .errors.txt: the concise list first, then every diagnostic in full. */
function produceDiag(c: GoldenCase): string {
  const { diagnostics } = analyzeSource(c.file, caseOptions(c));
  if (diagnostics.length === 0) return "(no diagnostics)\n";
  return (
    renderDiagnostics(diagnostics, "concise", { color: false }) +
    "\n" +
    renderDiagnostics(diagnostics, "full", { color: false })
  );
}

/** The IR with its dependency edges, or the diagnostics when the schedule does not analyse. */
function produceIr(c: GoldenCase): string {
  const opts = caseOptions(c);
  const checked = checkSource(c.file, opts);
  const selected = selectSchedule(checked.schedules, opts.schedule);
  const analyzed = selected.schedule ? analyzeSchedule(selected.schedule) : undefined;
  if (!analyzed?.module) {
    const diags = [
      ...checked.diagnostics,
      ...selected.diagnostics,
      ...(analyzed?.diagnostics ?? []),
    ];
    return "(does not analyse)\n" + renderDiagnostics(diags, "concise", { color: false });
  }
  return printIr(analyzed.module, { deps: true });
}

/** One output file of `dmac compile --emit sdma,dump,trace`, built as `dmac golden` builds it. */
function compiledFile(c: GoldenCase, name: string): string {
  // A path relative to the repository (the working directory of the test run), so diagnostics in
  // the golden do not depend on where the checkout lives.
  const result = compileFileToOutputs(relative(process.cwd(), c.path), {
    define: [...(c.directives.get("define") ?? [])],
    schedule: c.directives.get("schedule")?.[0],
    emit: "sdma,dump,trace",
  });
  const f = result.files?.find((x) => x.name === name);
  if (!f) {
    return (
      "(does not compile)\n" + renderDiagnostics(result.diagnostics, "concise", { color: false })
    );
  }
  return outputText(f);
}

export const ARTIFACTS: readonly Artifact[] = [
  { kind: "diag", ext: "diag.txt", produce: produceDiag },
  { kind: "ir", ext: "ir.txt", produce: produceIr },
  { kind: "dump", ext: "dump.txt", produce: (c) => compiledFile(c, "dump.txt") },
  { kind: "trace", ext: "trace.json", produce: (c) => compiledFile(c, "trace.json") },
];

function parseDirectives(text: string, where: string): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (t === "") continue;
    if (!t.startsWith("//")) break; // directives live in the header only
    const m = /^\/\/\s*@([\w-]+)\s*:\s*(.*)$/.exec(t);
    if (!m) continue;
    const key = m[1]!;
    if (!(DIRECTIVES as readonly string[]).includes(key))
      throw new Error(`${where}: unknown directive @${key}`);
    const values = key === "emit" ? m[2]!.split(",").map((s) => s.trim()) : [m[2]!.trim()];
    directives.set(key, [...(directives.get(key) ?? []), ...values]);
  }
  return directives;
}

export function discoverCases(): GoldenCase[] {
  const cases: GoldenCase[] = [];
  if (!existsSync(CASES)) return cases;
  for (const area of readdirSync(CASES).sort()) {
    for (const f of readdirSync(join(CASES, area)).sort()) {
      if (!f.endsWith(".dmac")) continue;
      const path = join(CASES, area, f);
      const text = readFileSync(path, "utf8");
      const shown = `${area}/${f}`;
      cases.push({
        area,
        name: f.slice(0, -".dmac".length),
        path,
        file: makeSourceFile(shown, text),
        directives: parseDirectives(text, shown),
      });
    }
  }
  return cases;
}

const cases = discoverCases();

describe("golden", () => {
  for (const c of cases) {
    it(`${c.area}/${c.name}`, async () => {
      const kinds = c.directives.get("emit") ?? ["diag"];
      for (const kind of kinds) {
        const artifact = ARTIFACTS.find((a) => a.kind === kind);
        if (!artifact) throw new Error(`${c.area}/${c.name}: unknown @emit kind '${kind}'`);
        const expectedPath = join(EXPECTED, c.area, `${c.name}.${artifact.ext}`);
        await expect(
          artifact.produce(c),
          `${kind} of ${c.area}/${c.name} differs; if intended, re-bless: npx vitest run test/golden.test.ts -u`,
        ).toMatchFileSnapshot(expectedPath);
      }
    });
  }

  it("has no stale expected files", () => {
    const wanted = new Set<string>();
    for (const c of cases) {
      for (const kind of c.directives.get("emit") ?? ["diag"]) {
        const a = ARTIFACTS.find((x) => x.kind === kind);
        if (a) wanted.add(`${c.area}/${c.name}.${a.ext}`);
      }
    }
    const stale: string[] = [];
    if (existsSync(EXPECTED)) {
      for (const area of readdirSync(EXPECTED)) {
        if (area === EXAMPLES_AREA) continue;
        for (const f of readdirSync(join(EXPECTED, area))) {
          if (!wanted.has(`${area}/${f}`)) stale.push(`${area}/${f}`);
        }
      }
    }
    expect(stale, "expected files without a case (delete them)").toEqual([]);
  });
});

// The goldens mirror the examples' path from the repository (the working directory of the run):
// test/golden/expected/examples/.
await goldenSuite(EXAMPLES, {
  name: "golden examples",
  args: ["--emit", "diag,ir,dump,trace,sim"],
  goldenDir: EXPECTED,
});
