// Red-team class 1 (issue 11): every way `dmac compile -o`, `sim --trace`, `sweep --out` and
// `golden --update` could destroy a user's data. Each case ran against the installed command
// (bin/dmac.js on the built dist/) in a scratch project and used to delete or overwrite it.

import { spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";

const BIN = resolve("bin/dmac.js");
const EXAMPLE = resolve("examples/broadcast.dmac");
const root = mkdtempSync(join(tmpdir(), "dmac-adv-out-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let proj = "";
let n = 0;
beforeEach(() => {
  proj = join(root, `proj${n++}`);
  mkdirSync(join(proj, ".git"), { recursive: true });
  cpSync(EXAMPLE, join(proj, "b.dmac"));
  writeFileSync(join(proj, "notes.txt"), "mine\n");
  writeFileSync(join(proj, ".git", "HEAD"), "ref: refs/heads/main\n");
});

/** Runs dmac in `cwd` (the scratch project by default) with umask 022. */
function dmac(args: string[], cwd = proj): { code: number; err: string } {
  const quoted = args.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
  const r = spawnSync("bash", ["-c", `umask 022; exec node '${BIN}' ${quoted} --color never`], {
    cwd,
    encoding: "utf8",
  });
  return { code: r.status ?? -1, err: r.stderr };
}

/** The project is exactly as beforeEach made it. */
function expectProjectIntact(): void {
  expect(readFileSync(join(proj, "notes.txt"), "utf8")).toBe("mine\n");
  expect(readFileSync(join(proj, ".git", "HEAD"), "utf8")).toBe("ref: refs/heads/main\n");
  expect(readFileSync(join(proj, "b.dmac"), "utf8")).toBe(readFileSync(EXAMPLE, "utf8"));
}

describe("compile -o never replaces what dmac did not write", () => {
  for (const out of [".", "..", "", "./", "<the project, absolute>"]) {
    it(`refuses -o '${out}'`, () => {
      const r = dmac(["compile", "b.dmac", "-o", out.startsWith("<") ? proj : out]);
      expect(r.code).toBe(1);
      expect(r.err).toContain("DMAC5002");
      expectProjectIntact();
    });
  }

  it("refuses --output= (empty)", () => {
    const r = dmac(["compile", "b.dmac", "--output="]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/empty output path/);
    expectProjectIntact();
  });

  it("refuses another project directory", () => {
    const other = join(root, `other${n}`);
    mkdirSync(other);
    writeFileSync(join(other, "keep.txt"), "x");
    const r = dmac(["compile", "b.dmac", "-o", other]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/not a dmac output directory/);
    expect(readdirSync(other)).toEqual(["keep.txt"]);
  });

  it("refuses a directory that holds the source", () => {
    mkdirSync(join(proj, "src"));
    cpSync(EXAMPLE, join(proj, "src", "s.dmac"));
    const r = dmac(["compile", "src/s.dmac", "-o", "src"], proj);
    expect(r.code).toBe(1);
    expect(existsSync(join(proj, "src", "s.dmac"))).toBe(true);
  });

  it("replaces its own earlier output, but not once a user file was added to it", () => {
    expect(dmac(["compile", "b.dmac", "-o", "out"]).code).toBe(0);
    expect(readdirSync(join(proj, "out"))).toContain(".dmac-output");
    expect(dmac(["compile", "b.dmac", "-o", "out"]).code).toBe(0);
    writeFileSync(join(proj, "out", "analysis.txt"), "notes");
    const r = dmac(["compile", "b.dmac", "-o", "out"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/analysis\.txt/);
    expect(readFileSync(join(proj, "out", "analysis.txt"), "utf8")).toBe("notes");
  });

  it("replaces an empty directory", () => {
    mkdirSync(join(proj, "empty"));
    expect(dmac(["compile", "b.dmac", "-o", "empty"]).code).toBe(0);
    expect(readdirSync(join(proj, "empty"))).toContain("manifest.json");
  });

  it("does not write through a symbolic link", () => {
    mkdirSync(join(proj, "real"));
    symlinkSync("real", join(proj, "link"));
    const r = dmac(["compile", "b.dmac", "-o", "link"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/symbolic link/);
    expect(readdirSync(join(proj, "real"))).toEqual([]);
  });

  it("creates directories and files with the umask's modes, not 0700", () => {
    expect(dmac(["compile", "b.dmac", "-o", "out"]).code).toBe(0);
    expect(statSync(join(proj, "out")).mode & 0o777).toBe(0o755);
    expect(statSync(join(proj, "out", "manifest.json")).mode & 0o777).toBe(0o644);
  });

  it("removes the temporaries a killed compile left, and only those", () => {
    // A dead writer's pid: a finished child's.
    const dead = spawnSync("true").pid!;
    const stale = join(proj, `.out.dmac-tmp-${dead}-0badc0de`);
    mkdirSync(stale);
    writeFileSync(join(stale, ".dmac-output"), '{"tool":"dmac","format":1,"files":["a"]}\n');
    writeFileSync(join(stale, "a"), "partial");
    const live = join(proj, `.out.dmac-tmp-${process.pid}-0badc0de`);
    mkdirSync(live);
    const user = join(proj, `.out.dmac-tmp-${dead}-12345678`);
    mkdirSync(user);
    writeFileSync(join(user, "precious"), "x");
    expect(dmac(["compile", "b.dmac", "-o", "out"]).code).toBe(0);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(live)).toBe(true); // its writer is still running
    expect(existsSync(join(user, "precious"))).toBe(true); // not dmac's
  });

  it("a write error is a diagnostic, not a stack trace, and leaves nothing behind", () => {
    mkdirSync(join(proj, "ro"));
    chmodSync(join(proj, "ro"), 0o555);
    const r = dmac(["compile", "b.dmac", "-o", "ro/out"]);
    chmodSync(join(proj, "ro"), 0o755);
    if (process.getuid?.() === 0) return; // root writes anywhere
    expect(r.code).toBe(1);
    expect(r.err).not.toMatch(/\n\s+at /);
  });
});

describe("other writers", () => {
  it("sim --trace never overwrites its input", () => {
    const r = dmac(["sim", "b.dmac", "--trace", "b.dmac"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/input/);
    expectProjectIntact();
  });

  it("sim --trace does not write through a symbolic link, nor into a compiled output", () => {
    symlinkSync("notes.txt", join(proj, "t.json"));
    expect(dmac(["sim", "b.dmac", "--trace", "t.json"]).code).toBe(1);
    expect(lstatSync(join(proj, "t.json")).isSymbolicLink()).toBe(true);
    expect(dmac(["compile", "b.dmac", "-o", "out"]).code).toBe(0);
    expect(dmac(["sim", "out", "--trace", "out/manifest.json"]).code).toBe(1);
    expectProjectIntact();
  });

  it("sim OUT --trace never overwrites the source the manifest names", () => {
    expect(dmac(["compile", "b.dmac", "-o", "out"]).code).toBe(0);
    const r = dmac(["sim", "out", "--trace", "b.dmac"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/would overwrite an input/);
    expectProjectIntact();
  });

  it("sim MANIFEST --trace never overwrites a packet stream the manifest names", () => {
    expect(dmac(["compile", "b.dmac", "-o", "out"]).code).toBe(0);
    const bin = readdirSync(join(proj, "out")).find((f) => f.endsWith(".bin"))!;
    const before = readFileSync(join(proj, "out", bin));
    const r = dmac(["sim", "out/manifest.json", "--trace", `out/${bin}`]);
    expect(r.code).toBe(1);
    expect(readFileSync(join(proj, "out", bin))).toEqual(before);
  });

  it("sweep --out never overwrites the --target file", () => {
    mkdirSync(join(proj, "sw"));
    const target = readFileSync(resolve("targets/mi300x.json"), "utf8");
    writeFileSync(join(proj, "sw", "sweep.csv"), target);
    const r = dmac([
      "sweep",
      "b.dmac",
      "--target",
      "sw/sweep.csv",
      "--out",
      "sw",
      "--param",
      "size",
      "--sizes",
      "1KiB..2KiB",
    ]);
    expect(r.code).toBe(1);
    expect(readFileSync(join(proj, "sw", "sweep.csv"), "utf8")).toBe(target);
  });

  it("a file output with a trailing slash is refused", () => {
    const r = dmac(["sim", "b.dmac", "--trace", "tr.json/"]);
    expect(r.code).toBe(1);
    expect(existsSync(join(proj, "tr.json"))).toBe(false);
  });

  it("the current directory cannot be replaced through a symbolic link to a parent", () => {
    expect(dmac(["compile", "b.dmac", "-o", "out"]).code).toBe(0);
    symlinkSync(proj, join(proj, "lnk"));
    const r = dmac(["compile", "../b.dmac", "-o", join(proj, "lnk", "out")], join(proj, "out"));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/current directory/);
    expect(existsSync(join(proj, "out", "manifest.json"))).toBe(true);
  });

  it("sweep --out never writes over an input", () => {
    mkdirSync(join(proj, "s"));
    cpSync(EXAMPLE, join(proj, "s", "sweep.csv"));
    const r = dmac([
      "sweep",
      "s/sweep.csv",
      "--param",
      "size",
      "--sizes",
      "1KiB..2KiB",
      "--out",
      "s",
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/would overwrite an input/);
    expect(readFileSync(join(proj, "s", "sweep.csv"), "utf8")).toBe(readFileSync(EXAMPLE, "utf8"));
  });

  it("golden --update does not write through a symbolic link", () => {
    mkdirSync(join(proj, "g"));
    cpSync(EXAMPLE, join(proj, "g", "b.dmac"));
    symlinkSync("../notes.txt", join(proj, "g", "b.dump.golden"));
    dmac(["golden", "g", "--update"]);
    expectProjectIntact();
    expect(lstatSync(join(proj, "g", "b.dump.golden")).isSymbolicLink()).toBe(true);
  });
});
