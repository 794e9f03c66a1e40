// Regression guard for start-up cost (issue 13): `dmac check` of a small example, run as a user
// runs it (bin/dmac.js, which runs the bundled CLI in dist/bundle/ with its V8 code cache), against
// `node -e 0`, alternated in pairs within one run. The target is <= 2x (measured by
// `node bench/run.js --only startup`: ~1.85x CPU); this guard allows 3x and compares CPU time
// (user + system, from bench/usage-at-exit.js), which the other jobs on the shared machine disturb
// much less than wall time. It fails when start-up regresses, e.g. a command module or a compiler
// phase that `check` does not need is imported eagerly again (then the ratio was ~3.5). Needs
// `npm run build`; test/unit/cli/bundle.test.ts checks that the code cache is accepted.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PAIRS = 10;
const MAX_RATIO = 3;

function cpuMs(args: readonly string[]): number {
  const r = spawnSync(process.execPath, ["--import", "./bench/usage-at-exit.js", ...args], {
    cwd: ROOT,
    encoding: "utf8",
  });
  const usage = JSON.parse(r.stderr.trim().split("\n").at(-1)!) as { code: number; cpuMs: number };
  expect(usage.code, r.stderr).toBe(0);
  return usage.cpuMs;
}

const median = (xs: readonly number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;

describe("start-up", () => {
  it(`dmac check costs at most ${MAX_RATIO}x node -e 0 (CPU, median of ${PAIRS} pairs)`, () => {
    expect(existsSync(`${ROOT}dist/bundle/dmac.cjs`), "run `npm run build` first").toBe(true);
    const node: number[] = [];
    const check: number[] = [];
    for (let i = 0; i <= PAIRS; i++) {
      const n = cpuMs(["-e", "0"]);
      const c = cpuMs(["bin/dmac.js", "check", "examples/all_gather_pcpy.dmac"]);
      if (i === 0) continue; // warm-up: file cache
      node.push(n);
      check.push(c);
    }
    const ratio = median(check) / median(node);
    expect(ratio, `check ${median(check)} ms, node ${median(node)} ms`).toBeLessThanOrEqual(
      MAX_RATIO,
    );
  });
});
