// A helper thread for `dmac sim DIR` (node:worker_threads). Three pieces of the work depend on
// nothing this thread computes while it reads the streams and runs the events: the SHA-256 that
// binds manifest.sidecar to manifest.json (240 MB at 10^6 operations: reading and hashing it is
// ~0.4 s), the IR rebuilt from the source (~0.3 s; sent here in shared memory, kept there, with
// verification's reference run), and the run's checks (races, provenance, the schedule's
// meaning, the final state: src/sim/check-thread.ts), which replay a log this thread writes as
// the events run. This thread stays synchronous: it blocks on a shared counter (Atomics.wait)
// only when it needs a result, and takes it with receiveMessageOnPort.
//
// The thread runs the same code as this one: the bundle (dist/bundle/dmac.cjs, through its code
// cache, as bin/load-bundle.js runs it) or the compiled dist/ modules. From the TypeScript
// sources (vitest) there is no file to start it on, and DMAC_SIM_HELPER=0 turns it off (to
// measure): the work is then done on this thread, with the same results.

import { createHash } from "node:crypto";
import { existsSync, readSync } from "node:fs";
import { fileURLToPath } from "node:url";
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
} from "./sim-front-end.js";
import { CheckLog, newLogMemory } from "../../sim/check-log.js";
import {
  checkResultOf,
  checksRequest,
  type ChecksReply,
  type EarlyChecks,
} from "../../sim/check-thread.js";
import type { CheckSink } from "../../sim/checker.js";
import type { PackedProgram } from "../../sim/program.js";

/**
 * How long a thread may take to start (evaluate BOOT) before this one stops waiting for it and
 * does the work itself: a thread that cannot start at all must not hang the run.
 */
const START_LIMIT_MS = Number(process.env["DMAC_SIM_HELPER_START_MS"] ?? 5000);

/** How often a thread waiting for the helper looks whether it has ended (gone). */
const LIVENESS_MS = 250;

/** What the thread sends back, in the order it was asked. */
export type HelperReply =
  | { readonly kind: "hash"; readonly digest: Uint8Array | null }
  | { readonly kind: "module"; readonly source: SourceModule }
  | ChecksReply
  | {
      readonly kind: "error";
      readonly name: string;
      readonly message: string;
      readonly stack?: string;
    };

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

// The words of the shared flag (an Int32Array both threads see).
/** Replies posted (the other thread waits on it). */
const POSTED = 0;
/** 1 once the thread has started. */
const STARTED = 1;
/** The thread's OS thread id (0: unknown). */
const TID = 2;
/** Who makes manifest.json's hash: HASH_NONE, HASH_THREAD, HASH_HERE or HASH_POSTED. */
const HASH = 3;
/** How far the thread's hash has read, in MiB. */
const HASH_MIB = 4;
const FLAG_WORDS = 5;
/** Not begun. */
const HASH_NONE = 0;
/** The thread makes it. */
const HASH_THREAD = 1;
/** The other thread took it over (hashWhileWaiting): the thread posts no digest. */
const HASH_HERE = 2;
/** The thread's digest is posted. */
const HASH_POSTED = 3;
/** The hash's chunk (BOOT's and hashFile's reads), and HASH_MIB's unit. */
const MIB = 1 << 20;

/**
 * The thread's first code: loads dmac and serves the front end and the run's checks, hashes on
 * request when it has nothing else to do, and closes its port after the checks (the thread then
 * ends). It is
 * evaluated as CommonJS or, when this process runs with --input-type=module (a worker inherits
 * its flags), as a module: so it names nothing but globals and imports what it needs.
 */
