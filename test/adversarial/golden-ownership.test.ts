// Issue 29, items 1-3: `dmac golden` owns exactly the goldens it wrote. Each case ran against the
// installed command (bin/dmac.js on the built dist/) in a scratch project and used to remove or
// overwrite goldens of tests that still exist: an `--emit` subset removed the other artefacts'
// goldens (and so did a test in a hidden directory or node_modules, a file that became a
// directory, a `/// golden:` line commented out, a file renamed to .DMAC); two tests could own
// one golden name; --golden-dir mirrored each input relative to itself, so `golden tests/sub`
// overwrote the goldens of `tests/`.

import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";

const BIN = resolve("bin/dmac.js");
const root = mkdtempSync(join(tmpdir(), "dmac-adv-golden-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let proj = "";
let n = 0;
beforeEach(() => {
  proj = join(root, `proj${n++}`);
  mkdirSync(proj);
});

/** `dmac golden ARGS` in `cwd` (the scratch project by default). */
function golden(args: string[], cwd = proj): { code: number; out: string } {
  const r = spawnSync(process.execPath, [BIN, "golden", ...args, "--color", "never"], {
    cwd,
    encoding: "utf8",
  });
  return { code: r.status ?? -1, out: r.stdout + r.stderr };
}

/** A small schedule; `header` is its `/// golden:` lines. */
const schedule = (header = "", size = "chunk"): string => `${header}
target mi300x

schedule s(chunk: bytes = 4KiB) {
  buffer a: 4 * chunk
  copy a@0[0 +: ${size}] -> a@1[0 +: ${size}]
}
`;

function write(path: string, text: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
}

/** Every golden below `dir` with its contents (hidden directories too). */
function goldens(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (d: string): void => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) visit(p);
      else if (name.endsWith(".golden")) out[relative(dir, p)] = readFileSync(p, "utf8");
    }
  };
  if (existsSync(dir)) visit(dir);
  return out;
}

