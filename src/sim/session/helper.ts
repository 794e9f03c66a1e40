// A helper thread for `dmac sim DIR` (node:worker_threads). Two pieces of the work depend on
// nothing this thread computes while it reads the streams and runs the events: the IR rebuilt
// from the source (~0.3 s; sent here in shared memory, kept there, with verification's reference
// run), and the run's checks (races, provenance, the schedule's meaning, the final state:
// src/sim/check-thread.ts), which replay a log this thread writes as the events run. This thread stays synchronous: it blocks on a shared counter (Atomics.wait)
// only when it needs a result, and takes it with receiveMessageOnPort.
//
// The thread's code is its own entry module, helper-thread.ts (found beside this module in
// dist/ and in the bundle: util/worker-entry.ts); the flag both threads share is laid out in
// util/shared-layouts.ts. Without a built entry (the TypeScript sources before a build) there is
// no thread, and DMAC_SIM_HELPER=0 turns it off (to measure): the work is then done on this
// thread, with the same results.

import { existsSync } from "node:fs";
import {
  MessageChannel,
  receiveMessageOnPort,
  Worker,
  type MessagePort,
} from "node:worker_threads";
import {
  buildSourceModule,
  type FrontEndJob,
  type SourceModule,
  type SourceRequest,
} from "./front-end.js";
import { CheckLog, newLogMemory } from "../check-log.js";
import {
  checkResultOf,
  checksRequest,
  type ChecksReply,
  type EarlyChecks,
} from "../check-thread.js";
import type { CheckSink } from "../checker.js";
import type { PackedProgram } from "../program.js";
import {
  HELPER_FLAG_WORDS,
  HELPER_POSTED,
  HELPER_STARTED,
  HELPER_TID,
} from "../../util/shared-layouts.js";
import { workerEntry } from "../../util/worker-entry.js";
import type { HelperData } from "./helper-thread.js";

/**
 * How long a thread may take to start (load its entry module) before this one stops waiting for
 * it and does the work itself: a thread that cannot start at all must not hang the run.
 */
const START_LIMIT_MS = Number(process.env["DMAC_SIM_HELPER_START_MS"] ?? 5000);

/** How often a thread waiting for the helper looks whether it has ended (gone). */
const LIVENESS_MS = 250;

/** What the thread sends back, in the order it was asked. */
export type HelperReply =
  | { readonly kind: "module"; readonly source: SourceModule }
  | ChecksReply
  | {
      readonly kind: "error";
      readonly name: string;
      readonly message: string;
      readonly stack?: string;
    };

/**
 * The smallest manifest.json worth a thread. Starting one costs ~0.15-0.2 s of CPU (loading dmac
 * again, its own memory map), which only a free core hides; it takes the front end and the run's
 * checks off this thread. Measured on the 2-core machine with a free core (wall,
 * without -> with the thread; docs/performance.md "Executor, sixth round"): a 6.9 MB manifest
 * 0.49-0.50 -> 0.53-0.55 s, 22.5 MB 0.80-0.81 -> 0.72-0.77 s, 29 MB 0.99-1.01 -> 0.84-0.90 s,
 * 240 MB 4.50-4.51 -> 2.78-2.89 s.
 */
export const HELPER_MIN_BYTES = 16 << 20;

const ENTRY = workerEntry(import.meta.url, "helper-thread");

/**
 * The thread's entry module for a manifest of `manifestBytes`, or undefined: no thread (see the
 * file comment). The variable DMAC_SIM_HELPER=0 turns the thread off, =1 starts it for any
 * manifest (tests).
 */
function helperEntry(manifestBytes: number): URL | undefined {
  const setting = process.env["DMAC_SIM_HELPER"];
  if (setting === "0" || (setting !== "1" && manifestBytes < HELPER_MIN_BYTES)) return undefined;
  return ENTRY;
}

export class SimHelper {
  private seen = 0;
  private closed = false;
  /** The thread did not start in time: given up, every later reply is undefined (done here). */
  private abandoned = false;
  /** frontEnd() was called: the thread serves the checks next, or is closed. */
  asked = false;
  /** Replies taken while waiting for another kind (the run may take the checks' first). */
  private readonly early: HelperReply[] = [];

