// Writing a big output directory on a second thread. A 10^6-operation compile writes ~430 MB
// (streams, manifest.json, its sidecar); the write system calls cost 0.2-1.2 s of the main
// thread's time, during which it could be formatting the next chunk of the manifest. The main
// thread opens each file (so "exists" and "permission denied" are reported where they happen)
// and closes it once written, copies its chunks into a ring shared with the worker, and waits
// only when the ring is full and at the end, before the directory is renamed into place. A
// write error in the worker (no space left) is raised by the next call on the main thread with
// the error's code, so output.ts reports it like its own.
//
// The worker is evaluated from source and uses node's modules only: dmac ships as one bundled
// file, and this needs no entry point of its own.

import { closeSync, writeSync } from "node:fs";
import {
  MessageChannel,
  Worker,
  receiveMessageOnPort,
  type MessagePort,
} from "node:worker_threads";

/** The shared ring the chunks travel through: SLOTS slots of SLOT bytes. The ring is all the
 * memory a slow disk can cost, and it is allocated once (a fresh buffer per chunk meant fresh
 * pages, a page fault each, for every byte written). */
const SLOT = 4 << 20;
const SLOTS = 8;

// busy[k]: 1 while slot k holds bytes the worker has not written yet. busy[SLOTS]: the worker's
// state (STARTING, RUNNING, or ABANDONED by the main thread, which then writes for itself).
// Dynamic imports only: the source is evaluated as CommonJS or, when NODE_OPTIONS says
// --input-type=module (execArgv does not override it), as a module.
const STARTING = 0;
const RUNNING = 1;
const ABANDONED = 2;
const WORKER_SOURCE = `
(async () => {
  const { parentPort, workerData } = await import("node:worker_threads");
  const { writeSync } = await import("node:fs");
  const busy = new Int32Array(workerData.busy);
  const ring = workerData.ring;
  const errors = workerData.errors;
  if (Atomics.compareExchange(busy, ${SLOTS}, ${STARTING}, ${RUNNING}) !== ${STARTING}) return;
  let failed = false;
  parentPort.on("message", (m) => {
    try {
      const bytes = new Uint8Array(ring, m.slot * ${SLOT}, m.length);
      if (!failed) for (let at = 0; at < bytes.length; )
        at += writeSync(m.fd, bytes, at, bytes.length - at);
    } catch (e) {
      if (!failed) errors.postMessage({ message: String((e && e.message) || e), code: e && e.code });
      failed = true;
    }
    Atomics.store(busy, m.slot, 0);
    Atomics.notify(busy, m.slot);
  });
})();
`;

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
  private readonly busy = new Int32Array(new SharedArrayBuffer(4 * (SLOTS + 1)));
  /** What each busy slot holds (for writing it here if the worker never starts). */
  private readonly meta: { fd: number; length: number }[] = [];
  private readonly born = performance.now();
  /** The worker never started: every write is made here. */
  private direct = false;
  private next = 0;
  private readonly worker: Worker;
  private readonly errors: MessagePort;
  private readonly toClose: number[] = [];
  private failure: WriteError | undefined;

  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.errors = port1;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      // Not this process's flags: with --input-type=module the source would be evaluated as a
      // module (no require), and a worker that never starts would leave write() waiting.
      execArgv: [],
      workerData: { busy: this.busy.buffer, ring: this.ring, errors: port2 },
      transferList: [port2],
    });
    // A worker that fails to start (or dies) must not end the process once the event loop runs:
    // its writes are made here instead (waitFree).
    this.worker.on("error", () => {});
    // Neither the worker nor its port keeps the process alive (dispose() stops it anyway).
    this.worker.unref();
    port1.unref();
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
      this.worker.postMessage({ fd, slot, length: piece.length });
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
      void this.worker.terminate();
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
        Atomics.load(this.busy, SLOTS) === STARTING &&
        performance.now() - this.born > START_LIMIT_MS &&
        Atomics.compareExchange(this.busy, SLOTS, STARTING, ABANDONED) === STARTING
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
    const got = receiveMessageOnPort(this.errors);
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
