import { describe, expect, it } from "vitest";
import { dstRegion, opKind, srcRegion, describeBinding, dst2Region } from "../../../src/ir/ir.js";
import { errs, inst, ok } from "./instantiate-helpers.js";

const ALL_GATHER = `
schedule all_gather_pcpy(chunk: bytes = 8KiB) implements all_gather_inplace(buf) {
  buffer buf: chunk * ranks
  for r in ranks, p in ranks where p != r {
    copy buf@r[r * chunk +: chunk] -> buf@p[r * chunk +: chunk]
  }
}`;

const ALL_TO_ALL_SWAP = `
schedule all_to_all_swap(chunk: bytes = 64KiB) implements all_to_all_inplace(buf) {
  buffer buf: chunk * ranks
  for r in ranks, p in ranks where r < p {
    swap buf@r[p * chunk +: chunk] <-> buf@p[r * chunk +: chunk]
  }
}`;

describe("instantiate: collectives at 8 ranks", () => {
  it("all-gather: 56 copies, every (r, p) pair once, pushed by the source", () => {
    const m = ok(ALL_GATHER);
    expect(m.ops.count).toBe(56);
    expect(m.buffers).toEqual([
      expect.objectContaining({ id: 0, name: "buf", size: 65536, rank: -1 }),
    ]);
    expect(m.collective).toMatchObject({
      name: "all_gather_inplace",
      args: [{ kind: "buffer", id: 0 }],
    });
    const seen = new Set<string>();
    for (let i = 0; i < m.ops.count; i++) {
      expect(opKind(m.ops, i)).toBe("copy");
      const s = srcRegion(m.ops, i);
      const d = dstRegion(m.ops, i);
      expect(s.rank).not.toBe(d.rank);
      expect(s).toEqual({ rank: s.rank, buffer: 0, offset: s.rank * 8192, len: 8192 });
      expect(d).toEqual({ rank: d.rank, buffer: 0, offset: s.rank * 8192, len: 8192 });
      expect(m.ops.driver[i]).toBe(s.rank);
      expect(m.ops.engine[i]).toBe(-1);
      expect(m.ops.guard[i]).toBe(-1);
      expect(describeBinding(m, m.ops.stmt[i]!, m.ops.bind[i]!)).toBe(
        `when r = ${s.rank}, p = ${d.rank}`,
      );
      seen.add(`${s.rank}->${d.rank}`);
    }
    expect(seen.size).toBe(56);
    // Program order is loop order: outermost variable first.
    expect([srcRegion(m.ops, 0).rank, dstRegion(m.ops, 0).rank]).toEqual([0, 1]);
    expect([srcRegion(m.ops, 55).rank, dstRegion(m.ops, 55).rank]).toEqual([7, 6]);
  });

  it("all-to-all by swaps: 28 swaps driven by half A's rank", () => {
    const m = ok(ALL_TO_ALL_SWAP);
    expect(m.ops.count).toBe(28);
    for (let i = 0; i < m.ops.count; i++) {
      expect(opKind(m.ops, i)).toBe("swap");
      const a = srcRegion(m.ops, i);
      const b = dstRegion(m.ops, i);
      expect(a.rank).toBeLessThan(b.rank);
      expect(a.offset).toBe(b.rank * 65536);
      expect(b.offset).toBe(a.rank * 65536);
      expect(m.ops.driver[i]).toBe(a.rank);
    }
  });

  it("-D values change the instantiated regions", () => {
    const m = ok(ALL_GATHER, { defines: { chunk: "1MiB" } });
    expect(m.buffers[0]!.size).toBe(8 << 20);
    expect(m.params).toEqual([{ name: "chunk", type: "bytes", value: 1 << 20 }]);
    expect(srcRegion(m.ops, 8)).toEqual({ rank: 1, buffer: 0, offset: 1 << 20, len: 1 << 20 });
    const small = ok(ALL_GATHER, { defines: { chunk: "64B" } });
    expect(small.ops.len[0]).toBe(64);
  });
});

