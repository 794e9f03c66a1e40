import { describe, it, expect } from "vitest";
import { runReference } from "../../../src/ir/interp.js";
import { coalesce, readRange } from "../../../src/ir/provenance.js";
import { buildIr } from "./build-ir.js";

const init = (rank: number, buffer: number, offset: number) => ({
  kind: "initial" as const,
  rank,
  buffer,
  offset,
});

describe("reference semantics", () => {
  const { m } = buildIr({
    ranks: 2,
    buffers: { a: 64, b: 64 },
    signals: ["s"],
    lines: [
      "copy a@0[0 +: 16] -> b@1[0 +: 16], b@0[32 +: 16]", // 0: broadcast
      "swap a@0[0 +: 8] <-> a@1[8 +: 8]", // 1: atomic exchange
      "fill b@1[4 +: 4] with 0xab", // 2
      "notify s@1", // 3
      "notify s@1", // 4
      "when s@0 >= 0 {", // 5
      "}",
    ],
  });

  it("runs copy, broadcast, swap and fill in program order, recording the last writer", () => {
    const st = runReference(m);
    expect(readRange(st, 1, 1, 0, 16)).toEqual([
      { start: 0, end: 4, source: init(0, 0, 0), writer: 0 },
      { start: 4, end: 8, source: { kind: "byte", value: 0xab }, writer: 2 },
      { start: 8, end: 16, source: init(0, 0, 8), writer: 0 },
    ]);
    expect(readRange(st, 0, 1, 32, 16)).toEqual([
      { start: 32, end: 48, source: init(0, 0, 0), writer: 0 },
    ]);
    // The swap exchanged both halves (each side sees the other's initial bytes).
    expect(readRange(st, 0, 0, 0, 8)).toEqual([
      { start: 0, end: 8, source: init(1, 0, 8), writer: 1 },
    ]);
    expect(readRange(st, 1, 0, 8, 8)).toEqual([
      { start: 8, end: 16, source: init(0, 0, 0), writer: 1 },
    ]);
    // Untouched bytes are their own initial bytes, never written.
    expect(readRange(st, 1, 0, 40, 4)).toEqual([
      { start: 40, end: 44, source: init(1, 0, 40), writer: -1 },
    ]);
    // notify counts raises per (signal, rank); wait has no effect.
    expect(Array.from(st.raises)).toEqual([0, 2]);
  });

  it("runs a given order: the same ops in another order give another state", () => {
    const { m: m2 } = buildIr({
      ranks: 1,
      buffers: { a: 16 },
      lines: ["fill a@0[0 +: 8] with 1", "copy a@0[0 +: 8] -> a@0[8 +: 8]"],
    });
    const inOrder = runReference(m2);
    const reversed = runReference(m2, Int32Array.from([1, 0]));
    expect(coalesce(readRange(inOrder, 0, 0, 8, 8), false)).toEqual([
      { start: 8, end: 16, source: { kind: "byte", value: 1 }, writer: 1 },
    ]);
    expect(coalesce(readRange(reversed, 0, 0, 8, 8), false)).toEqual([
      { start: 8, end: 16, source: init(0, 0, 0), writer: 1 },
    ]);
  });

  it("rejects an order that is not a permutation of the ops", () => {
    expect(() => runReference(m, Int32Array.from([0]))).toThrow(/order/);
  });

  it("costs the same for 1 GiB buffers", () => {
    const { m: big } = buildIr({
      ranks: 2,
      buffers: { a: 2 ** 30 },
      lines: [
        `copy a@0[0 +: ${2 ** 29}] -> a@1[${2 ** 29} +: ${2 ** 29}]`,
        `fill a@1[0 +: ${2 ** 29}] with 0`,
      ],
    });
    const st = runReference(big);
    expect(readRange(st, 1, 0, 0, 2 ** 30)).toHaveLength(2);
  });
});
