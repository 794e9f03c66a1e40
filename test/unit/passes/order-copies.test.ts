// order-copies (-O2): it puts an ascending all-gather on 4 GPUs into an incast-free order when
// the cost model charges incast, keeps the program order when the model sees no gain, and never
// changes what a program computes (the executor verifies every order it can produce).

import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SIMULATED_COST_MODEL } from "../../../src/backend/cost-model.js";
import { compileToQueues } from "../../../src/backend/compile-pipeline.js";
import { runPasses } from "../../../src/passes/index.js";
import { hasIncast, orderCandidates, rotatedOrder } from "../../../src/passes/order-copies.js";
import type { CostModel } from "../../../src/passes/cost-model.js";
import { PASS_NAMES, type PassContext } from "../../../src/passes/pass.js";
import { placedModule, readPlacement } from "../../../src/passes/relower.js";
import { verifyQueueProgram } from "../../../src/queues/verify.js";
import type { QueueProgram } from "../../../src/queues/queue-program.js";
import type { IrModule } from "../../../src/ir/ir.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import type { Target } from "../../../src/target/target.js";
import { h200With, INCAST_MODEL } from "./incast.js";
import { O } from "./helpers.js";

const repo = (p: string): string => fileURLToPath(new URL(`../../../${p}`, import.meta.url));
const text = (p: string): string => readFileSync(repo(p), "utf8");

function lowered(path: string, target?: Target, defines: Record<string, string> = {}) {
  const file = makeSourceFile(path, text(path));
  const q = compileToQueues(file, { defines, sync: "aggressive", targetOverride: target });
  if (!q.compiled) throw new Error(q.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  return { file, ...q.compiled };
}

/** Each queue's data commands' receivers, in queue order: "gpu0: 1 2 3". */
function receivers(prog: QueueProgram, m: IrModule): string[] {
  return prog.queues.map((q) => {
    const to: number[] = [];
    for (let i = 0; i < q.cmds.length; i++)
      if (q.cmds.isData(i)) to.push(m.ops.dstRank[prog.lists.of(q.cmds.opsHandle(i))[0]!]!);
    return `gpu${q.gpu}: ${to.join(" ")}`;
  });
}

/** order-copies alone (every other pass off): its input is the lowering. */
function orderPass(
  c: ReturnType<typeof lowered>,
  costModel: CostModel,
  budget?: PassContext["budget"],
): ReturnType<typeof runPasses> {
  const enable = Object.fromEntries(PASS_NAMES.map((n) => [n, n === "order-copies"]));
  return runPasses(c.program, c.module, {
    target: c.target,
    module: c.module,
    options: { ...O(2), enable },
    lower: { completion: "atomic" },
    costModel,
    verify: true,
    budget,
  });
}

describe("order-copies on the 4-GPU h200 (a model that charges incast)", () => {
  const ascending = (): ReturnType<typeof lowered> =>
    lowered("bench/calibration/all_gather_b2b.dmac", h200With(4), { engine: "0", chunk: "64MiB" });

  it("finds incast in the ascending all-gather", () => {
    const c = ascending();
    expect(receivers(c.program, c.module)).toEqual([
      "gpu0: 1 2 3",
      "gpu1: 0 2 3",
      "gpu2: 0 1 3",
      "gpu3: 0 1 2",
    ]);
    expect(hasIncast(c.program, c.module)).toBe(true);
  });

  it("reorders it so that every step has one sender per receiver", () => {
    const c = ascending();
    const r = orderPass(c, INCAST_MODEL);
    expect(r.stats[0]!.counters).toEqual({ order: 1, "orders predicted": 2 });
    expect(receivers(r.program, c.module)).toEqual([
      "gpu0: 1 2 3",
      "gpu1: 2 3 0",
      "gpu2: 3 0 1",
      "gpu3: 0 1 2",
    ]);
    expect(hasIncast(r.program, c.module)).toBe(false);
    const before = INCAST_MODEL.predict(c.program, c.module, { target: c.target });
    const after = INCAST_MODEL.predict(r.program, c.module, { target: c.target });
    if (before.kind !== "predicted" || after.kind !== "predicted") throw new Error("no prediction");
    expect(before.timeUs / after.timeUs).toBeGreaterThanOrEqual(1.8);
  });

  it("keeps the program order when the model sees no gain", () => {
    const flat: CostModel = { predict: () => ({ kind: "predicted", timeUs: 100, events: 1 }) };
    const c = ascending();
    const r = orderPass(c, flat);
    expect(r.stats[0]!.counters).toEqual({ order: 0, "orders predicted": 2 });
    expect(r.program).toBe(c.program);
  });

  it("predicts nothing for the rotated example (no incast)", () => {
    const c = lowered("examples/all_gather_b2b.dmac", h200With(4), { engine: "0" });
    expect(hasIncast(c.program, c.module)).toBe(false);
    expect(orderPass(c, INCAST_MODEL).stats[0]!.counters).toEqual({
      order: 0,
      "orders predicted": 0,
    });
  });

  it("keeps the work budget: no prediction when the budget cannot pay for it", () => {
    const c = ascending();
    let predicted = 0;
    const counting: CostModel = {
      predict: (p, m, req) => (predicted++, INCAST_MODEL.predict(p, m, req)),
    };
    const r = orderPass(c, counting, { over: () => false, spend: () => undefined, left: () => 0 });
    expect(predicted).toBe(0);
    expect(r.program).toBe(c.program);
  });
});

describe("order-copies never changes what a program computes", () => {
  const examples = readdirSync(repo("examples")).filter((f) => f.endsWith(".dmac"));
  const files = [
    ...examples.map((f) => `examples/${f}`),
    ...readdirSync(repo("bench/calibration"))
      .filter((f) => f.endsWith(".dmac"))
      .map((f) => `bench/calibration/${f}`),
  ];
  it.each(files)("%s: every order verifies in the executor", (path) => {
    const c = lowered(path);
    const orders = orderCandidates(c.program, c.module, {
      target: c.target,
      lower: { completion: "atomic" },
    });
    for (const o of orders) {
      verifyQueueProgram(o.program, c.module, c.target.engines.count);
      const r = SIMULATED_COST_MODEL.predict(o.program, c.module, { target: c.target });
      expect(r.kind, `${o.name}: ${r.kind === "failed" ? r.note : ""}`).toBe("predicted");
    }
  });

  it("a rotation keeps every dependency (the ring all-gather's chain stays in order)", () => {
    const c = lowered("examples/ring_all_gather.dmac");
    const pm = placedModule(c.module, readPlacement(c.program, c.module)).module;
    for (const step of [1, -1] as const) {
      const order = rotatedOrder(pm, step);
      const at = new Int32Array(order.length);
      order.forEach((op, k) => (at[op] = k));
      const e = pm.edges!;
      for (let j = 0; j < pm.ops.count; j++)
        for (let k = e.predStart[j]!; k < e.predStart[j + 1]!; k++)
          expect(at[e.predIdx[k]!]).toBeLessThan(at[j]!);
    }
  });
});