describe("instantiate: statements", () => {
  it("nested loops, step, where, if/else and lets", () => {
    const m = ok(`
const half = 4
schedule s(n: int = 3) {
  buffer a: 64KiB
  for i in 0..16 step 5 {
    let off = i * 1KiB
    if i < half { fill a@0[off +: 1KiB] with 1 } else if i < 12 { fill a@1[off +: 1KiB] with 2 } else { fill a@2[off +: 1KiB] with n }
  }
}`);
    // i = 0, 5, 10, 15
    expect(m.ops.count).toBe(4);
    const ranks = [0, 1, 2, 3].map((i) => m.ops.dstRank[i]);
    expect(ranks).toEqual([0, 1, 1, 2]);
    expect([...m.ops.value.subarray(0, 4)]).toEqual([1, 2, 2, 3]);
    expect([...m.ops.dstOff.subarray(0, 4)]).toEqual([0, 5120, 10240, 15360]);
    expect([...m.ops.driver.subarray(0, 4)]).toEqual([0, 1, 1, 2]);
  });

  it("floor division and floored remainder on ints, exact bytes division", () => {
    const m = ok(`
schedule s() {
  buffer a: 1KiB
  for r in ranks where r == 0 {
    fill a@((r - 1) % ranks)[(-7 / 2 + 4) * 8B +: 64B / 8] with 9 / 2
  }
}`);
    expect(m.ops.dstRank[0]).toBe(7);
    expect(m.ops.dstOff[0]).toBe(0);
    expect(m.ops.len[0]).toBe(8);
    expect(m.ops.value[0]).toBe(4);
  });

  it("placement: by overrides the driver, on sdma pins the engine", () => {
    const m = ok(`
schedule s() {
  buffer a: 4KiB
  copy a@1 -> a@2 by 2 on sdma(7)
  swap a@3[0B +: 1KiB] <-> a@4[0B +: 1KiB] by 4
  copy a@5[0B +: 1KiB] -> a@5[1KiB +: 1KiB] on sdma(0)
}`);
    expect([m.ops.driver[0], m.ops.engine[0]]).toEqual([2, 7]);
    expect([m.ops.driver[1], m.ops.engine[1]]).toEqual([4, -1]);
    // A PCIe engine may copy within its own GPU.
    expect([m.ops.driver[2], m.ops.engine[2]]).toEqual([5, 0]);
  });

  it("broadcast copies become one bcast op", () => {
    const m = ok(`
schedule s() {
  buffer a: 4KiB
  copy a@0 -> a@1, a@2
}`);
    expect(opKind(m.ops, 0)).toBe("bcast");
    expect(dst2Region(m.ops, 0)).toEqual({ rank: 2, buffer: 0, offset: 0, len: 4096 });
  });

  it("when produces a wait that guards the ops inside (innermost), notify a notify op", () => {
    const m = ok(`
schedule s() {
  buffer a: 4KiB
  signal go on 0
  signal ack
  when go@0 >= 2 {
    copy a@0 -> a@1
    when ack@1 != 5 {
      copy a@1 -> a@2
    }
    notify ack@3
  }
  notify go@0
}`);
    const kinds = Array.from({ length: m.ops.count }, (_, i) => opKind(m.ops, i));
    expect(kinds).toEqual(["wait", "copy", "wait", "copy", "notify", "notify"]);
    expect([...m.ops.guard.subarray(0, 6)]).toEqual([-1, 0, 0, 2, 0, -1]);
    expect([m.ops.signal[0], m.ops.sigRank[0], m.ops.cmp[0], m.ops.value[0]]).toEqual([0, 0, 5, 2]);
    expect([m.ops.signal[2], m.ops.sigRank[2], m.ops.cmp[2], m.ops.value[2]]).toEqual([1, 1, 1, 5]);
    expect([m.ops.signal[4], m.ops.sigRank[4]]).toEqual([1, 3]);
    expect(m.signals).toEqual([
      expect.objectContaining({ id: 0, name: "go", rank: 0 }),
      expect.objectContaining({ id: 1, name: "ack", rank: -1 }),
    ]);
  });

  it("ensure records region and byte postconditions with their loop values", () => {
    const m = ok(`
schedule s() {
  buffer a: 4KiB
  for r in 1..3 { ensure a@r == a@0 }
  ensure a@0[0B +: 8B] == 255
}`);
    expect(m.ensures).toHaveLength(3);
    expect(m.ensures[1]).toMatchObject({
      dst: { rank: 2, buffer: 0, offset: 0, len: 4096 },
      expected: { kind: "region", region: { rank: 0, buffer: 0, offset: 0, len: 4096 } },
    });
    expect(describeBinding(m, m.ensures[1]!.stmt, m.ensures[1]!.bind)).toBe("when r = 2");
    expect(m.ensures[2]!.expected).toEqual({ kind: "byte", value: 255 });
  });

  it("implements int arguments are evaluated", () => {
    const m = ok(`
schedule s(root: int = 3) implements broadcast(buf, root + 1) {
  buffer buf: 4KiB
  for p in ranks where p != root + 1 { copy buf@(root + 1) -> buf@p }
}`);
    expect(m.collective?.args).toEqual([
      { kind: "buffer", id: 0 },
      { kind: "int", value: 4 },
    ]);
    expect(m.ops.count).toBe(7);
  });

  it("ops of one loop instance share their loop values", () => {
    const m = ok(`
schedule s() {
  buffer a: 4KiB
  for r in 0..4 { fill a@r[0B +: 8B] with 1; fill a@r[8B +: 8B] with 2 }
}`);
    expect(m.ops.bind[0]).toBe(m.ops.bind[1]);
    expect(m.ops.bind[2]).not.toBe(m.ops.bind[1]);
    expect(m.bindValues.length).toBe(4);
  });
});

