import { describe, it, expect } from "vitest";
import { runReference, runReferenceSources, type ReferenceState } from "../../../src/ir/interp.js";
import type { IrModule } from "../../../src/ir/ir.js";
import { coalesce, readRange } from "../../../src/ir/provenance.js";
import { mulberry32 } from "../../helpers/prng.js";
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

describe("the reference's sources with runs of copies merged (runReferenceSources)", () => {
  /** Every (rank, buffer)'s sources (writers aside) and the raises. */
  const sources = (mm: IrModule, st: ReferenceState): string =>
    [
      ...mm.buffers.flatMap((b) =>
        Array.from({ length: mm.ranks }, (_, r) =>
          JSON.stringify(
            coalesce(readRange(st, r, b.id, 0, b.size), false).map((s) => [
              s.start,
              s.end,
              s.source,
            ]),
          ),
        ),
      ),
      Array.from(st.raises).join(","),
    ].join("\n");

  it("merges a chunked copy loop into one copy, with the same sources", () => {
    const lines: string[] = [];
    for (let k = 0; k < 8; k++) lines.push(`copy a@0[${4 * k} +: 4] -> b@1[${8 + 4 * k} +: 4]`);
    const { m: mm } = buildIr({ ranks: 2, buffers: { a: 64, b: 64 }, lines });
    const st = runReferenceSources(mm);
    expect(st.writersExact).toBe(false);
    expect(readRange(st, 1, 1, 0, 64)).toHaveLength(3);
    expect(sources(mm, st)).toBe(sources(mm, runReference(mm)));
  });

  it("gives runReference's sources on chunked copies that overlap, chain and interleave", () => {
    const rnd = mulberry32(20261124);
    const int = (n: number) => Math.floor(rnd() * n);
    for (let round = 0; round < 300; round++) {
      const lines: string[] = [];
      const statements = 1 + int(6);
      for (let s = 0; s < statements; s++) {
        const kind = int(8);
        const rank = () => int(2);
        const buf = () => (int(2) === 0 ? "a" : "b");
        if (kind === 0)
          lines.push(`fill ${buf()}@${rank()}[${int(24)} +: ${1 + int(8)}] with ${int(3)}`);
        else if (kind === 1) lines.push(`swap a@0[${int(8)} +: 4] <-> b@1[${int(8) + 8} +: 4]`);
        else if (kind === 2) lines.push("notify s@1");
        else {
          // A chunked copy: chunks of one length, source and destination stepping together
          // (often overlapping when both are one buffer on one rank), sometimes a gap.
          const sb = buf();
          const sr = rank();
          const db = int(3) === 0 ? sb : buf();
          const dr = int(3) === 0 ? sr : rank();
          const len = 1 + int(4);
          const chunks = 1 + int(6);
          let so = int(8);
          let doff = int(12);
          for (let k = 0; k < chunks; k++) {
            lines.push(`copy ${sb}@${sr}[${so} +: ${len}] -> ${db}@${dr}[${doff} +: ${len}]`);
            const gap = int(5) === 0 ? 1 : 0;
            so += len + gap;
            doff += len;
          }
        }
      }
      const { m: mm } = buildIr({ ranks: 2, buffers: { a: 64, b: 64 }, signals: ["s"], lines });
      expect(sources(mm, runReferenceSources(mm)), lines.join("\n")).toBe(
        sources(mm, runReference(mm)),
      );
    }
  });

  it("falls back to the exact run, and its stop, when the merged pieces could pass the limit", () => {
    const lines = ["fill a@0[0 +: 1] with 1", "fill a@0[2 +: 1] with 1"];
    for (let k = 0; k < 4; k++) lines.push(`copy a@0[${k} +: 1] -> b@1[${k} +: 1]`);
    const { m: mm } = buildIr({ ranks: 2, buffers: { a: 8, b: 8 }, lines });
    // Exact: one piece per copy, over 3 at the fourth copy (op 5).
    expect(runReference(mm, undefined, 3).overAt).toBe(5);
    const st = runReferenceSources(mm, 3);
    expect(st.overAt).toBe(5);
    expect(st.writersExact).toBe(true);
    expect(runReferenceSources(mm, 4).overAt).toBeUndefined();
  });
});
