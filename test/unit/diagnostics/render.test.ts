import { describe, expect, it } from "vitest";
import { diag, type Diagnostic } from "../../../src/diagnostics/diagnostic.js";
import { renderDiagnostics } from "../../../src/diagnostics/render.js";
import { makeSourceFile } from "../../../src/source/source-file.js";

const file = makeSourceFile(
  "t.dmac",
  ["schedule s() {", "  buffer buf: 1KiB", "", "\tcopy buf@0 -> buf@1", "}"].join("\n"),
);
const at = (start: number, end: number) => ({ file, span: { start, end } });
const off = (needle: string) => file.text.indexOf(needle);

describe("renderDiagnostics", () => {
  const err = diag("DMAC2001", at(off("buf@1"), off("buf@1") + 3), ["buf"], { hint: "a hint" });
  const warn = diag("DMAC2008", at(off("buf:"), off("buf:") + 3), ["buffer", "buf"]);

  it("renders a full code frame with context, carets, tabs and a hint", () => {
    const text = renderDiagnostics([err], "full", { color: false });
    expect(text).toBe(
      [
        "error[DMAC2001]: cannot find 'buf' in this scope",
        " --> t.dmac:4:16",
        "  |",
        "4 | \tcopy buf@0 -> buf@1",
        "  | \t              ^^^",
        "  |",
        "  = hint: a hint",
        "",
        "1 error emitted",
        "",
      ].join("\n"),
    );
  });

  it("skips a blank context line, sorts by position and counts errors and warnings", () => {
    const text = renderDiagnostics([err, warn], "full", { color: false });
    expect(text.indexOf("DMAC2008")).toBeLessThan(text.indexOf("DMAC2001"));
    expect(text).not.toContain("3 |");
    expect(text).toContain("1 error, 1 warning emitted");
  });

  it("renders related spans as note frames", () => {
    const d: Diagnostic = diag("DMAC2002", at(off("buf@0"), off("buf@0") + 3), ["buf"], {
      related: [
        {
          message: "first declared here",
          file,
          span: { start: off("buf:"), end: off("buf:") + 3 },
        },
      ],
    });
    const text = renderDiagnostics([d], "full", { color: false });
    expect(text).toContain("note: first declared here\n --> t.dmac:2:10\n");
  });

  it("elides long multi-line spans", () => {
    const long = makeSourceFile("m.dmac", ["a", "b", "c", "d", "e", "f"].join("\n"));
    const d = diag("DMAC1002", { file: long, span: { start: 0, end: long.text.length } }, []);
    const text = renderDiagnostics([d], "full", { color: false });
    expect(text).toContain("2 | b\n  | ^\n...\n5 | e\n");
    expect(text).not.toContain("3 | c");
  });

  it("renders diagnostics without a span or file as a header and hint", () => {
    const d = diag("DMAC5001", undefined, ["x.dmac", "no such file"], { hint: "check the path" });
    expect(renderDiagnostics([d], "full", { color: false })).toBe(
      "error[DMAC5001]: cannot read x.dmac: no such file\n = hint: check the path\n\n1 error emitted\n",
    );
    expect(renderDiagnostics([d], "concise", { color: false })).toBe(
      "DMAC5001 cannot read x.dmac: no such file\n",
    );
  });

  it("renders concise lines", () => {
    expect(renderDiagnostics([err, warn], "concise", { color: false })).toBe(
      "t.dmac:2:10: DMAC2008 buffer 'buf' is never used\nt.dmac:4:16: DMAC2001 cannot find 'buf' in this scope\n",
    );
  });

  it("renders one JSON document", () => {
    const doc = JSON.parse(renderDiagnostics([err], "json", { color: true }));
    expect(doc).toEqual({
      version: 1,
      diagnostics: [
        {
          code: "DMAC2001",
          severity: "error",
          message: "cannot find 'buf' in this scope",
          file: "t.dmac",
          span: {
            start: off("buf@1"),
            end: off("buf@1") + 3,
            line: 4,
            column: 16,
            endLine: 4,
            endColumn: 19,
          },
          hint: "a hint",
          related: [],
        },
      ],
    });
    expect(JSON.parse(renderDiagnostics([], "json", { color: false }))).toEqual({
      version: 1,
      diagnostics: [],
    });
  });

  it("uses ANSI colour only when asked", () => {
    expect(renderDiagnostics([err], "full", { color: false })).not.toContain("\x1b[");
    const coloured = renderDiagnostics([err], "full", { color: true });
    expect(coloured).toContain("\x1b[31;1merror[DMAC2001]\x1b[0m");
    expect(coloured.replace(/\x1b\[[0-9;]*m/g, "")).toBe(
      renderDiagnostics([err], "full", { color: false }),
    );
  });

  it("puts one caret under an empty span at the end of the file", () => {
    const d = diag("DMAC1010", at(file.text.length, file.text.length), ["'}'", "end of file"]);
    expect(renderDiagnostics([d], "full", { color: false })).toContain("5 | }\n  |  ^\n");
  });

  it("renders nothing for no diagnostics", () => {
    expect(renderDiagnostics([], "full", { color: false })).toBe("");
    expect(renderDiagnostics([], "concise", { color: false })).toBe("");
  });
});
