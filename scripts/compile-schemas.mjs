// `npm run build`, after tsc and before the bundle: compiles the executor's input schemas
// (manifest, trace) to standalone validator code with ajv, dist/schema-validators.cjs. Compiling
// them at run time cost `dmac sim` ~90 ms per run (loading ajv's compiler and generating the
// code); the generated module loads in a few milliseconds (src/schemas.ts uses it when present).
// Same ajv options as src/schemas.ts, so the validators report the same errors.

import { Ajv } from "ajv";
import standalone from "ajv/dist/standalone/index.js";
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PRECOMPILED = ["manifest", "trace"];

const ajv = new Ajv({
  discriminator: true,
  allowUnionTypes: true,
  verbose: true,
  code: { source: true },
});
for (const name of ["common", ...PRECOMPILED]) {
  ajv.addSchema(JSON.parse(readFileSync(`${ROOT}schemas/${name}.schema.json`, "utf8")));
}
const toCode = standalone.default ?? standalone;
const code = toCode(ajv, Object.fromEntries(PRECOMPILED.map((n) => [n, `${n}.schema.json`])));
writeFileSync(`${ROOT}dist/schema-validators.cjs`, code);
