// The test files `npm test` leaves to `npm run test:slow` (CI runs both; .ci/run), so the suite a
// developer runs often stays under 90 s on the 2-core machine (README, "Set-up"). Slow, large and
// statistical suites go here: each takes ten seconds or more there, or runs hundreds of random
// cases. A file here must stay meaningful on its own: it still fails where its subject breaks.
export const SLOW_SUITES: readonly string[] = [
  // Red-team regressions (issues 11 and 29): each case runs the installed command on a scratch
  // project or an edited output.
  "test/adversarial/**",
  // Every example and bench program compiled and simulated at -O0..2, digests compared (~60 s CPU).
  "test/results/results-unchanged.test.ts",
  // Large: every example at -O0..2 or through the whole CLI, or programs of 10^5-10^6 operations.
  "test/e2e/examples-sweep.test.ts",
  "test/unit/schemas/outputs.test.ts",
  "test/unit/passes/levels.test.ts",
  "test/unit/docs/optimisations-numbers.test.ts",
  "test/unit/plot/render.test.ts",
  "test/unit/cli/bundle.test.ts",
  "test/unit/safety/determinism.test.ts",
  "test/unit/backend/write-behind.test.ts",
  "test/unit/sim/trace-streaming.test.ts",
  "test/unit/sim/check-log.test.ts",
  "test/unit/perf/emit-million.test.ts",
  // Every example on three CUDA targets at -O0..2 against the recorded times of the old loop.
  "test/unit/sim/cuda-one-executor.test.ts",
  // The sim helper thread through bin/ and dist/ (processes, threads).
  "test/unit/cli/sim-helper.test.ts",
  "test/unit/cli/sim-checks-thread.test.ts",
  // Statistical: random programs and inputs by the hundred, fits, timing ratios.
  "test/unit/backend/cuda/calibrate-fit.test.ts",
  "test/unit/backend/cuda/fit-peer.test.ts",
  "test/unit/fuzz/ci.test.ts",
  "test/unit/fmt/generated.test.ts",
  "test/unit/frontend/robustness.test.ts",
  "test/unit/ir/instantiate-plain.test.ts",
  "test/unit/ir/deps-oracle.test.ts",
  "test/unit/ir/property.test.ts",
  "test/unit/passes/property.test.ts",
  "test/unit/sim/heap.test.ts",
  "test/unit/calibrate/mi300x-target.test.ts",
  "test/unit/perf/scaling.test.ts",
  "test/unit/perf/startup-ratio.test.ts",
  // Each pass at n and 16n operations.
  "test/unit/perf/pass-scaling.test.ts",
  // -O2 compiled twice, once beside three CPU hogs.
  "test/e2e/plan-determinism.test.ts",
  // Many CLI processes each (4-11 s on the quiet machine, 2026-11-27): every command's JSON
  // document, the package through its exports, compile then sim, progress on a terminal, the
  // golden workflow and its docs' examples.
  "test/unit/cli/json-output.test.ts",
  "test/e2e/package-api.test.ts",
  "test/e2e/compile-then-sim.test.ts",
  "test/unit/cli/progress.test.ts",
  "test/e2e/golden-workflow.test.ts",
  "test/e2e/golden-docs.test.ts",
  // The runtime library and its Python package built with g++ and tested (8.5 s).
  "test/unit/runtime/runtime.test.ts",
  // -O2's plan under budgets from 0 to unlimited (6.5 s).
  "test/unit/passes/plan-budget.test.ts",
];
