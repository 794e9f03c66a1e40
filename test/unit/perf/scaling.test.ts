// Regression guard for per-operation cost (issue 7): the compile pipeline after parsing
// (instantiate + infer deps + verify + lower -O0 + layout + SDMA emission) runs on the same
// generated program at two sizes within one run, and the per-operation cost ratio large/small is
// compared with the committed baseline ratio in bench/baseline.json. A ratio within one run
// cancels the machine's speed and most of its load; the guard fails when the ratio grows more
// than 3x over the baseline, i.e. when something went superlinear. Sizes are CI-sized (seconds).
// Re-measure the baseline (after an intended change) with
//   DMAC_UPDATE_BASELINE=1 npx vitest run test/unit/perf
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { forwardProgram } from "../../../bench/gen.js";
import { emitSdma } from "../../../src/backend/sdma/emit.js";
import { DEFAULT_LAYOUT, layoutProgram } from "../../../src/backend/sdma/layout.js";
import { checkSource } from "../../../src/check/check-source.js";
import { selectSchedule } from "../../../src/check/select-schedule.js";
import { inferDeps } from "../../../src/ir/deps.js";
import { instantiate } from "../../../src/ir/instantiate.js";
import { verifyModule } from "../../../src/ir/verify.js";
import { lowerToQueues } from "../../../src/queues/lower.js";
import { makeSourceFile } from "../../../src/source/source-file.js";

const BASELINE = new URL("../../../bench/baseline.json", import.meta.url);
const SMALL = 20_000;
const LARGE = 200_000;
const ALLOWED_GROWTH = 3;

interface Baseline {
  readonly scaling: { readonly small: number; readonly large: number; readonly ratio: number };
}

/** CPU time of this process (user + system, all threads) in ms: unlike wall time, it does not
 * count the time the machine's other jobs had the cores, which swung the wall-clock ratio 0.25-2
 * on the shared 2-core machine. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** CPU milliseconds for the phases after parsing, and a count that proves the work was done. */
function compileOnce(ops: number): { ms: number; packets: number } {
  const file = makeSourceFile(`forward-${ops}.dmac`, forwardProgram(ops));
  const checked = checkSource(file, { defines: {} });
  const schedule = selectSchedule(checked.schedules, undefined).schedule;
  if (!schedule) throw new Error(checked.diagnostics.map((d) => d.message).join("\n"));
  const t0 = cpuMs();
  const inst = instantiate(schedule, { maxOps: 4_000_000 });
  if (!inst.module) throw new Error(inst.diagnostics.map((d) => d.message).join("\n"));
  const m = inferDeps(inst.module);
  const errors = verifyModule(m, file).filter((d) => d.severity === "error");
  const p = lowerToQueues(m, schedule.target, { completion: "atomic" });
  const layout = layoutProgram(m, p, file, DEFAULT_LAYOUT).layout;
  if (!layout) throw new Error("layout failed");
  const e = emitSdma(p, m, layout, file, {});
  const ms = cpuMs() - t0;
  expect(errors).toEqual([]);
  expect(m.ops.count).toBe(ops);
  return { ms, packets: e.queues.reduce((a, q) => a + q.packetCount, 0) };
}

describe("per-operation cost does not grow with program size", () => {
  it(`${SMALL} vs ${LARGE} operations, against bench/baseline.json`, () => {
    // Warm-up (JIT tiers, caches), then the fastest of three small and of two large runs: the
    // minimum is the least disturbed measurement on a busy machine.
    compileOnce(SMALL);
    compileOnce(SMALL);
    const small = Math.min(compileOnce(SMALL).ms, compileOnce(SMALL).ms, compileOnce(SMALL).ms);
    const large1 = compileOnce(LARGE);
    const large2 = compileOnce(LARGE);
    const large = large1.ms <= large2.ms ? large1 : large2;
    // Every op is a copy plus its completion, and half of them also a progress signal or poll.
    expect(large.packets).toBe(3 * LARGE);
    const ratio = large.ms / LARGE / (small / SMALL);
    console.log(
      `per-op cost: ${((1000 * small) / SMALL).toFixed(2)} us at ${SMALL}, ` +
        `${((1000 * large.ms) / LARGE).toFixed(2)} us at ${LARGE}: ratio ${ratio.toFixed(2)}`,
    );
    if (process.env["DMAC_UPDATE_BASELINE"]) {
      const b: Baseline = {
        scaling: { small: SMALL, large: LARGE, ratio: Number(ratio.toFixed(3)) },
      };
      writeFileSync(BASELINE, JSON.stringify(b, null, 2) + "\n");
      return;
    }
    const base = (JSON.parse(readFileSync(BASELINE, "utf8")) as Baseline).scaling;
    expect([base.small, base.large]).toEqual([SMALL, LARGE]);
    expect(ratio).toBeLessThanOrEqual(ALLOWED_GROWTH * base.ratio);
  }, 120_000);
});
