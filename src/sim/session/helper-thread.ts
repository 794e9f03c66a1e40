// The helper thread of `dmac sim DIR` (helper.ts): its entry module (util/worker-entry.ts).
// It says it has started, and its OS thread, in the shared flag (util/shared-layouts.ts HELPER_*),
// lowers its priority, loads the code that does the work (helper-work.ts: the front end,
// then the run's checks) and serves the two requests in the order they come; every reply is
// posted on the port and counted in the flag, which the other thread waits on. After the checks
// it closes its port, and the thread ends.
//
// This module imports little, so the thread says it has started before dmac's front end and
// checks are loaded (the other thread hands the run's log over only to a thread that runs).

import { readlinkSync } from "node:fs";
import { setPriority } from "node:os";
import { parentPort, workerData, type MessagePort } from "node:worker_threads";
import { HELPER_POSTED, HELPER_STARTED, HELPER_TID, stopLog } from "../../util/shared-layouts.js";
import type { ChecksRequest } from "../check-thread.js";
import type { SourceRequest } from "./front-end.js";
import type { HelperReply } from "./helper.js";

/** What helper.ts gives the thread. */
export interface HelperData {
  readonly port: MessagePort;
  readonly flag: Int32Array;
}

/**
 * The thread's nice value (Linux; the other thread keeps its own, 0 by default). Its work is
 * needed only at the end of the run, while the other thread's run is the whole run's critical
 * path, and on a machine whose cores the two threads (and V8's compiler threads) fill, the
 * scheduler shared the cores evenly: the run's first events went at half speed while the checks
 * set themselves up. Measured on the 262,144-copy all-to-all (2-core machine, 6 alternating
 * rounds): nice 0 0.56-0.63 s, 10 0.53-0.60 s, 19 0.53-0.58 s (docs/performance.md, "Executor,
 * eighth round: the main thread").
 */
export const HELPER_NICE = 10;

function serve({ port, flag }: HelperData): void {
  const post = (reply: HelperReply): void => {
    port.postMessage(reply);
    Atomics.add(flag, HELPER_POSTED, 1);
    Atomics.notify(flag, HELPER_POSTED);
  };
  const fail = (e: unknown): void => {
    const err = e as { name?: unknown; message?: unknown; stack?: unknown } | undefined;
    post({
      kind: "error",
      name: String(err?.name ?? "Error"),
      message: String(err?.message ?? e),
      ...(typeof err?.stack === "string" ? { stack: err.stack } : {}),
    });
  };
  process.on("uncaughtException", fail);
  // Loaded at once, and the front end prepared (its parser: needed anyway, and the request may
  // not have come yet); a failure is reported when a request comes.
  const work = import("./helper-work.js");
  work.then((w) => w.prepare()).catch(() => {});
  port.on("message", (m: SourceRequest | ChecksRequest) => {
    if ("kind" in m && m.kind === "checks") {
      work
        .then((w) => w.serveCheckRequest(m, post))
        // (A run whose log nobody reads any more: its writer must stop waiting for room.)
        .catch((e: unknown) => (stopLog(m.log.header), fail(e)))
        .finally(() => port.close());
      return;
    }
    // The module; the run's checks follow (the port stays open for them, or until the thread is
    // terminated: helper.ts close).
    work.then((w) => w.serveFrontEnd(m as SourceRequest, post)).catch(fail);
  });
  // Its OS thread, where the system lists it (Linux): a thread that ends without a word (out of
  // memory) is seen gone from /proc by the thread waiting for it (helper.ts gone).
  try {
    Atomics.store(flag, HELPER_TID, Number(readlinkSync("/proc/thread-self").split("/").pop()) | 0);
  } catch {
    // (Elsewhere: unknown, 0.)
  }
  // A lower priority than the other thread's: on Linux only, where a thread's nice value is its
  // own (elsewhere setPriority(0) changes the whole process).
  if (process.platform === "linux")
    try {
      setPriority(HELPER_NICE);
    } catch {
      // (Not allowed: the same priority.)
    }
  Atomics.store(flag, HELPER_STARTED, 1);
}

if (parentPort) {
  // (Tests: a thread that starts late.)
  const delay = Number(process.env["DMAC_SIM_HELPER_BOOT_DELAY"] ?? 0);
  if (delay > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, delay);
  serve(workerData as HelperData);
}
