// The folders of src/ in their layer order (docs/architecture.md, "Layers"): a module imports
// from its own layer or below, never above. An import that runs upward fails, unless it is
// listed in KNOWN_UPWARD with its reason (the list is empty); an entry that no longer exists
// fails too, so the list only shrinks.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../../src", import.meta.url));

/** Lowest first; the folders (or top-level files) of one entry are one layer. */
export const LAYERS: readonly (readonly string[])[] = [
  ["util", "source", "version", "plot"],
  ["diagnostics", "schemas"],
  ["target"],
  ["frontend"],
  ["check"],
  ["ir"],
  ["queues"],
  ["passes"],
  ["backend"],
  ["sim", "forensics"],
  ["options"],
  ["driver"],
  ["api", "calibrate", "golden", "fmt", "lsp"],
  ["cli"],
  ["index", "testing"],
];

/** Imports that run against the order: "from-file -> to-file", relative to src/. None today. */
const KNOWN_UPWARD: readonly string[] = [];

/** The layer a src/-relative file belongs to (-1: none). */
function layerOf(file: string): number {
  const parts = file.replace(/\.ts$/, "").split("/");
  const keys = parts.length > 2 ? [`${parts[0]}/${parts[1]}`, parts[0]!] : [parts[0]!];
  for (const key of keys) {
    const i = LAYERS.findIndex((l) => l.includes(key));
    if (i >= 0) return i;
  }
  return -1;
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Every relative import of every src/ file, as src/-relative "from -> to" pairs. */
function imports(): { from: string; to: string }[] {
  return sources(SRC).flatMap((path) => {
    const from = relative(SRC, path);
    const text = readFileSync(path, "utf8");
    return [...text.matchAll(/\bfrom\s+["'](\.{1,2}\/[^"']+)["']/g)].map((m) => ({
      from,
      to: relative(SRC, normalize(join(dirname(path), m[1]!.replace(/\.js$/, ".ts")))),
    }));
  });
}

describe("layering", () => {
  const all = imports();

  it("names the layer of every source file", () => {
    const files = sources(SRC).map((p) => relative(SRC, p));
    expect(files.filter((f) => layerOf(f) < 0)).toEqual([]);
  });

  it("no import runs upward but the known ones", () => {
    const upward = all
      .filter((i) => layerOf(i.to) > layerOf(i.from))
      .map((i) => `${i.from} -> ${i.to}`);
    expect(upward.filter((u) => !KNOWN_UPWARD.includes(u))).toEqual([]);
    // A known one that is gone comes off the list.
    expect(KNOWN_UPWARD.filter((k) => !upward.includes(k))).toEqual([]);
  });
});
