// Goldens of the optimiser's results (issue 13: passes rewritten for speed must give the same
// programs): every example and small instances of the bench programs at -O1 and -O2 (the full
// plan search: no time budget), each recorded as the plan chosen, the pass report and SHA-256
// digests of the queue program (its JSON) and of the SDMA outputs (manifest.json and every .bin,
// which also see what JSON does not, e.g. the source map's grouping of commands that share an op
// list). The -O0 outputs have their own goldens (test/golden.test.ts, the dumps).
// After an intended change:  npx vitest run test/unit/passes/opt-goldens.test.ts -u
// They compile with --sync aggressive: the forms the passes produce, unchanged by issue 17.

import { createHash } from "node:crypto";
import { SIDECAR_FILE } from "../../../src/backend/sdma/manifest-sidecar.js";
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { allToAll, forwardProgram, sameSourceChain } from "../../../bench/gen.js";
import { compileToQueues } from "../../../src/driver/compile.js";
import { buildOutputs } from "../../../src/driver/outputs.js";
import { outputBytes } from "../../../src/backend/output.js";
import { formatStats } from "../../../src/passes/index.js";
import { toReadable } from "../../../src/queues/readable.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { exampleText, O } from "./helpers.js";

const EXAMPLES = readdirSync(fileURLToPath(new URL("../../../examples", import.meta.url)))
  .filter((f) => f.endsWith(".dmac"))
  .sort();

const sha = (data: string | Uint8Array): string =>
  createHash("sha256").update(data).digest("hex").slice(0, 24);

function golden(name: string, text: string, level: 1 | 2) {
  const file = makeSourceFile(name, text);
  // The passes' results, in the forms they produce (--sync conservative rewrites them after).
  const q = compileToQueues(file, {
    passes: O(level),
    sync: "aggressive",
  });
  if (!q.compiled) throw new Error(q.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  const out = buildOutputs(file, q.compiled, { emit: ["sdma"] });
  if (!out.files) throw new Error(out.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  const outputs = createHash("sha256");
  // (Not manifest.sidecar: a copy of manifest.json's arrays, pinned by test/results.)
  for (const f of out.files)
    if (f.name !== SIDECAR_FILE) outputs.update(f.name).update(outputBytes(f));
  const r = q.compiled.optimised!;
  return {
    plan: r.plan?.chosen.label ?? null,
    levelCheck: r.levelCheck?.note ?? null,
    stats: formatStats(r.stats).split("\n"),
    commands: q.compiled.program.queues.reduce((a, x) => a + x.cmds.length, 0),
    program: sha(JSON.stringify(toReadable(q.compiled.program))),
    outputs: outputs.digest("hex").slice(0, 24),
  };
}

const BENCH: [string, string][] = [
  ["all-to-all x 16 chunks", allToAll(16)],
  ["forward 1024 ops", forwardProgram(1024)],
  ["same-source chain 256 ops", sameSourceChain(256)],
];

describe("optimiser goldens", () => {
  for (const level of [1, 2] as const) {
    for (const ex of EXAMPLES)
      it(`examples/${ex} -O${level}`, () => {
        expect(golden(`examples/${ex}`, exampleText(ex), level)).toMatchSnapshot();
      });
    for (const [name, text] of BENCH)
      it(`${name} -O${level}`, () => {
        expect(golden(name, text, level)).toMatchSnapshot();
      }, 60_000);
  }
});
