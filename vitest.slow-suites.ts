// The test files `npm test` leaves to `npm run test:slow` (CI runs both; .ci/run): each takes
// tens of seconds on the 2-core machine, so the suite a developer runs often stays fast. A file
// here must stay meaningful on its own: it still fails where its subject breaks.
export const SLOW_SUITES: readonly string[] = [
  // Every example and bench program compiled and simulated at -O0..2, digests compared (~60 s CPU).
  "test/results/results-unchanged.test.ts",
  // The sim helper thread through bin/ and dist/ (processes, threads).
  "test/unit/cli/sim-helper.test.ts",
  "test/unit/cli/sim-checks-thread.test.ts",
  // Each pass at n and 16n operations.
  "test/unit/perf/pass-scaling.test.ts",
  // -O2 compiled twice, once beside three CPU hogs.
  "test/e2e/plan-determinism.test.ts",
];
