// passesKeepLowering: the option sets it accepts really leave the -O0 lowering unchanged (so
// `dmac compile -O0` may skip the pass run), and it refuses every option set that runs a pass
// other than engine-assign with the affinity map.

import { toReadable } from "../../../src/queues/readable.js";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { compileToQueues } from "../../../src/driver/compile.js";
import { passesKeepLowering } from "../../../src/passes/index.js";
import { parsePassOptions } from "../../../src/passes/options.js";
import type { PassOptions } from "../../../src/passes/pass.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { exampleText, O } from "./helpers.js";

const examples = readdirSync(fileURLToPath(new URL("../../../examples", import.meta.url))).filter(
  (f) => f.endsWith(".dmac"),
);
const examplesDir = fileURLToPath(new URL("../../../examples", import.meta.url));

describe("passesKeepLowering", () => {
  it("accepts the CLI's -O0 defaults and per-op completions", () => {
    expect(passesKeepLowering(parsePassOptions({}).options!)).toBe(true);
    expect(passesKeepLowering(parsePassOptions({ opt: "0", completion: "per-op" }).options!)).toBe(
      true,
    );
  });

  it("refuses options that run another pass, another strategy or a dump", () => {
    const refused: PassOptions[] = [
      O(1),
      O(2),
      O(0, { completion: "per-queue" }),
      O(0, { prelaunch: true }),
      O(0, { engines: { kind: "spread", k: 2 } }),
      O(0, { engines: { kind: "single", engines: [] } }),
      O(0, { dumpAfter: ["engine-assign"] }),
      O(0, { enable: { "sync-elision": true } }),
    ];
    for (const o of refused) expect(passesKeepLowering(o), JSON.stringify(o)).toBe(false);
  });

  for (const name of examples)
    for (const completion of ["atomic", "fence"] as const)
      it(`${name} (${completion}): the -O0 pass run returns the lowering unchanged`, () => {
        const options = parsePassOptions({}).options!;
        expect(passesKeepLowering(options)).toBe(true);
        const text = exampleText(name);
        const lowered = compileToQueues(makeSourceFile(name, text), {
          baseDir: examplesDir,
          completion,
        });
        const passed = compileToQueues(makeSourceFile(name, text), {
          baseDir: examplesDir,
          completion,
          passes: options,
        });
        expect(lowered.compiled).toBeDefined();
        expect(toReadable(passed.compiled!.program)).toEqual(toReadable(lowered.compiled!.program));
      });
});
