// order-copies (-O2): the order of independent copies within each queue, chosen by the cost model.
//
// Why: when every GPU walks its peers in the same order (`for r in ranks, p in ranks where
// p != r`), the k-th copy of every queue goes to the same few receivers at once, and on a switched
// fabric (NVSwitch: each GPU's aggregate in-link is shared) several senders then share one
// receiver's link while the other receivers idle (incast). In a rotated order, rank r sends to
// r+1, r+2, ... (mod ranks), so at each step every receiver has one sender.
//
// The pass tries the program order and the rotation (each GPU's far ranks at increasing distance
// r+1, r+2, ...: every GPU its own permutation of its destinations), and keeps the rotation when
// the cost model predicts it at least ORDER_GAIN faster (the model is not more exact than that;
// docs/model.md). Only one rotation: the other direction (r-1, r-2, ...) is as free of incast
// and would cost a prediction more per placement for nothing the model can tell apart.
//
// Meaning: the order is a topological order of the happens-before edges (byte ranges decide
// them, ir/deps.ts), inside each run of data ops between two waits or notifies, so the same
// pairs of ops stay ordered and the same guards stand before them. The program is then lowered
// again (relower.ts lowerPlaced), so every sync and completion is the lowering's, correct by
// construction. The placement (groups, engines) is the input's: this pass runs after the
// placement passes and before the queue-level ones.
//
// Cost: a cheap test first (hasIncast: two GPUs' copies at the same position of their queues
// go to one receiver); a rotation that leaves every queue's order as it was is not lowered or
// predicted; predictions are bounded by the -O2 work budget (PassContext.budget), and the pass
// keeps the program order when the budget cannot pay for them.

import type { IrModule } from "../ir/ir.js";
import { commandCount, programsEqual, type QueueProgram } from "../queues/queue-program.js";
import { predictBounded } from "./cost-model.js";
import type { Pass, PassContext, PassResult } from "./pass.js";
import {
  isDataOp,
  K_COPY,
  K_SWAP,
  lowerPlaced,
  permutePlaced,
  placedModule,
  readPlacement,
} from "./relower.js";

/**
 * A rotation replaces the program order only when predicted at least this much faster: within
 * it the model cannot tell two orders apart (plan.ts PLAN_TIE is the same margin for plans).
 */
export const ORDER_GAIN = 0.02;

/** The orders the pass tries: program order, then rotations by the far rank's distance. */
export const ORDERS = [
  { name: "program", step: 0, says: "program order" },
  { name: "rotate", step: 1, says: "rotated: rank r sends to r+1, r+2, ... (mod ranks)" },
] as const;
export type OrderName = (typeof ORDERS)[number]["name"];

/** The rank on the far side of data op i from its driver (itself for a local op). */
function farRank(m: IrModule, i: number): number {
  const t = m.ops;
  const d = t.driver[i]!;
  const k = t.kind[i]!;
  if ((k === K_COPY || k === K_SWAP) && t.srcRank[i] !== d) return t.srcRank[i]!;
  return t.dstRank[i]!;
}

/**
 * Whether two GPUs' data commands at the same position of their queues write one receiver: the
 * incast a program order can cause (docs/optimisations.md). O(commands).
 */
export function hasIncast(prog: QueueProgram, m: IrModule): boolean {
  const first = new Map<number, number>(); // position * ranks + receiver -> first sending GPU
  for (const q of prog.queues) {
    const c = q.cmds;
    let pos = 0;
    for (let i = 0; i < c.length; i++) {
      if (!c.isData(i)) continue;
      const op = prog.lists.of(c.opsHandle(i))[0];
      if (op === undefined) continue;
      const to = m.ops.dstRank[op]!;
      const key = pos++ * m.ranks + to;
      if (to === q.gpu || to < 0) continue;
      const sender = first.get(key);
      if (sender === undefined) first.set(key, q.gpu);
      else if (sender !== q.gpu) return true;
    }
  }
  return false;
}

/**
 * The placed module's ops in rotated order (far rank at distance step, 2 step, ... from the
 * driver, mod ranks), a topological order of its edges that moves no op across a wait
 * or notify. Ops go in (distance, program position) order; an op whose predecessor in the same
 * run has not been placed yet goes right after it.
 */
