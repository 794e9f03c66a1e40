// CI mode of the fuzzers (fuzz/engine.ts): a few thousand cases with a fixed seed, against the
// TypeScript sources. Every property of fuzz/properties.ts must hold for every case; a failure
// names the case index, so `npm run fuzz -- --seed <seed> --case <index>` reproduces it.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadSrcApi } from "../../../fuzz/api-src.js";
import { runFuzz, type FuzzFailure, type FuzzTarget } from "../../../fuzz/engine.js";

const SEED = 20_261_122;
const examples = readdirSync("examples")
  .filter((f) => f.endsWith(".dmac"))
  .sort()
  .map((f) => ({ name: f, text: readFileSync(join("examples", f), "utf8") }));

const { api, missing } = await loadSrcApi();

function summary(fs: readonly FuzzFailure[]): string[] {
  return fs
    .slice(0, 10)
    .map(
      (f) =>
        `case ${f.index} (${f.input.target}): ${f.failures.map((x) => `[${x.property}] ${x.detail}`).join("; ")}`,
    );
}

async function fuzz(targets: FuzzTarget[], iterations: number, simEvery = 0) {
  return runFuzz({
    // A quarter of the executor cases are packet-level edits with a rebuilt manifest (each runs
    // a whole simulation, where most raw-dword mutants stop at validation): CI keeps its time.
    packetEdits: 0.25,
    api,
    seed: SEED,
    iterations,
    targets,
    examples,
    // Generous: CI machines are slow and shared; the long mode uses the 2 s default.
    timeBoundMs: 5000,
    simEvery,
    cliEvery: missing.includes("main") ? 0 : 100,
  });
}

describe("fuzzing, CI mode (fixed seed)", () => {
  it("front end: 1500 generated and mutated programs through check, compile and outputs", async () => {
    const s = await fuzz(["frontend"], 1500, missing.includes("simulate") ? 0 : 10);
    expect(s.cases.frontend).toBe(1500);
    expect(summary(s.failures)).toEqual([]);
  });

  it("decoder: 3000 random and mutated packet streams through decodeStream and disassemble", async () => {
    const s = await fuzz(["decoder"], 3000);
    expect(s.cases.decoder).toBe(3000);
    expect(summary(s.failures)).toEqual([]);
  });

  it.skipIf(missing.includes("simulate"))(
    "executor: 300 mutated compiled streams through simulate (verified => equivalent)",
    async () => {
      const s = await fuzz(["executor"], 300);
      expect(s.cases.executor).toBe(300);
      expect(summary(s.failures)).toEqual([]);
    },
  );

  it.skipIf(missing.includes("simulate"))(
    "sim-input: 300 mutated manifests and traces through simulate (validated first)",
    async () => {
      const s = await fuzz(["sim-input"], 300);
      expect(s.cases["sim-input"]).toBe(300);
      expect(summary(s.failures)).toEqual([]);
    },
  );

  it("the generator produces programs that compile, and ones that are rejected", async () => {
    const { generateProgram } = await import("../../../fuzz/generate.js");
    const { caseRng } = await import("../../../fuzz/rng.js");
    let ok = 0;
    let rejected = 0;
    for (let i = 0; i < 200; i++) {
      const text = generateProgram(caseRng(SEED, i));
      const q = api.compileToQueues(api.makeSourceFile("g.dmac", text), { maxOps: 20_000 });
      if (q.compiled) ok++;
      else rejected++;
    }
    expect(ok).toBeGreaterThan(25);
    expect(rejected).toBeGreaterThan(20);
  });
});