const BOOT = `"use strict";
(async () => {
  if (process.env.DMAC_SIM_HELPER_BOOT_DELAY) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(process.env.DMAC_SIM_HELPER_BOOT_DELAY));
  // (require where there is one: import() of a built-in goes through the ES module loader.)
  const use = (m) => (typeof require === "function" ? require(m) : import(m));
  const { workerData: d } = await use("node:worker_threads");
  const fs = await use("node:fs");
  const { createHash } = await use("node:crypto");
  const post = (m) => {
    d.port.postMessage(m);
    Atomics.add(d.flag, ${POSTED}, 1);
    Atomics.notify(d.flag, ${POSTED});
  };
  const fail = (e) =>
    post({ kind: "error", name: String(e?.name ?? "Error"), message: String(e?.message ?? e), stack: e?.stack });
  process.on("uncaughtException", fail);
  // The hash of manifest.json, made a chunk at a time whenever the thread has nothing else to do
  // (the other thread needs it only after its run): between requests, in the gaps of the run's
  // log (check-thread.ts serveChecks' idle), and at the latest just before the checks' reply,
  // which the other thread takes first (the hash's reply must come before it).
  let pending; // { fd, bytes, at, h, buf }
  // The other thread takes the hash over when it would wait for this one while the hash is not
  // half made (flag[${HASH}]: SimHelper.hashWhileWaiting): nothing is posted then, and what this
  // thread still reads from the descriptor (closed there once it has its digest) is dropped.
  const mine = () => Atomics.compareExchange(d.flag, ${HASH}, ${HASH_NONE}, ${HASH_THREAD}) !== ${HASH_HERE};
  const postHash = (digest) => {
    pending = undefined;
    if (Atomics.compareExchange(d.flag, ${HASH}, ${HASH_THREAD}, ${HASH_POSTED}) === ${HASH_THREAD}) post({ kind: "hash", digest });
  };
  // One chunk of the hash (1 MiB, reused: it stays in the cache; 16 MiB chunks made the hash 1.8x
  // slower); posts the digest after the last. False: no hash to make.
  // (hashFile reads the same way, for a thread that gave no digest or whose hash was taken over.)
  const hashStep = () => {
    const p = pending;
    if (p === undefined) return false;
    if (!mine()) return (pending = undefined), true;
    try {
      const n = p.at < p.bytes ? fs.readSync(p.fd, p.buf, 0, Math.min(p.buf.length, p.bytes - p.at), p.at) : 0;
      if (n > 0) {
        p.h.update(p.buf.subarray(0, n));
        p.at += n;
        Atomics.store(d.flag, ${HASH_MIB}, Math.floor(p.at / ${MIB}));
        return true;
      }
      postHash(p.h.digest());
    } catch {
      postHash(null);
    }
    return true;
  };
  const hashAll = () => { while (pending !== undefined) hashStep(); };
  let idling = false;
  const idle = () => {
    if (idling || pending === undefined) return;
    idling = true;
    setImmediate(function step() {
      if (hashStep() && pending !== undefined) setImmediate(step);
      else idling = false;
    });
  };
  // As bin/load-bundle.js runs it (the same text, so that the code cache applies).
  const loadBundle = async (file) => {
    const { Script } = await use("node:vm");
    const { createRequire } = await use("node:module");
    const { dirname } = await use("node:path");
    let cachedData;
    try { cachedData = fs.readFileSync(file + ".cache"); } catch {}
    const script = new Script(
      "(function (exports, require, module, __filename, __dirname) {" + fs.readFileSync(file, "latin1") + "\\n})",
      { filename: file, ...(cachedData ? { cachedData } : {}) },
    );
    const module = { exports: {} };
    script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file));
    return module.exports.simHelperWorker();
  };
  let code;
  const load = () => (code ??= d.bundle ? loadBundle(d.bundle) : import(d.url));
  // Loaded ahead of the request, and the front end prepared (its parser: needed anyway, and
  // the request may not have come yet); a failure is reported when the request comes.
  const preload = () =>
    void load()
      .then((w) => w.prepare())
      .catch(() => {});
  // A run whose log nobody reads any more: its writer must stop waiting for room (check-log.ts).
  const stopLog = (log) => {
    const h = new Int32Array(log.header);
    Atomics.store(h, 2, 1);
    Atomics.notify(h, 1);
  };
  d.port.on("message", (m) => {
    if (m.kind === "hash") {
      try {
        pending = { fd: m.fd, bytes: m.bytes, at: 0, h: createHash("sha256"), buf: Buffer.allocUnsafe(Math.max(1, Math.min(m.bytes, ${MIB}))) };
      } catch {
        if (mine()) postHash(null);
      }
      load().then(idle, idle);
      return;
    }
    if (m.kind === "checks") {
      load()
        .then((w) => w.serveCheckRequest(m, (r) => (hashAll(), post(r)), hashStep))
        .catch((e) => (stopLog(m.log), hashAll(), fail(e)))
        .finally(() => d.port.close());
      return;
    }
    // The module; the run's checks follow (the port stays open for them, or until the thread is
    // terminated: sim-helper.ts close).
    load().then((w) => w.serveFrontEnd(m, post)).catch(fail).finally(idle);
  });
  // Its OS thread, where the system lists it (Linux): a thread that ends without a word (out of
  // memory) is seen gone from /proc by the thread waiting for it (sim-helper.ts gone).
  try {
    Atomics.store(d.flag, ${TID}, Number(fs.readlinkSync("/proc/thread-self").split("/").pop()) | 0);
  } catch {}
  // A lower priority than the other thread's (HELPER_NICE): on Linux only, where a thread's nice
  // value is its own (elsewhere setPriority(0) changes the whole process).
  if (process.platform === "linux") {
    try {
      (await use("node:os")).setPriority(${HELPER_NICE});
    } catch {}
  }
  Atomics.store(d.flag, ${STARTED}, 1);
  preload();
})();
`;

