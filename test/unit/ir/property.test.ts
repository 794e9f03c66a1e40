// Property: executing a program's operations in ANY order consistent with the inferred edges gives
// the same final provenance (content and last writer of every byte) as program order. Random
// small programs (fixed seed) over few ranks, buffers and bytes, so that overlaps are frequent.
import { describe, it, expect } from "vitest";
import { inferDeps } from "../../../src/ir/deps.js";
import { runReference, type ReferenceState } from "../../../src/ir/interp.js";
import { coalesce, readRange } from "../../../src/ir/provenance.js";
import type { IrEdges, IrModule } from "../../../src/ir/ir.js";
import { buildIr } from "./build-ir.js";
import { randomProgram, type ProgramShape } from "./random-program.js";
import { mulberry32 } from "../../helpers/prng.js";

const SHAPE: ProgramShape = {
  extraRanks: 3,
  names: ["a", "b", "c"],
  minBuffers: 2,
  size: 32,
  minOps: 3,
  opsRange: 10,
  maxLen: 12,
  prefixes: false,
  copyWeight: 4,
};

/** Canonical final state: every (rank, buffer)'s coalesced segments, plus the raise counts. */
function snapshot(m: IrModule, st: ReferenceState): string {
  const parts: string[] = [];
  for (let r = 0; r < m.ranks; r++) {
    for (const b of m.buffers)
      parts.push(JSON.stringify(coalesce(readRange(st, r, b.id, 0, b.size))));
  }
  parts.push(Array.from(st.raises).join(","));
  return parts.join("\n");
}

/** A random topological order of the ops under `edges` (Kahn's algorithm, random ready op). */
function randomTopoOrder(
  n: number,
  edges: IrEdges,
  rnd: () => number,
  prefer?: (ready: number[]) => number,
): Int32Array {
  const indeg = new Int32Array(n);
  const succ: number[][] = Array.from({ length: n }, () => []);
  for (let i = 0; i < n; i++) {
    for (let e = edges.predStart[i]!; e < edges.predStart[i + 1]!; e++) {
      indeg[i]!++;
      succ[edges.predIdx[e]!]!.push(i);
    }
  }
  const ready: number[] = [];
  for (let i = 0; i < n; i++) if (indeg[i] === 0) ready.push(i);
  const order = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    expect(ready.length).toBeGreaterThan(0); // the edges are acyclic
    const pick = prefer !== undefined ? prefer(ready) : Math.floor(rnd() * ready.length);
    const op = ready[pick]!;
    ready.splice(pick, 1);
    order[k] = op;
    for (const s of succ[op]!) if (--indeg[s]! === 0) ready.push(s);
  }
  return order;
}

function withoutEdge(edges: IrEdges, n: number, from: number, to: number): IrEdges {
  const predStart = new Int32Array(n + 1);
  const idx: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let e = edges.predStart[i]!; e < edges.predStart[i + 1]!; e++) {
      const p = edges.predIdx[e]!;
      if (!(i === to && p === from)) idx.push(p);
    }
    predStart[i + 1] = idx.length;
  }
  return { predStart, predIdx: Int32Array.from(idx) };
}

describe("property: any order consistent with the inferred edges gives program order's result", () => {
  const CASES = 200;
  const ORDERS = 25;

  it(`holds for ${CASES} random programs x ${ORDERS} random orders`, () => {
    const rnd = mulberry32(0x5eed);
    let reordered = 0;
    for (let c = 0; c < CASES; c++) {
      const m = inferDeps(randomProgram(rnd, SHAPE));
      const n = m.ops.count;
      const want = snapshot(m, runReference(m));
      for (let k = 0; k < ORDERS; k++) {
        const order = randomTopoOrder(n, m.edges!, rnd);
        if (order.some((op, idx) => op !== idx)) reordered++;
        const got = snapshot(m, runReference(m, order));
        if (got !== want)
          throw new Error(`case ${c}, order ${Array.from(order).join(" ")} differs`);
      }
    }
    // The orders really do differ from program order (the test is not vacuous).
    expect(reordered).toBeGreaterThan(CASES * ORDERS * 0.5);
  });

  it("can fail: dropping one inferred edge lets an order change the result", () => {
    // Hand case: op 1 reads what op 0 wrote.
    const { m: hand } = buildIr({
      ranks: 2,
      buffers: { a: 16 },
      lines: ["fill a@0[0 +: 8] with 1", "copy a@0[0 +: 8] -> a@1[0 +: 8]"],
    });
    const h = inferDeps(hand);
    expect(snapshot(h, runReference(h, Int32Array.from([1, 0])))).not.toBe(
      snapshot(h, runReference(h)),
    );

    // Random cases: drop a random edge and run the dependent op as early as possible. Most drops
    // must be detected; a drop that changes nothing must be one implied by another path.
    const rnd = mulberry32(42);
    let dropped = 0;
    let detected = 0;
    for (let c = 0; c < CASES; c++) {
      const m = inferDeps(randomProgram(rnd, SHAPE));
      const n = m.ops.count;
      const e = m.edges!;
      if (e.predIdx.length === 0) continue;
      const pick = Math.floor(rnd() * e.predIdx.length);
      let to = 0;
      while (e.predStart[to + 1]! <= pick) to++;
      const from = e.predIdx[pick]!;
      // Only memory edges between memory ops: control edges do not change provenance.
      const memory = (i: number) => m.ops.kind[i]! <= 3;
      if (!memory(from) || !memory(to)) continue;
      dropped++;
      const cut = withoutEdge(e, n, from, to);
      // Run `to` as soon as it is ready and `from` as late as possible.
      const order = randomTopoOrder(n, cut, rnd, (ready) => {
        const t = ready.indexOf(to);
        if (t >= 0) return t;
        const other = ready.findIndex((x) => x !== from);
        return other >= 0 ? other : 0;
      });
      if (snapshot(m, runReference(m, order)) !== snapshot(m, runReference(m))) detected++;
    }
    expect(dropped).toBeGreaterThan(50);
    expect(detected).toBeGreaterThan(dropped * 0.8);
  });
});
