// Node modules loaded on first use instead of when a module that names them loads: node:crypto
// and node:worker_threads cost ~2-3 ms each to load, on every `dmac compile`, which uses neither
// unless it hashes a CUDA program or writes a big output on a second thread (docs/performance.md,
// "The 65,536-copy compile"). require() returns the same module object an import would.

import { createRequire } from "node:module";

const load = createRequire(import.meta.url);
let crypto: typeof import("node:crypto") | undefined;
let workerThreads: typeof import("node:worker_threads") | undefined;

export const nodeCrypto = (): typeof import("node:crypto") => (crypto ??= load("node:crypto"));

export const nodeWorkerThreads = (): typeof import("node:worker_threads") =>
  (workerThreads ??= load("node:worker_threads"));
