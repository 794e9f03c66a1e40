// Writing a big output directory on a second thread. A 10^6-operation compile writes ~430 MB
// (streams, manifest.json, its sidecar); the write system calls cost 0.2-1.2 s of the main
// thread's time, during which it could be formatting the next chunk of the manifest. The main
// thread opens each file (so "exists" and "permission denied" are reported where they happen)
// and closes it once written,
// hands copies of its chunks to the worker, and waits only when more than BACKLOG bytes are
// queued (the memory a slow disk may cost) and at the end, before the directory is renamed into
// place. A write error in the worker (no space left) is raised by the next call on the main
// thread with the error's code, so output.ts reports it like its own.
//
// The worker is evaluated from source and uses node's modules only: dmac ships as one bundled
// file, and this needs no entry point of its own.

import { closeSync } from "node:fs";
import {
  MessageChannel,
  Worker,
  receiveMessageOnPort,
  type MessagePort,
} from "node:worker_threads";

/** Bytes queued before write() waits for the worker. */
const BACKLOG = 32 << 20;

// pending[0]: messages not yet handled; pending[1]: bytes not yet written.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { writeSync } = require("node:fs");
const pending = new Int32Array(workerData.pending);
const errors = workerData.errors;
let failed = false;
parentPort.on("message", (m) => {
  try {
    if (!failed) for (let at = 0; at < m.bytes.length; )
      at += writeSync(m.fd, m.bytes, at, m.bytes.length - at);
  } catch (e) {
    if (!failed) errors.postMessage({ message: String((e && e.message) || e), code: e && e.code });
    failed = true;
  }
  Atomics.sub(pending, 1, m.bytes.length);
  Atomics.sub(pending, 0, 1);
  Atomics.notify(pending, 0);
  Atomics.notify(pending, 1);
});
`;

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
  private readonly pending = new Int32Array(new SharedArrayBuffer(8));
  private readonly worker: Worker;
  private readonly errors: MessagePort;
  private readonly toClose: number[] = [];
  private failure: WriteError | undefined;

  constructor() {
    const { port1, port2 } = new MessageChannel();
    this.errors = port1;
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { pending: this.pending.buffer, errors: port2 },
      transferList: [port2],
    });
    // Neither the worker nor its port keeps the process alive (dispose() stops it anyway).
    this.worker.unref();
    port1.unref();
  }

  /** Queues `bytes` (copied: the caller may reuse its buffer) to be written to `fd`. */
  write(fd: number, bytes: Uint8Array): void {
    this.raise();
    let queued: number;
    while ((queued = Atomics.load(this.pending, 1)) > BACKLOG) {
      Atomics.wait(this.pending, 1, queued, 1000);
      this.raise();
    }
    this.post({ fd, bytes: new Uint8Array(bytes) });
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

  private wait(): void {
    let n: number;
    while ((n = Atomics.load(this.pending, 0)) !== 0) Atomics.wait(this.pending, 0, n, 1000);
  }

  private closeAll(): void {
    for (const fd of this.toClose.splice(0)) closeSync(fd);
  }

  private post(m: { fd: number; bytes: Uint8Array<ArrayBuffer> }): void {
    Atomics.add(this.pending, 0, 1);
    Atomics.add(this.pending, 1, m.bytes.length);
    this.worker.postMessage(m, [m.bytes.buffer]);
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
