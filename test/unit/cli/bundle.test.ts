// The bundled CLI (dist/bundle/dmac.cjs from scripts/bundle.mjs, run by bin/dmac.js through
// bin/load-bundle.js) against the compiled modules in dist/ it is made from: the same output,
// exit codes and files for a spread of command lines; its V8 code cache accepted by this Node; a
// rejected cache only slower. Needs `npm run build`.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const LOADER = join(ROOT, "bin/load-bundle.js");
const scratch = mkdtempSync(join(tmpdir(), "dmac-bundle-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Run {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `node --input-type=module -e CODE ARGS...` in the repository root. */
function nodeModule(code: string, args: readonly string[] = []): Run {
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", code, "--", ...args], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The CLI as bin/dmac.js runs it when there is no bundle: dist/ as tsc compiled it. */
const DIST_CLI = `
  const { installOutputErrorHandlers } = await import(${JSON.stringify(join(ROOT, "dist/cli/io.js"))});
  const { main } = await import(${JSON.stringify(join(ROOT, "dist/cli/main.js"))});
  installOutputErrorHandlers();
  process.exitCode = await main(["node", "dmac", ...process.argv.slice(1)]);`;

const viaDist = (args: readonly string[]): Run => nodeModule(DIST_CLI, args);
const viaBin = (args: readonly string[]): Run => {
  const r = spawnSync(process.execPath, [join(ROOT, "bin/dmac.js"), ...args], {
    cwd: ROOT,
    encoding: "utf8",
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};

/** The files of an output directory (it has no subdirectories), by name. */
const files = (dir: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [name, readFileSync(join(dir, name)).toString("base64")]),
  );

const built = existsSync(join(ROOT, "dist/bundle/dmac.cjs"));

describe.runIf(built)("the bundled CLI", () => {
  it("is what bin/dmac.js runs, with its code cache accepted", () => {
    const r = nodeModule(
      `import { bundleIsCurrent, readCodeCache, runBundle } from ${JSON.stringify(LOADER)};
       const cache = readCodeCache();
       const { script } = runBundle(cache);
       console.log(JSON.stringify([bundleIsCurrent(), cache !== undefined, script.cachedDataRejected]));`,
    );
    expect(r.stderr).toBe("");
    const [current, cached, rejected] = JSON.parse(r.stdout) as boolean[];
    expect(current, "dist/ is newer than the bundle: run `npm run build`").toBe(true);
    expect([cached, rejected]).toEqual([true, false]);
  });

  it("runs the same with a code cache V8 rejects", () => {
    const r = nodeModule(
      `import { runBundle } from ${JSON.stringify(LOADER)};
       const { cli, script } = runBundle(Buffer.alloc(4096, 7));
       let out = "";
       const code = await cli.main(["node", "dmac", "--version"], { out: (s) => (out += s), err: (s) => (out += s), isTTY: false });
       console.log(JSON.stringify([script.cachedDataRejected, code, out]));`,
    );
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout)).toEqual([true, 0, "0.1.0\n"]);
  });

  const commandLines: readonly (readonly string[])[] = [
    ["--version"],
    [],
    ["--help"],
    ["help", "compile"],
    ["sim", "--help"],
    ["chek", "x.dmac"],
    ["--bogus"],
    ["check", "examples/all_gather_pcpy.dmac"],
    ["check", "test/fuzz-regressions/frontend-679b6291.dmac"],
    ["check", "missing.dmac", "--format", "json"],
    ["ir", "examples/broadcast.dmac"],
    ["explain", "DMAC5001"],
    ["lsp", "--help"],
  ];
  for (const args of commandLines) {
    it(`dmac ${args.join(" ")}: same output and exit code as dist/`, () => {
      expect(viaBin(args)).toEqual(viaDist(args));
    });
  }

  it("dmac compile writes the same files, and dmac sim reads them the same", () => {
    const [a, b] = [join(scratch, "bin"), join(scratch, "dist")];
    const compile = (out: string) => ["compile", "examples/all_to_all_pcpy.dmac", "-O2", "-o", out];
    const fromBin = viaBin(compile(a));
    expect(fromBin).toEqual({ ...viaDist(compile(b)), status: 0 });
    expect(Object.keys(files(a))).toContain("manifest.json");
    expect(files(a)).toEqual(files(b));
    expect(viaBin(["sim", a, "--json"])).toEqual(viaDist(["sim", a, "--json"]));
  });
});
