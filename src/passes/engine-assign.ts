// engine-assign: chooses the engine of every data command the source does not pin, by the
// strategy in the options (pass.ts EngineStrategy), then re-lowers (relower.ts) so that the
// synchronisation matches the new placement. Pins from the source (`on sdma(E)`) always win.
//
// - affinity: the target's recommended engine map (what lowering does; the -O0 default).
// - spread:K: each GPU uses its K best xGMI engines: the recommended engines of the ranks it
//   sends the most bytes to (ties: lower rank first; its own local copies prefer an xGMI engine
//   that serves no peer), then the remaining xGMI engines in order. Each command goes to its own
//   preferred engine unless another of the K is less loaded (load = bytes + a per-command cost
//   expressed in bytes, so small commands are spread by count and large ones by bytes).
// - single: every command of GPU g on one engine, engines[g % engines.length], or the GPU's
//   best engine (as above) when no list is given: DMA-Latte's back-to-back `b2b`.

import { isHostBuffer, type IrModule } from "../ir/ir.js";
import type { QueueProgram } from "../queues/queue-program.js";
import { UNKNOWN, type Target } from "../target/target.js";
import { InternalError } from "../util/internal-error.js";
import type { EngineStrategy, Pass, PassContext, PassResult } from "./pass.js";
import {
  isFusedPair,
  K_BCAST,
  listPerCommand,
  readPlacement,
  relower,
  type Placement,
} from "./relower.js";

/** A command's fixed cost expressed as bytes on one link (~1.4 us at 48 GB/s). */
const COMMAND_COST_BYTES = 64 * 1024;

/**
 * The rank on the far side of a group's transfer (lowering's rule: a broadcast's dst2). A copy
 * to or from host memory has no GPU there (its host region's rank is a placeholder, ir.ts
 * HOST_REGION_RANK): the driver's own.
 */
function otherRank(m: IrModule, group: readonly number[]): number {
  const t = m.ops;
  const i = group[0]!;
  const last = group[group.length - 1]!;
  const driver = t.driver[i]!;
  if (isHostBuffer(m, t.srcBuf[i]!) || isHostBuffer(m, t.dstBuf[i]!)) return driver;
  const src = t.srcRank[i]!;
  const dst = t.dstRank[i]!;
  if (isFusedPair(m, group))
    return t.dstRank[last] !== driver ? t.dstRank[last]! : dst !== driver ? dst : src;
  if (t.kind[i] === K_BCAST) {
    const d2 = t.dst2Rank[i]!;
    return d2 !== driver ? d2 : dst !== driver ? dst : src;
  }
  if (src >= 0 && src !== driver) return src;
  return dst >= 0 ? dst : driver;
}

/** The target's engine for driver -> other, or undefined where its map does not say (unknown). */
function mapEngine(target: Target, driver: number, other: number): number | undefined {
  if (other === driver) return target.engines.localCopy;
  const e = target.recommendedEngine.map[driver]?.[other];
  return e === undefined || e < 0 ? undefined : e;
}

/**
 * The engine an unpinned group takes under affinity. DMAC4201 refuses unpinned GPU-to-GPU
 * operations on a target whose map is unknown before lowering, so a missing entry is a bug.
 */
function affinityEngine(target: Target, driver: number, other: number): number {
  const e = mapEngine(target, driver, other);
  if (e === undefined) throw new InternalError(`no recommended engine for ${driver} -> ${other}`);
  return e;
}

/**
 * The xGMI engines a queue may be put on: those with hardware behind them. With engines.physical
 * unknown none is known to have any (DMAC4202 would refuse a queue there).
 */
function usableXgmi(target: Target): readonly number[] {
  const { xgmi, physical } = target.engines;
  return physical === UNKNOWN ? [] : xgmi.filter((e) => physical.includes(e));
}

function groupBytes(m: IrModule, g: readonly number[]): number {
  let b = 0;
  for (const x of g) b += m.ops.len[x]!;
  return b;
}

/**
 * GPU g's engines, best first (see the header), and the engine each destination rank prefers:
 * map[g][p] for a peer, and for g's own (local) copies the first usable xGMI engine that serves no
 * peer, so a local copy does not queue behind a peer copy on the shared localCopy engine. Only
 * engines the target knows to exist are ranked: a peer whose map entry is unknown adds none.
 */
