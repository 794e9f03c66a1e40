// The formatter over every .dmac file of the repository that parses (examples, benchmarks, docs,
// test inputs): formatting is idempotent, keeps the meaning (AST and IR, meaning.ts) and keeps
// every comment in order.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { formatDmac } from "../../../src/fmt/format.js";
import { comments, dmacFiles, meaning } from "./meaning.js";

const files = ["examples", "bench", "docs", "test"].flatMap((d) => dmacFiles(d));

describe("dmac fmt over the repository's .dmac files", () => {
  it("finds the corpus", () => {
    expect(files.length).toBeGreaterThan(90);
  });

  it.each(files)("%s", async (path) => {
    const text = readFileSync(path, "utf8");
    const once = await formatDmac(text, path);
    if (!once.ok) return; // a negative test input: nothing to format
    const twice = await formatDmac(once.text, path);
    expect(twice).toEqual(once);
    expect(meaning(once.text)).toBe(meaning(text));
    expect(comments(once.text)).toEqual(comments(text));
  });

  it("leaves every example as it is (the style is the examples')", async () => {
    for (const path of dmacFiles("examples")) {
      const text = readFileSync(path, "utf8");
      expect(await formatDmac(text, path)).toEqual({ ok: true, text });
    }
  });
});
