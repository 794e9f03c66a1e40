// The executor's input, independent of where it came from: SDMA packet streams + manifest
// (run.ts decodes them with the back end's one packet table) or a command trace. One SimProgram
// is a node's memory map and one command list per queue, with absolute addresses.
//
// Command semantics (docs/runtime.md, queues/queue-program.ts): a queue runs its commands in
// order; consecutive data commands (copy, bcast, swap, fill) may overlap, so they are not
// ordered with each other; fence, atomic and timestamp act after every earlier command of the
// queue completed; poll blocks the queue until its condition holds.

import type { CompareOp } from "../frontend/ast.js";
import type { IrModule } from "../ir/ir.js";

export type PollFunc = CompareOp | "always";

export type SimCmd =
  | { readonly kind: "copy"; readonly src: number; readonly dst: number; readonly bytes: number }
  | {
      readonly kind: "bcast";
      readonly src: number;
      readonly dst: number;
      readonly dst2: number;
      readonly bytes: number;
    }
  | { readonly kind: "swap"; readonly a: number; readonly b: number; readonly bytes: number }
  | { readonly kind: "fill"; readonly dst: number; readonly bytes: number; readonly value: number }
  /**
   * (*addr & mask) func value, 32-bit unsigned; re-checked every `interval` x 16 SDMA clocks, at
   * most `retries` times after the first check (undefined: forever, the packet's 0xFFF). A poll
   * that exhausts its retries fails (DMAC6014).
   */
  | {
      readonly kind: "poll";
      readonly addr: number;
      readonly func: PollFunc;
      readonly value: number;
      readonly mask: number;
      readonly interval: number;
      readonly retries?: number | undefined;
    }
  | { readonly kind: "fence"; readonly addr: number; readonly value: number }
  | {
      readonly kind: "atomic";
      readonly addr: number;
      readonly width: 32 | 64;
      readonly add: number;
    }
  | { readonly kind: "timestamp"; readonly addr: number }
  | { readonly kind: "nop" }
  /** A packet the executor cannot run (DMAC6007); running into it stops the queue. */
  | { readonly kind: "bad"; readonly detail: string };

export type SimCmdKind = SimCmd["kind"];

/** One command with its position: byte offset in the stream (packets) or index (trace). */
export interface SimEntry {
  readonly cmd: SimCmd;
  readonly at: number;
  /** Packets in the stream it stands for (1 per packet; used for throughput figures). */
  readonly packets: number;
  /**
   * The IR ops this command implements or orders (the manifest's source map, a trace's `ops`);
   * undefined when unknown. The schedule-meaning checks (semantics.ts) use them.
   */
  readonly ops?: readonly number[] | undefined;
}

export interface SimQueue {
  readonly name: string;
  readonly gpu: number;
  readonly engine: number;
  readonly entries: readonly SimEntry[];
  /** "byte" when `at` is a byte offset into a packet stream, "index" for a trace. */
  readonly position: "byte" | "index";
  /** The queue's own ring, when known (DMAC6009 checks writes into it). */
  readonly ring?: { readonly addr: number; readonly bytes: number } | undefined;
}

export type RegionKind =
  "buffer" | "signal" | "sync" | "completion" | "timestamp" | "trigger" | "ring";

/** One mapped range of the node's unified address space. */
export interface SimRegion {
  readonly kind: RegionKind;
  readonly name: string;
  /** The GPU whose memory it is; null = host memory. */
  readonly gpu: number | null;
  readonly addr: number;
  readonly bytes: number;
  /** buffer: buffer id (dense 0..n-1 across all buffer names). */
  readonly buffer?: number | undefined;
  /** Initial value of a word region (completion signals start at 1). */
  readonly initial?: number | undefined;
}

export interface SimProgram {
  readonly gpus: number;
  readonly queues: readonly SimQueue[];
  readonly regions: readonly SimRegion[];
  /** Buffer id -> size in bytes (the same on every GPU holding an instance). */
  readonly bufferSizes: readonly number[];
  readonly bufferNames: readonly string[];
  /** Words the host waits on until they equal `done` (host completion signals). */
  readonly completions: readonly {
    readonly addr: number;
    readonly done: number;
    readonly queue: string;
  }[];
  /** Prelaunch trigger, or null: the host submits every command and rings doorbells. */
  readonly trigger: { readonly addr: number; readonly value: number } | null;
  /** User signals no queue writes: raised by a modelled producer (a host, a compute kernel). */
  readonly externalSignals: readonly number[];
  /** Source location of a queue position, when a source map is known (for reports). */
  readonly locate?: ((queue: number, at: number) => string | undefined) | undefined;
  /**
   * What the streams must mean, when the IR is known (semantics.ts): the executor then checks
   * every notify, `when` guard and completion slot against it, not only the final buffers.
   */
  readonly meaning?: Meaning | undefined;
}

/** The schedule's meaning the executor checks the run against (built by run.ts). */
export interface Meaning {
  readonly module: IrModule;
  /** User signal words: address -> (signal id, rank). */
  readonly signals: readonly {
    readonly addr: number;
    readonly signal: number;
    readonly rank: number;
  }[];
  /**
   * Queue index that signals each completion slot (the manifest's `completionSlots`), -1 where
   * no queue claims it; undefined when the input does not say (a trace).
   */
  readonly slotOwner?: readonly number[] | undefined;
}
