import { configDefaults, defineConfig } from "vitest/config";
import { SLOW_SUITES } from "./vitest.slow-suites.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The slow suites run with `npm run test:slow` (vitest.slow.config.ts); CI runs both.
    exclude: [...configDefaults.exclude, ...SLOW_SUITES],
    // Two cores on the CI machines: more workers only adds contention.
    maxWorkers: 2,
    testTimeout: 60_000,
  },
});
