// A diagnostic's suggested fix (Diagnostic.fix): its title, the `help:` frame of the full format
// (the line as it reads after the fix) and its place in the JSON document.

import { describe, expect, it } from "vitest";
import { diag } from "../../../src/diagnostics/diagnostic.js";
import { fixTitle, renderDiagnostics } from "../../../src/diagnostics/render.js";
import { makeSourceFile } from "../../../src/source/source-file.js";

const file = makeSourceFile("t.dmac", "schedule s() {\n\tfor r in rank { }\n}\n");
const rank = { start: file.text.indexOf("rank "), end: file.text.indexOf("rank ") + 4 };
const at = { file, span: rank };

describe("a diagnostic's fix", () => {
  const d = diag("DMAC1010", at, ["'..'", "'{'"], {
    hint: "did you mean 'ranks'?",
    fix: { span: rank, replacement: "ranks" },
  });

  it("is described in words: replace, insert or remove", () => {
    expect(fixTitle(file, d.fix!)).toBe("replace 'rank' with 'ranks'");
    expect(fixTitle(file, { span: { start: rank.start, end: rank.start }, replacement: "x" })).toBe(
      "insert 'x'",
    );
    expect(fixTitle(file, { span: rank, replacement: "" })).toBe("remove 'rank'");
  });

  it("is shown as the corrected line, tabs kept so the marks line up", () => {
    const text = renderDiagnostics([d], "full", { color: false });
    expect(text).toContain(
      [
        "  = hint: did you mean 'ranks'?",
        "help: replace 'rank' with 'ranks'",
        "  |",
        "2 | \tfor r in ranks { }",
        "  | \t         ~~~~~",
      ].join("\n"),
    );
  });

  it("is only titled when it spans lines", () => {
    const multi = diag("DMAC1010", at, ["'..'", "'{'"], {
      fix: { span: { start: 0, end: rank.end }, replacement: "x" },
    });
    const text = renderDiagnostics([multi], "full", { color: false });
    expect(text).toMatch(/help: replace 'schedule s\(\) \{\n\tfor r in rank' with 'x'\n\n/);
  });

  it("is in the JSON document with a located span, and absent when there is none", () => {
    const doc = JSON.parse(renderDiagnostics([d], "json", { color: false }));
    expect(doc.diagnostics[0].fix).toEqual({
      span: { start: rank.start, end: rank.end, line: 2, column: 11, endLine: 2, endColumn: 15 },
      replacement: "ranks",
    });
    const plain = diag("DMAC1010", at, ["'..'", "'{'"]);
    expect(
      JSON.parse(renderDiagnostics([plain], "json", { color: false })).diagnostics[0],
    ).not.toHaveProperty("fix");
  });

  it("needs a file to apply to", () => {
    const nowhere = diag("DMAC5001", undefined, ["x", "y"], {
      fix: { span: rank, replacement: "" },
    });
    expect(nowhere.fix).toBeUndefined();
  });
});
