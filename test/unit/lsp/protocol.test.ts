// The language server over the LSP protocol, in-process (lsp-client.ts): diagnostics as the CLI
// reports them, hover, definition, document symbols, completion and quick fixes.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type {
  CodeAction,
  CompletionItem,
  Diagnostic,
  DocumentSymbol,
  Hover,
  Location,
} from "vscode-languageserver";
import { runCli, example } from "../../helpers/cli.js";
import { startTestClient, type TestClient } from "./lsp-client.js";
import { formatDmac } from "../../../src/fmt/format.js";

const THREE_ERRORS = `schedule s() {
  buffer buf: 4KiB
  copy bfu@0 -> buf@1
  copy buf@0 -> bux@1
  fill buf@0 with yes
}
`;

const ALL_GATHER = readFileSync(example("all_gather_pcpy.dmac"), "utf8");

let client: TestClient;
beforeAll(async () => {
  client = await startTestClient();
});
afterAll(() => client.close());

/** The 0-based position of the `nth` occurrence of `needle` in `text`, plus `delta` columns. */
function positionOf(text: string, needle: string, nth = 0, delta = 0) {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf(needle, at + 1);
  expect(at, needle).toBeGreaterThanOrEqual(0);
  const before = text.slice(0, at);
  const line = before.split("\n").length - 1;
  return { line, character: at - (before.lastIndexOf("\n") + 1) + delta };
}

/** A diagnostic's first line: the CLI's message (the server adds the hint and the code's page). */
function firstLine(d: Diagnostic): string {
  return (typeof d.message === "string" ? d.message : d.message.value).split("\n")[0]!;
}

function request<T>(method: string, uri: string, extra: object): Promise<T> {
  return client.connection.sendRequest(method, { textDocument: { uri }, ...extra });
}

describe("diagnostics", () => {
  it("publishes one diagnostic per CLI error, with the CLI's spans", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dmac-lsp-"));
    const path = join(dir, "three.dmac");
    writeFileSync(path, THREE_ERRORS);
    const uri = pathToFileURL(path).href;
    client.open(uri, THREE_ERRORS);
    const published = await client.diagnostics(uri, 1);

    const cli = await runCli(["check", path, "--format", "json"]);
    expect(cli.code).toBe(1);
    const json = JSON.parse(cli.out + cli.err.slice(cli.err.indexOf("{"))) as {
      diagnostics: { code: string; message: string; span: Record<string, number> }[];
    };
    expect(json.diagnostics).toHaveLength(3);
    expect(published.diagnostics).toHaveLength(3);
    published.diagnostics.forEach((d, i) => {
      const c = json.diagnostics[i]!;
      expect(d.code).toBe(c.code);
      expect(firstLine(d)).toBe(c.message);
      expect(d.range).toEqual({
        start: { line: c.span["line"]! - 1, character: c.span["column"]! - 1 },
        end: { line: c.span["endLine"]! - 1, character: c.span["endColumn"]! - 1 },
      });
      expect(d.codeDescription?.href).toMatch(/docs\/diagnostics\.md#dmac2001-/);
      expect(d.message).toMatch(`dmac explain ${c.code}`);
    });
  });

  it("re-checks after an incremental change and clears fixed errors", async () => {
    const uri = "file:///virtual/edit.dmac";
    client.open(uri, THREE_ERRORS);
    expect((await client.diagnostics(uri, 1)).diagnostics).toHaveLength(3);
    const fix = (v: number, range: object, text: string) =>
      client.connection.sendNotification("textDocument/didChange", {
        textDocument: { uri, version: v },
        contentChanges: [{ range, text }],
      });
    await fix(
      2,
      { start: positionOf(THREE_ERRORS, "bfu"), end: positionOf(THREE_ERRORS, "bfu", 0, 3) },
      "buf",
    );
    const after = await client.diagnostics(uri, 2);
    expect(after.diagnostics.map(firstLine)).toEqual([
      "cannot find 'bux' in this scope",
      "cannot find 'yes' in this scope",
    ]);
  });

  it("carries related information", async () => {
    const uri = "file:///virtual/dup.dmac";
    client.open(uri, "schedule s() {\n  buffer a: 4KiB\n  buffer a: 8KiB\n  fill a@0 with 1\n}\n");
    const [d] = (await client.diagnostics(uri, 1)).diagnostics as [Diagnostic];
    expect(d.code).toBe("DMAC2002");
    expect(d.relatedInformation?.[0]?.location).toEqual({
      uri,
      range: { start: { line: 1, character: 9 }, end: { line: 1, character: 10 } },
    });
  });

  it("survives input that is not dmac at all", async () => {
    const uri = "file:///virtual/garbage.dmac";
    client.open(uri, "\u0000\u0001 }}}} schedule ((( @@@ \uffff".repeat(50));
    const published = await client.diagnostics(uri, 1);
    expect(published.diagnostics.length).toBeGreaterThan(0);
    const hover = await request<Hover | null>("textDocument/hover", uri, {
      position: { line: 0, character: 20 },
    });
    expect(hover).toBeNull();
  });
});

