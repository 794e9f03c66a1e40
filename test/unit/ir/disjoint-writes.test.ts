// src/ir/disjoint-writes.ts: the test dependency inference uses to skip a module whose ops share
// no written byte. It must never say "disjoint" of a module with a memory edge: on random
// programs where it holds, the reference algorithm finds no edge, and inference (which then
// skips its interval maps) agrees with the reference on every program.
import { describe, expect, it } from "vitest";
import { writesDisjoint } from "../../../src/ir/disjoint-writes.js";
import { computeEdges } from "../../../src/ir/deps.js";
import type { IrEdges } from "../../../src/ir/ir.js";
import { mulberry32 } from "../../helpers/prng.js";
import { buildIr } from "./build-ir.js";
import { referenceEdges } from "./deps-reference.js";
import { randomProgram, type ProgramShape } from "./random-program.js";

const same = (a: IrEdges, b: IrEdges): boolean =>
  a.predStart.length === b.predStart.length &&
  a.predStart.every((x, i) => x === b.predStart[i]) &&
  a.predIdx.length === b.predIdx.length &&
  a.predIdx.every((x, i) => x === b.predIdx[i]);

const disjoint = (...lines: string[]): boolean =>
  writesDisjoint(buildIr({ ranks: 2, buffers: { a: 64, b: 64 }, signals: ["f"], lines }).m);

describe("writesDisjoint", () => {
  it("holds for writes that only touch and reads that end where a write starts", () => {
    expect(
      disjoint(
        "copy a@0[0 +: 8] -> b@1[8 +: 8]",
        "copy a@0[0 +: 8] -> b@1[0 +: 8]", // (reads may overlap each other)
        "fill b@1[16 +: 4] with 1",
        "copy b@1[20 +: 4] -> a@1[0 +: 4]", // reads just after the fill's bytes
        "copy a@1[60 +: 4] -> b@0[0 +: 4], b@0[4 +: 4]",
      ),
    ).toBe(true);
  });

  it("fails for two writes of one byte, a read of a written byte, and signals", () => {
    expect(disjoint("copy a@0[0 +: 8] -> b@1[0 +: 8]", "fill b@1[7 +: 1] with 1")).toBe(false);
    expect(disjoint("copy a@0[0 +: 8] -> b@1[0 +: 8]", "copy b@1[7 +: 4] -> a@1[0 +: 4]")).toBe(
      false,
    );
    // Conflicts that the last accesses do not show (found in the sorted ranges): a read that
    // starts before a write and ends inside it; one that starts inside it.
    expect(
      disjoint(
        "copy a@0[40 +: 4] -> b@1[0 +: 4]",
        "copy a@0[0 +: 4] -> b@0[40 +: 4]",
        "fill a@0[32 +: 10] with 1",
      ),
    ).toBe(false);
    expect(
      disjoint(
        "copy a@0[34 +: 2] -> b@1[0 +: 2]",
        "copy a@0[0 +: 4] -> b@0[40 +: 4]",
        "fill a@0[32 +: 10] with 1",
      ),
    ).toBe(false);
    // Two writes of one byte, apart in program order and out of order in the buffer.
    expect(
      disjoint(
        "fill b@1[8 +: 8] with 1",
        "fill b@1[0 +: 4] with 1",
        "fill b@1[20 +: 4] with 1",
        "fill b@1[15 +: 2] with 1",
      ),
    ).toBe(false);
    expect(disjoint("copy a@0[0 +: 8] -> a@0[4 +: 8]")).toBe(false); // its own bytes
    expect(disjoint("swap a@0[0 +: 8] <-> b@1[0 +: 8]")).toBe(false);
    expect(disjoint("copy a@0[0 +: 8] -> b@1[0 +: 8]", "notify f@1")).toBe(false);
  });

  it("never holds where the reference finds an edge, and inference agrees with it", () => {
    // Few short copies and fills in big buffers: about a third of the programs are disjoint.
    const shape: ProgramShape = {
      extraRanks: 2,
      names: ["a", "b"],
      minBuffers: 1,
      size: 512,
      minOps: 2,
      opsRange: 12,
      maxLen: 40,
      prefixes: false,
      copyWeight: 40,
    };
    const rnd = mulberry32(0xd15c);
    let held = 0;
    for (let c = 0; c < 3000; c++) {
      const m = randomProgram(rnd, shape);
      const reference = referenceEdges(m);
      if (writesDisjoint(m)) {
        held++;
        if (reference.predIdx.length !== 0) throw new Error(`case ${c}: disjoint with edges`);
      }
      if (!same(computeEdges(m), reference)) throw new Error(`case ${c} differs`);
    }
    expect(held).toBeGreaterThan(500);
  });
});
