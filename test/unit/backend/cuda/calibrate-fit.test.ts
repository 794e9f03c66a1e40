// `dmac calibrate` on the committed H100 host copies meets issue 18's bounds on the sizes it
// held out (a fit of thousands of executor runs: ~15 s on the 2-core machine, so in
// `npm run test:slow`; measure.test.ts checks the document and `dmac measure`).

import { describe, expect, it } from "vitest";
import { dmac } from "../../../helpers/cli.js";

const RESULTS = "bench/hardware/h100-2026-host-copies.json";

describe("dmac calibrate", () => {
  it("dmac calibrate fits on half of the sizes: held-out median error <= 15 %, fastest predicted fastest >= 90 %", async () => {
    const r = await dmac("calibrate", RESULTS);
    expect(r.code).toBe(0);
    const m =
      /after the fit, held-out sizes: median error ([\d.]+)% over 70 runs \(max [\d.]+%\); fastest variant predicted fastest at (\d+) of (\d+)/.exec(
        r.out,
      );
    expect(m).not.toBeNull();
    expect(Number(m![1])).toBeLessThanOrEqual(15);
    expect(Number(m![2]) / Number(m![3])).toBeGreaterThanOrEqual(0.9);
  });
});
