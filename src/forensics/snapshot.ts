// A snapshot of a (possibly hung) run: what a host can read while the GPUs hang, in the JSON form
// `dmac postmortem DIR SNAPSHOT` takes (schemas/snapshot.schema.json). On hardware a loader
// writes one from the breadcrumb words (host memory: manifest `breadcrumbs[].address`), the
// queues' read pointers (rptr write-back, in bytes, reduced to the stream: `rptr - start`) and
// any word it can read; `dmac sim --snapshot FILE` writes one when the executor finds a deadlock
// or stops at its watchdog.

export interface SnapshotQueue {
  /** "gpu3.sdma14" as in the manifest. */
  readonly queue: string;
  /** The breadcrumb word's value (the last completed step), or null when not read. */
  readonly breadcrumb: number | null;
  /**
   * Byte offset, in the queue's stream, of the packet the engine is executing (a blocked poll),
   * or the stream's length when it drained; null when not read.
   */
  readonly rptr: number | null;
}

export interface SnapshotWord {
  readonly address: number;
  /** The 32-bit value read. */
  readonly value: number;
}

export interface Snapshot {
  readonly version: 1;
  readonly kind: "dmac-snapshot";
  /** Why it was taken: deadlock (every queue left is blocked), watchdog, or taken by hand. */
  readonly reason: "deadlock" | "watchdog" | "manual";
  /** Simulated (or wall) time of the snapshot in microseconds, or null. */
  readonly timeUs: number | null;
  readonly queues: readonly SnapshotQueue[];
  /** Word values read (sync words, user signals, the trigger); may be empty. */
  readonly words: readonly SnapshotWord[];
}
