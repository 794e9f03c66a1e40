// docs/golden.md's walk-through runs as written: its schedule (the first ```dmac block) in a
// temporary golden/ directory, then every `dmac golden` command of its ```sh blocks in order
// through the installed command, with the change the text describes made before the first run
// on the single file. The first ```text block is the first command's output, verbatim.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(REPO, "bin", "dmac.js");
const DOC = readFileSync(join(REPO, "docs", "golden.md"), "utf8");

/** The bodies of the fenced blocks labelled `label`, in order. */
const blocks = (label: string): string[] =>
  [...DOC.matchAll(new RegExp("^```" + label + "\\n([\\s\\S]*?)^```$", "gm"))].map((m) => m[1]!);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "dmac-golden-docs-"));
  mkdirSync(join(dir, "golden"));
  writeFileSync(join(dir, "golden", "allgather.dmac"), blocks("dmac")[0]!);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sh(line: string): { code: number | null; out: string; err: string } {
  const r = spawnSync("bash", ["-c", `dmac() { node '${BIN}' "$@"; }; ${line}`], {
    cwd: dir,
    encoding: "utf8",
    timeout: 60_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("docs/golden.md", () => {
  it("runs its walk-through as written", () => {
    const commands = blocks("sh").flatMap((b) =>
      b.split("\n").filter((l) => l.startsWith("dmac golden")),
    );
    expect(commands.length).toBeGreaterThanOrEqual(5);
    const codes: (number | null)[] = [];
    let changed = false;
    for (const [i, line] of commands.entries()) {
      if (!changed && line.includes(".dmac")) {
        const path = join(dir, "golden", "allgather.dmac");
        writeFileSync(path, readFileSync(path, "utf8").replace("= 8KiB", "= 4KiB"));
        changed = true;
      }
      const r = sh(line);
      expect(r.err, line).not.toMatch(/internal error/);
      codes.push(r.code);
      if (i === 0) expect(r.out).toBe(blocks("text")[0]);
    }
    expect(codes).toEqual([0, 0, 0, 1, 0]);
  });
});
