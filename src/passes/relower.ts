// Placement and re-lowering: the shared machinery of the placement passes.
//
// A Placement says, for the data ops of an IrModule, which ops share one command (a group:
// [i, j] fused into a broadcast, or [i, j, k, ...] contiguous copies merged into one copy) and
// on which engine each op runs (-1: the lowering's choice, the target's affinity map).
// readPlacement recovers it from a queue program (from the `ops` lists of its data commands and
// the engines of their queues); relower builds the IR the placement describes (each group becomes
// one op at the position of its first member, every op pinned to its engine), infers its
// dependencies, lowers it with queues/lower.ts, and maps the command `ops` back to the original
// op ids. The synchronisation is therefore always the lowering's, correct by construction.
//
// Moving a group's later members up to its first member's position keeps the program's meaning
// only if nothing between them is ordered before them: `canHoist` is that condition (every
// happens-before predecessor of the moved op comes before the group's first op, the moved op has
// the same `when` guard, and no wait/notify lies between). Edges are transitively reduced but
// keep reachability, so checking direct predecessors is enough: a path from an op k in between
// to the moved op would end in a direct predecessor after k.

import { inferDeps } from "../ir/deps.js";
import { allocOpTable, OP_KINDS, type IrModule, type OpTable } from "../ir/ir.js";
import { lowerToQueues, type LowerOptions } from "../queues/lower.js";
import {
  CmdBuilder,
  ListsBuilder,
  type CmdTable,
  type QueueProgram,
} from "../queues/queue-program.js";
import type { Target } from "../target/target.js";
import { InternalError } from "../util/internal-error.js";

export const K_COPY = OP_KINDS.copy.code;
export const K_BCAST = OP_KINDS.bcast.code;
export const K_SWAP = OP_KINDS.swap.code;
export const K_FILL = OP_KINDS.fill.code;

export function isDataOp(m: IrModule, i: number): boolean {
  const k = m.ops.kind[i]!;
  return k === K_COPY || k === K_BCAST || k === K_SWAP || k === K_FILL;
}

export interface Placement {
  /** Ops implemented by one command, first member first (broadcast: [dst op, dst2 op]). */
  readonly groups: readonly (readonly number[])[];
  /** Per original op: the engine it runs on, or -1 for the lowering's choice. */
  readonly engine: Int16Array;
}

/** The placement a queue program implements (every data op pinned to its queue's engine). */
export function readPlacement(prog: QueueProgram, m: IrModule): Placement {
  const engine = new Int16Array(m.ops.count).fill(-1);
  // Groups by their first op (unique), so they come out sorted without a comparison sort.
  const byFirst: (number[] | undefined)[] = new Array<number[] | undefined>(m.ops.count);
  const seen = new Uint8Array(m.ops.count);
  for (const q of prog.queues) {
    const c = q.cmds;
    for (let i = 0; i < c.length; i++) {
      if (!c.isData(i)) continue;
      const ops = prog.lists.of(c.opsHandle(i));
      const first = ops[0];
      if (first === undefined || seen[first]) continue; // split commands repeat their op list
      for (const op of ops) {
        seen[op] = 1;
        engine[op] = q.engine;
      }
      byFirst[first] = Array.from(ops);
    }
  }
  const groups: number[][] = [];
  for (const g of byFirst) if (g) groups.push(g);
  return { groups, engine };
}

/**
 * What canHoist needs, per module, in O(1) per question: the latest direct happens-before
 * predecessor of each op (-1: none) and the index of the first wait/notify (non-data op) at or
 * after each position (count: none). Built once per module (modules are immutable values) in one
 * pass over the ops and edges, so the placement passes stay linear in the program size.
 */
export interface HoistIndex {
  readonly maxPred: Int32Array;
  /** nextBarrier[k]: the first non-data op at position >= k; nextBarrier[count] = count. */
  readonly nextBarrier: Int32Array;
}

const hoistIndexes = new WeakMap<IrModule, HoistIndex>();