  private constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    private readonly flag: Int32Array,
  ) {}

  /**
   * A started helper for a manifest of `manifestBytes` (it loads dmac at once). Undefined: none
   * (not worth it, or not possible here).
   */
  static start(manifestBytes: number): SimHelper | undefined {
    const entry = helperEntry(manifestBytes);
    if (!entry) return undefined;
    const { port1, port2 } = new MessageChannel();
    const flag = new Int32Array(new SharedArrayBuffer(4 * HELPER_FLAG_WORDS));
    const data: HelperData = { port: port2, flag };
    let worker: Worker;
    try {
      worker = new Worker(entry, { workerData: data, transferList: [port2] });
    } catch {
      return undefined;
    }
    // Never what keeps the process alive: a run that ends (or fails) early just exits. A thread
    // that fails to start is done without (take()); its error event must not end the process.
    worker.on("error", () => {});
    worker.unref();
    return new SimHelper(worker, port1, flag);
  }

  /**
   * The front end of `req`, built on the thread; the thread keeps the module for the run's checks
   * (checks), its last request.
   */
  frontEnd(req: SourceRequest): FrontEndJob {
    this.port.postMessage(req);
    this.asked = true;
    let source: SourceModule | undefined;
    return {
      shown: req.shown,
      module: () => {
        if (source === undefined) {
          const r = this.take("module");
          // (Undefined: the thread never started. Built here then.)
          source = r?.kind === "module" ? r.source : buildSourceModule(req);
        }
        return source;
      },
      checks: (p, maxRaces, meaning) => this.checks(p, maxRaces, meaning),
      release: () => this.close(),
    };
  }

  /**
   * The run's checks on the thread (check-thread.ts), over the module it built: a log this thread
   * writes and the thread replays. Undefined (checks here): the thread is gone or never started.
   */
  private checks(p: PackedProgram, maxRaces: number, early?: EarlyChecks): CheckSink | undefined {
    if (!this.running()) return undefined;
    const log = newLogMemory();
    this.port.postMessage(checksRequest(p, log, maxRaces, early));
    return new CheckLog(
      log,
      () => {
        const r = this.take("checks");
        this.close();
        if (r?.kind !== "checks") throw new Error("sim helper: no reply for the checks");
        return checkResultOf(r);
      },
      { gone: () => this.gone() },
    );
  }

  /**
   * Whether the thread runs, waiting up to START_LIMIT_MS for it to start (else it is abandoned
   * and the caller works here). Asked before the checks go to it: a log no thread reads would
   * fill and wait for room for ever, and the run may start before anything else was taken from
   * the thread (run.ts runBeforeModule).
   */
  private running(): boolean {
    const since = performance.now();
    while (!this.abandoned && !this.closed && Atomics.load(this.flag, HELPER_STARTED) !== 1) {
      if (performance.now() - since > START_LIMIT_MS) {
        this.abandoned = true;
        this.close();
        break;
      }
      Atomics.wait(this.flag, HELPER_POSTED, this.seen, 20);
      this.seen = Atomics.load(this.flag, HELPER_POSTED);
    }
    return !this.abandoned && !this.closed;
  }

  /**
   * Lets the thread go (a run done with it, or one that will not ask for the checks); every later
   * take() answers undefined at once.
   */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.port.close();
    void this.worker.terminate();
  }

  /**
   * The thread has ended (its OS thread is no longer listed: Linux). A thread that runs out of
   * memory, or is made to exit, ends without an exception to send: nothing else a blocked thread
   * can call says so.
   */
  private gone(): boolean {
    const tid = Atomics.load(this.flag, HELPER_TID);
    return tid > 0 && !existsSync(`/proc/self/task/${tid}`);
  }

  /**
   * The reply of `kind`, waiting for it (replies of other kinds that come first are kept for
   * their turn: a run may take the checks' before the module's); an exception on the thread is
   * thrown here (exit 2), as is its end without a reply (gone).
   * Undefined: the thread did not start within START_LIMIT_MS, or it was closed (its port gives
   * nothing any more: a wait would never end), so the caller does the work here.
   */
  private take(kind: HelperReply["kind"]): HelperReply | undefined {
    const since = performance.now();
    for (;;) {
      const kept = this.early.findIndex((r) => r.kind === kind);
      if (kept >= 0) return this.early.splice(kept, 1)[0];
      if (this.abandoned || this.closed) return undefined;
      const m = receiveMessageOnPort(this.port);
      if (m) {
        const r = replyOf(m.message as HelperReply);
        if (r.kind === kind) return r;
        this.early.push(r); // (asked for earlier, taken later)
        continue;
      }
      if (Atomics.load(this.flag, HELPER_STARTED) === 1) {
        // A reply posted just before the thread ended is still there: looked for first.
        if (
          Atomics.wait(this.flag, HELPER_POSTED, this.seen, LIVENESS_MS) === "timed-out" &&
          this.gone()
        )
          if (!this.anyReply())
            throw new Error("sim helper: the thread ended without a reply (out of memory?)");
      } else if (performance.now() - since > START_LIMIT_MS) {
        // Its replies, should it start later, would answer requests already done here.
        this.abandoned = true;
        this.close();
        return undefined;
      } else Atomics.wait(this.flag, HELPER_POSTED, this.seen, 20);
      this.seen = Atomics.load(this.flag, HELPER_POSTED);
    }
  }

  /** Takes a reply that is waiting into `early` (whatever it answers); false: none. */
  private anyReply(): boolean {
    const m = receiveMessageOnPort(this.port);
    if (m === undefined) return false;
    this.early.push(replyOf(m.message as HelperReply));
    return true;
  }
}

/** A reply as taken: an exception on the thread is thrown here (exit 2). */
function replyOf(r: HelperReply): HelperReply {
  if (r.kind === "error") {
    const e = new Error(r.message);
    e.name = r.name;
    if (r.stack !== undefined) e.stack = r.stack;
    throw e;
  }
  return r;
}
