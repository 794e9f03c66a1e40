// Red-team class 6 (issue 11): `dmac sim` printed "postcondition not checked" and exited 0 when it
// could not find or recompile the source: run from another directory than the compile (the source
// path was stored relative to the compile's working directory), an edited `params`, `schedule` or
// `sourceMap.file`, or an output compiled with `--target T`. Now the outputs record the source and
// the --target file relative to themselves, sim recompiles with them, and a run whose
// postcondition could not be checked fails (DMAC6020, exit 1) unless the user passes --no-verify.
// Runs the installed command (bin/dmac.js on dist/) in scratch directories: the working
// directory is part of every case.

import { spawnSync } from "node:child_process";
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const BIN = resolve("bin/dmac.js");
const root = mkdtempSync(join(tmpdir(), "dmac-adv-unchecked-"));
const proj = join(root, "proj");
const elsewhere = join(root, "elsewhere");
afterAll(() => rmSync(root, { recursive: true, force: true }));

function dmac(cwd: string, ...args: string[]): { code: number; out: string; err: string } {
  const r = spawnSync("node", [BIN, ...args, "--color", "never"], { cwd, encoding: "utf8" });
  return { code: r.status ?? -1, out: r.stdout, err: r.stderr };
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const VERIFIED = /^verified: the postcondition holds/m;

beforeAll(() => {
  mkdirSync(proj, { recursive: true });
  mkdirSync(elsewhere, { recursive: true });
  cpSync(resolve("examples/broadcast.dmac"), join(proj, "b.dmac"));
  const t = JSON.parse(readFileSync(resolve("targets/mi300x.json"), "utf8")) as Json;
  // A target of another name and only 4 GPUs: the schedule's IR depends on it.
  t["name"] = "four";
  t["gpus"] = 4;
  t["recommendedEngine"]["map"] = (t["recommendedEngine"]["map"] as number[][])
    .slice(0, 4)
    .map((row) => row.slice(0, 4));
  writeFileSync(join(proj, "four.json"), JSON.stringify(t, null, 2));
  for (const [out, extra] of [
    ["out", []],
    ["out-four", ["--target", "four.json"]],
  ] as const) {
    const r = dmac(proj, "compile", "b.dmac", "-o", out, "--emit", "sdma,trace", ...extra);
    expect(r.code, r.err).toBe(0);
  }
});

/** A copy of proj/out (or another output) edited, next to it. */
let n = 0;
function editedOutput(edit: (m: Json) => void, from = "out"): string {
  const dir = join(proj, `edited${n++}`);
  cpSync(join(proj, from), dir, { recursive: true });
  const m = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Json;
  edit(m);
  writeFileSync(join(dir, "manifest.json"), JSON.stringify(m, null, 2));
  return dir;
}

describe("the output records where its source is, relative to itself", () => {
  it("manifest and trace name ../b.dmac and no target file", () => {
    const m = JSON.parse(readFileSync(join(proj, "out", "manifest.json"), "utf8")) as Json;
    expect(m["sourceMap"]["file"]).toBe("../b.dmac");
    expect(m["targetFile"]).toBeNull();
    const t = JSON.parse(readFileSync(join(proj, "out", "trace.json"), "utf8")) as Json;
    expect(t["source"]).toBe("../b.dmac");
  });

  it("sim from another directory checks the postcondition (manifest and trace)", () => {
    for (const input of ["../proj/out", "../proj/out/trace.json", join(proj, "out")]) {
      const r = dmac(elsewhere, "sim", input);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(VERIFIED);
    }
  });

  it("an output compiled with --target T records T and is verified from anywhere", () => {
    const m = JSON.parse(readFileSync(join(proj, "out-four", "manifest.json"), "utf8")) as Json;
    expect(m["targetFile"]).toBe("../four.json");
    for (const cwd of [proj, elsewhere, root]) {
      const r = dmac(cwd, "sim", join(proj, "out-four"));
      expect(r.code, r.err).toBe(0);
      expect(r.out).toMatch(VERIFIED);
    }
  });

  it("an older manifest (source relative to the compile's directory) still works from there", () => {
    const dir = editedOutput((m) => {
      delete m["targetFile"];
      m["sourceMap"]["file"] = "b.dmac";
    });
    const r = dmac(proj, "sim", dir);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(VERIFIED);
  });
});

describe("not checked is not success", () => {
  it("the source moved away: DMAC6020, exit 1; --no-verify runs the functional checks, exit 0", () => {
    const dir = join(root, "moved");
    mkdirSync(dir);
    cpSync(join(proj, "b.dmac"), join(dir, "b.dmac"));
    cpSync(join(proj, "out"), join(dir, "out"), { recursive: true });
    renameSync(join(dir, "b.dmac"), join(dir, "renamed.dmac"));
    const r = dmac(elsewhere, "sim", join(dir, "out"));
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/DMAC6020/);
    expect(r.err).toMatch(/its source "\.\.\/b\.dmac" was not found/);
    expect(r.err).toMatch(/--no-verify/);
    expect(r.out).not.toMatch(VERIFIED);
    const nv = dmac(elsewhere, "sim", join(dir, "out"), "--no-verify");
    expect(nv.code, nv.err).toBe(0);
    expect(nv.out).toMatch(/postcondition NOT checked \(--no-verify\)/);
    const several = dmac(elsewhere, "sim", join(dir, "out"), join(proj, "out"));
    expect(several.code).toBe(1);
    expect(several.out).toMatch(/FAILED {2}DMAC6020/);
  });

  const cases: [string, (m: Json) => void, RegExp][] = [
    [
      "sourceMap.file edited",
      (m) => void (m["sourceMap"]["file"] = "../nothere.dmac"),
      /not found/,
    ],
    [
      "schedule edited",
      (m) => void (m["schedule"] = "other"),
      /does not compile with the recorded schedule and parameters/,
    ],
    [
      "params edited to a value the source rejects",
      (m) => void (m["params"][1]["value"] = 99),
      /does not compile with the recorded schedule and parameters/,
    ],
  ];
  for (const [name, edit, reason] of cases)
    it(`${name}: DMAC6020, exit 1`, () => {
      const r = dmac(elsewhere, "sim", editedOutput(edit));
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/DMAC6020/);
      expect(r.err).toMatch(reason);
    });

  it("params edited to other valid values: the streams no longer match the schedule", () => {
    // root 0 -> 1: recompiles, and the final state is not what broadcast from rank 1 means.
    const r = dmac(
      elsewhere,
      "sim",
      editedOutput((m) => void (m["params"][1]["value"] = 1)),
    );
    expect(r.code).toBe(1);
    expect(r.out).not.toMatch(VERIFIED);
  });

  it("--no-verify is in --help", () => {
    expect(dmac(root, "sim", "--help").out).toMatch(/--no-verify/);
  });
});
