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
// Cost: a cheap test first (incastScore, linear: the rotation must have less incast than the
// program order, counted step by step as the queues would run it), so most programs are neither
// lowered again nor predicted; predictions are bounded by the -O2 work budget
// (PassContext.budget), and the pass keeps the program order when the budget cannot pay.

import type { IrModule } from "../ir/ir.js";
import { cudaOf } from "../target/cuda-target.js";
import type { Target } from "../target/target.js";
import { commandCount, programsEqual, type QueueProgram } from "../queues/queue-program.js";
import { predictBounded } from "./cost-model.js";
import type { Pass, PassContext, PassResult } from "./pass.js";
import {
  isDataOp,
  K_BCAST,
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
  { name: "program", step: 0 },
  { name: "rotate", step: 1 }, // rank r sends to r+1, r+2, ... (mod ranks)
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
 * How much incast an order has, as the lowering would place it: the k-th data op of every queue
 * counted as one step, the senders of a step into one receiver beyond the first, summed over
 * steps and receivers. A cheap stand-in (O(ops)) for what the cost model predicts: the pass
 * predicts a rotation only when it has less incast than the program order.
 */
export function incastScore(pm: IrModule, order: Int32Array, engines: number): number {
  const t = pm.ops;
  const n = pm.ranks;
  const pos = new Map<number, number>(); // queue key -> data ops placed on it so far
  const senders = new Set<number>(); // (step, receiver, sending GPU)
  const written = new Set<number>(); // (step, receiver) with a sender
  let score = 0;
  const count = (step: number, to: number, from: number): void => {
    if (to === from || to < 0) return;
    const key = (step * n + to) * n + from;
    if (senders.has(key)) return;
    senders.add(key);
    if (written.has(step * n + to)) score++;
    else written.add(step * n + to);
  };
  for (const i of order) {
    if (!isDataOp(pm, i)) continue;
    const q = t.driver[i]! * engines + t.engine[i]!;
    const step = pos.get(q) ?? 0;
    pos.set(q, step + 1);
    count(step, t.dstRank[i]!, t.driver[i]!);
    if (t.kind[i] === K_BCAST) count(step, t.dst2Rank[i]!, t.driver[i]!);
  }
  return score;
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

/**
 * Whether the target's timing model shares a receiver's link among its senders, the only place
 * where a copy order can relieve incast: a CUDA target through NVSwitch (`nvlink.topology`
 * "switch": each GPU's ingress is one resource, docs/model.md "Fabric"). A full mesh, and
 * MI300X's xGMI, give each ordered pair a link of its own in the model (xGMI incast is not
 * measured), so the pass would predict there for nothing.
 */
export function receiverShared(target: Target): boolean {
  return cudaOf(target)?.fabric.topology === "switch";
}

/**
 * The program in each order other than program order that has less incast (incastScore); none
 * where the target's receivers are not shared (receiverShared).
 */
export function orderCandidates(
  prog: QueueProgram,
  m: IrModule,
  ctx: Pick<PassContext, "target" | "lower">,
): { name: OrderName; program: QueueProgram }[] {
  if (!receiverShared(ctx.target)) return [];
  const placed = placedModule(m, readPlacement(prog, m));
  const engines = ctx.target.engines.count;
  const identity = Int32Array.from({ length: placed.module.ops.count }, (_, i) => i);
  const before = incastScore(placed.module, identity, engines);
  const out: { name: OrderName; program: QueueProgram }[] = [];
  for (const o of ORDERS) {
    if (o.step === 0) continue;
    const order = rotatedOrder(placed.module, o.step);
    if (incastScore(placed.module, order, engines) >= before) continue;
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
  if (!model) return keep(0);
  const candidates = orderCandidates(prog, m, ctx);
  if (candidates.length === 0) return keep(0);
  const request = {
    target: ctx.target,
    signalPeriodUs: ctx.options.signalPeriodUs,
    file: ctx.file,
  };
  // Each order is predicted as it will be emitted (the queue-level passes after this one).
  const time = (order: QueueProgram): number | undefined => {
    const p = ctx.finalForm ? ctx.finalForm(order) : order;
    return predictBounded(model, p, m, request, commandCount(p), ctx.budget).timeUs;
  };
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
