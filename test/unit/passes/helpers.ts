// Test helpers for the optimiser: compile a source (or an example) through lowering, the passes
// at some options, layout and SDMA emission; decode the emitted streams; run the executor.

import { SIMULATED_COST_MODEL } from "../../../src/driver/cost-model.js";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { compileToQueues } from "../../../src/driver/compile.js";
import { buildOutputs } from "../../../src/driver/outputs.js";
import { outputText } from "../../../src/backend/output.js";
import { decodeStream } from "../../../src/backend/sdma/decode.js";
import type { Manifest } from "../../../src/backend/sdma/manifest.js";
import type { Packet } from "../../../src/backend/sdma/packets.js";
import type { IrModule } from "../../../src/ir/ir.js";
import type { PassOptions, PassStats } from "../../../src/passes/pass.js";
import { optimise, type PlanResult } from "../../../src/passes/plan.js";
import type { QueueProgram } from "../../../src/queues/queue-program.js";
import { simulate, type SimResult } from "../../../src/sim/run.js";
import { makeSourceFile, type SourceFile } from "../../../src/source/source-file.js";
import type { Target } from "../../../src/target/target.js";

export function exampleText(name: string): string {
  return readFileSync(fileURLToPath(new URL(`../../../examples/${name}`, import.meta.url)), "utf8");
}

/** Pass options at a level (the -O2 plan search with its default work budget). */
export const O = (level: 0 | 1 | 2, extra: Partial<PassOptions> = {}): PassOptions => ({
  level,
  engines: { kind: "affinity" },
  ...extra,
});

export interface Built {
  file: SourceFile;
  module: IrModule;
  target: Target;
  program: QueueProgram;
  stats: PassStats[];
  plan: PlanResult | undefined;
}

export function build(
  name: string,
  text: string,
  options: PassOptions,
  defines: Record<string, string> = {},
): Built {
  const file = makeSourceFile(name, text);
  // The passes take the lowering in its own (aggressive) forms, as compileToQueues hands it them.
  const q = compileToQueues(file, { defines, sync: "aggressive" });
  if (!q.compiled) throw new Error(q.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  const { module, target } = q.compiled;
  const r = optimise(q.compiled.program, module, {
    target,
    module,
    options,
    lower: { completion: "atomic" },
    costModel: SIMULATED_COST_MODEL,
    verify: true,
    file,
  });
  return { file, module, target, program: r.program, stats: r.stats, plan: r.plan };
}

export interface Emitted {
  manifest: Manifest;
  streams: Map<string, Uint32Array>;
  /** Decoded packets per queue name (gpu<G>.sdma<E>). */
  packets: Map<string, Packet[]>;
}

export function emit(b: Built): Emitted {
  const out = buildOutputs(
    b.file,
    { module: b.module, program: b.program, target: b.target },
    { emit: ["sdma"] },
  );
  if (!out.files) throw new Error(out.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  let manifest: Manifest | undefined;
  const streams = new Map<string, Uint32Array>();
  const packets = new Map<string, Packet[]>();
  for (const f of out.files) {
    if (f.name === "manifest.json") manifest = JSON.parse(outputText(f)) as Manifest;
    else if (f.name.endsWith(".bin") && f.data instanceof Uint8Array) {
      const words = new Uint32Array(
        f.data.buffer.slice(f.data.byteOffset, f.data.byteOffset + f.data.byteLength),
      );
      streams.set(f.name, words);
      const d = decodeStream(words);
      if (d.problems.length > 0) throw new Error(`${f.name}: ${d.problems[0]!.detail}`);
      packets.set(
        f.name.replace(/\.bin$/, ""),
        d.packets.map((p) => p.packet as Packet),
      );
    }
  }
  return { manifest: manifest!, streams, packets };
}

export function simulateBuilt(b: Built, e: Emitted = emit(b)): SimResult {
  return simulate(
    { manifest: e.manifest, streams: e.streams, module: b.module },
    { target: b.target },
  );
}

/** Packets of one kind per GPU, summed over its queues. */
export function countPerGpu(e: Emitted, pred: (p: Packet) => boolean): Map<number, number> {
  const out = new Map<number, number>();
  for (const [name, pk] of e.packets) {
    const gpu = Number(/^gpu(\d+)/.exec(name)![1]);
    out.set(gpu, (out.get(gpu) ?? 0) + pk.filter(pred).length);
  }
  return out;
}

/** Engines used per GPU (queues with at least one data packet). */
export function enginesPerGpu(e: Emitted): Map<number, number> {
  const out = new Map<number, number>();
  for (const [name, pk] of e.packets) {
    const gpu = Number(/^gpu(\d+)/.exec(name)![1]);
    if (pk.some(isDataPacket)) out.set(gpu, (out.get(gpu) ?? 0) + 1);
  }
  return out;
}

export const isDataPacket = (p: Packet): boolean =>
  p.kind === "copy_linear" ||
  p.kind === "copy_broadcast" ||
  p.kind === "copy_swap" ||
  p.kind === "constant_fill";

/** A completion packet: ATOMIC add64 of -1 to a host slot (the default protocol). */
export const isCompletion = (p: Packet): boolean => p.kind === "atomic" && p.op === "add64";
