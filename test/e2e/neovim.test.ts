// The older-Neovim block of docs/editors.md works as written (issue 30 item 9: the documented
// snippets failed on Debian 12's Neovim 0.7.2): a headless Neovim with only that block as its
// init.lua opens a .dmac with a mistake and shows dmac's diagnostic. Skipped where no `nvim` is
// installed (CI machines have none; `apt-get install neovim` gives 0.7.2 on Debian 12).

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const hasNvim = spawnSync("nvim", ["--version"]).status === 0;
const dir = mkdtempSync(join(tmpdir(), "dmac-nvim-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.skipIf(!hasNvim)("Neovim (docs/editors.md)", () => {
  it("the autocommand block attaches dmac's language server and shows its diagnostics", () => {
    const doc = readFileSync(resolve("docs/editors.md"), "utf8");
    const block = [...doc.matchAll(/^```lua\n([\s\S]*?)^```$/gm)]
      .map((m) => m[1]!)
      .find((text) => text.includes("start_client"));
    expect(block).toBeDefined();
    writeFileSync(join(dir, "init.lua"), block!);
    mkdirSync(join(dir, "bin"));
    symlinkSync(resolve("bin/dmac.js"), join(dir, "bin", "dmac"));
    writeFileSync(join(dir, "bad.dmac"), "schedule s() {\n  buffer a: 1KiB\n  cpy a@0 -> a@1\n}\n");
    const out = join(dir, "out.txt");
    const r = spawnSync(
      "nvim",
      [
        "--headless",
        "-u",
        "init.lua",
        "bad.dmac",
        "-c",
        "lua vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end)",
        "-c",
        `lua local f = io.open("${out}", "w"); for _, d in ipairs(vim.diagnostic.get(0)) do f:write(d.lnum .. ": " .. d.message .. "\\n") end; f:close()`,
        "-c",
        "qa!",
      ],
      {
        cwd: dir,
        env: { ...process.env, PATH: `${join(dir, "bin")}:${process.env["PATH"]}` },
        timeout: 40_000,
      },
    );
    expect(r.status, String(r.stderr)).toBe(0);
    expect(readFileSync(out, "utf8")).toMatch(/^2: expected a statement or '}', found 'cpy'/);
  }, 60_000);
});
