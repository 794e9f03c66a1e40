// The examples of docs/api.md run as written: each ```js block is a module importing "dmac",
// run here against the sources (src/index.ts) from the repository root. A block that throws
// fails; the blocks check their own results (they throw when a compile or a run fails).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it, vi } from "vitest";

const DOC = fileURLToPath(new URL("../../../docs/api.md", import.meta.url));
const INDEX = fileURLToPath(new URL("../../../src/index.ts", import.meta.url));
/** The ```js blocks of the page: their first line and text. */
function jsBlocks(markdown: string): { line: number; text: string }[] {
  const lines = markdown.split("\n");
  const out: { line: number; text: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== "```js") continue;
    let j = i + 1;
    while (j < lines.length && lines[j]!.trim() !== "```") j++;
    out.push({ line: i + 1, text: lines.slice(i + 1, j).join("\n") + "\n" });
    i = j;
  }
  return out;
}

const blocks = jsBlocks(readFileSync(DOC, "utf8"));
const scratch = mkdtempSync(join(tmpdir(), "dmac-api-docs-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("docs/api.md examples", () => {
  it("has examples", () => expect(blocks.length).toBeGreaterThanOrEqual(4));
  for (const b of blocks)
    it(`docs/api.md:${b.line}`, async () => {
      expect(b.text).toMatch(/from "dmac"/);
      const file = join(scratch, `block-${b.line}.ts`);
      writeFileSync(file, b.text.replaceAll('from "dmac"', `from ${JSON.stringify(INDEX)}`));
      const log = vi.spyOn(console, "log").mockImplementation(() => {});
      try {
        await import(file);
        expect(log).toHaveBeenCalled();
        // Where the page says what a line prints (`// true "holds"`), it does.
        for (const [, want] of b.text.matchAll(/console\.log\(.*\); \/\/ (true|false)\b/g))
          expect(log.mock.calls.some((c) => String(c[0]) === want)).toBe(true);
      } finally {
        log.mockRestore();
      }
    });
});
