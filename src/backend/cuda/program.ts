// The CUDA command program (docs/cuda.md, schemas/cuda-program.schema.json): per GPU, streams of
// copy, batched copy, wait-value, write-value and timestamp commands, built from the same queue
// program the SDMA back end encodes (so the same lowering and passes decide everything):
//   queue (gpu, engine E)            -> stream E of that GPU
//   copy                             -> copy (cudaMemcpyAsync); a run of consecutive copies on one
//                                       stream -> one batched copy (cudaMemcpyBatchAsync) when the
//                                       batch-copies pass is on
//   poll on a word (trigger, sync,   -> wait-value (cuStreamWaitValue32, GEQ or EQ) on a host-mapped
//     user signal)                      word: prelaunch waits on the trigger word
//   signal fence (progress, syncs)   -> write-value (cuStreamWriteValue32) of a host-mapped word
//   completion                       -> write-value 1 to its completion word
//   same-queue barrier (signal+poll) -> nothing: a stream runs its commands one after another
//                                       (it still ends a batch, whose copies are unordered)
// and what copy engines cannot do is DMAC4040 at the operation: broadcast, swap, fill, a copy
// within one GPU (it would run on SMs), an atomic add (`notify`), a poll other than >= or ==.
// Every word lives in pinned host memory mapped into every GPU, zero at the start.

