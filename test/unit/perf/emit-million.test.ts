// Lowering, layout and SDMA emission of a million independent copies in one process: a large
// case (tens of seconds on the shared 2-core machine), so it runs with `npm run test:slow`.
import { describe, it, expect } from "vitest";
import { emitSdma } from "../../../src/backend/sdma/emit.js";
import { layoutProgram } from "../../../src/backend/sdma/layout.js";
import { lowerToQueues } from "../../../src/queues/lower.js";
import { buildModule, MI300X } from "../queues/helpers.js";

describe("layout and emission at scale", () => {
  it("lowers and emits 1M independent operations", () => {
    const specs = [];
    const n = 1_000_000;
    for (let i = 0; i < n; i++) {
      const r = i % 8;
      const p = (r + 1 + (i % 7)) % 8;
      specs.push({
        kind: "copy" as const,
        src: [r, 0, i * 64] as [number, number, number],
        dst: [p, 1, i * 64] as [number, number, number],
        len: 64,
      });
    }
    const m = buildModule([64 * n, 64 * n], specs);
    const t0 = performance.now();
    const p = lowerToQueues(m, MI300X, { completion: "atomic" });
    const l = layoutProgram(m, p, undefined).layout!;
    const r = emitSdma(p, m, l, undefined);
    const ms = performance.now() - t0;
    expect(r.diagnostics).toEqual([]);
    expect(r.queues.reduce((a, q) => a + q.packetCount, 0)).toBeGreaterThanOrEqual(2 * n);
    expect(ms).toBeLessThan(60_000);
    console.log(`lower+layout+emit of ${n} ops: ${ms.toFixed(0)} ms`);
  });
});
