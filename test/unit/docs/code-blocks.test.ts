// Every fenced code block of dmac source in README.md and docs/**/*.md is checked with dmac, by
// the convention docs/language.md states ("Code blocks in this documentation"):
//   ```dmac                   a whole .dmac file: `dmac check` accepts it with no diagnostic;
//   ```dmac-error CODE ...    a whole file that is wrong on purpose: `dmac check` exits 1 and
//                             reports every CODE named;
//   ```dmac-fragment          an excerpt or a syntax pattern: not checked alone.
// Any other block (no label, sh, text, json, ...) must not be a .dmac file: a block that parses
// with no error and declares a schedule is a forgotten label, and fails here.
// (Issue 11 item 8: the "longer example" of docs/language.md failed `dmac check`.)

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parseSource } from "../../../src/frontend/parse.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { runCli } from "../../helpers/cli.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));

export interface CodeBlock {
  /** Path relative to the repository root, and the 1-based line of the opening fence. */
  readonly doc: string;
  readonly line: number;
  /** The info string's first word ("" when unlabelled) and the words after it. */
  readonly label: string;
  readonly args: readonly string[];
  readonly text: string;
}

/** The fenced blocks (``` or ~~~, three or more, optionally indented) of a Markdown text. */
export function fencedBlocks(doc: string, markdown: string): CodeBlock[] {
  const lines = markdown.split(/\r\n|\r|\n/);
  const blocks: CodeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const fence = open[1]!;
    const [label = "", ...args] = open[2]!.trim().split(/\s+/).filter(Boolean);
    const close = new RegExp(`^ {0,3}${fence[0]}{${fence.length},}\\s*$`);
    let j = i + 1;
    while (j < lines.length && !close.test(lines[j]!)) j++;
    blocks.push({ doc, line: i + 1, label, args, text: lines.slice(i + 1, j).join("\n") + "\n" });
    i = j;
  }
  return blocks;
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? markdownFiles(join(dir, e.name))
      : e.name.endsWith(".md")
        ? [join(dir, e.name)]
        : [],
  );
}

const DOCS = [join(ROOT, "README.md"), ...markdownFiles(join(ROOT, "docs"))];
const BLOCKS = DOCS.flatMap((p) => fencedBlocks(relative(ROOT, p), readFileSync(p, "utf8")));
const name = (b: CodeBlock): string => `${b.doc}:${b.line}`;
const DMAC_LABELS = ["dmac", "dmac-error", "dmac-fragment"];

/** Whether `text` is a .dmac file: it parses with no error and declares a schedule. */
function isDmacFile(text: string): boolean {
  const r = parseSource(makeSourceFile("block.dmac", text));
  return (
    !r.diagnostics.some((d) => d.severity === "error") &&
    r.program.items.some((i) => i.kind === "schedule")
  );
}

const scratch = mkdtempSync(join(tmpdir(), "dmac-doc-blocks-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface JsonDiagnostic {
  readonly code: string;
  readonly severity: string;
  readonly message: string;
}

/** `dmac check` of the block, saved as a file of its own: exit code and diagnostics. */
async function check(b: CodeBlock): Promise<{ code: number; diagnostics: JsonDiagnostic[] }> {
  const path = join(scratch, `${b.doc.replace(/[/\\]/g, "_")}-${b.line}.dmac`);
  writeFileSync(path, b.text);
  const r = await runCli(["check", path, "--format", "json"]);
  const doc = JSON.parse(r.out) as { diagnostics: JsonDiagnostic[] };
  return { code: r.code, diagnostics: doc.diagnostics };
}

describe("code blocks in README.md and docs/", () => {
  it("finds the documentation's dmac programs (the extraction itself works)", () => {
    const dmac = BLOCKS.filter((b) => b.label === "dmac").map(name);
    expect(dmac).toContain("README.md:8");
    expect(dmac.filter((n) => n.startsWith("docs/language.md")).length).toBeGreaterThanOrEqual(2);
    expect(BLOCKS.some((b) => b.label === "dmac-error")).toBe(true);
    expect(BLOCKS.some((b) => b.label === "dmac-fragment")).toBe(true);
  });

  for (const b of BLOCKS.filter((x) => x.label === "dmac")) {
    it(`${name(b)}: dmac check accepts it with no diagnostic`, async () => {
      const r = await check(b);
      expect(r.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([]);
      expect(r.code).toBe(0);
    });
  }

  for (const b of BLOCKS.filter((x) => x.label === "dmac-error")) {
    it(`${name(b)}: dmac check rejects it with ${b.args.join(", ")}`, async () => {
      expect(b.args.length, "name the expected codes after dmac-error").toBeGreaterThan(0);
      for (const code of b.args) expect(code).toMatch(/^DMAC\d{4}$/);
      const r = await check(b);
      expect(r.code).toBe(1);
      const codes = new Set(r.diagnostics.filter((d) => d.severity === "error").map((d) => d.code));
      for (const code of b.args) expect([...codes]).toContain(code);
      // Nothing else is wrong with it: every error is one the label announces.
      expect([...codes].filter((c) => !b.args.includes(c))).toEqual([]);
    });
  }

  it("every other block is not a .dmac file (a forgotten ```dmac label fails here)", () => {
    const unlabelled = BLOCKS.filter((b) => !DMAC_LABELS.includes(b.label) && isDmacFile(b.text));
    expect(unlabelled.map(name), "label these blocks ```dmac (or ```dmac-fragment)").toEqual([]);
    // The detector itself: it would catch the README's example without its label, and it lets
    // shell commands, listings and JSON through.
    const md = "text\n\n```\n" + BLOCKS.find((b) => name(b) === "README.md:8")!.text + "```\n";
    const [forgot] = fencedBlocks("x.md", md);
    expect(forgot?.label).toBe("");
    expect(isDmacFile(forgot!.text)).toBe(true);
    expect(isDmacFile("npx dmac check examples/*.dmac\n")).toBe(false);
    expect(isDmacFile('{ "version": 1 }\n')).toBe(false);
  });

  it("labels are only the three dmac kinds or a non-dmac language", () => {
    const odd = BLOCKS.filter((b) => b.label.startsWith("dmac") && !DMAC_LABELS.includes(b.label));
    expect(odd.map((b) => `${name(b)} ${b.label}`)).toEqual([]);
  });
});
