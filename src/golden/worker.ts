// A worker thread of parallel.ts: runs the tests it is sent, one at a time, and posts back each
// outcome. Everything it receives and returns is plain data (structured clone).

import { parentPort } from "node:worker_threads";
import { runTest, type GoldenTest, type UpdateMode } from "./run.js";

parentPort?.on("message", (m: { index: number; test: GoldenTest; update: UpdateMode }) => {
  parentPort!.postMessage({ index: m.index, outcome: runTest(m.test, m.update) });
});
