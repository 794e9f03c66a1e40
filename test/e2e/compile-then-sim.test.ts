// End to end through the CLI, the way a user checks emitted packets: `dmac compile` every example
// into a directory, then `dmac sim DIR` runs the written .bin streams against the manifest and
// `dmac sim DIR/trace.json` the command trace; the postcondition is re-derived from the source
// each names and must hold.

import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { example, runCli } from "../helpers/cli.js";

const examples = readdirSync("examples")
  .filter((f) => f.endsWith(".dmac"))
  .sort();
const out = mkdtempSync(join(tmpdir(), "dmac-compile-sim-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("compile, then sim the written packets", () => {
  for (const f of examples) {
    it(f, async () => {
      const dir = join(out, f);
      for (const level of ["0", "2"]) {
        const compiled = await runCli([
          "compile",
          example(f),
          "-o",
          dir,
          "-O",
          level,
          "--emit",
          "sdma,trace",
        ]);
        expect(compiled.err).toBe("");
        expect(compiled.code).toBe(0);
        // The packet streams (through the manifest) and the command trace.
        for (const input of [dir, join(dir, "trace.json")]) {
          const sim = await runCli(["sim", input, "--json"]);
          expect(sim.code).toBe(0);
          const summary = JSON.parse(sim.out) as { verified: boolean; postcondition: string };
          expect([summary.verified, summary.postcondition]).toEqual([true, "holds"]);
        }
      }
    });
  }
});
