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
  CMD,
  queueName,
  syncWordInHost,
  SPACE,
  type CmdTable,
  type QueueProgram,
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
  /** As in the manifest: a built-in --target the compile used instead of the source's own. */
  readonly targetBuiltin?: string;
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
  const buf = (c: CmdTable, i: number, slot: 0 | 1 | 2): TraceAddr => {
    const rank = c.rank(i, slot);
    const buffer = c.buffer(i, slot);
    const base = layout.bufferAddr[buffer * R + rank];
    if (base === undefined || Number.isNaN(base))
      throw new InternalError(`buffer ${buffer} not on rank ${rank}`);
    return { gpu: rank, addr: base + c.offset(i, slot) };
  };
  const word = (c: CmdTable, i: number): TraceAddr => {
    const id = c.signalId(i);
    switch (c.space(i)) {
      case SPACE.signal:
        return { gpu: c.signalRank(i), addr: layout.signalAddr[id * R + c.signalRank(i)]! };
      case SPACE.sync:
        return syncWordInHost(p, id)
          ? host(layout.syncAddr[id]!)
          : { gpu: p.syncWords[id]!.gpu, addr: layout.syncAddr[id]! };
      case SPACE.trigger:
        if (layout.triggerAddr === null)
          throw new InternalError("trigger poll without a trigger word");
        return host(layout.triggerAddr);
      default:
        throw new InternalError(`word space ${c.space(i)}`);
    }
  };
  const cmd = (c: CmdTable, i: number, ops: readonly number[]): TraceCmd => {
    const k = c.kind(i);
    switch (k) {
      case CMD.copy:
        return { op: "copy", src: buf(c, i, 0), dst: buf(c, i, 1), bytes: c.bytes(i), ops };
      case CMD.bcast:
        return {
          op: "bcast",
          src: buf(c, i, 0),
          dst: buf(c, i, 1),
          dst2: buf(c, i, 2),
          bytes: c.bytes(i),
          ops,
        };
      case CMD.swap:
        return { op: "swap", a: buf(c, i, 0), b: buf(c, i, 1), bytes: c.bytes(i), ops };
      case CMD.fill:
        return { op: "fill", dst: buf(c, i, 1), bytes: c.bytes(i), value: c.value(i), ops };
      case CMD.poll:
        return {
          op: "poll",
          at: word(c, i),
          func: c.func(i),
          value: c.value(i),
          mask: c.mask(i),
          ops,
        };
      case CMD.signal:
        return c.isFence(i)
          ? { op: "fence", at: word(c, i), value: c.value(i), ops }
          : { op: "atomic", at: word(c, i), width: 32, add: c.value(i), ops };
      case CMD.completion:
        return p.completion === "atomic"
          ? {
              op: "atomic",
              at: host(completionAddr(layout, c.slot(i))),
              width: 64,
              add: -1,
              ops,
            }
          : { op: "fence", at: host(completionAddr(layout, c.slot(i))), value: 0, ops };
      case CMD.timestamp:
        return { op: "timestamp", at: host(timestampAddr(layout, c.slot(i))), ops };
      default:
        return assertNever(k, "queue command");
    }
  };
  const cmds = (c: CmdTable): TraceCmd[] => {
    const out = new Array<TraceCmd>(c.length);
    // Consecutive commands that share an op list share its array.
    let handle = -1;
    let ops: readonly number[] = [];
    for (let i = 0; i < c.length; i++) {
      if (c.opsHandle(i) !== handle) {
        handle = c.opsHandle(i);
        ops = Array.from(p.lists.of(handle));
      }
      out[i] = cmd(c, i, ops);
    }
    return out;
  };
  return {
    version: 1,
    kind: "dmac-trace",
    dmac: VERSION,
    target: targetName,
    ...(paths ? { targetFile: paths.targetFile } : {}),
    ...(paths?.targetBuiltin !== undefined ? { targetBuiltin: paths.targetBuiltin } : {}),
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
      cmds: cmds(q.cmds),
    })),
  };
}