describe("obsolete-removal removes only goldens whose test is gone", () => {
  it("an --emit subset keeps the other artefacts' goldens", () => {
    write(join(proj, "t", "a.dmac"), schedule());
    expect(golden(["t", "--update"]).code).toBe(0);
    const before = goldens(join(proj, "t"));
    expect(Object.keys(before)).toEqual(["a.dump.golden", "a.sim.golden"]);
    for (const emit of ["ir", "dump", "trace,diag"]) {
      const r = golden(["t", "--emit", emit, "--update"]);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(/ 0 obsolete /);
    }
    const after = goldens(join(proj, "t"));
    expect(after["a.dump.golden"]).toBe(before["a.dump.golden"]);
    expect(after["a.sim.golden"]).toBe(before["a.sim.golden"]);
    expect(Object.keys(after)).toEqual([
      "a.diag.golden",
      "a.dump.golden",
      "a.ir.golden",
      "a.sim.golden",
      "a.trace.golden",
    ]);
  });

  it("keeps the goldens of a test in a hidden directory or node_modules (--golden-dir)", () => {
    for (const dir of [".hidden", "node_modules"]) {
      write(join(proj, "t", dir, "h.dmac"), schedule());
      expect(golden([`t/${dir}/h.dmac`, "--golden-dir", "gold", "--update"]).code).toBe(0);
    }
    write(join(proj, "t", "a.dmac"), schedule());
    const before = goldens(join(proj, "gold"));
    expect(Object.keys(before)).toHaveLength(4);
    const r = golden(["t", "--golden-dir", "gold", "--update"]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).not.toMatch(/REMOVED/);
    expect(goldens(join(proj, "gold"))).toMatchObject(before);
  });

  it("keeps the goldens of a file that became a directory, or was renamed to .DMAC", () => {
    write(join(proj, "t", "a.dmac"), schedule());
    write(join(proj, "t", "b.dmac"), schedule());
    write(join(proj, "t", "c.dmac"), schedule());
    expect(golden(["t", "--update"]).code).toBe(0);
    const before = goldens(join(proj, "t"));
    rmSync(join(proj, "t", "a.dmac"));
    write(join(proj, "t", "a.dmac", "x.dmac"), schedule());
    renameSync(join(proj, "t", "b.dmac"), join(proj, "t", "b.DMAC"));
    const r = golden(["t", "--update"]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).not.toMatch(/REMOVED/);
    expect(goldens(join(proj, "t"))).toMatchObject(before);
  });

  it("keeps the goldens of a `/// golden:` line commented out, and says so", () => {
    const file = join(proj, "t", "a.dmac");
    write(file, schedule("/// golden: --emit dump,sim\n/// golden: -O2 --emit dump"));
    expect(golden(["t", "--update"]).code).toBe(0);
    const before = goldens(join(proj, "t"));
    expect(Object.keys(before)).toEqual(["a.O2.dump.golden", "a.dump.golden", "a.sim.golden"]);
    // The second line commented out, and the first no longer compares sim.
    write(file, schedule("/// golden: --emit dump\n// /// golden: -O2 --emit dump"));
    const r = golden(["t", "--update"]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/^UNUSED t\/a\.O2\.dump\.golden \(t\/a\.dmac .*not removed/m);
    expect(r.out).toMatch(/^UNUSED t\/a\.sim\.golden /m);
    expect(goldens(join(proj, "t"))).toEqual(before);
  });

  it("removes the goldens of a deleted test, and only those it recorded blessing", () => {
    write(join(proj, "t", "a.dmac"), schedule());
    write(join(proj, "t", "b.dmac"), schedule());
    expect(golden(["t", "--update"]).code).toBe(0);
    // Goldens from before the index: unowned, never removed.
    const index = join(proj, "t", ".dmac-golden-index.json");
    expect(JSON.parse(readFileSync(index, "utf8")).goldens["b.sim.golden"]).toEqual({
      source: "b.dmac",
      label: "",
      kind: "sim",
    });
    rmSync(index);
    expect(golden(["t/a.dmac", "--update"]).code).toBe(0);
    rmSync(join(proj, "t", "a.dmac"));
    rmSync(join(proj, "t", "b.dmac"));
    write(join(proj, "t", "c.dmac"), schedule());
    const r = golden(["t", "--update"]);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/^REMOVED t\/a\.dump\.golden \(obsolete: t\/a\.dmac is gone\)$/m);
    expect(r.out).toMatch(/^UNOWNED t\/b\.dump\.golden .*not removed/m);
    expect(Object.keys(goldens(join(proj, "t")))).toEqual([
      "b.dump.golden",
      "b.sim.golden",
      "c.dump.golden",
      "c.sim.golden",
    ]);
  });
});

describe("two tests never own one golden name", () => {
  const cases: [string, string, string][] = [
    ["-O2", "a.O2.dmac", "a.O2"],
    ["--name x", "a.x.dmac", "a.x"],
    ["-D chunk=2KiB", "a.chunk=2KiB.dmac", "a.chunk=2KiB"],
  ];
  for (const [option, other, base] of cases) {
    it(`a.dmac with \`/// golden: ${option}\` and ${other}: DMAC5030 naming both, nothing written`, () => {
      write(join(proj, "t", "a.dmac"), schedule(`/// golden: ${option} --emit dump`));
      write(join(proj, "t", other), schedule("/// golden: --emit dump", "1KiB"));
      const r = golden(["t", "--update"]);
      expect(r.code).toBe(1);
      const line = r.out.split("\n").find((l) => l.includes("DMAC5030")) ?? "";
      expect(line).toContain(`would both own the goldens t/${base}.*.golden`);
      expect(line).toContain(`t/a.dmac [${base.slice(2)}]`);
      expect(line).toContain(`t/${other} `);
      expect(r.out).not.toMatch(/internal error|\n\s+at /);
      expect(goldens(join(proj, "t"))).toEqual({});
    });
  }

  it("a test does not overwrite a golden the index says another existing test blessed", () => {
    write(join(proj, "t", "a.O2.dmac"), schedule("/// golden: --emit dump", "1KiB"));
    expect(golden(["t/a.O2.dmac", "--update"]).code).toBe(0);
    const before = goldens(join(proj, "t"));
    write(join(proj, "t", "a.dmac"), schedule("/// golden: -O2 --emit dump"));
    const r = golden(["t/a.dmac", "--update"]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/DMAC5030 t\/a\.O2\.dmac and t\/a\.dmac \[O2\] would both own/);
    expect(goldens(join(proj, "t"))).toEqual(before);
  });
});

