// Every quick fix, applied, removes the error it names (issue 30 item 6: `when x => 1` was offered
// `==>`, marked preferred in the language server). A corpus of realistic mistakes, each made in a
// shipped example: every diagnostic that offers a fix is fixed alone, and the file is checked
// again. The error must be gone from where it was, and the fix must not add an error.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkSource } from "../../../src/check/check-source.js";
import type { Diagnostic } from "../../../src/diagnostics/diagnostic.js";
import { makeSourceFile } from "../../../src/source/source-file.js";

const example = (name: string): string =>
  readFileSync(new URL(`../../../examples/${name}`, import.meta.url), "utf8");

/** [mistake, example, what is written, what the mistake writes instead]. */
const MISTAKES: readonly (readonly [string, string, string, string])[] = [
  ["`cpy` for `copy`", "all_gather_pcpy.dmac", "    copy buf@r", "    cpy buf@r"],
  ["`rank` for `ranks`", "all_gather_pcpy.dmac", "for r in ranks,", "for r in rank,"],
  ["`:` in a region", "all_gather_pcpy.dmac", "-> buf@p[r * chunk +: chunk]", "-> buf@p[0:chunk]"],
  ["`byte` for `bytes`", "all_gather_pcpy.dmac", "chunk: bytes", "chunk: byte"],
  ["`size` for `bytes`", "all_gather_pcpy.dmac", "chunk: bytes", "chunk: size"],
  ["`=>` for `->`", "all_gather_pcpy.dmac", "] -> buf@p", "] => buf@p"],
  ["`=>` for `>=`", "pipelined_all_gather.dmac", ">= k + 1", "=> k + 1"],
  ["`=` for `==`", "all_gather_bcst.dmac", "% 2 == 1", "% 2 = 1"],
  [
    "a missing `,` between loop variables",
    "all_gather_pcpy.dmac",
    "for r in ranks, k in",
    "for r in ranks k in",
  ],
  ["a size unit apart from its number", "all_gather_pcpy.dmac", "= 8KiB", "= 8 KiB"],
  ["a misspelt buffer", "all_gather_pcpy.dmac", "-> buf@p", "-> bfu@p"],
  [
    "a misspelt parameter",
    "all_gather_pcpy.dmac",
    "[r * chunk +: chunk] ->",
    "[r * chnk +: chunk] ->",
  ],
  [
    "a misspelt collective",
    "all_gather_pcpy.dmac",
    "implements all_gather_inplace",
    "implements all_gather_inplce",
  ],
  ["`sdma 2` for `sdma(2)`", "all_gather_b2b.dmac", "on sdma(engine)", "on sdma engine"],
  ["`let` at file level", "all_gather_b2b.dmac", "target mi300x\n", "target mi300x\nlet k = 1\n"],
];

/** Errors whose span starts in [from, to]: where the fix wrote, or just after it. */
const errorsIn = (ds: readonly Diagnostic[], from: number, to: number): Diagnostic[] =>
  ds.filter(
    (d) =>
      d.severity === "error" && d.span !== undefined && d.span.start >= from && d.span.start <= to,
  );

function check(text: string): Diagnostic[] {
  return checkSource(makeSourceFile("m.dmac", text), { defines: {} }).diagnostics;
}

describe("every quick fix removes the error it names", () => {
  let fixes = 0;
  for (const [mistake, name, good, bad] of MISTAKES) {
    it(mistake, () => {
      const original = example(name);
      expect(original).toContain(good);
      const text = original.replace(good, bad);
      const before = check(text);
      for (const d of before.filter((x) => x.fix !== undefined && x.severity === "error")) {
        const f = d.fix!;
        const fixed = text.slice(0, f.span.start) + f.replacement + text.slice(f.span.end);
        const after = check(fixed);
        const errors = (ds: readonly Diagnostic[]) => ds.filter((x) => x.severity === "error");
        const wrote = errorsIn(after, f.span.start, f.span.start + f.replacement.length);
        expect(
          wrote.map((x) => `${x.code} ${x.message}`),
          `${d.code} ${d.message}`,
        ).toEqual([]);
        expect(errors(after).length).toBeLessThan(errors(before).length);
        fixes++;
      }
    });
  }
  it("the corpus exercises fixes", () => expect(fixes).toBeGreaterThan(8));
});
