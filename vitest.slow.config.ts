import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";
import { SLOW_SUITES } from "./vitest.slow-suites.js";

// `npm run test:slow`: the slow suites `npm test` leaves out (vitest.slow-suites.ts).
export default defineConfig({
  test: { ...base.test, include: [...SLOW_SUITES], exclude: [] },
});