export function rotatedOrder(pm: IrModule, step: number): Int32Array {
  const n = pm.ops.count;
  const e = pm.edges!;
  const order = new Int32Array(n);
  let out = 0;
  // Successors (CSR) and, per op, its predecessors not placed yet.
  const waiting = new Int32Array(n);
  const succStart = new Int32Array(n + 1);
  for (let j = 0; j < n; j++)
    for (let k = e.predStart[j]!; k < e.predStart[j + 1]!; k++) succStart[e.predIdx[k]! + 1]!++;
  for (let i = 0; i < n; i++) succStart[i + 1]! += succStart[i]!;
  const succ = new Int32Array(succStart[n]!);
  const fill = succStart.slice(0, n);
  for (let j = 0; j < n; j++)
    for (let k = e.predStart[j]!; k < e.predStart[j + 1]!; k++) {
      succ[fill[e.predIdx[k]!]!++] = j;
      waiting[j]!++;
    }
  const passed = new Uint8Array(n); // its turn came while it waited
  const place = (i: number): void => {
    const stack = [i];
    while (stack.length > 0) {
      const x = stack.pop()!;
      order[out++] = x;
      for (let k = succStart[x]!; k < succStart[x + 1]!; k++) {
        const y = succ[k]!;
        if (--waiting[y]! === 0 && passed[y]) stack.push(y);
      }
    }
  };
  let a = 0;
  while (a < n) {
    if (!isDataOp(pm, a)) {
      place(a); // a wait or notify: its own run (every earlier op is placed)
      a++;
      continue;
    }
    let b = a;
    while (b < n && isDataOp(pm, b)) b++;
    const keys = new Float64Array(b - a);
    for (let i = a; i < b; i++) {
      const dist = (((farRank(pm, i) - pm.ops.driver[i]!) * step) % pm.ranks) + pm.ranks;
      keys[i - a] = (dist % pm.ranks) * n + i;
    }
    keys.sort();
    for (const key of keys) {
      const i = key % n;
      if (waiting[i] === 0) place(i);
      else passed[i] = 1;
    }
    a = b;
  }
  return order;
}

/** Whether `order` keeps every queue's ops in program order (the lowering would not change). */
function keepsQueues(pm: IrModule, order: Int32Array, engines: number): boolean {
  const last = new Map<number, number>(); // queue key -> latest op placed on it
  for (const i of order) {
    if (!isDataOp(pm, i)) continue;
    const key = pm.ops.driver[i]! * engines + pm.ops.engine[i]!;
    if ((last.get(key) ?? -1) > i) return false;
    last.set(key, i);
  }
  return true;
}

/** The program in each order other than program order that changes some queue. */
export function orderCandidates(
  prog: QueueProgram,
  m: IrModule,
  ctx: Pick<PassContext, "target" | "lower">,
): { name: OrderName; program: QueueProgram }[] {
  const placed = placedModule(m, readPlacement(prog, m));
  const out: { name: OrderName; program: QueueProgram }[] = [];
  for (const o of ORDERS) {
    if (o.step === 0) continue;
    const order = rotatedOrder(placed.module, o.step);
    if (keepsQueues(placed.module, order, ctx.target.engines.count)) continue;
    const program = lowerPlaced(permutePlaced(placed, order), ctx.target, ctx.lower);
    if (!out.some((x) => programsEqual(x.program, program))) out.push({ name: o.name, program });
  }
  return out;
}

/** The counters' code for an order (ORDERS' index). */
export const orderIndex = (name: OrderName): number => ORDERS.findIndex((o) => o.name === name);

function run(prog: QueueProgram, ctx: PassContext): PassResult {
  const m = ctx.module;
  const keep = (predicted: number): PassResult => ({
    program: prog,
    counters: { order: 0, "orders predicted": predicted },
  });
  const model = ctx.costModel;
  if (!model || !hasIncast(prog, m)) return keep(0);
  const candidates = orderCandidates(prog, m, ctx);
  if (candidates.length === 0) return keep(0);
  const request = {
    target: ctx.target,
    signalPeriodUs: ctx.options.signalPeriodUs,
    file: ctx.file,
  };
  const time = (p: QueueProgram): number | undefined =>
    predictBounded(model, p, m, request, commandCount(p), ctx.budget).timeUs;
  const base = time(prog);
  if (base === undefined) return keep(1);
  let best: { name: OrderName; program: QueueProgram; timeUs: number } | undefined;
  for (const c of candidates) {
    const t = time(c.program);
    if (t !== undefined && t < (best?.timeUs ?? base * (1 - ORDER_GAIN)))
      best = { ...c, timeUs: t };
  }
  if (!best) return keep(1 + candidates.length);
  return {
    program: best.program,
    counters: { order: orderIndex(best.name), "orders predicted": 1 + candidates.length },
  };
}

const pass: Pass = {
  name: "order-copies",
  description:
    "orders each queue's independent copies (program order or a rotation of each GPU's destinations) by the cost model, against incast",
  levels: [2],
  required: false,
  relowers: true,
  run,
};
export default pass;
