// Runs the bundled CLI, dist/bundle/dmac.cjs (built by scripts/bundle.mjs), with the V8 code
// cache stored beside it, so that a `dmac` start compiles almost nothing
// (docs/design-decisions.md, "Build and packaging"; docs/performance.md, step 21).
//
// The bundle is one CommonJS script compiled through vm.Script, because Node 20 has no code cache
// for ES modules. The cache is only valid for the exact text it was made from, so the bundle is
// wrapped here and nowhere else: scripts/bundle.mjs makes the cache through runBundle() too.
// V8 rejects a cache made by another V8 version or with other V8 flags
// (`script.cachedDataRejected`); the script is then compiled as usual, a little slower.
//
// CommonJS, as bin/dmac.js (bin/package.json): see there.

"use strict";
const { readFileSync, statSync } = require("node:fs");
const { createRequire } = require("node:module");
const { dirname, join } = require("node:path");
const { Script } = require("node:vm");

const BUNDLE = join(__dirname, "../dist/bundle/dmac.cjs");
const CODE_CACHE = `${BUNDLE}.cache`;
/** A file that `tsc` rewrites on every build: a bundle older than it is stale. */
const TSC_OUTPUT = join(__dirname, "../dist/cli/main.js");

/**
 * Whether there is a bundle built from the current dist/: `npm run build` makes both, in that
 * order; a tsc-only build (or a checkout without the bundle) runs dist/ as compiled.
 */
function bundleIsCurrent() {
  const bundle = statSync(BUNDLE, { throwIfNoEntry: false });
  const tsc = statSync(TSC_OUTPUT, { throwIfNoEntry: false });
  return bundle !== undefined && (tsc === undefined || bundle.mtimeMs >= tsc.mtimeMs);
}

/** The code cache's bytes, or undefined when there is none. */
function readCodeCache() {
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
function runBundle(cachedData) {
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

/**
 * The V8 flags dmac runs with, set once the bundle is compiled (V8 rejects a code cache made under
 * other flags, and scripts/bundle.mjs makes the cache without them). `--no-concurrent-osr`: a loop
 * that V8 compiles while it runs (on-stack replacement) is compiled on the main thread and entered
 * at once, not on a compiler thread while the main thread goes on in unoptimised code. dmac's
 * phases are each a few long loops over every operation or command; on two cores with another
 * process busy, the compiler thread waited for a core while the loop ran slowly to its end, and
 * the compiled loop then ran little (the 65,536-copy compile: ~20 % less CPU, docs/performance.md).
 */
function applyV8Flags() {
  require("node:v8").setFlagsFromString("--no-concurrent-osr");
}

exports.BUNDLE = BUNDLE;
exports.applyV8Flags = applyV8Flags;
exports.CODE_CACHE = CODE_CACHE;
exports.bundleIsCurrent = bundleIsCurrent;
exports.readCodeCache = readCodeCache;
exports.runBundle = runBundle;
