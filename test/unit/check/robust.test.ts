// No input makes the front half throw: random edits of the examples (deterministic PRNG) go
// through checkSource and must come back as diagnostics, never as exceptions.

import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { checkSource } from "../../../src/check/check-source.js";
import { makeSourceFile } from "../../../src/source/source-file.js";

const EXAMPLES = new URL("../../../examples/", import.meta.url);
const sources = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith(".dmac"))
  .map((f) => readFileSync(new URL(f, EXAMPLES), "utf8"));

/** Words that keep a file parseable but change its meaning: the checker sees the edits. */
const WORDS = [
  "chunk",
  "ranks",
  "buf",
  "r",
  "p",
  "0",
  "1KiB",
  "true",
  "signal",
  "+",
  "*",
  "/",
  "%",
  "==",
  "&&",
  "!",
  "-",
];

function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) >>> 0;
    return seed / 2 ** 32;
  };
}

describe("robustness", () => {
  it("reports diagnostics instead of throwing for 400 mutated examples", () => {
    const rand = rng(42);
    let checked = 0;
    for (let i = 0; i < 400; i++) {
      const src = sources[Math.floor(rand() * sources.length)]!;
      const tokens = src.split(/(\s+)/);
      const k = Math.floor(rand() * tokens.length);
      tokens[k] = rand() < 0.2 ? "" : WORDS[Math.floor(rand() * WORDS.length)]!;
      const file = makeSourceFile(`m${i}.dmac`, tokens.join(""));
      const r = checkSource(file, { defines: {} });
      if (!r.diagnostics.some((d) => d.code.startsWith("DMAC1"))) checked++;
      for (const d of r.diagnostics) expect(d.code).toMatch(/^DMAC\d{4}$/);
    }
    // Enough mutations get past the parser for the checker to be exercised too.
    expect(checked).toBeGreaterThan(50);
  });
});