/**
 * The smallest manifest.json worth a thread. Starting one costs ~0.15-0.2 s of CPU (loading dmac
 * again, its own memory map), which only a free core hides; it takes the hash, the front end and
 * the run's checks off this thread. Measured on the 2-core machine with a free core (wall,
 * without -> with the thread; docs/performance.md "Executor, sixth round"): a 6.9 MB manifest
 * 0.49-0.50 -> 0.53-0.55 s, 22.5 MB 0.80-0.81 -> 0.72-0.77 s, 29 MB 0.99-1.01 -> 0.84-0.90 s,
 * 240 MB 4.50-4.51 -> 2.78-2.89 s.
 */
export const HELPER_MIN_BYTES = 16 << 20;

/**
 * Where the thread finds dmac's code, or undefined: no thread (see the file comment). The
 * variable DMAC_SIM_HELPER=0 turns the thread off, =1 starts it for any manifest (tests).
 */
function helperCode(manifestBytes: number): { bundle: string } | { url: string } | undefined {
  const setting = process.env["DMAC_SIM_HELPER"];
  if (setting === "0" || (setting !== "1" && manifestBytes < HELPER_MIN_BYTES)) return undefined;
  const here = import.meta.url;
  if (here.endsWith(".cjs")) return { bundle: fileURLToPath(here) };
  if (here.endsWith(".js")) return { url: new URL("./sim-helper-worker.js", here).href };
  return undefined;
}

/** A hash asked of the thread; `digest` once known here (null: the file could not be read). */
interface HashJob {
  readonly fd: number;
  readonly bytes: number;
  digest: Uint8Array | null | undefined;
}

/**
 * The SHA-256 of the first `bytes` of `fd`, read here exactly as the thread reads it (BOOT
 * `hashStep`, which runs as source text on the thread and so cannot call this): the same digest,
 * or null if it cannot be read.
 */
