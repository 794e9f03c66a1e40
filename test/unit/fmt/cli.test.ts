// `dmac fmt` through the CLI: stdout, --check exit codes, --write (atomic, keeps the mode, never
// touches a file with errors or a symbolic link), directories.

import {
  chmodSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dmac } from "../../helpers/cli.js";

const UGLY = "schedule s() {\nbuffer b: 1KiB\n  copy b@0 -> b@1 // why\n}\n";
const PRETTY = "schedule s() {\n  buffer b: 1KiB\n  copy b@0 -> b@1 // why\n}\n";

function scratch(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "dmac-fmt-"));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe("dmac fmt", () => {
  it("prints the formatted file", async () => {
    const dir = scratch({ "a.dmac": UGLY });
    const r = await dmac("fmt", join(dir, "a.dmac"));
    expect(r).toMatchObject({ code: 0, out: PRETTY });
  });

  it("--check lists unformatted files and exits 1, exits 0 when all are formatted", async () => {
    const dir = scratch({ "a.dmac": UGLY, "b.dmac": PRETTY });
    const bad = await dmac("fmt", "--check", dir);
    expect(bad.code).toBe(1);
    expect(bad.out).toBe(`${join(dir, "a.dmac")}\n`);
    const good = await dmac("fmt", "--check", join(dir, "b.dmac"));
    expect(good).toMatchObject({ code: 0, out: "" });
  });

  it("--write rewrites in place, keeps the mode and leaves no temporary", async () => {
    const dir = scratch({ "a.dmac": UGLY });
    const path = join(dir, "a.dmac");
    chmodSync(path, 0o640);
    expect((await dmac("fmt", "--write", dir)).code).toBe(0);
    expect(readFileSync(path, "utf8")).toBe(PRETTY);
    expect(statSync(path).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(["a.dmac"]);
  });

  it("reports parse errors (exit 1) and never rewrites a file with errors", async () => {
    const broken = "schedule s( {\nbuffer b: 1KiB\n}\n";
    const dir = scratch({ "bad.dmac": broken, "a.dmac": UGLY });
    const r = await dmac("fmt", "--write", dir);
    expect(r.code).toBe(1);
    expect(r.err).toContain("DMAC1010");
    expect(readFileSync(join(dir, "bad.dmac"), "utf8")).toBe(broken);
    expect(readFileSync(join(dir, "a.dmac"), "utf8")).toBe(PRETTY);
  });

  it("--write refuses a symbolic link and leaves it and its target alone", async () => {
    const dir = scratch({ "a.dmac": UGLY });
    symlinkSync(join(dir, "a.dmac"), join(dir, "link.dmac"));
    const r = await dmac("fmt", "--write", join(dir, "link.dmac"));
    expect(r.code).toBe(1);
    expect(r.err).toContain("DMAC5002");
    expect(readFileSync(join(dir, "a.dmac"), "utf8")).toBe(UGLY);
  });

  it("refuses --check with --write, and several files without either", async () => {
    const dir = scratch({ "a.dmac": UGLY, "b.dmac": PRETTY });
    expect((await dmac("fmt", "--check", "--write", dir)).err).toContain("DMAC5004");
    const r = await dmac("fmt", dir);
    expect(r.code).toBe(1);
    expect(r.err).toContain("DMAC5004");
  });

  it("--format json keeps stdout one JSON document (the unformatted files are in it)", async () => {
    const dir = scratch({ "a.dmac": UGLY });
    const r = await dmac("fmt", "--check", "--format", "json", dir);
    expect(r.code).toBe(1);
    expect((JSON.parse(r.out) as { files: unknown }).files).toEqual([
      { file: join(dir, "a.dmac"), changed: true },
    ]);
    expect(r.err).toBe("");
  });

  it("a missing file is DMAC5001", async () => {
    const r = await dmac("fmt", "--check", "/nonexistent/x.dmac");
    expect(r.code).toBe(1);
    expect(r.err).toContain("DMAC5001");
  });
});
