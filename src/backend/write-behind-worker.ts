// The worker of write-behind.ts (its entry module, util/worker-entry.ts): writes each slot of the
// shared ring to the file the main thread names, in the order posted, and frees the slot. After
// a write error it writes nothing more, sends the error once (with its code: ENOSPC, EIO...), and
// still frees every slot it is given, so the main thread never waits for ever.

import { writeSync } from "node:fs";
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import {
  WRITE_SLOT_BYTES,
  WRITE_STATE,
  WriterState,
  type WriteSlotMessage,
} from "../util/shared-layouts.js";

/** What write-behind.ts gives the worker. */
export interface WriterData {
  readonly control: SharedArrayBuffer;
  readonly ring: SharedArrayBuffer;
  readonly errors: MessagePort;
}

function serve(port: MessagePort, data: WriterData): void {
  const control = new Int32Array(data.control);
  // (The main thread wrote for itself once it gave up waiting: then nothing is done here.)
  if (
    Atomics.compareExchange(control, WRITE_STATE, WriterState.starting, WriterState.running) !==
    WriterState.starting
  )
    return;
  let failed = false;
  port.on("message", (m: WriteSlotMessage) => {
    try {
      const bytes = new Uint8Array(data.ring, m.slot * WRITE_SLOT_BYTES, m.length);
      if (!failed)
        for (let at = 0; at < bytes.length;) at += writeSync(m.fd, bytes, at, bytes.length - at);
    } catch (e) {
      const err = e as { message?: unknown; code?: unknown };
      if (!failed) data.errors.postMessage({ message: String(err.message ?? e), code: err.code });
      failed = true;
    }
    Atomics.store(control, m.slot, 0);
    Atomics.notify(control, m.slot);
  });
}

if (parentPort) serve(parentPort, workerData as WriterData);
