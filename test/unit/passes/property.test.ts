// Property test: random small programs (fixed seed) through every combination of the optional
// passes and three engine strategies; the queue verifier runs after every pass, and the executor
// must give verdict ok with a final state equal to the reference semantics (simulate() checks
// the postcondition with ir/interp.ts runReference).

import { SIMULATED_COST_MODEL } from "../../../src/driver/cost-model.js";
import { describe, expect, it } from "vitest";
import { DEFAULT_LAYOUT, layoutProgram } from "../../../src/backend/sdma/layout.js";
import { emitTrace } from "../../../src/backend/trace/trace.js";
import type { IrModule } from "../../../src/ir/ir.js";
import { runPasses } from "../../../src/passes/index.js";
import type { EngineStrategy, PassName } from "../../../src/passes/pass.js";
import { lowerToQueues } from "../../../src/queues/lower.js";
import { simulate } from "../../../src/sim/run.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { buildModule, MI300X, type OpSpec } from "../queues/helpers.js";
import { mulberry32 as rng } from "../../helpers/prng.js";

const RANKS = 4;
const BUF = 4096;
const G = 256; // region granule: offsets and lengths are multiples (swap needs 64-byte alignment)

function randomProgram(seed: number): IrModule {
  const r = rng(seed);
  const int = (n: number): number => Math.floor(r() * n);
  const region = (len: number): [number, number, number] => [
    int(RANKS),
    int(2),
    int((BUF - len) / G + 1) * G,
  ];
  const overlaps = (a: [number, number, number], b: [number, number, number], len: number) =>
    a[0] === b[0] && a[1] === b[1] && a[2] < b[2] + len && b[2] < a[2] + len;
  const specs: OpSpec[] = [];
  const count = 4 + int(7);
  while (specs.length < count) {
    const len = (1 + int(4)) * G;
    const pick = r();
    const src = region(len);
    const dst = region(len);
    if (overlaps(src, dst, len)) continue;
    const driver = r() < 0.8 ? src[0] : dst[0];
    const engine = r() < 0.1 ? 2 + 2 * int(7) : undefined;
    if (pick < 0.5) {
      specs.push({
        kind: "copy",
        src,
        dst,
        len,
        driver,
        ...(engine !== undefined ? { engine } : {}),
      });
      // Sometimes a fusion or batching opportunity: same source to another rank at the same
      // offset, or the contiguous next piece.
      const dst2: [number, number, number] = [
        (dst[0] + 1 + int(RANKS - 1)) % RANKS,
        dst[1],
        dst[2],
      ];
      if (r() < 0.4 && !overlaps(src, dst2, len))
        specs.push({ kind: "copy", src, dst: dst2, len, driver });
      else if (r() < 0.4 && src[2] + 2 * len <= BUF && dst[2] + 2 * len <= BUF) {
        const s2: [number, number, number] = [src[0], src[1], src[2] + len];
        const d2: [number, number, number] = [dst[0], dst[1], dst[2] + len];
        if (!overlaps(s2, d2, len) && !overlaps(s2, dst, len) && !overlaps(src, d2, len))
          specs.push({ kind: "copy", src: s2, dst: d2, len, driver });
      }
    } else if (pick < 0.65) {
      const dst2 = region(len);
      if (overlaps(dst, dst2, len) || overlaps(src, dst2, len)) continue;
      specs.push({ kind: "bcast", src, dst, dst2, len, driver });
    } else if (pick < 0.8) {
      specs.push({ kind: "swap", src, dst, len, driver });
    } else if (pick < 0.9) {
      specs.push({ kind: "fill", dst, len, value: int(256), driver: dst[0] });
    } else {
      specs.push({ kind: "notify", signal: [0, int(RANKS)] });
    }
  }
  return buildModule([BUF, BUF], specs, { ranks: RANKS, signals: 1 });
}

const OPTIONAL: PassName[] = [
  "bcast-fusion",
  "batch-copies",
  "batch-completions",
  "sync-elision",
  "prelaunch",
];
const STRATEGIES: EngineStrategy[] = [
  { kind: "affinity" },
  { kind: "spread", k: 2 },
  { kind: "single", engines: [] },
];

describe("random programs through every pass combination", () => {
  const changed = new Map<string, number>(); // "pass: counter" -> total over all runs
  const file = makeSourceFile("random.dmac", "");
  for (let seed = 1; seed <= 8; seed++) {
    it(`seed ${seed}`, () => {
      const m = randomProgram(seed);
      const base = lowerToQueues(m, MI300X, { completion: "atomic" });
      for (let mask = 0; mask < 1 << OPTIONAL.length; mask++) {
        for (const engines of STRATEGIES) {
          const enable: Partial<Record<PassName, boolean>> = { "engine-assign": true };
          OPTIONAL.forEach((n, i) => (enable[n] = (mask & (1 << i)) !== 0));
          const what = `passes ${OPTIONAL.filter((_, i) => mask & (1 << i)).join(",")} engines ${engines.kind}`;
          const r = runPasses(base, m, {
            target: MI300X,
            module: m,
            options: { level: 0, engines, enable },
            lower: { completion: "atomic" },
            costModel: SIMULATED_COST_MODEL,
            verify: true,
          });
          for (const st of r.stats)
            for (const [k, v] of Object.entries(st.counters))
              changed.set(`${st.pass}: ${k}`, (changed.get(`${st.pass}: ${k}`) ?? 0) + v);
          const laid = layoutProgram(m, r.program, file, DEFAULT_LAYOUT);
          expect(laid.layout, what).toBeDefined();
          const trace = emitTrace(m, r.program, laid.layout!, MI300X.name);
          const sim = simulate({ trace, module: m }, { target: MI300X });
          expect(
            sim.diagnostics.filter((d) => d.severity === "error").map((d) => d.message),
            what,
          ).toEqual([]);
          expect(sim.postcondition, what).toBe("holds");
          expect(sim.verified, what).toBe(true);
        }
      }
    }, 60_000);
  }

  it("the generator exercises every pass (each changed something in some run)", () => {
    for (const key of [
      "bcast-fusion: broadcasts formed",
      "engine-assign: ops moved",
      "batch-copies: copies merged",
      "batch-completions: completions removed",
      "sync-elision: polls removed",
      "sync-elision: fences removed",
      "prelaunch: trigger polls",
    ])
      expect(changed.get(key) ?? 0, key).toBeGreaterThan(0);
  });
});
