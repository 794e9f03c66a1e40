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
const { setFlagsFromString } = require("node:v8");
const { bundleIsCurrent, readCodeCache, runBundle } = require("./load-bundle.js");

async function start() {
  const { installOutputErrorHandlers, main } = bundleIsCurrent()
    ? runBundle(readCodeCache()).cli
    : { ...(await import("../dist/cli/io.js")), ...(await import("../dist/cli/main.js")) };

  // A loop that V8 compiles while it runs (on-stack replacement) is compiled on this thread and
  // entered at once, not on a compiler thread while this one goes on in unoptimised code: dmac's
  // phases are each a few long loops, and on a machine whose other core is busy the compiler
  // thread waited for it while the loop ran to its end slowly, then the compiled code was
  // mostly unused (the 65,536-copy compile: ~20 % less CPU; docs/performance.md). Set once the
  // bundle is compiled: V8 rejects a code cache made under other flags.
  setFlagsFromString("--no-concurrent-osr");

  // A closed pipe ends dmac quietly; a full disk (ENOSPC) or an I/O error on stdout is one message
  // and exit 1, never a stack trace (src/cli/io.ts).
  installOutputErrorHandlers();

  process.exitCode = await main(process.argv);
}

void start();
