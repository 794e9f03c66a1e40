// `dmac sim DIR` with its helper thread (src/sim/session/helper.ts), forced on small outputs
// with DMAC_SIM_HELPER=1, against the same run without it (DMAC_SIM_HELPER=0): the same stdout,
// stderr and exit code through the bundle (bin/dmac.js) and through dist/ (a module evaluated
// with --input-type=module, whose flag the thread inherits), for a fresh sidecar, a stale one
// (manifest.json edited: read whole), a tampered one, no sidecar, a source that no longer
// compiles and --no-verify. Needs `npm run build`.

import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { allToAll } from "../../../bench/gen.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), "dmac-sim-helper-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const DIST_CLI = `
  const { main } = await import(${JSON.stringify(join(ROOT, "dist/cli/main.js"))});
  process.exitCode = await main(["node", "dmac", ...process.argv.slice(1)]);`;

type Via = "bin" | "dist";

function run(
  via: Via,
  helper: "0" | "1",
  args: readonly string[],
  env: Record<string, string> = {},
) {
  const argv =
    via === "bin"
      ? [join(ROOT, "bin/dmac.js"), ...args]
      : ["--input-type=module", "-e", DIST_CLI, "--", ...args];
  const r = spawnSync(process.execPath, argv, {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, DMAC_SIM_HELPER: helper, ...env },
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A fresh compile of an example into its own directory. */
function compiled(name: string, ...args: string[]): string {
  const dir = mkdtempSync(join(scratch, "out-"));
  const r = run("bin", "0", ["compile", join("examples", name), "-o", dir, ...args]);
  expect(r.status, r.stderr).toBe(0);
  return dir;
}

function readOrNone(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** manifest.json edited so that its sidecar's spans no longer fit (a leading space). */
function stale(dir: string): void {
  const path = join(dir, "manifest.json");
  writeFileSync(path, ` ${readFileSync(path, "utf8")}`);
}

function same(via: Via, args: readonly string[]): void {
  const without = run(via, "0", args);
  expect(run(via, "1", args)).toEqual(without);
}

describe.each<Via>(["bin", "dist"])("through %s: the same as without the thread", (via) => {
  it("a fresh sidecar, and the JSON summary", () => {
    const dir = compiled("ring_all_gather.dmac", "--sync", "conservative");
    same(via, ["sim", dir]);
    same(via, ["sim", dir, "--format", "json"]);
    same(via, ["sim", dir, "--no-verify"]);
  });

  it("the Chrome trace (-o) and a hang snapshot (--snapshot): the same files", () => {
    // A producer that never signals (as test/unit/forensics/postmortem.test.ts): a deadlock.
    const src = join(scratch, `hang-${via}.dmac`);
    writeFileSync(
      src,
      "target mi300x\nschedule hang(n: bytes = 4KiB) {\n  buffer a: n\n  buffer b: n\n" +
        "  signal go\n  copy a@0 -> b@1\n  when go@0 == 1 {\n    copy a@0 -> b@2\n  }\n" +
        "  copy b@1 -> a@3\n}\n",
    );
    const dir = mkdtempSync(join(scratch, "hang-"));
    expect(run("bin", "0", ["compile", src, "-o", dir, "--breadcrumbs"]).status).toBe(0);
    const write = (helper: "0" | "1") => {
      const trace = join(scratch, `trace-${via}-${helper}.json`);
      const snap = join(scratch, `snap-${via}-${helper}.json`);
      const r = run(via, helper, ["sim", dir, "-o", trace, "--hold-signals", "--snapshot", snap]);
      return { r, files: [trace, snap].map(readOrNone) };
    };
    const without = write("0");
    expect(without.files[1]).toContain("queues"); // (the snapshot was written)
    expect(write("1")).toEqual(without);
  });

  it("a stale sidecar (manifest.json edited), and none", () => {
    const dir = compiled("gather.dmac", "-O2");
    stale(dir);
    same(via, ["sim", dir, "--format", "json"]);
    rmSync(join(dir, "manifest.sidecar"));
    same(via, ["sim", dir]);
  });

  it("a sidecar whose arrays the JSON no longer has: not used", () => {
    // One packet start edited in the JSON's text, its length kept: the sidecar's spans still fit,
    // but its numbers are not the JSON's (sidecar-match.ts); the run is the JSON's, which no
    // longer matches the stream (DMAC6011).
    const dir = compiled("gather.dmac");
    const path = join(dir, "manifest.json");
    const text = readFileSync(path, "utf8");
    const at = text.indexOf('"packetStarts": [0, ') + '"packetStarts": [0, '.length;
    const digit = text[at]!;
    writeFileSync(path, text.slice(0, at) + (digit === "9" ? "8" : "9") + text.slice(at + 1));
    const r = run(via, "1", ["sim", dir]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/DMAC6011[\s\S]*packetStarts/);
    same(via, ["sim", dir]);
  });

  it("a tampered sidecar: DMAC6011, ignored when stale", () => {
    const dir = compiled("gather.dmac");
    const side = join(dir, "manifest.sidecar");
    const b = readFileSync(side);
    b.writeUInt32LE(77, 16); // entry 0's field code
    writeFileSync(side, b);
    const r = run(via, "1", ["sim", dir]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/manifest\.sidecar: entry 0: unknown field code 77/);
    same(via, ["sim", dir]);
    b.writeUInt32LE(99, 8); // another version: stale
    writeFileSync(side, b);
    expect(run(via, "1", ["sim", dir]).status).toBe(0);
    same(via, ["sim", dir]);
  });

  it("a source that no longer compiles: DMAC6020, the same reason", () => {
    const dir = compiled("gather.dmac");
    const src = join(scratch, `moved-${via}`);
    cpSync(dir, src, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(src, "manifest.json"), "utf8")) as {
      sourceMap: { file: string };
    };
    const source = join(src, "broken.dmac");
    writeFileSync(source, "schedule broken( {\n");
    manifest.sourceMap.file = "broken.dmac";
    writeFileSync(join(src, "manifest.json"), JSON.stringify(manifest));
    const r = run(via, "1", ["sim", src]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/DMAC6020/);
    same(via, ["sim", src]);
  });
});

describe("a thread that starts late or never", () => {
  it("started after this thread gave up waiting: the results of the run without it", () => {
    const dir = compiled("gather.dmac");
    const side = join(dir, "manifest.sidecar");
    const b = readFileSync(side);
    b.writeUInt32LE(99, 8); // a sidecar version this dmac does not read: stale
    writeFileSync(side, b);
    const without = run("bin", "0", ["sim", dir]);
    for (const delay of ["130", "160", "200"])
      expect(
        run("bin", "1", ["sim", dir], {
          DMAC_SIM_HELPER_START_MS: "100",
          DMAC_SIM_HELPER_BOOT_DELAY: delay,
        }),
      ).toEqual(without);
  });

  it("that cannot start, under a run longer than the checks' log: the checks here, no wait", () => {
    // 2 x 131,072 packets: the log's records pass its ring (check-log.ts RING_DOUBLES), so a log
    // handed to a thread that never starts would wait for room for ever. The run starts before
    // anything is taken from the thread.
    const src = join(scratch, "a2a-2048.dmac");
    writeFileSync(src, allToAll(2048));
    const dir = mkdtempSync(join(scratch, "big-"));
    expect(run("bin", "0", ["compile", src, "-o", dir]).status).toBe(0);
    const hook = join(scratch, "no-workers-big.cjs");
    writeFileSync(
      hook,
      'if (!require("node:worker_threads").isMainThread) throw new Error("no workers here");\n',
    );
    const r = run("bin", "1", ["sim", dir], {
      NODE_OPTIONS: `--require ${hook}`,
      DMAC_SIM_HELPER_START_MS: "200",
    });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^verified: /);
  });

  it("that cannot start: the same results, and its error event does not end the process", () => {
    const dir = compiled("gather.dmac");
    const hook = join(scratch, "no-workers.cjs");
    writeFileSync(
      hook,
      'if (!require("node:worker_threads").isMainThread) throw new Error("no workers here");\n',
    );
    const without = run("bin", "0", ["sim", dir]);
    const r = run("bin", "1", ["sim", dir], {
      NODE_OPTIONS: `--require ${hook}`,
      DMAC_SIM_HELPER_START_MS: "200",
    });
    expect(r).toEqual(without);
  });
});
