// What each command imports at start-up, read from the sources: the static import graph (every
// `import`/`export ... from` that is not `import type`; with verbatimModuleSyntax even
// `import { type X }` stays a runtime import). Dynamic import() is how COMMANDS defers a
// command's module, so it is not followed. `dmac check` and `dmac --version` must stay cheap
// (docs/performance.md, "Where the time goes").
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../../src/", import.meta.url));
const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(type\s+)?(?:[^;'"]*?\sfrom\s+)?"([^"]+)"/g;

/** The src/ files (relative, .ts) that `entry` loads, itself included. */
function staticGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(join(SRC, file), "utf8");
    for (const m of text.matchAll(IMPORT)) {
      const [, type, spec] = m;
      if (type || !spec!.startsWith(".")) continue;
      visit(relative(SRC, resolve(SRC, dirname(file), spec!.replace(/\.js$/, ".ts"))));
    }
  };
  visit(entry);
  return seen;
}

/** The phases after verification, and the tools built on them. */
const BACK_HALF = ["queues/", "passes/", "backend/", "sim/", "calibrate/"];

describe("start-up imports", () => {
  it("dmac check loads the front half and compile's legality checks, no passes, emitters or executor", () => {
    const graph = [...staticGraph("cli/commands/check.ts")];
    expect(graph).toContain("driver/analyze.ts");
    // The target's legality checks and the -O0 lowering they run (backend/target-legality.ts).
    expect(graph.filter((f) => BACK_HALF.some((d) => f.startsWith(d))).sort()).toEqual([
      "backend/cuda/expect.ts",
      "backend/cuda/program.ts",
      "backend/part-check.ts",
      "backend/sdma/layout.ts",
      "backend/target-legality.ts",
      "queues/lower.ts",
      "queues/queue-program.ts",
      "queues/readable.ts",
      "queues/sync-forms.ts",
    ]);
  });

  it("dmac --version loads no command and no compiler phase", () => {
    const graph = [...staticGraph("cli/main.ts")].sort();
    expect(graph).toEqual([
      "cli/commands/index.ts",
      "cli/io.ts",
      "cli/main.ts",
      "options/commander.ts",
      "util/files-read.ts", // (main starts each command with an empty record of files read)
      "version.ts",
    ]);
  });

  it("the graph reader sees imports that span lines and skips type-only ones", () => {
    const graph = staticGraph("cli/commands/compile.ts");
    expect(graph).toContain("driver/compile.ts"); // a multi-line import
    expect(graph).toContain("cli/options.ts");
  });
});
