// Runs the bundled CLI, dist/bundle/dmac.cjs (built by scripts/bundle.mjs), with the V8 code
// cache stored beside it, so that a `dmac` start compiles almost nothing
// (docs/design-decisions.md, "Build and packaging"; docs/performance.md, step 21).
//
// The bundle is one CommonJS script compiled through vm.Script, because Node 20 has no code cache
// for ES modules. The cache is only valid for the exact text it was made from, so the bundle is
// wrapped here and nowhere else: scripts/bundle.mjs makes the cache through runBundle() too.
// V8 rejects a cache made by another V8 version or with other V8 flags
// (`script.cachedDataRejected`); the script is then compiled as usual, a little slower.

import { readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";

export const BUNDLE = fileURLToPath(new URL("../dist/bundle/dmac.cjs", import.meta.url));
export const CODE_CACHE = `${BUNDLE}.cache`;
/** A file that `tsc` rewrites on every build: a bundle older than it is stale. */
const TSC_OUTPUT = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

/**
 * Whether there is a bundle built from the current dist/: `npm run build` makes both, in that
 * order; a tsc-only build (or a checkout without the bundle) runs dist/ as compiled.
 */
export function bundleIsCurrent() {
  const bundle = statSync(BUNDLE, { throwIfNoEntry: false });
  const tsc = statSync(TSC_OUTPUT, { throwIfNoEntry: false });
  return bundle !== undefined && (tsc === undefined || bundle.mtimeMs >= tsc.mtimeMs);
}

/** The code cache's bytes, or undefined when there is none. */
export function readCodeCache() {
  try {
    return readFileSync(CODE_CACHE);
  } catch {
    return undefined;
  }
}

/**
 * Compiles and runs the bundle (with `cachedData` when given) as Node runs a CommonJS module;
 * returns its exports (`main`, `installOutputErrorHandlers`) and the compiled script.
 */
export function runBundle(cachedData) {
  // The bundle is ASCII (esbuild escapes the rest), so latin1 reads it unchanged, and faster.
  const source = readFileSync(BUNDLE, "latin1");
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
    { filename: BUNDLE, ...(cachedData ? { cachedData } : {}) },
  );
  const module = { exports: {} };
  script.runInThisContext()(module.exports, createRequire(BUNDLE), module, BUNDLE, dirname(BUNDLE));
  return { cli: module.exports, script };
}
