// Queue programs: what each SDMA queue (one per GPU and engine) does, in order, on SYMBOLIC
// locations. Lowering (queues/lower.ts) builds one from an IrModule; optimisation passes rewrite
// it (plain data: build a new program, never mutate a shared one); layout gives every location an
// address; the SDMA emitter and the trace emitter turn commands into packets / trace entries.
//
// Ordering semantics every producer and consumer of a QueueProgram relies on (see docs/runtime.md):
// - A queue runs its commands in order, but the engine may OVERLAP consecutive data commands
//   (copy, bcast, swap, fill): a data command is not guaranteed to see the writes of the data
//   command before it. (sdma-gfx942.md 2.7: ROCr uses FENCE because copies may overlap.)
// - `signal` with how "fence" (FENCE packet), `signal` with how "add" (ATOMIC), and `completion`
//   take effect only after every earlier command of the queue has completed.
// - `poll` blocks the queue until its condition holds; nothing after it starts before that.
// So "FENCE word := k; POLL word == k" is a full barrier, and "data; FENCE x := n" publishes that
// the data is complete. Sync words and completion signals are written only by the commands here.
//
// Every command lists the IR op ids it implements or serves (`ops`), for source maps: a data
// command lists the ops whose bytes it moves; a poll or signal lists the op it orders.

import type { CompareOp } from "../frontend/ast.js";

/** A byte in a buffer instance: buffer id `buffer` (IrModule.buffers) on rank `rank`. */
export interface BufferLoc {
  readonly space: "buffer";
  readonly rank: number;
  readonly buffer: number;
  readonly offset: number;
}

/** A user signal word (IrModule.signals[signal]) on rank `rank`, 32 bits. */
export interface SignalLoc {
  readonly space: "signal";
  readonly signal: number;
  readonly rank: number;
}

/** A compiler-allocated 32-bit sync word (QueueProgram.syncWords[word]). */
export interface SyncLoc {
  readonly space: "sync";
  readonly word: number;
}

/** The prelaunch trigger word in host-visible memory (QueueProgram.trigger). */
export interface TriggerLoc {
  readonly space: "trigger";
}

/** A 32-bit word a poll can wait on or a signal can raise. */
export type WordLoc = SignalLoc | SyncLoc | TriggerLoc;

export interface CopyCmd {
  readonly kind: "copy";
  readonly src: BufferLoc;
  readonly dst: BufferLoc;
  readonly bytes: number;
  readonly ops: readonly number[];
}

/** One read of `src`, written to both `dst` and `dst2` (COPY_LINEAR broadcast). */
export interface BcastCmd {
  readonly kind: "bcast";
  readonly src: BufferLoc;
  readonly dst: BufferLoc;
  readonly dst2: BufferLoc;
  readonly bytes: number;
  readonly ops: readonly number[];
}

/** Exchanges `bytes` bytes at `a` and `b` (COPY_SWAP). */
export interface SwapCmd {
  readonly kind: "swap";
  readonly a: BufferLoc;
  readonly b: BufferLoc;
  readonly bytes: number;
  readonly ops: readonly number[];
}

/** Sets `bytes` bytes at `dst` to the byte `value` (CONSTANT_FILL). */
export interface FillCmd {
  readonly kind: "fill";
  readonly dst: BufferLoc;
  readonly bytes: number;
  readonly value: number;
  readonly ops: readonly number[];
}

/** Blocks the queue until `(*at & mask) func value` holds (32-bit, unsigned). */
export interface PollCmd {
  readonly kind: "poll";
  readonly at: WordLoc;
  readonly func: CompareOp;
  readonly value: number;
  readonly mask: number;
  readonly why: PollReason;
  readonly ops: readonly number[];
}

/** dep: cross-queue happens-before; wait: a `when`; barrier: same-queue ordering; trigger: prelaunch. */
export type PollReason = "dep" | "wait" | "barrier" | "trigger";

/**
 * Raises a 32-bit word after all earlier commands of the queue completed.
 * how "fence": writes `value` (FENCE). how "add": adds `value` atomically (ATOMIC ADD_RTN_32).
 */
export interface SignalCmd {
  readonly kind: "signal";
  readonly at: WordLoc;
  readonly how: "fence" | "add";
  readonly value: number;
  readonly why: SignalReason;
  readonly ops: readonly number[];
}

/** dep: progress counter for a consumer queue; notify: a user `notify`; barrier: same-queue. */
export type SignalReason = "dep" | "notify" | "barrier";

/**
 * Signals host completion slot `slot` (a 64-bit host-visible signal, initial value 1) after all
 * earlier commands of the queue completed: ATOMIC ADD64 of -1, or FENCE of 0 with the "fence"
 * protocol (QueueProgram.completion). `ops` are the ops whose completion it reports.
 */
export interface CompletionCmd {
  readonly kind: "completion";
  readonly slot: number;
  readonly ops: readonly number[];
}

/** Writes the 64-bit global GPU timestamp into timestamp slot `slot` (TIMESTAMP GET_GLOBAL). */
export interface TimestampCmd {
  readonly kind: "timestamp";
  readonly slot: number;
  readonly ops: readonly number[];
}

export type DataCmd = CopyCmd | BcastCmd | SwapCmd | FillCmd;
export type QCmd = DataCmd | PollCmd | SignalCmd | CompletionCmd | TimestampCmd;
export type QCmdKind = QCmd["kind"];

export function isDataCmd(c: QCmd): c is DataCmd {
  return c.kind === "copy" || c.kind === "bcast" || c.kind === "swap" || c.kind === "fill";
}

export interface Queue {
  readonly gpu: number;
  readonly engine: number;
  readonly cmds: readonly QCmd[];
}

/**
 * A compiler-allocated 32-bit word in the memory of GPU `gpu` (initial value 0).
 * - progress: raised (FENCE, increasing values) by queue `producer`, polled (>=) by `consumer`;
 *   lives on the consumer's GPU so the poll reads local memory.
 * - barrier: a queue's own word for same-queue ordering (FENCE k, then POLL == k).
 * Queues are named by index into QueueProgram.queues.
 */
export type SyncWord =
  | {
      readonly kind: "progress";
      readonly gpu: number;
      readonly producer: number;
      readonly consumer: number;
    }
  | { readonly kind: "barrier"; readonly gpu: number; readonly queue: number };

export interface QueueProgram {
  readonly ranks: number;
  /** Non-empty queues sorted by (gpu, engine), at most one per pair. */
  readonly queues: readonly Queue[];
  readonly syncWords: readonly SyncWord[];
  /** How completion commands signal the host. */
  readonly completion: CompletionProtocol;
  /** Completion slots 0 .. completionSlots-1; each is signalled by exactly one command. */
  readonly completionSlots: number;
  readonly timestampSlots: number;
  /** Prelaunch: queues poll the trigger word until it is >= value. null: no trigger (-O0). */
  readonly trigger: { readonly value: number } | null;
}

export type CompletionProtocol = "atomic" | "fence";

export function queueName(q: { readonly gpu: number; readonly engine: number }): string {
  return `gpu${q.gpu}.sdma${q.engine}`;
}
