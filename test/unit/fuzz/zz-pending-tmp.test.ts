// Replays every input saved under test/fuzz-regressions/ (by `npm run fuzz` when a case failed,
// or by hand for a bug found otherwise) against the same properties the fuzzer checked.

import { describe, expect, it } from "vitest";
import { loadSrcApi } from "../../../fuzz/api-src.js";
import { buildSimSeeds, runCase } from "../../../fuzz/engine.js";
import { loadInputs } from "../../../fuzz/regressions.js";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const { api, missing } = await loadSrcApi();
const saved = loadInputs("test/fuzz-regressions/pending");
const needsSim = saved.some((s) => s.input.target === "executor" || s.input.target === "sim-input");
const simSeeds =
  needsSim && !missing.includes("simulate")
    ? buildSimSeeds(
        api,
        readdirSync("examples")
          .filter((f) => f.endsWith(".dmac"))
          .map((f) => ({ name: f, text: readFileSync(join("examples", f), "utf8") })),
      )
    : [];

describe("saved fuzz regressions", () => {
  it("has saved inputs", () => {
    expect(saved.length).toBeGreaterThan(0);
  });
  for (const { name, input } of saved) {
    const skip =
      ((input.target === "executor" || input.target === "sim-input") &&
        missing.includes("simulate")) ||
      (input.target === "frontend" && input.viaCli && missing.includes("main"));
    it.skipIf(skip)(name, async () => {
      const failures = await runCase(api, input, simSeeds, {
        timeBoundMs: 5000,
        maxOps: 20_000,
        simulate: false,
      });
      expect(failures).toEqual([]);
    });
  }
});
