// Writing a big output directory on a second thread. A 10^6-operation compile writes ~430 MB
// (streams, manifest.json, its sidecar); the write system calls cost 0.2-1.2 s of the main
// thread's time, during which it could be formatting the next chunk of the manifest. The main
// thread opens each file (so "exists" and "permission denied" are reported where they happen)
// and closes it once written, copies its chunks into a ring shared with the worker, and waits
// only when the ring is full and at the end, before the directory is renamed into place. A
// write error in the worker (no space left) is raised by the next call on the main thread with
// the error's code, so output.ts reports it like its own.
//
// The worker's code is its own entry module, write-behind-worker.ts; the ring's layout is in
// util/shared-layouts.ts. Without a built worker (run from the TypeScript sources before a build)
// every write is made here.

import { closeSync, writeSync } from "node:fs";
import type { MessagePort, Worker } from "node:worker_threads";
import {
  WRITE_CONTROL_WORDS,
  WRITE_SLOT_BYTES as SLOT,
  WRITE_SLOTS as SLOTS,
  WRITE_STATE,
  WriterState,
  type WriteSlotMessage,
} from "../util/shared-layouts.js";
import { nodeWorkerThreads } from "../util/lazy-builtin.js";
import { workerEntry } from "../util/worker-entry.js";
import type { WriterData } from "./write-behind-worker.js";

const WORKER = workerEntry(import.meta.url, "write-behind-worker");

/** How long the worker may take to start before the main thread writes for itself. */
const START_LIMIT_MS = Number(process.env["DMAC_WRITE_BEHIND_START_MS"] ?? 5000);

/** An error of the worker's write, with its code (ENOSPC, EIO...). */
class WriteError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

export class WriteBehind {
  private readonly ring = new SharedArrayBuffer(SLOT * SLOTS);
  /** The ring's control words (util/shared-layouts.ts). */
  private readonly busy = new Int32Array(new SharedArrayBuffer(4 * WRITE_CONTROL_WORDS));
  /** What each busy slot holds (for writing it here if the worker never starts). */
  private readonly meta: { fd: number; length: number }[] = [];
  private readonly born = performance.now();
  /** The worker never started: every write is made here. */
  private direct = false;
  private next = 0;
  /** Undefined: no worker (none built, or it could not be made); every write is made here. */
  private readonly worker: Worker | undefined;
  private readonly errors: MessagePort;
  private readonly toClose: number[] = [];
  private failure: WriteError | undefined;

  constructor() {
    const { MessageChannel, Worker } = nodeWorkerThreads();
    const { port1, port2 } = new MessageChannel();
    this.errors = port1;
    port1.unref();
    const data: WriterData = {
      control: this.busy.buffer as SharedArrayBuffer,
      ring: this.ring,
      errors: port2,
    };
    try {
      this.worker = WORKER && new Worker(WORKER, { workerData: data, transferList: [port2] });
    } catch {
      this.worker = undefined;
    }
    if (this.worker === undefined) {
      this.direct = true;
      return;
    }
    // A worker that fails to start (or dies) must not end the process once the event loop runs:
    // its writes are made here instead (waitFree).
    this.worker.on("error", () => {});
    // Neither the worker nor its port keeps the process alive (dispose() stops it anyway).
    this.worker.unref();
  }

  /** Queues `bytes` to be written to `fd`: copied into the ring, so the caller may reuse its
   * buffer at once. Waits while the ring is full. */
  write(fd: number, bytes: Uint8Array): void {
    for (let at = 0; at < bytes.length; at += SLOT) {
      const piece = bytes.subarray(at, Math.min(bytes.length, at + SLOT));
      const slot = this.next;
      if (!this.direct) this.waitFree(slot); // (which may find the worker never started)
      this.raise();
      if (this.direct) {
        writeAll(fd, piece);
        continue;
      }
      this.meta[slot] = { fd, length: piece.length };
      new Uint8Array(this.ring, slot * SLOT, piece.length).set(piece);
      Atomics.store(this.busy, slot, 1);
      const message: WriteSlotMessage = { fd, slot, length: piece.length };
      this.worker!.postMessage(message);
      this.next = (slot + 1) % SLOTS;
    }
  }

  /** Closes `fd` once its writes are done (here: node warns when a worker closes a descriptor
   * another thread opened). */
  close(fd: number): void {
    this.toClose.push(fd);
  }

  /** Waits until everything queued is written and the files closed; throws the worker's first
   * error. */
  drain(): void {
    this.wait();
    this.closeAll();
    this.raise();
  }

  /** Stops the worker, after drain() or after a failure (closing what is still open). */
  dispose(): void {
    this.wait();
    try {
      this.closeAll();
    } finally {
      void this.worker?.terminate();
      this.errors.close();
    }
  }

  /** Waits until the worker has written every slot. */
  private wait(): void {
    for (let k = 0; k < SLOTS; k++) this.waitFree(k);
  }

  private waitFree(slot: number): void {
    while (Atomics.load(this.busy, slot) !== 0) {
      Atomics.wait(this.busy, slot, 1, 100);
      if (
        Atomics.load(this.busy, WRITE_STATE) === WriterState.starting &&
        performance.now() - this.born > START_LIMIT_MS &&
        Atomics.compareExchange(
          this.busy,
          WRITE_STATE,
          WriterState.starting,
          WriterState.abandoned,
        ) === WriterState.starting
      )
        this.writeHere();
    }
  }

  /** The worker never started (and now never will): the queued slots, oldest first, written
   * here; every later write too. */
  private writeHere(): void {
    this.direct = true;
    for (let j = 0; j < SLOTS; j++) {
      const slot = (this.next + j) % SLOTS;
      if (Atomics.load(this.busy, slot) === 0) continue;
      const { fd, length } = this.meta[slot]!;
      const bytes = new Uint8Array(this.ring, slot * SLOT, length);
      try {
        if (!this.failure) writeAll(fd, bytes);
      } catch (e) {
        const err = e as { message?: string; code?: string };
        this.failure ??= new WriteError(String(err.message ?? e), err.code);
      }
      Atomics.store(this.busy, slot, 0);
    }
  }

  /** Closes every file, all of them even when one close fails (its error is thrown after). */
  private closeAll(): void {
    let first: unknown;
    for (const fd of this.toClose.splice(0)) {
      try {
        closeSync(fd);
      } catch (e) {
        first ??= e;
      }
    }
    if (first !== undefined) throw first;
  }

  private raise(): void {
    const got = nodeWorkerThreads().receiveMessageOnPort(this.errors);
    if (got) {
      const e = got.message as { message: string; code?: string };
      this.failure = new WriteError(e.message, e.code);
    }
    if (this.failure) throw this.failure;
  }
}

/** Writes all of `bytes` to `fd` (a write may take fewer bytes than it was given). */
export function writeAll(fd: number, bytes: Uint8Array): void {
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
}