import { diag, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { HOST, type IrModule } from "../../ir/ir.js";
import { MASK_ALL, type QueueProgram } from "../../queues/queue-program.js";
import { InternalError } from "../../util/internal-error.js";
import { toReadable, type BufferLoc, type QCmd, type WordLoc } from "../../queues/readable.js";
import type { SourceFile } from "../../source/source-file.js";
import { expectedContents } from "./expect.js";

/** A buffer's place: a GPU rank, or "host" (pinned host memory). */
export type Place = number | "host";

export interface CudaLoc {
  readonly buffer: number;
  readonly place: Place;
  readonly offset: number;
}

export interface CudaCopy {
  readonly src: CudaLoc;
  readonly dst: CudaLoc;
  readonly bytes: number;
}

export type CudaCmd =
  | ({ readonly op: "copy" } & CudaCopy)
  | { readonly op: "batch"; readonly copies: readonly CudaCopy[] }
  | {
      readonly op: "wait";
      readonly word: number;
      readonly cmp: "geq" | "eq";
      readonly value: number;
    }
  | { readonly op: "write"; readonly word: number; readonly value: number }
  | { readonly op: "timestamp"; readonly slot: number };

export interface CudaStream {
  readonly gpu: number;
  readonly stream: number;
  readonly commands: readonly CudaCmd[];
}

export interface CudaWord {
  readonly id: number;
  readonly kind: "trigger" | "signal" | "sync" | "completion";
  readonly name: string;
}

/** Final contents that differ from a buffer's own initial pattern: `bytes` from `from`. */
export interface CudaExpect {
  readonly at: CudaLoc;
  readonly bytes: number;
  readonly from: CudaLoc;
}

export interface CudaProgram {
  readonly format: "dmac-cuda-program";
  readonly version: 1;
  readonly schedule: string;
  readonly target: string;
  readonly params: Readonly<Record<string, number | boolean>>;
  /** GPUs the runner needs: the highest GPU rank any buffer or stream uses, plus one. */
  readonly gpus: number;
  readonly buffers: readonly {
    readonly id: number;
    readonly name: string;
    readonly place: Place;
    readonly size: number;
  }[];
  readonly words: readonly CudaWord[];
  /** Prelaunch: every stream first waits for this word >= value; the host's store starts the run. */
  readonly trigger: { readonly word: number; readonly value: number } | null;
  /**
   * User signals outside code raises: the runner stores `value` when the run starts (the flag's
   * code for the largest value waited for: k for a count, 2^k - 1 for a thermometer flag).
   */
  readonly external: readonly { readonly word: number; readonly value: number }[];
  /** The run is over when every completion word holds its value. */
  readonly completions: readonly { readonly word: number; readonly value: number }[];
  readonly streams: readonly CudaStream[];
  readonly expect: readonly CudaExpect[];
}

/**
 * The IR ops each row of a command program implements or orders, per stream: one entry per
 * command, and one per copy of a batch (the rows the executor makes of it: sim/from-cuda.ts).
 * Not part of program.json: it lets `dmac sim` check the schedule's meaning on the program.
 */
export type CudaOps = readonly (readonly (readonly number[])[])[];

export interface BuildOptions {
  /** Runs of consecutive copies on a stream become one batched copy (the batch-copies pass). */
  readonly batch: boolean;
}

/** Word ids: trigger, then user signal instances, sync words, completion slots. */
class Words {
  readonly list: CudaWord[] = [];
  readonly trigger: number;
  private readonly signals = new Map<number, number>();
  constructor(
    private readonly m: IrModule,
    private readonly p: QueueProgram,
  ) {
    this.trigger = p.trigger ? this.add("trigger", "trigger") : -1;
  }
  private add(kind: CudaWord["kind"], name: string): number {
    const id = this.list.length;
    this.list.push({ id, kind, name });
    return id;
  }
  signal(signal: number, rank: number): number {
    const key = signal * 65536 + rank;
    let id = this.signals.get(key);
    if (id === undefined) {
      id = this.add("signal", `${this.m.signals[signal]?.name ?? `#${signal}`}@${rank}`);
      this.signals.set(key, id);
    }
    return id;
  }
  /** Allocates the sync and completion words, after every signal has been seen; their bases. */
  seal(): { sync: number; completion: number } {
    const sync = this.list.length;
    this.p.syncWords.forEach((_, i) => this.add("sync", `sync${i}`));
    const completion = this.list.length;
    for (let s = 0; s < this.p.completionSlots; s++) this.add("completion", `completion${s}`);
    return { sync, completion };
  }
}

export function placeOf(m: IrModule, l: { readonly buffer: number; readonly rank: number }): Place {
  return m.buffers[l.buffer]?.rank === HOST ? "host" : l.rank;
}

export function buildCudaProgram(
  m: IrModule,
  p: QueueProgram,
  file: SourceFile | undefined,
  opts: BuildOptions,
): { program: CudaProgram | undefined; ops: CudaOps; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const ops: (readonly number[])[][] = [];
  const r = toReadable(p);
  const words = new Words(m, p);
  // First pass: user signal words, so that sync and completion ids follow them.
  for (const q of r.queues)
    for (const c of q.cmds)
      if ((c.kind === "poll" || c.kind === "signal") && c.at.space === "signal")
        words.signal(c.at.signal, c.at.rank);
  const base = words.seal();
  // One DMAC4040 per statement and reason, not per loop instance (finishSync does the same).
  const reported = new Set<string>();
  const fail = (c: QCmd, why: string, what: string): void => {
    const op = c.ops[0];
    const key = `${op === undefined ? -1 : m.ops.stmt[op]!}\u0000${why}`;
    if (reported.has(key)) return;
    reported.add(key);
    const stmt = op === undefined ? undefined : m.stmts[m.ops.stmt[op]!];
    diagnostics.push(
      diag("DMAC4040", file && stmt ? { file, span: stmt.span } : undefined, [what, why]),
    );
  };
  const wordOf = (at: WordLoc): number =>
    at.space === "trigger"
      ? words.trigger
      : at.space === "sync"
        ? base.sync + at.word
        : words.signal(at.signal, at.rank);
  const loc = (l: BufferLoc): CudaLoc => ({
    buffer: l.buffer,
    place: placeOf(m, l),
    offset: l.offset,
  });
  const external = new Map<number, number>();
  const streams: CudaStream[] = [];
  let gpus = 0;
  for (const q of r.queues) {
    const out: CudaCmd[] = [];
    const rowOps: (readonly number[])[] = [];
    ops.push(rowOps);
    let run: CudaCopy[] = [];
    const flush = (): void => {
      if (run.length === 1) out.push({ op: "copy", ...run[0]! });
      else if (run.length > 1) out.push({ op: "batch", copies: run });
      run = [];
    };
    for (const c of q.cmds) {
      if (c.kind !== "copy" || !opts.batch) flush();
      const before = out.length + run.length;
      switch (c.kind) {
        case "copy": {
          const src = loc(c.src);
          const dst = loc(c.dst);
          if (src.place !== "host" && src.place === dst.place) {
            fail(
              c,
              "a copy within one GPU runs on its SMs, not on a copy engine",
              `copy on GPU ${src.place}`,
            );
            break;
          }
          if (src.place === "host" && dst.place === "host") {
            fail(c, "no GPU takes part", "copy from host to host");
            break;
          }
          const copy = { src, dst, bytes: c.bytes };
          if (opts.batch) run.push(copy);
          else out.push({ op: "copy", ...copy });
          break;
        }
        case "bcast":
        case "swap":
        case "fill":
          fail(
            c,
            `copy engines have no ${c.kind} command`,
            c.kind === "bcast" ? "broadcast" : c.kind,
          );
          break;
        case "poll": {
          if (c.why === "barrier") break; // stream order already holds
          // `>= V` on a flag declared `thermometer` is a test of bit b = 2^(V-1)
          // (queues/lower.ts). The word holds 2^k - 1 for k, which is >= b exactly when
          // k >= V: wait-value has no mask, but GEQ b is the same test, and the runner raises
          // the flag by storing 2^V - 1 (the thermometer code of the largest V).
          const bit = c.mask !== MASK_ALL && c.at.space === "signal" ? c.mask : undefined;
          if (bit !== undefined) {
            if (c.value !== bit || c.func !== "==")
              throw new InternalError("a masked wait that is not a thermometer bit test");
            const word = wordOf(c.at);
            external.set(word, Math.max(external.get(word) ?? 0, 2 * bit - 1));
            out.push({ op: "wait", word, cmp: "geq", value: bit });
            break;
          }
          if (c.func !== ">=" && c.func !== "==") {
            fail(c, "wait-value compares only >= and ==", `wait for ${c.func} ${c.value}`);
            break;
          }
          if (c.at.space === "signal" && c.func !== ">=") {
            fail(
              c,
              "the host raises user signals straight to the largest value waited for, so a wait on one must be >=",
              `wait for == ${c.value}`,
            );
            break;
          }
          const word = wordOf(c.at);
          if (c.at.space === "signal")
            external.set(word, Math.max(external.get(word) ?? 0, c.value));
          out.push({ op: "wait", word, cmp: c.func === ">=" ? "geq" : "eq", value: c.value });
          break;
        }
        case "signal":
          if (c.why === "barrier") break;
          if (c.how === "add") {
            fail(
              c,
              "stream memory operations write values and cannot add (notify raises by one)",
              "notify",
            );
            break;
          }
          out.push({ op: "write", word: wordOf(c.at), value: c.value });
          break;
        case "completion":
          out.push({ op: "write", word: base.completion + c.slot, value: 1 });
          break;
        case "timestamp":
          out.push({ op: "timestamp", slot: c.slot });
          break;
      }
      // (A batch's copies are rows of their own: `before` counts the run's copies as rows.)
      if (out.length + run.length > before) rowOps.push(c.ops);
    }
    flush();
    gpus = Math.max(gpus, q.gpu + 1);
    streams.push({ gpu: q.gpu, stream: q.engine, commands: out });
  }
  if (diagnostics.length > 0) return { program: undefined, ops, diagnostics };
  const buffers: { id: number; name: string; place: Place; size: number }[] = [];
  for (const b of m.buffers) {
    if (b.rank === HOST) buffers.push({ id: b.id, name: b.name, place: "host", size: b.size });
    else
      for (let g = 0; g < m.ranks; g++)
        if (b.rank === -1 || b.rank === g) {
          buffers.push({ id: b.id, name: b.name, place: g, size: b.size });
          gpus = Math.max(gpus, g + 1);
        }
  }
  const completions = [];
  for (let s = 0; s < p.completionSlots; s++)
    completions.push({ word: base.completion + s, value: 1 });
  const program: CudaProgram = {
    format: "dmac-cuda-program",
    version: 1,
    schedule: m.schedule,
    target: m.target,
    params: Object.fromEntries(m.params.map((x) => [x.name, x.value])),
    gpus,
    buffers,
    words: words.list,
    trigger: p.trigger ? { word: words.trigger, value: p.trigger.value } : null,
    external: [...external].sort((a, b) => a[0] - b[0]).map(([word, value]) => ({ word, value })),
    completions,
    streams,
    expect: expectedContents(m),
  };
  return { program, ops, diagnostics };
}
