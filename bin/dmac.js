#!/usr/bin/env node
// The installed entry point. `npm ci` runs the `prepare` script, which compiles src/ to dist/,
// so a fresh clone needs no further build step.
import { main } from "../dist/cli/main.js";

process.exitCode = await main(process.argv);
