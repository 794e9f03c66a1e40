// `dmac check --watch` as a user runs it: the installed command (bin/dmac.js on the built dist/)
// in a child process, a file edited under it, and Ctrl-C (SIGINT) to end it.

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "dmac-watch-e2e-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const GOOD = "schedule s() {\n  buffer buf: 1KiB\n  copy buf@0 -> buf@1\n}\n";

describe("dmac check --watch", () => {
  it("shows the new result after a save and exits 0 on Ctrl-C", async () => {
    const file = join(dir, "w.dmac");
    writeFileSync(file, GOOD);
    const child = spawn("node", ["bin/dmac.js", "check", "--watch", "--format", "concise", file]);
    let output = "";
    child.stdout.on("data", (b: Buffer) => (output += b.toString()));
    child.stderr.on("data", (b: Buffer) => (output += b.toString()));
    const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
    const until = async (what: RegExp) => {
      const deadline = Date.now() + 20_000;
      while (!what.test(output)) {
        if (Date.now() > deadline) throw new Error(`no ${what} in:\n${output}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    try {
      await until(/\] ok; watching 1 file/);
      writeFileSync(file, GOOD.replace("copy", "cpy"));
      await until(/DMAC1010 expected a statement or '\}', found 'cpy'\n\[[\d:]+\] errors;/);
      expect(output).toContain("── last good result");
      child.kill("SIGINT");
      expect(await exited).toBe(0);
    } finally {
      child.kill("SIGKILL");
    }
  });
});
