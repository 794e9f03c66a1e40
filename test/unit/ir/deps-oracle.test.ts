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
import { buildIr } from "./build-ir.js";
import { referenceEdges } from "./deps-reference.js";

interface Reg {
  name: string;
  rank: number;
  off: number;
  len: number;
}
const overlaps = (a: Reg, b: Reg) =>
  a.name === b.name && a.rank === b.rank && a.off < b.off + b.len && b.off < a.off + a.len;
const text = (r: Reg) => `${r.name}@${r.rank}[${r.off} +: ${r.len}]`;

function randomProgram(rnd: () => number): IrModule {
  const int = (n: number) => Math.floor(rnd() * n);
  const ranks = 2 + int(2);
  const names = ["a", "b"].slice(0, 1 + int(2));
  const size = 48;
  const buffers = Object.fromEntries(names.map((n) => [n, size]));
  const region = (len: number): Reg => ({
    name: names[int(names.length)]!,
    rank: int(ranks),
    // Half the regions start at 0: prefixes of one another.
    off: rnd() < 0.5 ? 0 : int(size - len + 1),
    len,
  });
  const lines: string[] = [];
  const count = 5 + int(40);
  let waits = 0;
  while (lines.length < count) {
    const len = 1 + int(24);
    const k = int(13);
    if (k < 5) {
      const s = region(len);
      const d = region(len);
      if (!overlaps(s, d)) lines.push(`copy ${text(s)} -> ${text(d)}`);
    } else if (k < 7) {
      const s = region(len);
      const d1 = region(len);
      const d2 = region(len);
      if (!overlaps(s, d1) && !overlaps(s, d2) && !overlaps(d1, d2))
        lines.push(`copy ${text(s)} -> ${text(d1)}, ${text(d2)}`);
    } else if (k < 9) {
      const x = region(len);
      const y = region(len);
      if (!overlaps(x, y)) lines.push(`swap ${text(x)} <-> ${text(y)}`);
    } else if (k < 11) {
      lines.push(`fill ${text(region(len))} with ${int(4)}`);
    } else if (k === 11) {
      lines.push(`notify f@${int(ranks)}`);
    } else if (waits === 0) {
      lines.push(`when g@${int(ranks)} >= 1 {`);
      waits++;
    } else {
      lines.push("}");
      waits--;
    }
  }
  if (waits > 0) lines.push("}");
  return buildIr({ ranks, buffers, signals: ["f", "g"], lines }).m;
}

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
      const m = randomProgram(rnd);
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
