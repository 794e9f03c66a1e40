// The hardware-neutral command trace (DIR/trace.json with --emit trace, schema version 1): the
// same queue programs as the SDMA streams, with concrete addresses but no packet encoding. The
// executor accepts it as an alternative to manifest + .bin files. Documented in docs/manifest.md.
//
// Semantics of one queue (identical to the SDMA streams, see docs/runtime.md): commands run in
// order; consecutive data commands (copy, bcast, swap, fill) may overlap; fence, atomic and
// completion act after every earlier command of the queue completed; poll blocks the queue.

import type { CompareOp } from "../../frontend/ast.js";
import type { IrModule } from "../../ir/ir.js";
import {
  queueName,
  type BufferLoc,
  type QCmd,
  type QueueProgram,
  type WordLoc,
} from "../../queues/queue-program.js";
import { assertNever } from "../../util/assert-never.js";
import { InternalError } from "../../util/internal-error.js";
import { VERSION } from "../../version.js";
import { completionAddr, timestampAddr, type Layout } from "../sdma/layout.js";
import {
  COMPLETION_SECTION,
  manifestMemory,
  type ManifestCompletion,
  type ManifestMemory,
  type ManifestParam,
  type RecordedPaths,
} from "../sdma/manifest.js";

/** A byte address; gpu null means host-visible memory. */
export interface TraceAddr {
  readonly gpu: number | null;
  readonly addr: number;
}

export type TraceCmd =
  | {
      readonly op: "copy";
      readonly src: TraceAddr;
      readonly dst: TraceAddr;
      readonly bytes: number;
      readonly ops: readonly number[];
    }
  | {
      readonly op: "bcast";
      readonly src: TraceAddr;
      readonly dst: TraceAddr;
      readonly dst2: TraceAddr;
      readonly bytes: number;
      readonly ops: readonly number[];
    }
  | {
      readonly op: "swap";
      readonly a: TraceAddr;
      readonly b: TraceAddr;
      readonly bytes: number;
      readonly ops: readonly number[];
    }
  | {
      readonly op: "fill";
      readonly dst: TraceAddr;
      readonly bytes: number;
      readonly value: number;
      readonly ops: readonly number[];
    }
  /** Wait until (*at & mask) func value, 32-bit unsigned. */
  | {
      readonly op: "poll";
      readonly at: TraceAddr;
      readonly func: CompareOp;
      readonly value: number;
      readonly mask: number;
      readonly ops: readonly number[];
    }
  /** Write a 32-bit value after all earlier commands of the queue completed. */
  | {
      readonly op: "fence";
      readonly at: TraceAddr;
      readonly value: number;
      readonly ops: readonly number[];
    }
  /** Atomic add after all earlier commands completed; width 32 or 64; value may be negative. */
  | {
      readonly op: "atomic";
      readonly at: TraceAddr;
      readonly width: 32 | 64;
      readonly add: number;
      readonly ops: readonly number[];
    }
  /** Write the 64-bit global timestamp. */
  | { readonly op: "timestamp"; readonly at: TraceAddr; readonly ops: readonly number[] };

export interface TraceQueue {
  readonly name: string;
  readonly gpu: number;
  readonly engine: number;
  readonly cmds: readonly TraceCmd[];
}

export interface Trace {
  readonly version: 1;
  readonly kind: "dmac-trace";
  readonly dmac: string;
  readonly target: string;
  /** As in the manifest: the --target file relative to the trace's directory, or null. */
  readonly targetFile?: string | null;
  readonly ranks: number;
  readonly schedule: string;
  /** The source file the schedule came from, or null if unknown (relative to the trace's
   * directory when `targetFile` is present, else as given to the compiler), and its parameter
   * values: with them the executor re-derives the IR to check the postcondition. */
  readonly source: string | null;
  readonly params: readonly ManifestParam[];
  /** The same memory section as the manifest (regions, buffers, signals, sync words, ...). */
  readonly memory: ManifestMemory;
  readonly completion: ManifestCompletion;
  readonly trigger: { readonly address: number; readonly value: number } | null;
  readonly queues: readonly TraceQueue[];
}

