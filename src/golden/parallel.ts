// Runs the tests of a plan on worker threads when that helps: each test compiles (and simulates)
// its schedule, CPU work that one thread does one test at a time. Workers pay off from a handful
// of tests on a machine with several cores; each takes the next test as it finishes one, and the
// outcomes come back in plan order, so the report does not depend on the number of workers.
// The workers load the built worker.js (dist/golden/): run from the TypeScript sources (vitest),
// the tests run in order on the calling thread.

import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { runTest, type GoldenTest, type TestOutcome, type UpdateMode } from "./run.js";

/** Fewer tests than this run on the calling thread (starting a worker costs a compile or two). */
export const MIN_TESTS_PER_WORKER = 4;
const MAX_DEFAULT_JOBS = 8;

const WORKER = new URL("./worker.js", import.meta.url);

/** The workers a run uses: `jobs` if given, else one per MIN_TESTS_PER_WORKER tests and core. */
export function workerCount(tests: number, jobs: number | undefined): number {
  if (!existsSync(fileURLToPath(WORKER))) return 1;
  const wanted =
    jobs ??
    Math.min(availableParallelism(), MAX_DEFAULT_JOBS, Math.floor(tests / MIN_TESTS_PER_WORKER));
  return Math.max(1, Math.min(wanted, tests));
}

export async function runTests(
  tests: readonly GoldenTest[],
  update: UpdateMode,
  jobs?: number,
): Promise<TestOutcome[]> {
  const n = workerCount(tests.length, jobs);
  if (n <= 1) return tests.map((t) => runTest(t, update));
  const outcomes: TestOutcome[] = new Array<TestOutcome>(tests.length);
  let next = 0;
  const work = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const worker = new Worker(WORKER);
      const send = (): void => {
        if (next >= tests.length) {
          void worker.terminate().then(() => resolve());
          return;
        }
        const index = next++;
        worker.postMessage({ index, test: tests[index], update });
      };
      worker.on("message", (m: { index: number; outcome: TestOutcome }) => {
        outcomes[m.index] = m.outcome;
        send();
      });
      // A worker that throws is a bug in dmac: the command reports it as an internal error.
      worker.on("error", reject);
      send();
    });
  await Promise.all(Array.from({ length: n }, work));
  return outcomes;
}
