// `dmac golden` as a user meets it, in a temporary directory: the whole workflow (new goldens are
// reported, --update writes them, a change fails with a diff of the changed packet only, --update
// blesses it, a deleted schedule's goldens are obsolete and --update removes them), the time
// tolerance against a changed model (--target), file, directory and glob inputs, --filter, and
// bad inputs that end in a diagnostic, never a stack trace.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runCli, type CliRun } from "../helpers/cli.js";

const REPO = fileURLToPath(new URL("../..", import.meta.url));

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "dmac-golden-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const golden = (...args: string[]): Promise<CliRun> => runCli(["golden", ...args]);

/** Three copies from GPU 0; `second` is the size of the second one. */
const three = (second = "chunk"): string => `/// golden: --emit dump,sim
target mi300x

schedule three(chunk: bytes = 4KiB) {
  buffer a: 4 * chunk
  copy a@0[0 +: chunk] -> a@1[0 +: chunk]
  copy a@0[chunk +: ${second}] -> a@2[chunk +: ${second}]
  copy a@0[2 * chunk +: chunk] -> a@3[2 * chunk +: chunk]
}
`;
const broadcast = readFileSync(join(REPO, "examples", "broadcast.dmac"), "utf8");

const goldens = (dir: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".golden"))
    .sort();

/** No internal error, no stack trace: what every bad input must end in. */
function expectNoCrash(r: CliRun): void {
  expect(r.code, r.err).toBe(1);
  expect(r.out + r.err).not.toMatch(/internal error|\n\s+at /);
}

describe("dmac golden, the workflow from zero", () => {
  it("reports new goldens, writes them, fails a change with a diff of the changed packet, blesses it, reports and removes obsolete ones", async () => {
    const dir = join(root, "workflow");
    mkdirSync(join(dir, "sub"), { recursive: true });
    writeFileSync(join(dir, "three.dmac"), three());
    writeFileSync(join(dir, "sub", "bcast.dmac"), broadcast);

    // New goldens are reported, not failures, and nothing is written without --update.
    let r = await golden(dir);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^NEW .*three\.dmac: dump -> .*three\.dump\.golden/m);
    expect(r.out).toMatch(/0 passed, 0 failed, 4 new, 0 obsolete\n$/);
    expect(goldens(dir)).toEqual([]);

    r = await golden(dir, "--update");
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/4 new, 0 obsolete \(4 written, 0 updated, 0 removed\)/);
    expect(goldens(dir)).toEqual(["three.dump.golden", "three.sim.golden"]);
    expect(goldens(join(dir, "sub"))).toEqual(["bcast.dump.golden", "bcast.sim.golden"]);
    const dump = readFileSync(join(dir, "three.dump.golden"), "utf8");
    expect(dump).toMatch(/^\/\/ dmac-golden 1\n\/\/ source: three\.dmac\n\/\/ artefact: dump\n/);
    expect(dump).toContain("// command: dmac golden three.dmac --emit dump,sim\n// dmac: ");

    r = await golden(dir);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe("4 passed, 0 failed, 0 new, 0 obsolete\n");

    // One copy changes size: the dump's diff shows that packet, the others only as context.
    writeFileSync(join(dir, "three.dmac"), three("1KiB"));
    r = await golden(dir, "--color", "never");
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^FAIL .*three\.dmac: dump differs from .*three\.dump\.golden$/m);
    const diff = r.out.slice(r.out.indexOf("--- "), r.out.indexOf("FAIL", r.out.indexOf("--- ")));
    const changed = diff.split("\n").filter((l) => /^[-+](?![-+]{2} )/.test(l));
    // The annotated listing: the statement's source line above the packet changed with it.
    expect(changed).toHaveLength(4);
    expect(changed[0]).toBe("-; 7: copy a@0[chunk +: chunk] -> a@2[chunk +: chunk]");
    expect(changed[1]).toMatch(/^-.*COPY_LINEAR {2}bytes=4 KiB /);
    expect(changed[2]).toBe("+; 7: copy a@0[chunk +: 1KiB] -> a@2[chunk +: 1KiB]");
    expect(changed[3]).toMatch(/^\+.*COPY_LINEAR {2}bytes=1 KiB /);
    expect(diff).toMatch(/^ .*ATOMIC/m); // unchanged packets: context only
    expect(r.out).toMatch(/sim differs .*\n {2}algbw .* beyond the tolerance of 1%/);
    expect(r.out).toMatch(/2 passed, 2 failed, 0 new, 0 obsolete\n$/);
    expect(r.err).toBe("");
    // For tools: every failure as a diagnostic, DMAC5005 for a golden that differs.
    r = await golden(dir, "--format", "json");
    expect(r.code).toBe(1);
    const codes = (
      JSON.parse(r.out) as { diagnostics: { code: string; message: string }[] }
    ).diagnostics.map((d) => d.message);
    expect(codes).toEqual([
      expect.stringMatching(/three\.dmac: dump differs from its golden$/),
      expect.stringMatching(/three\.dmac: sim differs from its golden$/),
    ]);
    expect(r.out).toContain('"DMAC5005"');

    r = await golden(dir, "--update");
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^UPDATED .*three\.dump\.golden$/m);
    expect(r.out).toMatch(/\(0 written, 2 updated, 0 removed\)/);
    expect((await golden(dir)).out).toBe("4 passed, 0 failed, 0 new, 0 obsolete\n");

    // The broadcast is deleted: its goldens are obsolete (reported, not failures), then removed.
    rmSync(join(dir, "sub", "bcast.dmac"));
    r = await golden(dir);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^OBSOLETE .*sub\/bcast\.dump\.golden/m);
    expect(r.out).toMatch(/2 passed, 0 failed, 0 new, 2 obsolete\n$/);
    r = await golden(dir, "--update");
    expect(r.out).toMatch(/^REMOVED .*sub\/bcast\.sim\.golden/m);
    expect(goldens(join(dir, "sub"))).toEqual([]);
    expect(goldens(dir)).toEqual(["three.dump.golden", "three.sim.golden"]);
  });

  it("keeps a file it did not write: only dmac goldens are obsolete", async () => {
    const dir = join(root, "foreign");
    mkdirSync(dir);
    writeFileSync(join(dir, "three.dmac"), three());
    writeFileSync(join(dir, "notes.golden"), "my own notes\n");
    await golden(dir, "--update");
    expect((await golden(dir)).out).toBe("2 passed, 0 failed, 0 new, 0 obsolete\n");
    expect(readFileSync(join(dir, "notes.golden"), "utf8")).toBe("my own notes\n");
  });
});

