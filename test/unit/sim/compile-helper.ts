// Compiles a .dmac source in memory (the lowering engineer's pipeline) and returns the
// executor's input: the manifest, its packet streams and the IR (for the postcondition).

import { readFileSync } from "node:fs";
import { compileToQueues } from "../../../src/driver/compile.js";
import { buildOutputs } from "../../../src/driver/outputs.js";
import { outputText } from "../../../src/backend/output.js";
import type { Manifest } from "../../../src/backend/sdma/manifest.js";
import type { Trace } from "../../../src/backend/trace/trace.js";
import type { IrModule } from "../../../src/ir/ir.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import type { Target } from "../../../src/target/target.js";

export interface Compiled {
  manifest: Manifest;
  streams: Map<string, Uint32Array>;
  trace: Trace;
  module: IrModule;
  target: Target;
}

export function compileFile(path: string, defines: Record<string, string> = {}): Compiled {
  return compileText(path, readFileSync(path, "utf8"), defines);
}

export function compileText(
  name: string,
  text: string,
  defines: Record<string, string> = {},
  sync?: "conservative" | "aggressive",
): Compiled {
  const file = makeSourceFile(name, text);
  const q = compileToQueues(file, { defines, sync });
  if (!q.compiled) throw new Error(q.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  const out = buildOutputs(file, q.compiled, { emit: ["sdma", "trace"] });
  if (!out.files) throw new Error(out.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  const streams = new Map<string, Uint32Array>();
  let manifest: Manifest | undefined;
  let trace: Trace | undefined;
  for (const f of out.files) {
    if (f.name === "manifest.json") manifest = JSON.parse(outputText(f)) as Manifest;
    else if (f.name === "trace.json") trace = JSON.parse(outputText(f)) as Trace;
    else if (f.name.endsWith(".bin")) {
      const b = f.data as Uint8Array;
      streams.set(
        f.name,
        new Uint32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength)),
      );
    }
  }
  return {
    manifest: manifest!,
    streams,
    trace: trace!,
    module: q.compiled.module,
    target: q.compiled.target,
  };
}

/**
 * A two-queue relay: GPU 0 copies to GPU 1 and notifies; GPU 1 waits for the flag (`== 1`, a
 * count the schedule raises) and copies on. Trace and report tests, with `--sync aggressive`
 * (progress counters polled `>=`, the forms docs/traces.md describes).
 */
export const RELAY = `target mi300x

schedule relay(chunk: bytes = 4KiB) {
  buffer b: chunk
  signal got
  copy b@0 -> b@1
  notify got@1
  when got@1 == 1 {
    copy b@1 -> b@2
  }
}
`;
