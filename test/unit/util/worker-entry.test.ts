// Every worker thread starts from a compiled entry module (src/util/worker-entry.ts), never from
// source text: each entry is a source file, built into dist/ and bundled beside the CLI's bundle
// (scripts/bundle.mjs), and found from the sources, from dist/ and from the bundle alike.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { WORKER_ENTRIES, workerEntry } from "../../../src/util/worker-entry.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const url = (path: string): string => pathToFileURL(join(ROOT, path)).href;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sourceFiles(join(dir, e.name))
      : e.name.endsWith(".ts")
        ? [join(dir, e.name)]
        : [],
  );
}

describe("worker entry modules", () => {
  it("no worker is started from source text", () => {
    const evaluated = sourceFiles(join(ROOT, "src")).filter((f) =>
      /\beval:\s*true\b/.test(readFileSync(f, "utf8")),
    );
    expect(evaluated).toEqual([]);
  });

  // The project's rule "no code in strings" reaches past workers: nothing in src/ compiles source
  // text at run time (the packet table's readers and writers are closures over its fields).
  it("no source text is compiled anywhere in src/", () => {
    const compiling = sourceFiles(join(ROOT, "src")).filter((f) =>
      /\bnew\s+Function\b|(?<![.\w])eval\s*\(/.test(readFileSync(f, "utf8")),
    );
    expect(compiling).toEqual([]);
  });

  it.each(WORKER_ENTRIES)("%s: a source file, built into dist/ and the bundle", (entry) => {
    const name = basename(entry) as Parameters<typeof workerEntry>[1];
    expect(existsSync(join(ROOT, "src", `${entry}.ts`))).toBe(true);
    // Built (the CLI tests need the build anyway): found from the sources, dist/ and the bundle.
    expect(workerEntry(url(`src/${entry}.ts`), name)?.href).toBe(url(`dist/${entry}.js`));
    expect(workerEntry(url(`dist/${entry}.js`), name)?.href).toBe(url(`dist/${entry}.js`));
    expect(workerEntry(url("dist/bundle/dmac.cjs"), name)?.href).toBe(
      url(`dist/bundle/${name}.js`),
    );
  });

  it("none where nothing was built", () => {
    expect(workerEntry(url("nowhere/x.ts"), "write-behind-worker")).toBeUndefined();
  });
});
