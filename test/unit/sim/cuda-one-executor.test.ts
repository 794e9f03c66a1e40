// A CUDA command program's time in the executor (execute(): from-cuda.ts, copy-engines.ts,
// host.ts) equals the time of cuda-exec, the separate event loop it replaced, to 1e-9 relative:
// every example on h100, h200 and the fitted 4-GPU H200 target, at -O0/-O1/-O2, with and without
// --prelaunch. golden/cuda-exec-times.json holds cuda-exec's times (and host submission), made
// by it (commit 64b093f, where both ran and this test compared them live) before it was deleted,
// for the targets of that commit (golden/*-at-64b093f.json). The programs are built as they were
// then: batches wherever batch-copies runs (-O2 now also weighs one call per copy, and emits that
// where it is predicted faster: the broadcast on the fitted 4-GPU target).

import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { buildCudaProgram } from "../../../src/backend/cuda/program.js";
import { cudaBatches, compileToQueues } from "../../../src/driver/compile.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { parseOptOptions } from "../../../src/options/opt-options.js";
import { timeCuda } from "../../../src/sim/cuda-time.js";
import { simulate } from "../../../src/sim/run.js";
import { cudaOf } from "../../../src/target/cuda-target.js";
import { loadTargetFile, type Target } from "../../../src/target/target.js";

const dir = fileURLToPath(new URL("../../../examples/", import.meta.url));
const FITTED = fileURLToPath(
  new URL("../../../bench/hardware/2026-11-27-h200x4/target.fitted.json", import.meta.url),
);
const recorded = JSON.parse(
  readFileSync(new URL("golden/cuda-exec-times.json", import.meta.url), "utf8"),
) as Record<string, [number, number]>;

// The targets as they were when cuda-exec recorded its times (later refits change the times).
const frozen = (name: string): Target =>
  loadTargetFile(fileURLToPath(new URL(`golden/${name}-at-64b093f.json`, import.meta.url)));
const targets: [string, Target][] = [
  ["h100", frozen("h100")],
  ["h200", frozen("h200")],
  ["h200x4-fitted", loadTargetFile(FITTED)],
];

describe("one executor for CUDA command programs", () => {
  it.each(targets)("times every example on %s as cuda-exec did", (name, target) => {
    const t = cudaOf(target)!;
    const misses: string[] = [];
    const seen: string[] = [];
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".dmac"))) {
      const text = readFileSync(dir + f, "utf8");
      for (const level of ["0", "1", "2"])
        for (const prelaunch of [false, true]) {
          const o = parseOptOptions({ opt: level, prelaunch }, target);
          const file = makeSourceFile(dir + f, text);
          const q = compileToQueues(file, {
            targetOverride: target,
            passes: o.passes,
            completion: o.protocol,
            sync: o.sync,
          }).compiled;
          if (!q) continue;
          const { module } = q;
          const built = buildCudaProgram(module, q.program, file, {
            batch: cudaBatches(o.passes),
          });
          if (!built.program) continue;
          const input = { cuda: built.program, ops: built.ops, module };
          const what = `${name} ${f} -O${level}${prelaunch ? " --prelaunch" : ""}`;
          seen.push(what);
          const [want, submitted] = recorded[what] ?? [NaN, NaN];
          const sim = simulate(input, { target });
          const times = [
            ["timeCuda", timeCuda(input.cuda, t)],
            ["dmac sim", sim.stats.totalUs],
            ["dmac sim's host submission", sim.stats.hostSubmitUs],
          ] as const;
          for (const [how, us] of times) {
            const ref = how.endsWith("submission") ? submitted : want;
            if (us === undefined || !(Math.abs(us - ref) <= 1e-9 * ref))
              misses.push(`${what} (${how}): ${us} against ${ref}`);
          }
          expect(sim.verified, what).toBe(true);
        }
    }
    expect(misses).toEqual([]);
    const all = Object.keys(recorded).filter((k) => k.startsWith(`${name} `));
    expect(seen.sort()).toEqual(all.sort());
  });
});
