// Scale: dependency inference and verification of the big programs stay near-linear.
// Times are logged (not asserted tightly: the CI machine is shared), edge counts are exact.
import { describe, it, expect } from "vitest";
import { inferDeps } from "../../../src/ir/deps.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { verifyModule } from "../../../src/ir/verify.js";
import { bulkCopies } from "./build-ir.js";

const RANKS = 8;
const CHUNKS = 2048;
const CHUNK = 4096;

/** for r in ranks, p in ranks, k in 0..CHUNKS: copy src@r[(p*CHUNKS + k)*CHUNK] -> dst@p[(r*CHUNKS + k)*CHUNK] */
function allToAll() {
  const S = CHUNKS * CHUNK;
  const m = bulkCopies(
    RANKS,
    [
      { name: "src", size: RANKS * S },
      { name: "dst", size: RANKS * S },
    ],
    RANKS * RANKS * CHUNKS,
    (i) => {
      const k = i % CHUNKS;
      const p = Math.floor(i / CHUNKS) % RANKS;
      const r = Math.floor(i / (CHUNKS * RANKS));
      return [r, 0, p * S + k * CHUNK, p, 1, r * S + k * CHUNK, CHUNK];
    },
  );
  return {
    ...m,
    collective: {
      name: "all_to_all",
      args: [
        { kind: "buffer" as const, id: 0 },
        { kind: "buffer" as const, id: 1 },
      ],
      span: { start: 0, end: 0 },
    },
  };
}

describe("scale", () => {
  it("the 8-rank all-to-all with 2,048 chunks per pair (plus the 16,384 local copies: 131,072) infers and verifies", () => {
    const m = allToAll();
    expect(m.ops.count).toBe(131_072);
    const t0 = performance.now();
    const d = inferDeps(m);
    const t1 = performance.now();
    const diags = verifyModule(d, makeSourceFile("a2a.dmac", ""));
    const t2 = performance.now();
    console.log(
      `all-to-all ${m.ops.count} copies: deps ${(t1 - t0).toFixed(0)} ms, verify ${(t2 - t1).toFixed(0)} ms`,
    );
    expect(d.edges!.predIdx.length).toBe(0); // every chunk is read once and written once
    expect(diags).toEqual([]);
  });

  it("a chain-heavy program grows near-linearly (10^4 vs 10^5 ops)", () => {
    // Every step forwards slot k of rank r to rank r+1 over 512 slots: RAW/WAW/WAR everywhere.
    const ring = (n: number) =>
      bulkCopies(RANKS, [{ name: "x", size: 512 * 256 }], n, (i) => {
        const r = i % RANKS;
        const k = Math.floor(i / RANKS) % 512;
        return [r, 0, k * 256, (r + 1) % RANKS, 0, k * 256, 256];
      });
    const time = (n: number) => {
      const m = ring(n);
      const t0 = performance.now();
      const d = inferDeps(m);
      const ms = performance.now() - t0;
      return { ms, edges: d.edges!.predIdx.length };
    };
    time(10_000); // warm up
    const small = time(10_000);
    const big = time(100_000);
    console.log(`ring: 1e4 ops ${small.ms.toFixed(1)} ms, 1e5 ops ${big.ms.toFixed(1)} ms`);
    // Each copy reads the slot the previous copy on it wrote and overwrites what the next reads.
    expect(big.edges).toBeGreaterThan(100_000);
    expect(big.edges).toBeLessThan(300_000);
    // Quadratic would be 100x; allow generous noise on a shared machine.
    expect(big.ms).toBeLessThan(small.ms * 40 + 200);
  });
});
