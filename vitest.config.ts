import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Two cores on the CI machines: more workers only adds contention.
    maxWorkers: 2,
    testTimeout: 60_000,
  },
});
