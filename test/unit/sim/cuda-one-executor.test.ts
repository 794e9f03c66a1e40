// A CUDA command program's time in the executor (execute(): from-cuda.ts, copy-engines.ts,
// host.ts) equals cuda-exec's, the model it replaces, to 1e-9 relative: every example on h100,
// h200 and the fitted 4-GPU H200 target, at -O0/-O1/-O2, with and without --prelaunch.

import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { compileForSim } from "../../../src/driver/compile-for-sim.js";
import { parseOptOptions } from "../../../src/options/opt-options.js";
import { runCuda } from "../../../src/sim/cuda-exec.js";
import { timeCuda } from "../../../src/sim/cuda-time.js";
import { simulate } from "../../../src/sim/run.js";
import { cudaOf } from "../../../src/target/cuda-target.js";
import { builtinTarget, loadTargetFile, type Target } from "../../../src/target/target.js";

const dir = fileURLToPath(new URL("../../../examples/", import.meta.url));
const FITTED = fileURLToPath(
  new URL("../../../bench/hardware/2026-11-27-h200x4/target.fitted.json", import.meta.url),
);

const targets: [string, Target][] = [
  ["h100", builtinTarget("h100")!],
  ["h200", builtinTarget("h200")!],
  ["h200x4 fitted", loadTargetFile(FITTED)],
];

describe("one executor for CUDA command programs", () => {
  it.each(targets)("times every example on %s as cuda-exec does", (_, target) => {
    const t = cudaOf(target)!;
    let compared = 0;
    const misses: string[] = [];
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".dmac"))) {
      const text = readFileSync(dir + f, "utf8");
      for (const level of ["0", "1", "2"])
        for (const prelaunch of [false, true]) {
          const o = parseOptOptions({ opt: level, prelaunch }, target);
          const c = compileForSim(
            dir + f,
            text,
            {},
            {
              target,
              passes: o.passes,
              completion: o.protocol,
              sync: o.sync,
            },
          );
          const input = c.loaded?.input;
          if (!input || !("cuda" in input)) continue;
          const want = runCuda(input.cuda, t);
          if (!want.ok) throw new Error(`${f} -O${level}: ${want.why}`);
          const got = timeCuda(input.cuda, t);
          const sim = simulate(input, { target });
          const what = `${f} -O${level}${prelaunch ? " --prelaunch" : ""}`;
          for (const [how, us] of [
            ["timeCuda", got],
            ["dmac sim", sim.stats.totalUs],
          ] as const)
            if (us === undefined || Math.abs(us - want.timeUs) > 1e-9 * want.timeUs)
              misses.push(`${what} (${how}): ${us} against ${want.timeUs}`);
          expect(sim.verified, what).toBe(true);
          expect(sim.stats.hostSubmitUs, what).toBeCloseTo(want.hostSubmitUs, 9);
          compared++;
        }
    }
    expect(misses).toEqual([]);
    expect(compared).toBeGreaterThanOrEqual(30);
  });
});