describe("dmac golden, the predicted-time tolerance", () => {
  it("passes a model change within the file's tolerance and fails one beyond it", async () => {
    const dir = join(root, "tolerance");
    mkdirSync(dir);
    writeFileSync(
      join(dir, "big.dmac"),
      three().replace(
        "/// golden: --emit dump,sim",
        "/// golden: --name big -D chunk=64MiB --emit sim --time-tolerance 2%",
      ),
    );
    expect((await golden(dir, "--update")).code).toBe(0);
    // The same node with slower links: the model's prediction moves with them.
    const target = JSON.parse(readFileSync(join(REPO, "targets", "mi300x.json"), "utf8"));
    const slower = (name: string, factor: number): string => {
      const path = join(root, name);
      const t = structuredClone(target);
      t.links.usableGBps *= factor;
      writeFileSync(path, JSON.stringify(t));
      return path;
    };
    let r = await golden(dir, "--target", slower("near.json", 0.99));
    expect(r.code, r.out + r.err).toBe(0);
    expect(r.out).toMatch(
      /^PASS .*big\.dmac \[big\]: sim\n {2}time .* \(\+1(\.\d+)?%, within the tolerance of 2%\)/m,
    );
    r = await golden(dir, "--target", slower("far.json", 0.8));
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/FAIL .*big\.dmac \[big\]: sim differs/);
    expect(r.out).toMatch(/time .* \(\+2\d(\.\d+)?%, beyond the tolerance of 2%\)/);
    expect(r.out).toMatch(/^-time/m);
  });
});