export function rankedEngines(
  m: IrModule,
  target: Target,
  groups: readonly (readonly number[])[],
  g: number,
): { ranked: number[]; prefer: (other: number) => number } {
  const bytesTo = new Float64Array(m.ranks);
  for (const grp of groups) {
    if (m.ops.driver[grp[0]!] !== g) continue;
    bytesTo[otherRank(m, grp)]! += groupBytes(m, grp);
  }
  const row = target.recommendedEngine.map[g] ?? [];
  const xgmi = usableXgmi(target);
  const local = xgmi.find((e) => !row.includes(e)) ?? target.engines.localCopy;
  const known = (p: number): number | undefined => (p === g ? local : mapEngine(target, g, p));
  const others = [...Array(m.ranks).keys()].filter((p) => p !== g || bytesTo[p]! > 0);
  others.sort((a, b) => bytesTo[b]! - bytesTo[a]! || a - b);
  const ranked: number[] = [];
  for (const p of others) {
    const e = known(p);
    if (e !== undefined && !ranked.includes(e)) ranked.push(e);
  }
  for (const e of xgmi) if (!ranked.includes(e)) ranked.push(e);
  if (ranked.length === 0) ranked.push(local);
  const prefer = (p: number): number => (p === g ? local : affinityEngine(target, g, p));
  return { ranked, prefer };
}

/** The engine of every group under `strategy` (source pins kept). */
export function assignEngines(
  prog: QueueProgram,
  m: IrModule,
  target: Target,
  strategy: EngineStrategy,
): { placement: Placement; moved: number } {
  const base = readPlacement(prog, m);
  const t = m.ops;
  const engine = new Int16Array(t.count).fill(-1);
  const rankCache = new Map<number, ReturnType<typeof rankedEngines>>();
  const rank = (g: number): ReturnType<typeof rankedEngines> => {
    let r = rankCache.get(g);
    if (!r) rankCache.set(g, (r = rankedEngines(m, target, base.groups, g)));
    return r;
  };
  const load = new Map<number, number>(); // gpu * engines + engine -> load
  const count = target.engines.count;
  let moved = 0;
  for (const grp of base.groups) {
    const i = grp[0]!;
    const driver = t.driver[i]!;
    const pin = grp.map((x) => t.engine[x]!).find((e) => e >= 0);
    const other = otherRank(m, grp);
    let e: number;
    if (pin !== undefined) e = pin;
    else {
      switch (strategy.kind) {
        case "affinity":
          e = affinityEngine(target, driver, other);
          break;
        case "single":
          e =
            strategy.engines.length > 0
              ? strategy.engines[driver % strategy.engines.length]!
              : rank(driver).ranked[0]!;
          break;
        case "spread": {
          const r = rank(driver);
          const set = r.ranked.slice(0, Math.max(1, strategy.k));
          const own = r.prefer(other);
          const cost = (x: number): number => load.get(driver * count + x) ?? 0;
          e = set.includes(own) ? own : set[0]!;
          for (const x of set) if (cost(x) < cost(e)) e = x;
          break;
        }
        default: {
          const never: never = strategy;
          throw new InternalError(`engine strategy ${JSON.stringify(never)}`);
        }
      }
    }
    const k = driver * count + e;
    load.set(k, (load.get(k) ?? 0) + groupBytes(m, grp) + COMMAND_COST_BYTES);
    for (const x of grp) {
      if (base.engine[x] !== e) moved++;
      engine[x] = e;
    }
  }
  return { placement: { groups: base.groups, engine }, moved };
}

function run(prog: QueueProgram, ctx: PassContext): PassResult {
  const { placement, moved } = assignEngines(prog, ctx.module, ctx.target, ctx.options.engines);
  // Nothing moved and no op shares a command: re-lowering would rebuild the same commands (the
  // program is a lowering of this module with this placement), only with a list per command.
  const unchanged = moved === 0 && placement.groups.every((g) => g.length === 1);
  const out = unchanged
    ? listPerCommand(prog)
    : relower(ctx.module, placement, ctx.target, ctx.lower);
  const engines = new Set(out.queues.map((q) => q.gpu * 1000 + q.engine)).size;
  return { program: out, counters: { "ops moved": moved, queues: engines } };
}

const pass: Pass = {
  name: "engine-assign",
  description:
    "place every command on an engine: affinity (the target's map), spread:K (K engines per GPU), single[:E,...] (back to back); source pins kept",
  levels: [0, 1, 2],
  required: true,
  relowers: true,
  run,
};
export default pass;
