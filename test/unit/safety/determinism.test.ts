// Determinism and atomicity of outputs.
// - The same input gives byte-identical outputs: in one process, across processes, and across
//   time zones and locales (a child process per environment, running the built CLI in dist/).
// - A failed compile into an existing output directory leaves the previous outputs untouched,
//   and a failure while writing leaves neither partial files nor temporaries behind.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compileFileToOutputs, runCompile } from "../../../src/cli/commands/compile.js";
import { OutputError, outputBytes, writeOutputDir } from "../../../src/backend/output.js";
import { diag, sortDiagnostics } from "../../../src/diagnostics/diagnostic.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import type { CliContext } from "../../../src/cli/main.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-determinism-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function snapshot(d: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(d).sort()) {
    if (f !== ".dmac-output") out[f] = readFileSync(join(d, f)).toString("base64");
  }
  return out;
}

const quiet: CliContext = {
  streams: { out: () => {}, err: () => {}, isTTY: false },
  exit: () => {},
};

const EXAMPLES = ["examples/pipelined_all_gather.dmac", "examples/all_to_all_swap.dmac"];

describe("deterministic outputs", () => {
  it("compiling twice in one process gives identical files", () => {
    for (const ex of EXAMPLES) {
      const opts = { emit: "sdma,trace" };
      const a = compileFileToOutputs(ex, opts).files!;
      const b = compileFileToOutputs(ex, opts).files!;
      expect(a.map((f) => f.name)).toEqual(b.map((f) => f.name));
      for (let i = 0; i < a.length; i++) expect(outputBytes(b[i]!)).toEqual(outputBytes(a[i]!));
    }
  });

  const cli = join(process.cwd(), "bin", "dmac.js");
  const built = existsSync(join(process.cwd(), "dist", "cli", "main.js"));
  it.skipIf(!built)(
    "separate processes with different time zones and locales write byte-identical files",
    () => {
      const envs = [
        { TZ: "UTC", LANG: "C", LC_ALL: "C" },
        { TZ: "Asia/Kolkata", LANG: "sv_SE.UTF-8", LC_ALL: "sv_SE.UTF-8" },
        { TZ: "America/St_Johns", LANG: "tr_TR.UTF-8", LC_ALL: "tr_TR.UTF-8" },
      ];
      for (const ex of EXAMPLES) {
        const snaps = envs.map((env, i) => {
          const out = join(dir, `proc-${i}`);
          const r = spawnSync(
            process.execPath,
            [cli, "compile", ex, "-o", out, "--emit", "sdma,trace"],
            { env: { ...process.env, ...env }, encoding: "utf8" },
          );
          expect(r.status, r.stderr).toBe(0);
          return snapshot(out);
        });
        expect(Object.keys(snaps[0]!)).toContain("manifest.json");
        expect(snaps[1]).toEqual(snaps[0]);
        expect(snaps[2]).toEqual(snaps[0]);
      }
    },
  );

  it("orders diagnostics by code unit, not by the process's locale", () => {
    // localeCompare would put ä.dmac first under most locales (and z first under sv_SE).
    const z = makeSourceFile("z.dmac", "x");
    const a = makeSourceFile("ä.dmac", "x");
    const at = (file: typeof z) => ({ file, span: { start: 0, end: 1 } });
    const sorted = sortDiagnostics([
      diag("DMAC1001", at(a), ["x"]),
      diag("DMAC1001", at(z), ["x"]),
    ]);
    expect(sorted.map((d) => d.file!.name)).toEqual(["z.dmac", "ä.dmac"]);
  });
});

describe("atomic output directories", () => {
  const good = "examples/all_gather_pcpy.dmac";

  it("a compile that fails in the back end leaves the previous outputs intact", () => {
    const out = join(dir, "kept");
    expect(runCompile(good, { output: out, format: "concise", color: "never" }, quiet)).toBe(0);
    const before = snapshot(out);
    expect(Object.keys(before)).toContain("manifest.json");
    // DMAC4006: every phase up to emission succeeds, then the stream limit rejects it.
    const code = runCompile(
      good,
      { output: out, format: "concise", color: "never", maxStreamBytes: "16" },
      quiet,
    );
    expect(code).toBe(1);
    expect(snapshot(out)).toEqual(before);
    expect(readdirSync(dir).filter((f) => f.includes("tmp-"))).toEqual([]);
  });

  it("a compile that fails in the front end leaves them intact too", () => {
    const out = join(dir, "kept2");
    expect(runCompile(good, { output: out, format: "concise", color: "never" }, quiet)).toBe(0);
    const before = snapshot(out);
    const bad = join(dir, "bad.dmac");
    writeFileSync(bad, "schedule s( {");
    expect(runCompile(bad, { output: out, format: "concise", color: "never" }, quiet)).toBe(1);
    expect(snapshot(out)).toEqual(before);
  });

  it("a failure while writing leaves the previous outputs and no temporaries", () => {
    const out = join(dir, "partial");
    writeOutputDir(out, [{ name: "a.txt", data: "old\n" }]);
    expect(() =>
      writeOutputDir(out, [
        { name: "b.txt", data: "new\n" },
        { name: "../escape.txt", data: "x" },
      ]),
    ).toThrow(OutputError);
    expect(snapshot(out)).toEqual({ "a.txt": Buffer.from("old\n").toString("base64") });
    expect(existsSync(join(dir, "escape.txt"))).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes("tmp-"))).toEqual([]);
  });

  it("refuses to replace a file with an output directory", () => {
    const f = join(dir, "a-file");
    writeFileSync(f, "mine");
    expect(() => writeOutputDir(f, [{ name: "x", data: "y" }])).toThrow(OutputError);
    expect(readFileSync(f, "utf8")).toBe("mine");
  });
});