describe("instantiate: limits", () => {
  const BIG = `
schedule big(n: int = 125000) {
  buffer a: 8B * n
  buffer b: 8B * n
  for r in ranks, c in 0..n { copy a@r[c * 8B +: 8B] -> b@r[c * 8B +: 8B] }
}`;

  it("a million ops instantiate", () => {
    const m = ok(BIG);
    expect(m.ops.count).toBe(1_000_000);
    expect(dstRegion(m.ops, 999_999)).toEqual({ rank: 7, buffer: 1, offset: 999_992, len: 8 });
  });

  it("the op limit stops early with DMAC3010, without allocating for the whole program", () => {
    const nested = `
schedule big() {
  buffer a: 8000B
  buffer b: 8000B
  for r in 0..1000 { for c in 0..1000 { copy a@(r % ranks)[c * 8B +: 8B] -> b@(r % ranks)[c * 8B +: 8B] } }
}`;
    const t0 = performance.now();
    const r = inst(nested, { maxOps: 1000 });
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(r.module).toBeUndefined();
    expect(r.diagnostics.map((d) => d.code)).toEqual(["DMAC3010"]);
    expect(r.diagnostics[0]!.message).toContain("1000");
    expect(r.diagnostics[0]!.hint).toContain("when r = 1, c = 0");
  });

  it("a single loop over the limit is DMAC3019 before anything runs", () => {
    const d = errs(BIG, { maxOps: 100_000 });
    expect(d.map((x) => x.code)).toEqual(["DMAC3019"]);
    expect(d[0]!.message).toBe("loop runs 125000 times, more than the limit of 100000");
    const e = errs(BIG, { maxOps: 500_000 });
    expect(e[0]!.message).toBe("loop runs 1000000 times, more than the limit of 500000");
  });

  it("loops that emit nothing are bounded too", () => {
    const t0 = performance.now();
    const d = errs(
      `
schedule s() {
  buffer a: 8B
  for i in 0..1000, j in 0..i where false { fill a@0 with 0 }
  for i in 0..1000 { for j in 0..1000 { if i < 0 { fill a@0 with 0 } } }
}`,
      { maxOps: 10_000 },
    );
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(d.map((x) => x.code)).toEqual(["DMAC3019", "DMAC3019"]);
    expect(d[0]!.message).toBe("loop runs at least 10001 times, more than the limit of 10000");
    expect(d[1]!.message).toBe(
      "this loop and the loops around it run 40001 times, more than the limit of 40000",
    );
    expect(d[1]!.hint).toMatch(/stopped here when i = \d+, j = \d+$/);
  });
});
