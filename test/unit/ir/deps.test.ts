import { describe, it, expect } from "vitest";
import { inferDeps } from "../../../src/ir/deps.js";
import { buildIr, predsOf } from "./build-ir.js";

const deps = (lines: string[], signals: string[] = []) => {
  const { m } = buildIr({ ranks: 4, buffers: { a: 1024, b: 1024 }, signals, lines });
  const d = inferDeps(m);
  return (i: number) => predsOf(d, i);
};

describe("inferDeps: memory hazards", () => {
  it("read-after-write gives an edge to the writer", () => {
    const p = deps(["copy a@0[0 +: 64] -> b@0[0 +: 64]", "copy b@0[32 +: 64] -> a@1[0 +: 64]"]);
    expect(p(0)).toEqual([]);
    expect(p(1)).toEqual([0]);
  });

  it("write-after-read gives an edge to the reader", () => {
    const p = deps(["copy a@0[0 +: 64] -> b@0[0 +: 64]", "fill a@0[60 +: 8] with 1"]);
    expect(p(1)).toEqual([0]);
  });

  it("write-after-write gives an edge", () => {
    const p = deps(["fill b@2[0 +: 64] with 1", "copy a@0[0 +: 8] -> b@2[63 +: 8]"]);
    expect(p(1)).toEqual([0]);
  });

  it("no edge for adjacent bytes, other ranks, other buffers, or read after read", () => {
    const p = deps([
      "fill b@0[0 +: 64] with 1",
      "fill b@0[64 +: 64] with 2", // adjacent, not overlapping
      "fill b@1[0 +: 64] with 3", // other rank
      "fill a@0[0 +: 64] with 4", // other buffer
      "copy a@3[0 +: 64] -> b@3[0 +: 64]",
      "copy a@3[0 +: 64] -> b@3[64 +: 64]", // both only read a@3
    ]);
    for (let i = 0; i < 6; i++) expect(p(i)).toEqual([]);
  });

  it("a write depends on every reader since the last write but not on the implied writer", () => {
    const p = deps([
      "fill a@0[0 +: 128] with 7",
      "copy a@0[0 +: 64] -> b@1[0 +: 64]",
      "copy a@0[64 +: 64] -> b@2[0 +: 64]",
      "fill a@0[0 +: 128] with 9",
    ]);
    expect(p(1)).toEqual([0]);
    expect(p(2)).toEqual([0]);
    // 3 -> 0 is implied by 3 -> 1 -> 0.
    expect(p(3)).toEqual([1, 2]);
  });

  it("a later writer supersedes: a read depends only on the last writer of each piece", () => {
    const p = deps([
      "fill a@0[0 +: 128] with 1",
      "fill a@0[0 +: 64] with 2",
      "copy a@0[0 +: 128] -> b@0[0 +: 128]",
    ]);
    expect(p(1)).toEqual([0]);
    expect(p(2)).toEqual([0, 1]); // bytes 64.. still from op 0, bytes ..64 from op 1
  });

  it("keeps only the direct edges of a chain", () => {
    const p = deps([
      "copy a@0[0 +: 64] -> a@1[0 +: 64]",
      "copy a@1[0 +: 64] -> a@2[0 +: 64]",
      "copy a@2[0 +: 64] -> a@3[0 +: 64]",
      "copy a@3[0 +: 64] -> b@0[0 +: 64]",
    ]);
    expect([p(0), p(1), p(2), p(3)]).toEqual([[], [0], [1], [2]]);
  });

  it("swap reads and writes both halves; broadcast writes both destinations", () => {
    const p = deps([
      "copy a@0[0 +: 64] -> b@0[0 +: 64] | r = 0",
      "swap b@0[0 +: 64] <-> b@1[0 +: 64]",
      "copy b@1[0 +: 32] -> a@2[0 +: 32], a@3[0 +: 32]",
      "fill a@3[16 +: 8] with 0",
      "fill b@0[8 +: 8] with 0",
    ]);
    expect(p(1)).toEqual([0]);
    expect(p(2)).toEqual([1]);
    expect(p(3)).toEqual([2]);
    expect(p(4)).toEqual([1]);
  });

  it("edges are sorted, deduplicated and CSR-shaped", () => {
    const { m } = buildIr({
      ranks: 2,
      buffers: { a: 256 },
      lines: [
        "fill a@0[0 +: 8] with 1",
        "fill a@0[16 +: 8] with 1",
        "fill a@0[0 +: 32] with 2",
        "copy a@0[0 +: 32] -> a@1[0 +: 32]",
      ],
    });
    const d = inferDeps(m);
    expect(d.edges!.predStart.length).toBe(5);
    expect(predsOf(d, 2)).toEqual([0, 1]);
    expect(predsOf(d, 3)).toEqual([2]); // one writer for all four pieces, listed once
    expect(d.edges!.predIdx.length).toBe(3);
  });
});

describe("inferDeps: control edges", () => {
  it("guarded ops depend on their wait, nested waits on the outer wait", () => {
    const p = deps(
      [
        "when go@0 >= 1 {",
        "  copy a@0[0 +: 8] -> a@1[0 +: 8]",
        "  when go@1 >= 1 {",
        "    copy a@0[8 +: 8] -> a@1[8 +: 8]",
        "  }",
        "}",
        "copy a@0[16 +: 8] -> a@1[16 +: 8]",
      ],
      ["go"],
    );
    expect(p(0)).toEqual([]);
    expect(p(1)).toEqual([0]);
    expect(p(2)).toEqual([0]);
    expect(p(3)).toEqual([2]);
    expect(p(4)).toEqual([]); // after the block: no edge to the waits
  });

  it("notify depends on the earlier writes to its rank only, skipping implied ones", () => {
    const p = deps(
      [
        "copy a@0[0 +: 8] -> a@1[0 +: 8]", // 0 writes rank 1
        "copy a@1[0 +: 8] -> b@1[0 +: 8]", // 1 writes rank 1, depends on 0
        "copy a@0[8 +: 8] -> a@2[8 +: 8]", // 2 writes rank 2
        "fill b@1[64 +: 8] with 3", // 3 writes rank 1
        "copy a@1[32 +: 8] -> a@0[32 +: 8]", // 4 reads rank 1 only
        "notify done@1", // 5
        "fill a@1[128 +: 8] with 1", // 6
        "notify done@1", // 7
      ],
      ["done"],
    );
    expect(p(1)).toEqual([0]);
    expect(p(5)).toEqual([1, 3]); // 0 is implied by 1; 2 and 4 do not write rank 1
    expect(p(7)).toEqual([5, 6]);
  });

  it("a wait on a signal the schedule notifies is ordered after that notify", () => {
    const p = deps(
      [
        "copy a@0[0 +: 8] -> a@1[0 +: 8]",
        "notify x@0",
        "when x@0 >= 1 {",
        "  copy a@1[0 +: 8] -> b@2[0 +: 8]",
        "}",
        "notify x@0",
      ],
      ["x"],
    );
    expect(p(1)).toEqual([]); // rank 0 was not written
    expect(p(2)).toEqual([1]);
    expect(p(3)).toEqual([0, 2]);
    expect(p(4)).toEqual([1, 2]); // the wait before it (it must not raise x early) and the previous notify
  });
});