describe("dmac golden inputs", () => {
  let dir: string;
  beforeAll(async () => {
    dir = join(root, "inputs");
    mkdirSync(dir);
    writeFileSync(join(dir, "a.dmac"), three());
    writeFileSync(
      join(dir, "b.dmac"),
      three().replace("--emit dump,sim", "--emit ir\n/// golden: -O2 --emit dump"),
    );
    expect((await golden(dir, "--update")).code).toBe(0);
  });

  it("takes a single file; the other files' goldens are not its obsolete ones", async () => {
    const r = await golden(join(dir, "b.dmac"));
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe("2 passed, 0 failed, 0 new, 0 obsolete\n");
  });

  it("takes a glob (quoted, as a shell that does not expand it passes it)", async () => {
    const r = await golden(join(dir, "*.dmac"));
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe("4 passed, 0 failed, 0 new, 0 obsolete\n");
    expectNoCrash(await golden(join(dir, "*.nothing")));
  });

  it("runs only what --filter names, and does not call the others obsolete", async () => {
    let r = await golden(dir, "--filter", "[O2]");
    expect(r.out).toBe("1 passed, 0 failed, 0 new, 0 obsolete\n");
    r = await golden(dir, "--filter", "a.dmac");
    expect(r.out).toBe("2 passed, 0 failed, 0 new, 0 obsolete\n");
  });

  it("ends every bad input with a diagnostic, never a stack trace", async () => {
    const cases: [string, string[], RegExp][] = [
      ["a missing file", [join(dir, "missing.dmac")], /DMAC5001 .*no such file/],
      [
        "not a .dmac file",
        [join(REPO, "package.json")],
        /DMAC5004 .*neither a \.dmac file nor a directory/,
      ],
      [
        "a directory without .dmac files",
        [join(REPO, "targets")],
        /DMAC5004 .*has no \.dmac file below it/,
      ],
      ["a device", ["/dev/null"], /DMAC5004/],
      ["a bad option", [dir, "--emit", "packets"], /DMAC5004 .*'packets' is not an artefact/],
    ];
    for (const [what, args, message] of cases) {
      const r = await golden(...args, "--format", "concise");
      expectNoCrash(r);
      expect(r.out + r.err, what).toMatch(message);
    }
  });

  it("reports a FIFO named .dmac and a malformed header, and runs the rest", async () => {
    const bad = join(root, "bad");
    mkdirSync(bad);
    writeFileSync(join(bad, "ok.dmac"), three());
    writeFileSync(join(bad, "header.dmac"), three().replace("--emit dump,sim", "-O 9 --emit sim"));
    const fifo = spawnSync("mkfifo", [join(bad, "pipe.dmac")]);
    const r = await golden(bad, "--color", "never");
    expectNoCrash(r);
    expect(r.out).toMatch(/header\.dmac:1:13: DMAC5008 bad golden configuration: bad -O: '9'/);
    if (fifo.status === 0) expect(r.out).toMatch(/DMAC5001 .*pipe\.dmac: is a FIFO/);
    expect(r.out).toMatch(/^NEW .*ok\.dmac: dump/m);
    expect(existsSync(join(bad, "header.sim.golden"))).toBe(false);
  });
});

describe("dmac golden on worker threads", () => {
  it("reports the same with --jobs 2 as on one thread (the installed command)", () => {
    const dir = join(root, "jobs");
    mkdirSync(dir);
    for (const n of ["a", "b", "c"]) writeFileSync(join(dir, `${n}.dmac`), three());
    writeFileSync(join(dir, "d.dmac"), three("1KiB"));
    const bin = join(REPO, "bin", "dmac.js");
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [bin, "golden", dir, ...args], { encoding: "utf8" });
    expect(run("--update", "-j", "2").status).toBe(0);
    writeFileSync(join(dir, "b.dmac"), three("2KiB"));
    const one = run("--jobs", "1");
    const two = run("--jobs", "2");
    expect(one.status).toBe(1);
    expect(two.status).toBe(1);
    expect(two.stdout).toBe(one.stdout);
    expect(two.stdout).toMatch(/6 passed, 2 failed, 0 new, 0 obsolete\n$/);
    expect(run("--jobs", "0").stderr).toMatch(/DMAC5004\]: bad --jobs/);
  });
});

describe("dmac/testing", () => {
  it("is the package's ./testing export, and vitest is loaded only when goldenSuite is called", () => {
    const r = spawnSync(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const m = await import("dmac/testing"); console.log(typeof m.goldenSuite);`,
      ],
      { cwd: REPO, encoding: "utf8" },
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("function\n");
    const built = readFileSync(join(REPO, "dist", "testing.js"), "utf8");
    expect(built).not.toMatch(/^import .*["']vitest["']/m);
    expect(built).toMatch(/await import\("vitest"\)/);
  });
});