describe("navigation", () => {
  const uri = "file:///virtual/all_gather_pcpy.dmac";
  beforeAll(async () => {
    client.open(uri, ALL_GATHER);
    expect((await client.diagnostics(uri, 1)).diagnostics).toEqual([]);
  });

  it("hover on a buffer shows its size", async () => {
    const hover = await request<Hover>("textDocument/hover", uri, {
      position: positionOf(ALL_GATHER, "buffer buf", 0, 8),
    });
    const text = (hover.contents as { value: string }).value;
    expect(text).toContain("buffer of 65536 bytes (64 KiB) on every rank");
  });

  it("hover on a parameter shows its type and default value", async () => {
    const hover = await request<Hover>("textDocument/hover", uri, {
      position: positionOf(ALL_GATHER, "chunk", 2),
    });
    const text = (hover.contents as { value: string }).value;
    expect(text).toContain("parameter chunk: bytes");
    expect(text).toContain("= 8192 bytes (8 KiB) (default)");
  });

  it("hover on a region lists its byte ranges at the default parameters", async () => {
    const hover = await request<Hover>("textDocument/hover", uri, {
      position: positionOf(ALL_GATHER, "@r[", 0, 0),
    });
    const text = (hover.contents as { value: string }).value;
    expect(text).toContain("8 byte ranges at the default parameters");
    expect(text).toContain("`buf@0[0 .. 8192]` (8192 bytes)");
  });

  it("hover on a copy shows how many ops it makes and their engines", async () => {
    const hover = await request<Hover>("textDocument/hover", uri, {
      position: positionOf(ALL_GATHER, "copy buf", 0, 1),
    });
    const text = (hover.contents as { value: string }).value;
    expect(text).toContain("`copy` instantiates to 56 copy ops");
    expect(text).toMatch(/GPU 0 sdma \d+ \(recommended for GPU 0 -> GPU 1\): 1 op/);
  });

  it("hover on ranks shows the target's GPU count", async () => {
    const hover = await request<Hover>("textDocument/hover", uri, {
      position: positionOf(ALL_GATHER, "ranks, k", 0, 1),
    });
    expect((hover.contents as { value: string }).value).toContain("= 8: the GPUs of target mi300x");
  });

  it("definition jumps from a use to the declaration", async () => {
    const loc = await request<Location>("textDocument/definition", uri, {
      position: positionOf(ALL_GATHER, "buf@p", 0, 1),
    });
    const decl = positionOf(ALL_GATHER, "buffer buf", 0, 7);
    expect(loc).toEqual({
      uri,
      range: { start: decl, end: { ...decl, character: decl.character + 3 } },
    });
  });

  it("lists the schedule and its names as document symbols", async () => {
    const symbols = await request<DocumentSymbol[]>("textDocument/documentSymbol", uri, {});
    expect(symbols.map((s) => s.name)).toEqual(["all_gather_pcpy"]);
    expect(symbols[0]!.children?.map((c) => `${c.detail} ${c.name}`)).toEqual([
      "parameter chunk",
      "buffer buf",
      "loop-var r",
      "loop-var k",
      "let p",
    ]);
  });

  it("completes names in scope, keywords, collectives and targets", async () => {
    const inLoop = await request<CompletionItem[]>("textDocument/completion", uri, {
      position: positionOf(ALL_GATHER, "copy buf", 0, 0),
    });
    const labels = inLoop.map((c) => c.label);
    for (const name of ["chunk", "buf", "r", "p", "copy", "ranks"]) expect(labels).toContain(name);

    const doc = "file:///virtual/complete.dmac";
    const text = "target mi\nschedule s() implements all_\n";
    client.open(doc, text);
    await client.diagnostics(doc, 1);
    const collectives = await request<CompletionItem[]>("textDocument/completion", doc, {
      position: { line: 1, character: 28 },
    });
    expect(collectives.map((c) => c.label)).toContain("all_gather_inplace");
    const targets = await request<CompletionItem[]>("textDocument/completion", doc, {
      position: { line: 0, character: 9 },
    });
    expect(targets.map((c) => c.label)).toEqual([
      "mi300x",
      "mi308x",
      "mi325x",
      "mi355x",
      "h100",
      "h200",
    ]);
  });
});

