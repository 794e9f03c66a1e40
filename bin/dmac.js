#!/usr/bin/env node
// The installed entry point. `npm ci` runs the `prepare` script, which compiles src/ to dist/,
// so a fresh clone needs no further build step.
import { main } from "../dist/cli/main.js";

// A reader that stops early (`dmac disasm x.bin | head`) closes the pipe: that is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e) => {
    if (e.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw e;
  });
}

process.exitCode = await main(process.argv);
