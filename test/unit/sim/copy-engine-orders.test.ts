// Streams of one GPU that ask for its copy engine at the same instant (copy-engines.ts): the
// engine serves one at a time, in an order that changes from one iteration to the next, and the
// prediction is the median over the target's engineOrderRuns pseudo-random orders. Measured
// (docs/model.md, "Fabric"): one stream per peer, prelaunched (pcpy+pl), ascending destinations,
// all-gather on 4x H200 at 256 MiB per rank 789 us and 1 GiB 3177-3970 us, where the fixed
// (ascending) order predicts 1045 and 4113; the host submitting the same copies one call after
// another (pcpy) took the ascending order's 4249 us at 1 GiB.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { CudaProgram } from "../../../src/backend/cuda/program.js";
import { compileRun } from "../../../src/driver/measured-run.js";
import { medianOrderRun, timeCuda } from "../../../src/sim/cuda-time.js";
import { simulate } from "../../../src/sim/run.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { cudaOf } from "../../../src/target/cuda-target.js";
import { parseTarget, type Target } from "../../../src/target/target.js";

const MiB = 1 << 20;
const schedules = new URL("../../../bench/hardware/2026-11-27-h200x4/schedules/", import.meta.url);
const source = (name: string) =>
  makeSourceFile(`${name}.dmac`, readFileSync(new URL(`${name}.dmac`, schedules), "utf8"));

/** targets/h200.json with `gpus` 4; `runs`: its engineOrderRuns (undefined: as the file says). */
function h200x4(runs?: number): Target {
  const url = new URL("../../../targets/h200.json", import.meta.url);
  const json = JSON.parse(readFileSync(url, "utf8")) as Record<string, unknown>;
  json["gpus"] = 4;
  const timing = json["timing"] as Record<string, unknown>;
  if (runs === 0) delete timing["engineOrderRuns"];
  else if (runs !== undefined) timing["engineOrderRuns"] = { value: runs, source: "test" };
  return parseTarget(json, "h200x4.json");
}

function program(name: string, words: string, t: Target, bytes = 256 * MiB): CudaProgram {
  const r = compileRun(source(name), words.split(" "), bytes, t);
  if (!r.program) throw new Error(r.diagnostics.map((d) => d.message).join("; "));
  return r.program;
}

const time = (p: CudaProgram, t: Target) => timeCuda(p, cudaOf(t)!)!;

describe("copy engine order among tied streams", () => {
  const on = h200x4();
  const off = h200x4(0);
  const pcpyPl = "-O0 --prelaunch --size-define chunk/4";

  it("the builtin targets draw orders (31 runs); a file without the key keeps the fixed order", () => {
    expect(cudaOf(on)!.timing.engineOrderRuns).toBe(31);
    expect(cudaOf(off)!.timing.engineOrderRuns).toBe(0);
  });

  it("pcpy+pl at 256 MiB is predicted at 5 of the fixed order's 6 copy-times", () => {
    const fixed = time(program("all_gather_pcpy", pcpyPl, off), off);
    const drawn = time(program("all_gather_pcpy", pcpyPl, on), on);
    const rot = time(program("all_gather_b2b_rot", pcpyPl, on), on);
    // rotated: 3 copy-times; ascending: 6; the median over orders: 5 (measured 789-1058 us).
    const copy = (fixed - rot) / 3;
    expect(Math.abs((fixed - drawn) / copy - 1)).toBeLessThan(0.1);
    expect(drawn / fixed).toBeGreaterThan(0.8);
    expect(drawn / fixed).toBeLessThan(0.88);
  });

  it("program order does not matter where the streams tie", () => {
    const asc = time(program("all_to_all_pcpy", pcpyPl, on), on);
    const rot = time(program("all_to_all_pcpy_rot", pcpyPl, on), on);
    expect(rot / asc).toBeCloseTo(1, 1);
  });

  it("copies the host submits one call after another keep their order (first to ask first)", () => {
    const w = "-O0 --size-define chunk/4";
    const drawn = time(program("all_gather_pcpy", w, on), on);
    const fixed = time(program("all_gather_pcpy", w, off), off);
    expect(drawn).toBeCloseTo(fixed, 3);
  });

  it("is deterministic, and one stream per GPU is timed by one run", () => {
    const p = program("all_gather_pcpy", pcpyPl, on);
    expect(time(p, on)).toBe(time(program("all_gather_pcpy", pcpyPl, on), on));
    const oneStream = program("all_gather_b2b", "-O1 --prelaunch --size-define chunk/4", on);
    expect(medianOrderRun(oneStream, cudaOf(on)!)!.run).toBe(0);
  });

  it("dmac sim runs the median run: its time is program.json's prediction", () => {
    const p = program("all_gather_pcpy", pcpyPl, on);
    const r = simulate({ cuda: p }, { target: on });
    expect(r.diagnostics).toEqual([]);
    expect(r.stats!.totalUs).toBe(time(p, on));
  });

  it("rejects a run count that is not a whole number", () => {
    expect(() => h200x4(2.5)).toThrow(/engineOrderRuns.*whole number/);
  });
});