export function hoistIndex(m: IrModule): HoistIndex {
  let h = hoistIndexes.get(m);
  if (h) return h;
  const e = m.edges;
  if (!e) throw new InternalError("canHoist needs dependency edges");
  const n = m.ops.count;
  const maxPred = new Int32Array(n).fill(-1);
  for (let j = 0; j < n; j++)
    for (let k = e.predStart[j]!; k < e.predStart[j + 1]!; k++)
      if (e.predIdx[k]! > maxPred[j]!) maxPred[j] = e.predIdx[k]!;
  const nextBarrier = new Int32Array(n + 1);
  nextBarrier[n] = n;
  for (let k = n - 1; k >= 0; k--) nextBarrier[k] = isDataOp(m, k) ? nextBarrier[k + 1]! : k;
  h = { maxPred, nextBarrier };
  hoistIndexes.set(m, h);
  return h;
}

/** Whether op j may move up to position i (i < j) next to it: see the header. O(1). */
export function canHoist(m: IrModule, i: number, j: number): boolean {
  const h = hoistIndex(m);
  if (m.ops.guard[i] !== m.ops.guard[j]) return false;
  return h.maxPred[j]! < i && h.nextBarrier[i + 1]! >= j;
}

/** A group of two copies of the same source bytes (a broadcast), not contiguous copies. */
export function isFusedPair(m: IrModule, g: readonly number[]): boolean {
  const t = m.ops;
  const i = g[0]!;
  const j = g[1]!;
  return (
    g.length === 2 &&
    t.kind[i] === K_COPY &&
    t.kind[j] === K_COPY &&
    t.srcRank[j] === t.srcRank[i] &&
    t.srcBuf[j] === t.srcBuf[i] &&
    t.srcOff[j] === t.srcOff[i] &&
    t.len[j] === t.len[i]
  );
}

const FIELDS: readonly (keyof OpTable)[] = [
  "kind",
  "stmt",
  "bind",
  "driver",
  "engine",
  "srcRank",
  "srcBuf",
  "srcOff",
  "dstRank",
  "dstBuf",
  "dstOff",
  "dst2Rank",
  "dst2Buf",
  "dst2Off",
  "len",
  "value",
  "signal",
  "sigRank",
  "cmp",
  "guard",
];

/** The IR a placement describes, and for each of its ops the original ops it stands for. */
export function placedModule(
  m: IrModule,
  pl: Placement,
): { module: IrModule; members: (readonly number[])[] } {
  const t = m.ops;
  const n = t.count;
  if (pl.groups.every((g) => g.length < 2) && m.edges) {
    // No op absorbed: the same ops in the same order, only pinned, so the same edges (they come
    // from byte ranges, not engines): no inference again.
    const engine = t.engine.slice();
    for (let i = 0; i < n; i++) if (pl.engine[i]! >= 0) engine[i] = pl.engine[i]!;
    const members = Array.from({ length: n }, (_, i) => [i]);
    return { module: { ...m, ops: { ...t, engine } }, members };
  }
  const head = new Int32Array(n).fill(-1); // absorbed op -> its group's first op
  const groupOf = new Map<number, readonly number[]>();
  for (const g of pl.groups) {
    if (g.length < 2) continue;
    groupOf.set(g[0]!, g);
    for (const x of g.slice(1)) head[x] = g[0]!;
  }
  const out = allocOpTable(Math.max(1, n));
  const newId = new Int32Array(n).fill(-1);
  const members: (readonly number[])[] = [];
  let count = 0;
  for (let i = 0; i < n; i++) {
    if (head[i]! >= 0) continue;
    const d = count++;
    newId[i] = d;
    for (const f of FIELDS) (out[f] as Float64Array)[d] = (t[f] as Float64Array)[i]!;
    out.guard[d] = t.guard[i]! >= 0 ? newId[t.guard[i]!]! : -1;
    if (pl.engine[i]! >= 0) out.engine[d] = pl.engine[i]!;
    const g = groupOf.get(i);
    members.push(g ?? [i]);
    if (!g) continue;
    const kind = t.kind[i]!;
    if (kind !== K_COPY || g.some((x) => t.kind[x] !== K_COPY))
      throw new InternalError(`group ${g.join(",")} is not made of copies`);
    const last = g[g.length - 1]!;
    if (isFusedPair(m, g)) {
      // Two copies of the same source bytes: one broadcast (bcast-fusion).
      out.kind[d] = K_BCAST;
      out.dst2Rank[d] = t.dstRank[last]!;
      out.dst2Buf[d] = t.dstBuf[last]!;
      out.dst2Off[d] = t.dstOff[last]!;
      if (pl.engine[last]! >= 0) out.engine[d] = pl.engine[last]!;
    } else {
      // Contiguous copies: one copy of the summed length (batch-copies).
      let len = 0;
      for (const x of g) len += t.len[x]!;
      out.len[d] = len;
    }
  }
  out.count = count;
  const module = inferDeps({ ...m, ops: out, edges: undefined });
  return { module, members };
}