describe("the golden index", () => {
  it("one dmac cannot use is DMAC5031: its tests do not run, and nothing there is written or removed", () => {
    write(join(proj, "t", "a.dmac"), schedule());
    write(join(proj, "t", "b.dmac"), schedule());
    expect(golden(["t", "--update"]).code).toBe(0);
    rmSync(join(proj, "t", "b.dmac"));
    writeFileSync(join(proj, "t", "a.dmac"), schedule("", "1KiB"));
    const index = join(proj, "t", ".dmac-golden-index.json");
    const before = goldens(join(proj, "t"));
    for (const text of ["my notes\n", '{"tool": "dmac golden", "format": 2, "goldens": {}}\n']) {
      writeFileSync(index, text);
      const r = golden(["t", "--update"]);
      expect(r.code).toBe(1);
      expect(r.out).toMatch(/DMAC5031 cannot use the golden index t\/\.dmac-golden-index\.json: /);
      expect(goldens(join(proj, "t"))).toEqual(before);
      expect(readFileSync(index, "utf8")).toBe(text);
    }
  });
});

describe("--golden-dir maps each source to its own goldens", () => {
  it("`golden tests/sub` neither overwrites the goldens of tests/ nor removes tests/sub's", () => {
    write(join(proj, "tests", "x.dmac"), schedule());
    write(join(proj, "tests", "sub", "x.dmac"), schedule("", "1KiB"));
    write(join(proj, "tests", "sub", "y.dmac"), schedule());
    expect(golden(["tests", "--golden-dir", "gold", "--update"]).code).toBe(0);
    const before = goldens(join(proj, "gold"));
    expect(Object.keys(before)).toContain("tests/sub/x.dump.golden");
    rmSync(join(proj, "tests", "sub", "y.dmac"));
    const r = golden(["tests/sub", "--golden-dir", "gold", "--update"]);
    expect(r.code, r.out).toBe(0);
    const after = goldens(join(proj, "gold"));
    expect(after["tests/x.dump.golden"]).toBe(before["tests/x.dump.golden"]);
    expect(after["tests/sub/x.dump.golden"]).toBe(before["tests/sub/x.dump.golden"]);
    // The one test that is gone loses its goldens, and only it.
    delete before["tests/sub/y.dump.golden"];
    delete before["tests/sub/y.sim.golden"];
    expect(after).toEqual(before);
  });

  it("refuses an input outside the working directory, and a run from elsewhere that would share goldens", () => {
    write(join(proj, "sub", "x.dmac"), schedule());
    write(join(proj, "tests", "sub", "x.dmac"), schedule("", "1KiB"));
    let r = golden(["../sub", "--golden-dir", "../gold", "--update"], join(proj, "tests"));
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/DMAC5004.*--golden-dir: \.\.\/sub is outside the working directory/);
    expect(existsSync(join(proj, "gold"))).toBe(false);
    expect(golden(["sub", "--golden-dir", "gold", "--update"]).code).toBe(0);
    const before = goldens(join(proj, "gold"));
    // From tests/, tests/sub/x.dmac mirrors to the same gold/sub/x: the index names its owner.
    r = golden(["sub", "--golden-dir", "../gold", "--update"], join(proj, "tests"));
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/DMAC5030 .*sub\/x\.dmac and sub\/x\.dmac would both own/);
    expect(goldens(join(proj, "gold"))).toEqual(before);
  });
});
