// The functions the fuzzers drive, gathered in one object so that the same fuzzing code runs
// against the TypeScript sources (vitest, CI mode: fuzz/api-src.ts) and against the compiled
// JavaScript in dist/ (long mode, `npm run fuzz`: loadDistApi below). The fuzzers only ever
// import *types* from src/, so compiling fuzz/ never changes how src/ runs.

import type { makeSourceFile } from "../src/source/source-file.js";
import type { parseSource } from "../src/frontend/parse.js";
import type { checkSource } from "../src/check/check-source.js";
import type { compileToQueues } from "../src/driver/compile.js";
import type { buildOutputs } from "../src/driver/outputs.js";
import type { decodeStream } from "../src/backend/sdma/decode.js";
import type { disassemble } from "../src/backend/sdma/disasm.js";
import type { encodePacket } from "../src/backend/sdma/encode.js";
import type { renderDiagnostics } from "../src/diagnostics/render.js";
import type { simulate } from "../src/sim/run.js";
import type { checksInProcess } from "../src/sim/check-replay.js";
import type { builtinTarget } from "../src/target/target.js";
import type { main } from "../src/cli/main.js";

export interface DmacApi {
  readonly makeSourceFile: typeof makeSourceFile;
  readonly parseSource: typeof parseSource;
  readonly checkSource: typeof checkSource;
  readonly compileToQueues: typeof compileToQueues;
  readonly buildOutputs: typeof buildOutputs;
  readonly decodeStream: typeof decodeStream;
  readonly disassemble: typeof disassemble;
  readonly encodePacket: typeof encodePacket;
  readonly renderDiagnostics: typeof renderDiagnostics;
  readonly simulate: typeof simulate;
  readonly checksInProcess: typeof checksInProcess;
  readonly builtinTarget: typeof builtinTarget;
  readonly main: typeof main;
}

/** The modules of the API, relative to the directory holding the compiled src (dist/). */
export const API_MODULES = {
  makeSourceFile: "source/source-file.js",
  parseSource: "frontend/parse.js",
  checkSource: "check/check-source.js",
  compileToQueues: "driver/compile.js",
  buildOutputs: "driver/outputs.js",
  decodeStream: "backend/sdma/decode.js",
  disassemble: "backend/sdma/disasm.js",
  encodePacket: "backend/sdma/encode.js",
  renderDiagnostics: "diagnostics/render.js",
  simulate: "sim/run.js",
  checksInProcess: "sim/check-replay.js",
  builtinTarget: "target/target.js",
  main: "cli/main.js",
} as const satisfies Record<keyof DmacApi, string>;

/**
 * Imports the API from a compiled tree (`dist/`), e.g. loadDistApi("/repo/dist"). A module that
 * fails to load (another engineer's half-built file) is reported in `missing` and its functions
 * throw when called, so the fuzz targets that do not need it still run.
 */
export async function loadDistApi(
  distDir: string,
): Promise<{ api: DmacApi; missing: { name: string; error: string }[] }> {
  const { pathToFileURL } = await import("node:url");
  const { join } = await import("node:path");
  const api: Record<string, unknown> = {};
  const missing: { name: string; error: string }[] = [];
  for (const [name, rel] of Object.entries(API_MODULES)) {
    try {
      const mod = (await import(pathToFileURL(join(distDir, rel)).href)) as Record<string, unknown>;
      if (typeof mod[name] !== "function") throw new Error(`${rel} does not export ${name}`);
      api[name] = mod[name];
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      missing.push({ name, error });
      api[name] = () => {
        throw new Error(`${name} is unavailable: ${error}`);
      };
    }
  }
  return { api: api as unknown as DmacApi, missing };
}
