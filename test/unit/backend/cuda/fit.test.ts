// Fitting a CUDA target (src/backend/cuda/fit.ts): the NVLink bandwidth is fittable when the
// target gives it a range, constants the runs do not constrain keep their value and source, and
// targets/h200.json predicts the peer tables it was fitted on (fit-peer.test.ts, in the slow
// suite, refits the 2x H200 peer run).

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cudaFitBounds, withValues } from "../../../../src/backend/cuda/fit.js";
import { cudaOf, parseCudaTarget } from "../../../../src/target/cuda-target.js";
import { dmac } from "../../../helpers/cli.js";

const DIR = "bench/hardware/2026-11-24-h200x2";
const X4 = "bench/hardware/2026-11-27-h200x4";
const raw = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;

describe("fitting a CUDA target", () => {
  it("nvlink.perDirectionGBps is fittable within nvlink.fit; without a range it is not", () => {
    const t = parseCudaTarget(raw(`${DIR}/target.json`), "target.json");
    const peer = cudaFitBounds(t).find((b) => b.name === "peerGBps");
    expect(peer).toEqual({ name: "peerGBps", value: 450, min: 150, max: 450 });
    const json = raw(`${DIR}/target.json`);
    const nvlink = json["nvlink"] as Record<string, unknown>;
    delete nvlink["fit"];
    const none = parseCudaTarget(json, "x");
    expect(cudaFitBounds(none).map((b) => b.name)).not.toContain("peerGBps");
    expect(withValues(cudaOf(t)!, ["peerGBps"], [380]).peerGBps).toBe(380);
  });

  it("a fit range must hold the value", () => {
    const json = raw(`${DIR}/target.json`);
    (json["nvlink"] as Record<string, unknown>)["fit"] = { min: 100, max: 400 };
    expect(() => parseCudaTarget(json, "t.json")).toThrow(/nvlink\.fit.*min <= value <= max/);
    const timing = raw(`${DIR}/target.json`);
    const launch = (timing["timing"] as Record<string, Record<string, unknown>>)["launchUs"]!;
    launch["fit"] = { min: 0 };
    expect(() => parseCudaTarget(timing, "t.json")).toThrow(/timing\.launchUs\.fit/);
  });

  it("nvlink.topology is switch (the default) or full-mesh; portGBps is positive", () => {
    const json = raw(`${DIR}/target.json`);
    expect(cudaOf(parseCudaTarget(json, "t.json"))!.fabric.topology).toBe("switch");
    const nvlink = json["nvlink"] as Record<string, unknown>;
    nvlink["topology"] = "ring";
    expect(() => parseCudaTarget(json, "t.json")).toThrow(/nvlink\.topology' must be one of/);
    nvlink["topology"] = "full-mesh";
    nvlink["portGBps"] = 0;
    expect(() => parseCudaTarget(json, "t.json")).toThrow(/nvlink\.portGBps' must be positive/);
  });

  it("an optional timing constant left out takes its stand-in", () => {
    const t = cudaOf(parseCudaTarget(raw(`${DIR}/target.json`), "t.json"))!;
    expect(t.timing.hostGpuUs).toBe(0);
    expect(t.timing.copyNextUs).toBe(t.timing.copyStartUs);
    const json = raw(`${DIR}/target.json`);
    (json["timing"] as Record<string, unknown>)["hostGpuUs"] = { value: -1, source: "x" };
    expect(() => parseCudaTarget(json, "t.json")).toThrow(/timing\.hostGpuUs\.value/);
  });

  it("targets/h200.json's joint fit predicts the 2-GPU and 4-GPU peer tables within 10 % (median)", async () => {
    const json = raw("targets/h200.json");
    const src = (json["timing"] as Record<string, { source: string }>)["launchUs"]!.source;
    expect(src).toMatch(/fit-cuda\.mjs.*4x H200.*2x H200.*host copies/);
    const dir = mkdtempSync(join(tmpdir(), "dmac-h200-"));
    const tables = [
      [2, `${DIR}/results.json`, "runtime/cuda/variants-peer.tsv", "examples"],
      [4, `${X4}/fit-run/rep1/results.json`, `${X4}/variants.tsv`, `${X4}/schedules`],
    ] as const;
    for (const [gpus, measured, variants, examples] of tables) {
      const target = join(dir, `h200x${gpus}.json`);
      writeFileSync(target, JSON.stringify({ ...json, gpus }));
      // -O2's rows measured the programs of the plan of their day: where today's plan makes
      // another program (the order judged with prelaunch), measure refuses them (DMAC5050).
      const doc = raw(measured) as { runs: { variant: string }[] };
      const results = join(dir, `results-${gpus}.json`);
      writeFileSync(
        results,
        JSON.stringify({ ...doc, runs: doc.runs.filter((r) => r.variant !== "O2") }),
      );
      const r = await dmac(
        ...["measure", results, "--target", target, "--variants", variants],
        ...["--examples", examples],
      );
      expect(r.code).toBe(0);
      const m = /all sizes: median error ([0-9.]+)%/.exec(r.out);
      expect(Number(m?.[1]), `${gpus} GPUs`).toBeLessThanOrEqual(10);
    }
  });
});
