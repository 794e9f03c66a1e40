// algbw and busbw as nccl-tests defines them, per collective, beside DMA-Latte's figures
// (src/sim/bandwidth.ts), on the example schedules run in the executor.

import { describe, expect, it } from "vitest";
import { bandwidthOf, NCCL_TESTS } from "../../../src/sim/bandwidth.js";
import { COLLECTIVES } from "../../../src/check/collectives.js";
import { simulate } from "../../../src/sim/run.js";
import { compileFile } from "./compile-helper.js";

/** example, its collective, nccl-tests' size, busbw / algbw (8 GPUs). */
const CASES: readonly (readonly [string, string | undefined, number, number])[] = [
  ["all_gather_pcpy", "all_gather_inplace", 8 * 8192, 7 / 8],
  ["all_to_all_pcpy_local", "all_to_all", 8 * 8192, 7 / 8],
  ["all_to_all_swap", "all_to_all_inplace", 8 * 65536, 7 / 8],
  // No `implements` (its `ensure`s leave out the block a rank keeps): sized as an all-gather,
  // which for an all-to-all is the same size and factor.
  ["all_to_all_pcpy", undefined, 8 * 8192, 7 / 8],
  ["broadcast", "broadcast", 1 << 20, 1],
  ["gather", "gather", 8 * 256 * 1024, 7 / 8],
  ["scatter", "scatter", 8 * 256 * 1024, 7 / 8],
];

describe("bandwidth figures", () => {
  it("has a convention for every collective", () => {
    expect(Object.keys(NCCL_TESTS).sort()).toEqual(Object.keys(COLLECTIVES).sort());
  });

  it.each(CASES)(
    "%s (%s): size and factor as nccl-tests, DMA-Latte's under its own names",
    (name, collective, size, factor) => {
      const c = compileFile(`examples/${name}.dmac`);
      const r = simulate(
        { manifest: c.manifest, streams: c.streams, module: c.module },
        { target: c.target },
      );
      expect(r.verified).toBe(true);
      const b = r.bandwidth;
      const t = r.stats.totalUs;
      expect(b.collective).toBe(collective);
      expect(b.sizeBytes).toBe(size);
      expect(b.busFactor).toBe(factor);
      expect(b.algbwGBps).toBeCloseTo(size / t / 1e3, 9);
      expect(b.busbwGBps).toBeCloseTo((factor * size) / t / 1e3, 9);
      expect(b.dmaLatteAlgbwGBps).toBeCloseTo(((7 / 8) * b.totalBytes) / t / 1e3, 9);
      expect(b.dmaLatteBusbwGBps).toBeCloseTo(b.totalBytes / (8 * t) / 1e3, 9);
    },
  );

  it("sizes an unknown collective as an all-gather from the bytes that crossed links", () => {
    const b = bandwidthOf({ gpus: 8, us: 10, peerBytes: 7 * 8000, localBytes: 0 }, undefined);
    const want = {
      sizeBytes: 8000,
      busFactor: 7 / 8,
      algbwGBps: 0.8,
      busbwGBps: 0.7,
      totalBytes: 8000,
      dmaLatteAlgbwGBps: 0.7,
      dmaLatteBusbwGBps: 0.1,
    };
    expect(b.collective).toBeUndefined();
    for (const [k, v] of Object.entries(want))
      expect(b[k as keyof typeof want], k).toBeCloseTo(v, 12);
  });
});
