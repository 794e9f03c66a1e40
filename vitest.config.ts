import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Two cores on the CI machines: more workers only adds contention.
    maxWorkers: 2,
    testTimeout: 60_000,
    // The -O2 plan search stops at a wall-clock budget (1.5 s); on a loaded machine that changes
    // the chosen plan and adds a DMAC4009 warning, so tests that compare -O2 outputs would depend
    // on the load. Tests of the budget itself pass planBudgetMs explicitly.
    env: { DMAC_PLAN_BUDGET_MS: "1e9" },
  },
});
