#!/usr/bin/env node
// The installed entry point. `npm ci` runs the `prepare` script, which compiles src/ to dist/,
// so a fresh clone needs no further build step.
import { installOutputErrorHandlers } from "../dist/cli/io.js";
import { main } from "../dist/cli/main.js";

// A closed pipe ends dmac quietly; a full disk (ENOSPC) or an I/O error on stdout is one message
// and exit 1, never a stack trace (src/cli/io.ts).
installOutputErrorHandlers();

process.exitCode = await main(process.argv);
