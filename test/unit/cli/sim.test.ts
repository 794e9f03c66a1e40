// `dmac sim` with the optimiser's options and with several inputs, and the grouped summary.

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli as run } from "../../helpers/cli.js";
import { spread } from "../../../src/sim/summary.js";

const A2A = "examples/all_to_all_pcpy_local.dmac";

interface SimJson {
  readonly verified: boolean;
  readonly totalUs: number;
  readonly packets: number;
  readonly engines: readonly unknown[];
  readonly links: readonly unknown[];
  readonly plan?: { chosen: string; predictedUs: number; candidates: unknown[] };
}

describe("dmac sim with optimiser options", () => {
  it("accepts -O2: the plan is faster than -O0, --json carries it, --explain-plan prints it", async () => {
    const o0 = JSON.parse((await run(["sim", A2A, "--json"])).out) as SimJson;
    const r2 = await run(["sim", A2A, "-O2", "--json"]);
    expect(r2.code).toBe(0);
    const o2 = JSON.parse(r2.out) as SimJson;
    expect(o2.verified).toBe(true);
    expect(o2.totalUs).toBeLessThan(o0.totalUs);
    expect(o2.plan?.chosen).toMatch(/completion per-queue/);
    expect(o2.plan?.predictedUs).toBeCloseTo(o2.totalUs, 6);
    expect(o2.plan?.candidates.length).toBeGreaterThan(1);
    expect(o0.plan).toBeUndefined();
    const text = await run(["sim", A2A, "-O2", "--explain-plan"]);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/^plan: .*predicted/);
    expect(text.out).toMatch(/\nverified: /);
  });

  it("-O1, --engines, --prelaunch and --completion change the program run", async () => {
    const time = async (...args: string[]): Promise<SimJson> =>
      JSON.parse((await run(["sim", A2A, "--json", ...args])).out) as SimJson;
    const base = await time();
    const o1 = await time("-O1");
    const pre = await time("--prelaunch");
    const single = await time("-O1", "--engines", "single");
    const perQueue = await time("--completion", "per-queue");
    for (const r of [o1, pre, single, perQueue]) expect(r.verified).toBe(true);
    expect(o1.totalUs).toBeLessThanOrEqual(base.totalUs);
    expect(pre.totalUs).toBeLessThan(base.totalUs);
    expect(single.engines.length).toBe(8);
    expect(base.engines.length).toBeGreaterThan(8);
    expect(perQueue.packets).toBeLessThan(base.packets);
  });

  it("rejects bad optimiser options and options for already compiled inputs", async () => {
    const bad = await run(["sim", A2A, "-O3", "--format", "concise"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/DMAC5004.*-O/);
    const dir = join(mkdtempSync(join(tmpdir(), "dmac-simopt-")), "out");
    expect((await run(["compile", A2A, "-o", dir])).code).toBe(0);
    const compiled = await run(["sim", dir, "-O2", "--format", "concise"]);
    expect(compiled.code).toBe(1);
    expect(compiled.err).toMatch(/DMAC5004.*already compiled/);
    expect((await run(["sim", dir])).code).toBe(0);
  });
});

describe("dmac sim with several inputs", () => {
  it("prints one line per input and exits 0 when all verify", async () => {
    const r = await run(["sim", "examples/all_gather_pcpy.dmac", "examples/gather.dmac", "-O1"]);
    expect(r.code).toBe(0);
    const lines = r.out.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^examples\/all_gather_pcpy\.dmac\s+[\d.]+ µs\s+[\d.]+ GB\/s busbw\s+verified$/,
    );
    expect(lines[1]).toMatch(/^examples\/gather\.dmac\s+[\d.]+ µs .* verified$/);
  });

  it("exits 1 and names the first problem of each failing input", async () => {
    // The watchdog stops the 31 us all-gather; the 16 us gather finishes in time.
    const r = await run([
      "sim",
      "examples/all_gather_pcpy.dmac",
      "examples/gather.dmac",
      "examples/missing.dmac",
      "--max-sim-time",
      "20",
    ]);
    expect(r.code).toBe(1);
    const lines = r.out.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/all_gather_pcpy\.dmac .*FAILED\s+DMAC6008 watchdog/);
    expect(lines[1]).toMatch(/gather\.dmac .*verified$/);
    expect(lines[2]).toMatch(/missing\.dmac .*FAILED\s+DMAC5001 /);
  });

  it("--json gives one complete object per input; --trace needs a single input", async () => {
    const r = await run(["sim", "examples/scatter.dmac", "examples/gather.dmac", "--json"]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out) as (SimJson & { input: string })[];
    expect(j.map((x) => [x.input, x.verified])).toEqual([
      ["examples/scatter.dmac", true],
      ["examples/gather.dmac", true],
    ]);
    expect(j[0]!.links.length).toBeGreaterThan(0);
    const t = await run([
      "sim",
      "examples/scatter.dmac",
      "examples/gather.dmac",
      "--trace",
      "x.json",
    ]);
    expect(t.code).toBe(1);
    expect(t.err).toMatch(/DMAC5004/);
  });
});

describe("the single-input summary", () => {
  it("groups engines and links on an 8-GPU node; --verbose lists each", async () => {
    const short = await run(["sim", A2A]);
    const long = await run(["sim", A2A, "--verbose"]);
    expect(short.code).toBe(0);
    expect(short.out).toMatch(/engines\s+\d+ queues on 8 GPUs/);
    expect(short.out).toMatch(/\n  median\s+[\d.]+ µs/);
    expect(short.out).toMatch(/\n  busiest\n    gpu\d\.sdma\d+ /);
    expect(short.out).toMatch(/links\s+56 links carry/);
    expect(short.out).not.toMatch(/gpu7->gpu6/);
    expect(short.out.split("\n").length).toBeLessThan(30);
    expect(long.out).toMatch(/gpu7->gpu6/);
    expect(long.out).toMatch(/gpu7\.sdma14/);
    expect(long.out.split("\n").length).toBeGreaterThan(112);
  });

  it("spread gives min, median and max", () => {
    expect(spread([3, 1, 2])).toEqual({ min: 1, median: 2, max: 3 });
    expect(spread([4, 1, 3, 2])).toEqual({ min: 1, median: 2.5, max: 4 });
  });
});
