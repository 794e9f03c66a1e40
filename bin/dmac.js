#!/usr/bin/env node
// The installed entry point. `npm ci` runs the `prepare` script, which compiles src/ to dist/ and
// bundles dist/ into dist/bundle/ (scripts/bundle.mjs), so a fresh clone needs no further build
// step. The bundle, run with its V8 code cache, starts faster (bin/load-bundle.js); without a
// current one (e.g. after a tsc-only build), the compiled modules in dist/ run, with the same
// behaviour.
//
// bin/ is CommonJS (bin/package.json): Node starts a CommonJS entry point without its ES module
// loader, and the node:fs and node:vm it needs without their ES module facades (the facade of
// node:fs loads its streams): `dmac --version` ~15 ms sooner (docs/performance.md).
"use strict";
const { applyV8Flags, bundleIsCurrent, readCodeCache, runBundle } = require("./load-bundle.js");

async function start() {
  const { installOutputErrorHandlers, main } = bundleIsCurrent()
    ? runBundle(readCodeCache()).cli
    : { ...(await import("../dist/cli/io.js")), ...(await import("../dist/cli/main.js")) };

  // (Once the bundle is compiled: V8 rejects a code cache made under other flags.)
  applyV8Flags();

  // A closed pipe ends dmac quietly; a full disk (ENOSPC) or an I/O error on stdout is one message
  // and exit 1, never a stack trace (src/cli/io.ts).
  installOutputErrorHandlers();

  process.exitCode = await main(process.argv);
}

void start();
