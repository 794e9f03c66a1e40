// A small seeded PRNG (sfc32 seeded through splitmix32) so every fuzz case is reproducible from
// (seed, case index): the same numbers on every machine and Node version, unlike Math.random.

export interface Rng {
  /** A uniform 32-bit unsigned integer. */
  u32(): number;
  /** A uniform integer in [0, n). */
  int(n: number): number;
  /** An integer in [lo, hi] inclusive. */
  range(lo: number, hi: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

function splitmix32(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** The generator for case `index` of a run with `seed`: cases are independent of each other. */
export function caseRng(seed: number, index: number): Rng {
  const init = splitmix32((seed * 0x2545f491) ^ index ^ Math.imul(index >>> 0, 0x9e3779b1));
  let a = init();
  let b = init();
  let c = init();
  let d = init();
  const u32 = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  };
  for (let i = 0; i < 12; i++) u32();
  const int = (n: number): number => (n <= 1 ? 0 : Math.floor((u32() / 0x1_0000_0000) * n));
  return {
    u32,
    int,
    range: (lo, hi) => lo + int(hi - lo + 1),
    chance: (p) => u32() / 0x1_0000_0000 < p,
    pick: <T>(items: readonly T[]): T => {
      if (items.length === 0) throw new Error("pick from an empty list");
      return items[int(items.length)]!;
    },
  };
}
