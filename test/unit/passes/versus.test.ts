// -O2 on the straightforward all-gather and all-to-all (one copy per pair, no pins) against the
// hand-written DMA-Latte variants, under the executor's model: at least as fast as the best of
// them (with or without prelaunch) at every size tried, and faster than each of their
// hand-written forms (pcpy/bcst/swap at -O0, b2b at -O1).

import { describe, expect, it } from "vitest";
import type { PassOptions } from "../../../src/passes/pass.js";
import { build, exampleText, O, simulateBuilt } from "./helpers.js";

const time = (f: string, o: PassOptions, chunk: string): number => {
  const r = simulateBuilt(build(f, exampleText(f), o, { chunk }));
  expect(r.verified, `${f} ${chunk}`).toBe(true);
  return r.stats.totalUs;
};
const PL = (level: 0 | 1): PassOptions => O(level, { prelaunch: true });

const CASES: { plain: string; variants: [string, 0 | 1][] }[] = [
  {
    plain: "all_gather_pcpy.dmac",
    variants: [
      ["all_gather_pcpy.dmac", 0],
      ["all_gather_bcst.dmac", 0],
      ["all_gather_b2b.dmac", 1],
    ],
  },
  {
    plain: "all_to_all_pcpy.dmac",
    variants: [
      ["all_to_all_pcpy.dmac", 0],
      ["all_to_all_b2b.dmac", 1],
      // In-place all-to-all (a different collective), the paper's small-size winner.
      ["all_to_all_swap.dmac", 0],
    ],
  },
];

describe("-O2 versus the hand-written variants", () => {
  for (const c of CASES) {
    for (const chunk of ["1KiB", "1MiB", "16MiB", "1GiB"]) {
      it(`${c.plain} at ${chunk}`, () => {
        const o2 = time(c.plain, O(2), chunk);
        for (const [f, level] of c.variants) {
          expect(o2, `${f} hand-written`).toBeLessThan(time(f, O(level), chunk));
          expect(o2, `${f} +prelaunch`).toBeLessThanOrEqual(time(f, PL(level), chunk) + 1e-6);
        }
      }, 30_000);
    }
  }
});
