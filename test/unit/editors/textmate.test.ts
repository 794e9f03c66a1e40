// The TextMate grammar (editors/textmate/dmac.tmLanguage.json) against its committed snapshots:
// vscode-tmgrammar-snap tokenizes every editors/textmate/tests/*.dmac with the real VS Code
// tokenizer (vscode-textmate + Oniguruma) and diffs the scopes with the .dmac.snap beside it.
// After an intended grammar change, re-bless with:
//   npx vscode-tmgrammar-snap -g editors/textmate/dmac.tmLanguage.json -s source.dmac -u "editors/textmate/tests/*.dmac"

import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const snap = createRequire(import.meta.url).resolve("vscode-tmgrammar-test/dist/snapshot.js");

describe("TextMate grammar snapshots", () => {
  it("has a snapshot for every test file", () => {
    const files = readdirSync(`${root}editors/textmate/tests`);
    const cases = files.filter((f) => f.endsWith(".dmac"));
    expect(cases.length).toBeGreaterThan(0);
    expect(files.filter((f) => f.endsWith(".snap")).sort()).toEqual(
      cases.map((f) => `${f}.snap`).sort(),
    );
  });

  it("tokenizes every test file as its snapshot says", () => {
    const r = spawnSync(
      process.execPath,
      [
        snap,
        "-g",
        "editors/textmate/dmac.tmLanguage.json",
        "-s",
        "source.dmac",
        "editors/textmate/tests/*.dmac",
      ],
      { cwd: root, encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } },
    );
    expect(r.stdout + r.stderr, "re-bless: see the header of this test").not.toMatch(/✖|ERROR/);
    expect(r.status).toBe(0);
  });
});
