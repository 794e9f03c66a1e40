// regionMap (src/sim/regions.ts): named regions and word-region columns merged by address, ties
// in their input order (named first, then the words in their order), as a stable sort gives.
import { describe, expect, it } from "vitest";
import { regionMap, WordRegionsBuilder } from "../../../src/sim/regions.js";
import type { SimRegion } from "../../../src/sim/program.js";
import { mulberry32 } from "../../helpers/prng.js";

describe("regionMap", () => {
  it("orders named regions and runs of words as a stable sort by address would", () => {
    const rnd = mulberry32(7);
    const int = (n: number) => Math.floor(rnd() * n);
    for (let round = 0; round < 200; round++) {
      const named: SimRegion[] = Array.from({ length: int(6) }, (_, j) => ({
        kind: "buffer" as const,
        name: `b${j}`,
        gpu: int(2),
        addr: 8 * int(40),
        bytes: 8,
      }));
      // A few sorted runs (up to 20: past 16 the plain sort is used), with repeated addresses.
      const runs = int(20);
      const addrs: number[] = [];
      for (let r = 0; r < runs; r++) {
        let a = 8 * int(40);
        for (let n = int(12); n > 0; n--) {
          addrs.push(a);
          a += 8 * int(3);
        }
      }
      const w = new WordRegionsBuilder(Math.max(1, addrs.length));
      for (const a of addrs) w.add("sync", a, 4, 0, a);
      const words = w.finish((k) => `w${k}`);
      const map = regionMap({ regions: named, wordRegions: words });
      const all = [...named.map((r) => r.addr), ...addrs];
      const want = all
        .map((a, j) => ({ a, j }))
        .sort((x, y) => x.a - y.a)
        .map((x) => x.j);
      expect(Array.from(map.starts)).toEqual(want.map((j) => all[j]));
      expect(want.map((_, i) => map.region(i).name)).toEqual(
        want.map((j) => (j < named.length ? named[j]!.name : `w${j - named.length}`)),
      );
      // Every column of the sorted position, from the region it holds (word stretches are
      // copied whole: regionMap).
      const region = (j: number): SimRegion =>
        j < named.length ? named[j]! : words.region(j - named.length);
      expect(Array.from(map.ends)).toEqual(want.map((j) => region(j).addr + region(j).bytes));
      expect(Array.from(map.gpu)).toEqual(want.map((j) => region(j).gpu ?? -1));
      expect(Array.from(map.kind)).toEqual(want.map((j) => (j < named.length ? 0 : 2)));
      expect(Array.from(map.initial)).toEqual(want.map((j) => region(j).initial ?? 0));
    }
  });
});
