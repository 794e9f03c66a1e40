// A command trace (backend/trace) as the executor's PackedProgram (run.ts calls it).

import { completionsOf, externalSignalsOf, regionsOf } from "./from-manifest.js";
import type { Trace, TraceCmd } from "../backend/trace/trace.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import {
  CommandWriter,
  NOP,
  unpackProgram,
  type ListProgram,
  type PackedProgram,
  type PackedQueue,
  type SimCmd,
} from "./program.js";

function simCmdOfTrace(c: TraceCmd): SimCmd {
  switch (c.op) {
    case "copy":
      return { kind: "copy", src: c.src.addr, dst: c.dst.addr, bytes: c.bytes };
    case "bcast":
      return { kind: "bcast", src: c.src.addr, dst: c.dst.addr, dst2: c.dst2.addr, bytes: c.bytes };
    case "swap":
      return { kind: "swap", a: c.a.addr, b: c.b.addr, bytes: c.bytes };
    case "fill":
      return { kind: "fill", dst: c.dst.addr, bytes: c.bytes, value: c.value };
    case "poll":
      return {
        kind: "poll",
        addr: c.at.addr,
        func: c.func,
        value: c.value,
        mask: c.mask,
        interval: 4,
      };
    case "fence":
      return { kind: "fence", addr: c.at.addr, value: c.value };
    case "atomic":
      return { kind: "atomic", addr: c.at.addr, width: c.width, add: c.add };
    case "timestamp":
      return { kind: "timestamp", addr: c.at.addr };
    default:
      return {
        kind: "bad",
        detail: `unknown trace command ${JSON.stringify((c as { op?: unknown }).op)}`,
      };
  }
}

/** The list form of packedFromTrace's program. */
export function programFromTrace(trace: Trace): { program: ListProgram } | { error: Diagnostic } {
  const r = packedFromTrace(trace);
  return "error" in r ? r : { program: unpackProgram(r.program) };
}

export function packedFromTrace(trace: Trace): { program: PackedProgram } | { error: Diagnostic } {
  if (trace.kind !== "dmac-trace" || trace.version !== 1)
    return {
      error: diag("DMAC5004", undefined, [
        "trace",
        "not a dmac command trace (kind 'dmac-trace', version 1)",
      ]),
    };
  const { regions, wordRegions, bufferSizes, bufferNames } = regionsOf(
    trace.memory,
    trace.trigger,
    trace.completion.initial,
  );
  let total = 0;
  for (const q of trace.queues) total += q.cmds.length;
  const w = new CommandWriter(total);
  const queues: PackedQueue[] = trace.queues.map((q) => {
    const first = w.n;
    q.cmds.forEach((c, i) => {
      const row = w.row(NOP, i);
      w.cmd(row, simCmdOfTrace(c));
      if (Array.isArray(c.ops)) w.addOps(row, c.ops);
    });
    return {
      name: q.name,
      gpu: q.gpu,
      engine: q.engine,
      position: "index",
      first,
      count: w.n - first,
    };
  });
  return {
    program: {
      gpus: trace.ranks,
      queues,
      regions,
      wordRegions,
      bufferSizes,
      bufferNames,
      completions: completionsOf(trace.memory, queues, w, trace.completion.done),
      trigger: trace.trigger && { addr: trace.trigger.address, value: trace.trigger.value },
      externalSignals: externalSignalsOf(regions, w),
      cmds: w.finish(),
    },
  };
}
