// The executor's input validators compiled at build time (scripts/compile-schemas.mjs ->
// dist/schema-validators.cjs, used by `dmac sim` so it does not load ajv's compiler) accept and
// reject exactly what the run-time compiled schemas do. Needs `npm run build`, like the e2e tests.

import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Ajv, type ValidateFunction } from "ajv";

const ROOT = join(import.meta.dirname, "..", "..", "..");
const FILE = join(ROOT, "dist", "schema-validators.cjs");

function runtime(name: string): ValidateFunction {
  const ajv = new Ajv({ discriminator: true, allowUnionTypes: true, verbose: true });
  for (const n of ["common", name]) {
    ajv.addSchema(JSON.parse(readFileSync(join(ROOT, "schemas", `${n}.schema.json`), "utf8")));
  }
  return ajv.getSchema(`${name}.schema.json`)!;
}

describe("precompiled executor-input validators", () => {
  it("exist after the build and agree with the schemas", () => {
    expect(existsSync(FILE)).toBe(true);
    const pre = createRequire(import.meta.url)(FILE) as Record<string, ValidateFunction>;
    const manifest = { version: 1, kind: "dmac-sdma", queues: [{ name: 7 }] };
    const trace = { version: 1, kind: "nonsense" };
    for (const [name, doc] of [
      ["manifest", manifest],
      ["trace", trace],
      ["manifest", {}],
      ["trace", []],
    ] as const) {
      const a = pre[name]!;
      const b = runtime(name);
      expect(a(doc)).toBe(b(doc));
      expect(a.errors?.[0]?.instancePath).toBe(b.errors?.[0]?.instancePath);
      expect(a.errors?.[0]?.keyword).toBe(b.errors?.[0]?.keyword);
    }
  });
});