/** The command trace of a laid-out queue program. Deterministic (key order fixed here). */
export function emitTrace(
  m: IrModule,
  p: QueueProgram,
  layout: Layout,
  targetName: string,
  paths?: RecordedPaths,
): Trace {
  const R = layout.ranks;
  const host = (addr: number): TraceAddr => ({ gpu: null, addr });
  const buf = (l: BufferLoc): TraceAddr => {
    const base = layout.bufferAddr[l.buffer * R + l.rank];
    if (base === undefined || Number.isNaN(base))
      throw new InternalError(`buffer ${l.buffer} not on rank ${l.rank}`);
    return { gpu: l.rank, addr: base + l.offset };
  };
  const word = (w: WordLoc): TraceAddr => {
    switch (w.space) {
      case "signal":
        return { gpu: w.rank, addr: layout.signalAddr[w.signal * R + w.rank]! };
      case "sync":
        return { gpu: p.syncWords[w.word]!.gpu, addr: layout.syncAddr[w.word]! };
      case "trigger":
        if (layout.triggerAddr === null)
          throw new InternalError("trigger poll without a trigger word");
        return host(layout.triggerAddr);
      default:
        return assertNever(w, "word location");
    }
  };
  const cmd = (c: QCmd): TraceCmd => {
    switch (c.kind) {
      case "copy":
        return { op: "copy", src: buf(c.src), dst: buf(c.dst), bytes: c.bytes, ops: c.ops };
      case "bcast":
        return {
          op: "bcast",
          src: buf(c.src),
          dst: buf(c.dst),
          dst2: buf(c.dst2),
          bytes: c.bytes,
          ops: c.ops,
        };
      case "swap":
        return { op: "swap", a: buf(c.a), b: buf(c.b), bytes: c.bytes, ops: c.ops };
      case "fill":
        return { op: "fill", dst: buf(c.dst), bytes: c.bytes, value: c.value, ops: c.ops };
      case "poll":
        return {
          op: "poll",
          at: word(c.at),
          func: c.func,
          value: c.value,
          mask: c.mask,
          ops: c.ops,
        };
      case "signal":
        return c.how === "fence"
          ? { op: "fence", at: word(c.at), value: c.value, ops: c.ops }
          : { op: "atomic", at: word(c.at), width: 32, add: c.value, ops: c.ops };
      case "completion":
        return p.completion === "atomic"
          ? {
              op: "atomic",
              at: host(completionAddr(layout, c.slot)),
              width: 64,
              add: -1,
              ops: c.ops,
            }
          : { op: "fence", at: host(completionAddr(layout, c.slot)), value: 0, ops: c.ops };
      case "timestamp":
        return { op: "timestamp", at: host(timestampAddr(layout, c.slot)), ops: c.ops };
      default:
        return assertNever(c, "queue command");
    }
  };
  return {
    version: 1,
    kind: "dmac-trace",
    dmac: VERSION,
    target: targetName,
    ...(paths ? { targetFile: paths.targetFile } : {}),
    ranks: m.ranks,
    schedule: m.schedule,
    source: paths ? paths.source : (m.file?.name ?? null),
    params: m.params.map((x) => ({ name: x.name, type: x.type, value: x.value })),
    memory: manifestMemory(m, p, layout),
    completion: COMPLETION_SECTION(p),
    trigger:
      p.trigger && layout.triggerAddr !== null
        ? { address: layout.triggerAddr, value: p.trigger.value }
        : null,
    queues: p.queues.map((q) => ({
      name: queueName(q),
      gpu: q.gpu,
      engine: q.engine,
      cmds: q.cmds.map(cmd),
    })),
  };
}
