// The fuzzers' API bound to the TypeScript sources (for vitest: CI mode and the regression
// replay). The long mode binds the same names to dist/ instead (api.ts loadDistApi). The
// executor and the CLI (which registers `dmac sim`) are imported dynamically: while either does
// not load, the front-end and decoder fuzzing still runs and `missing` says what was skipped.

import { makeSourceFile } from "../src/source/source-file.js";
import { parseSource } from "../src/frontend/parse.js";
import { checkSource } from "../src/check/check-source.js";
import { compileToQueues } from "../src/driver/compile.js";
import { buildOutputs } from "../src/driver/outputs.js";
import { decodeStream } from "../src/backend/sdma/decode.js";
import { disassemble } from "../src/backend/sdma/disasm.js";
import { encodePacket } from "../src/backend/sdma/encode.js";
import { renderDiagnostics } from "../src/diagnostics/render.js";
import { builtinTarget } from "../src/target/target.js";
import type { DmacApi } from "./api.js";

export async function loadSrcApi(): Promise<{ api: DmacApi; missing: string[] }> {
  const missing: string[] = [];
  const unavailable = (name: string, e: unknown) => (): never => {
    throw new Error(`${name} is unavailable: ${e instanceof Error ? e.message : String(e)}`);
  };
  let simulate: DmacApi["simulate"];
  let checksInProcess: DmacApi["checksInProcess"];
  let main: DmacApi["main"];
  try {
    simulate = (await import("../src/sim/run.js")).simulate;
    checksInProcess = (await import("../src/sim/check-replay.js")).checksInProcess;
  } catch (e) {
    missing.push("simulate");
    simulate = unavailable("simulate", e);
    checksInProcess = unavailable("checksInProcess", e);
  }
  try {
    main = (await import("../src/cli/main.js")).main;
  } catch (e) {
    missing.push("main");
    main = unavailable("main", e);
  }
  const api: DmacApi = {
    makeSourceFile,
    parseSource,
    checkSource,
    compileToQueues,
    buildOutputs,
    decodeStream,
    disassemble,
    encodePacket,
    renderDiagnostics,
    simulate,
    checksInProcess,
    builtinTarget,
    main,
  };
  return { api, missing };
}