describe("code actions", () => {
  it("offers the did-you-mean replacement as a quick fix", async () => {
    const uri = "file:///virtual/typo.dmac";
    client.open(uri, THREE_ERRORS);
    const { diagnostics } = await client.diagnostics(uri, 1);
    const actions = await request<CodeAction[]>("textDocument/codeAction", uri, {
      range: diagnostics[0]!.range,
      context: { diagnostics },
    });
    expect(actions.map((a) => a.title)).toEqual([
      "replace 'bfu' with 'buf'",
      "replace 'bux' with 'buf'",
    ]);
    expect(actions[0]!.edit?.changes?.[uri]).toEqual([
      { range: diagnostics[0]!.range, newText: "buf" },
    ]);
  });
});

describe("formatting", () => {
  it("returns dmac fmt's text as one edit, and nothing for a file with syntax errors", async () => {
    const uri = "file:///virtual/messy.dmac";
    const messy = "target mi300x\nschedule s(){\nbuffer b: 64B\n  fill b@0[0+:64B] with 0\n}\n";
    client.open(uri, messy);
    const edits = await request<{ newText: string }[]>("textDocument/formatting", uri, {
      options: { tabSize: 2, insertSpaces: true },
    });
    const expected = await formatDmac(messy);
    expect(expected.ok).toBe(true);
    expect(edits).toHaveLength(1);
    expect(edits[0]!.newText).toBe(expected.ok ? expected.text : "");
    expect(edits[0]!.newText).not.toBe(messy);

    const broken = "file:///virtual/broken.dmac";
    client.open(broken, "schedule s( {\n");
    const none = await request<unknown>("textDocument/formatting", broken, {
      options: { tabSize: 2, insertSpaces: true },
    });
    expect(none).toBeNull();
  });
});

describe("structured fixes", () => {
  it("turns a parse error's suggested edit into a quick fix with its own range", async () => {
    const uri = "file:///virtual/rank-typo.dmac";
    const text =
      "schedule s() {\n  buffer b: 64B\n  for r in rank {\n    fill b@r[0 +: 64B] with 0\n  }\n}\n";
    client.open(uri, text);
    const { diagnostics } = await client.diagnostics(uri, 1);
    const actions = await request<CodeAction[]>("textDocument/codeAction", uri, {
      range: diagnostics[0]!.range,
      context: { diagnostics },
    });
    expect(actions[0]!.title).toBe("replace 'rank' with 'ranks'");
    const edit = actions[0]!.edit?.changes?.[uri]?.[0];
    expect(edit?.newText).toBe("ranks");
    expect(edit?.range).toEqual({
      start: { line: 2, character: 11 },
      end: { line: 2, character: 15 },
    });
  });
});