export function hashFile(fd: number, bytes: number): Uint8Array | null {
  try {
    const h = createHash("sha256");
    const buf = Buffer.allocUnsafe(Math.max(1, Math.min(bytes, MIB)));
    for (let at = 0; at < bytes;) {
      const n = readSync(fd, buf, 0, Math.min(buf.length, bytes - at), at);
      if (n === 0) break;
      h.update(buf.subarray(0, n));
      at += n;
    }
    return h.digest();
  } catch {
    return null;
  }
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
  /** The hash asked for (hash()), if any. */
  private hashJob: HashJob | undefined;

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
    const code = helperCode(manifestBytes);
    if (!code) return undefined;
    const { port1, port2 } = new MessageChannel();
    const flag = new Int32Array(new SharedArrayBuffer(4 * FLAG_WORDS));
    let worker: Worker;
    try {
      worker = new Worker(BOOT, {
        eval: true,
        workerData: { port: port2, flag, ...code },
        transferList: [port2],
      });
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
   * The SHA-256 of the first `bytes` bytes of the open file `fd` (null: it could not be read).
   * The descriptor must stay open until the digest is taken.
   */
  hash(fd: number, bytes: number): () => Uint8Array | null {
    this.port.postMessage({ kind: "hash", fd, bytes });
    const job: HashJob = { fd, bytes, digest: undefined };
    this.hashJob = job;
    // (Tests: taken over at once, as when this thread waits before the thread has begun.)
    if (process.env["DMAC_SIM_HELPER_HASH"] === "here") this.hashWhileWaiting();
    return () => {
      if (job.digest === undefined) {
        const r = this.take("hash");
        job.digest = r?.kind === "hash" ? r.digest : null;
      }
      return job.digest;
    };
  }

  /**
   * Makes the hash here, unless the thread has posted it or made half of it: called where this
   * thread would wait for another reply. The thread is then still busy (the hash is made in its
   * idle time, else just before the checks' reply), and this one has nothing else to do: on the
   * 262,144-copy all-to-all the 29 MB hash (~20 ms) came after the checks, this thread waiting.
   */
  private hashWhileWaiting(): boolean {
    const job = this.hashJob;
    if (job === undefined || job.digest !== undefined) return false;
    for (;;) {
      const who = Atomics.load(this.flag, HASH);
      if (who === HASH_POSTED || who === HASH_HERE) return false;
      if (who === HASH_THREAD && Atomics.load(this.flag, HASH_MIB) * 2 * MIB >= job.bytes)
        return false;
      if (Atomics.compareExchange(this.flag, HASH, who, HASH_HERE) === who) break;
    }
    job.digest = hashFile(job.fd, job.bytes);
    return true;
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
   * Whether the thread runs, waiting up to START_LIMIT_MS for it to start (else it is abandoned and
   * the caller works here). Asked before the checks go to it: a log no thread reads would fill and
   * wait for room for ever, and the run may start before anything else was taken from the thread
   * (the sidecar's binding is settled after the run).
   */
  private running(): boolean {
    const since = performance.now();
    while (!this.abandoned && !this.closed && Atomics.load(this.flag, STARTED) !== 1) {
      if (performance.now() - since > START_LIMIT_MS) {
        this.abandoned = true;
        this.close();
        break;
      }
      Atomics.wait(this.flag, POSTED, this.seen, 20);
      this.seen = Atomics.load(this.flag, POSTED);
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
    const tid = Atomics.load(this.flag, TID);
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
      if (Atomics.load(this.flag, STARTED) === 1) {
        // (Its reply may have come meanwhile: looked for again.)
        if (kind !== "hash" && this.hashWhileWaiting()) continue;
        // A reply posted just before the thread ended is still there: looked for first.
        if (Atomics.wait(this.flag, POSTED, this.seen, LIVENESS_MS) === "timed-out" && this.gone())
          if (!this.anyReply())
            throw new Error("sim helper: the thread ended without a reply (out of memory?)");
      } else if (performance.now() - since > START_LIMIT_MS) {
        // Its replies, should it start later, would answer requests already done here.
        this.abandoned = true;
        this.close();
        return undefined;
      } else Atomics.wait(this.flag, POSTED, this.seen, 20);
      this.seen = Atomics.load(this.flag, POSTED);
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
