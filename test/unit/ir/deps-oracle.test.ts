// Dependency inference (src/ir/deps.ts, with read-set.ts) gives exactly the edges of the earlier
// per-byte-range reader-list algorithm (deps-reference.ts) on random programs with dense overlaps
// (reads of growing prefixes, swaps, broadcasts, fills, notifies, guards) and on the examples;
// and reads of growing prefixes, quadratic in that algorithm, stay near-linear.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkSource } from "../../../src/check/check-source.js";
import { computeEdges } from "../../../src/ir/deps.js";
import { instantiate } from "../../../src/ir/instantiate.js";
import type { IrEdges, IrModule } from "../../../src/ir/ir.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { mulberry32 } from "../../helpers/prng.js";
import { randomProgram, type ProgramShape } from "./random-program.js";
import { referenceEdges } from "./deps-reference.js";

const SHAPE: ProgramShape = {
  extraRanks: 2,
  names: ["a", "b"],
  minBuffers: 1,
  size: 48,
  minOps: 5,
  opsRange: 40,
  maxLen: 24,
  prefixes: true,
  copyWeight: 5,
};

const same = (a: IrEdges, b: IrEdges): boolean =>
  a.predStart.length === b.predStart.length &&
  a.predStart.every((x, i) => x === b.predStart[i]) &&
  a.predIdx.length === b.predIdx.length &&
  a.predIdx.every((x, i) => x === b.predIdx[i]);

function moduleOf(path: string, defines: Record<string, string> = {}): IrModule {
  const c = checkSource(makeSourceFile(path, readFileSync(path, "utf8")), { defines });
  const inst = instantiate(c.schedules[0]!, { maxOps: 4_000_000 });
  return inst.module!;
}

describe("dependency inference matches the reference algorithm", () => {
  it("on 3,000 random programs with dense overlaps", () => {
    const rnd = mulberry32(0xdeb5);
    for (let c = 0; c < 3000; c++) {
      const m = randomProgram(rnd, SHAPE);
      if (!same(computeEdges(m), referenceEdges(m))) throw new Error(`case ${c} differs`);
    }
  });

  it("on 40 larger random programs (writer maps of several blocks)", () => {
    // One rank pair, one buffer, short regions: thousands of writer pieces per buffer, so the
    // typed-array interval map splits, spans and empties blocks.
    const rnd = mulberry32(0xb10c);
    const shape: ProgramShape = {
      extraRanks: 1,
      names: ["a"],
      minBuffers: 1,
      size: 4096,
      minOps: 1500,
      opsRange: 500,
      maxLen: 12,
      prefixes: false,
      copyWeight: 5,
    };
    for (let c = 0; c < 40; c++) {
      const m = randomProgram(rnd, shape);
      if (!same(computeEdges(m), referenceEdges(m))) throw new Error(`case ${c} differs`);
    }
  });

  it("on every example", () => {
    for (const f of readdirSync("examples").filter((x) => x.endsWith(".dmac"))) {
      const m = moduleOf(join("examples", f));
      expect(same(computeEdges(m), referenceEdges(m)), f).toBe(true);
    }
  });
});

describe("reads of growing prefixes are near-linear", () => {
  // 20,000 copies reading a@0[0 +: 4(i+1)] (and writing b@1 likewise): the reference gave every
  // 4-byte piece its own list of the readers since, 2 * 10^8 list nodes (out of memory).
  const PREFIXES = `target mi300x
schedule prefixes(n: int = 20000) {
  buffer a: 4B * n
  buffer b: 4B * n
  for i in 0..n {
    copy a@0[0 +: 4B * (i + 1)] -> b@1[0 +: 4B * (i + 1)]
  }
  fill a@0 with 1
}
`;
  it("20,000 copies in well under a second, edges as expected", () => {
    const file = makeSourceFile("prefixes.dmac", PREFIXES);
    const inst = instantiate(checkSource(file, { defines: {} }).schedules[0]!, { maxOps: 1e6 });
    const m = inst.module!;
    const t0 = performance.now();
    const e = computeEdges(m);
    const ms = performance.now() - t0;
    console.log(`deps of 20,000 growing prefixes: ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(5000);
    // Copy i writes b@1[0 +: 4(i+1)] over copy i-1's bytes: one edge each; the final fill
    // depends on all 20,000 readers of a@0.
    expect(e.predStart[20_000]! - e.predStart[1]!).toBe(19_999);
    expect(e.predStart[20_001]! - e.predStart[20_000]!).toBe(20_000);
  });
});