/**
 * Lowers the placement; the commands' op lists name the original ops. Every command gets a list
 * of its own (so each is its own source-map entry after a re-lowering, as it always was).
 */
export function relower(
  m: IrModule,
  pl: Placement,
  target: Target,
  opts: LowerOptions,
): QueueProgram {
  return lowerPlaced(placedModule(m, pl), target, opts);
}

/** A placed module (placedModule) lowered, the commands' op lists naming the original ops. */
export function lowerPlaced(
  placed: { module: IrModule; members: (readonly number[])[] },
  target: Target,
  opts: LowerOptions,
): QueueProgram {
  const { module, members } = placed;
  const prog = lowerToQueues(module, target, opts);
  const lists = new ListsBuilder(undefined, listRoom(prog));
  const queues = prog.queues.map((q) => {
    const c = q.cmds;
    const out = new CmdBuilder(c.length);
    for (let i = 0; i < c.length; i++) {
      const ops = prog.lists.of(c.opsHandle(i));
      const j = out.take(c, i);
      if (ops.length === 0) continue; // the empty list: nothing to map
      const h = lists.open();
      for (const d of ops) for (const x of members[d] ?? []) lists.push(h, x);
      out.setOps(j, h);
    }
    return { ...q, cmds: out.done() };
  });
  return { ...prog, queues, lists: lists.done() };
}

/**
 * The placed module with its ops in `order` (placed op ids, a permutation), dependencies inferred
 * again. The caller keeps every happens-before edge pointing forward and moves no op across a
 * wait or notify (order-copies.ts), so the edges are the same pairs and the meaning is the same;
 * a guard (a wait) therefore stays ahead of the ops it guards.
 */
export function permutePlaced(
  placed: { module: IrModule; members: (readonly number[])[] },
  order: Int32Array,
): { module: IrModule; members: (readonly number[])[] } {
  const t = placed.module.ops;
  const n = t.count;
  if (order.length !== n) throw new InternalError(`order of ${order.length} ops for ${n}`);
  const newId = new Int32Array(n).fill(-1);
  order.forEach((i, d) => (newId[i] = d));
  const out = allocOpTable(Math.max(1, n));
  const members: (readonly number[])[] = [];
  order.forEach((i, d) => {
    for (const f of FIELDS) (out[f] as Float64Array)[d] = (t[f] as Float64Array)[i]!;
    const g = t.guard[i]!;
    if (g >= 0 && newId[g]! > d) throw new InternalError(`op ${i} moved above its guard ${g}`);
    out.guard[d] = g >= 0 ? newId[g]! : -1;
    members.push(placed.members[i]!);
  });
  out.count = n;
  const module = inferDeps({ ...placed.module, ops: out, edges: undefined });
  return { module, members };
}

/** Pool entries for a list per command: each list's length and ops. */
function listRoom(prog: QueueProgram): number {
  let n = 0;
  for (const q of prog.queues)
    for (let i = 0; i < q.cmds.length; i++) n += 1 + prog.lists.count(q.cmds.opsHandle(i));
  return n;
}

/**
 * The program with a fresh op list per command (same contents): what relower gives when the
 * placement is the one the program already implements, without re-lowering (engine-assign's
 * common case at -O1: every op stays where the lowering put it).
 */
export function listPerCommand(prog: QueueProgram): QueueProgram {
  const lists = new ListsBuilder(undefined, listRoom(prog));
  const queues = prog.queues.map((q) => {
    const out = new CmdBuilder(q.cmds.length);
    takeWithOwnLists(prog, q.cmds, out, lists);
    return { ...q, cmds: out.done() };
  });
  return { ...prog, queues, lists: lists.done() };
}

/** listPerCommand's loop over one queue, alone (nothing after it: lower.ts emitCommands). */
function takeWithOwnLists(
  prog: QueueProgram,
  c: CmdTable,
  out: CmdBuilder,
  lists: ListsBuilder,
): void {
  for (let i = 0; i < c.length; i++) {
    const j = out.take(c, i);
    const ops = prog.lists.of(c.opsHandle(i));
    if (ops.length > 0) out.setOps(j, lists.add(ops));
  }
}
