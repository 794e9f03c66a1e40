// The passes were made linear (issue 13) without changing what they produce: bcast-fusion's
// partner search skips the copies that may not move up (a min-tree instead of a scan), canHoist
// answers in O(1) from a per-module index, batch-completions dedupes with a mark array. This test
// keeps the original quadratic code as the reference and compares programs and counters on random
// modules full of broadcast and batching candidates: same source regions, write-after-write
// chains, misaligned destinations, pins, waits with guarded copies and notifies.

import { describe, expect, it } from "vitest";
import type { IrModule } from "../../../src/ir/ir.js";
import batchCompletions from "../../../src/passes/batch-completions.js";
import batchCopies from "../../../src/passes/batch-copies.js";
import bcastFusion from "../../../src/passes/bcast-fusion.js";
import type { PassContext } from "../../../src/passes/pass.js";
import { canHoist, isDataOp, K_COPY, readPlacement, relower } from "../../../src/passes/relower.js";
import { lowerToQueues } from "../../../src/queues/lower.js";
import type { QueueProgram } from "../../../src/queues/queue-program.js";
import { toReadable, type QCmd, type ReadableProgram } from "../../../src/queues/readable.js";
import { mulberry32 as rng } from "../../helpers/prng.js";
import { buildModule, MI300X, type OpSpec } from "../queues/helpers.js";

const RANKS = 4;
const BUF = 4096;

/** The original canHoist: scans every op between i and j. */
function canHoistRef(m: IrModule, i: number, j: number): boolean {
  const t = m.ops;
  const e = m.edges!;
  if (t.guard[i] !== t.guard[j]) return false;
  for (let k = e.predStart[j]!; k < e.predStart[j + 1]!; k++) if (e.predIdx[k]! >= i) return false;
  for (let k = i + 1; k < j; k++) if (!isDataOp(m, k)) return false;
  return true;
}

/** The original bcast-fusion pairing (first unpaired partner, scanning the whole bucket). */
function bcastFusionRef(prog: QueueProgram, ctx: PassContext) {
  const m = ctx.module;
  const t = m.ops;
  const base = readPlacement(prog, m);
  const maxCopy = ctx.lower.maxCopyBytes ?? ctx.target.limits.maxCopyBytes;
  const buckets = new Map<string, number[]>();
  const keep: (readonly number[])[] = [];
  for (const g of base.groups) {
    const i = g[0]!;
    if (g.length !== 1 || t.kind[i] !== K_COPY || t.len[i]! > maxCopy) {
      keep.push(g);
      continue;
    }
    const key = `${t.driver[i]}:${t.srcRank[i]}:${t.srcBuf[i]}:${t.srcOff[i]}:${t.len[i]}:${t.engine[i]}`;
    let b = buckets.get(key);
    if (!b) buckets.set(key, (b = []));
    b.push(i);
  }
  let fused = 0;
  let rejectedAlign = 0;
  for (const ops of buckets.values()) {
    const used = new Uint8Array(ops.length);
    for (let a = 0; a < ops.length; a++) {
      if (used[a]) continue;
      const i = ops[a]!;
      let partner = -1;
      for (let b = a + 1; b < ops.length; b++) {
        if (used[b]) continue;
        const j = ops[b]!;
        if (!canHoistRef(m, i, j)) continue;
        if (t.dstOff[i]! % 32 !== t.dstOff[j]! % 32) {
          rejectedAlign++;
          continue;
        }
        partner = b;
        break;
      }
      used[a] = 1;
      if (partner < 0) {
        keep.push([i]);
        continue;
      }
      used[partner] = 1;
      keep.push([i, ops[partner]!]);
      fused++;
    }
  }
  keep.sort((x, y) => x[0]! - y[0]!);
  const engine = new Int16Array(t.count).fill(-1);
  for (let i = 0; i < t.count; i++) if (t.engine[i]! >= 0) engine[i] = t.engine[i]!;
  return {
    program: relower(m, { groups: keep, engine }, ctx.target, ctx.lower),
    counters: { "broadcasts formed": fused, "pairs rejected by alignment": rejectedAlign },
  };
}

/** The original batch-completions (ops.includes per op), on the readable form. */
function batchCompletionsRef(prog: ReadableProgram): ReadableProgram {
  let slots = 0;
  const queues = prog.queues.map((q) => {
    const ops: number[] = [];
    const cmds: QCmd[] = [];
    let lastData = -1;
    let had = 0;
    for (const c of q.cmds) {
      if (c.kind === "completion") {
        for (const op of c.ops) if (!ops.includes(op)) ops.push(op);
        had++;
        continue;
      }
      if (c.kind === "copy" || c.kind === "bcast" || c.kind === "swap" || c.kind === "fill")
        lastData = cmds.length;
      cmds.push(c);
    }
    if (had === 0) return q;
    const completion: QCmd = { kind: "completion", slot: slots++, ops };
    cmds.splice(lastData + 1, 0, completion);
    return { ...q, cmds };
  });
  return { ...prog, queues, completionSlots: slots };
}

/**
 * Copies of a few source regions to a few destinations (so write-after-write and read-after-write
 * edges chain them), destinations at multiples of 16 bytes (some pairs misaligned for a
 * broadcast), contiguous runs (batch-copies), pins, waits guarding copies, notifies.
 */
function randomModule(seed: number): IrModule {
  const r = rng(seed);
  const int = (n: number): number => Math.floor(r() * n);
  const specs: OpSpec[] = [];
  const sources: [number, number, number][] = Array.from({ length: 1 + int(3) }, () => [
    int(RANKS),
    0,
    int(8) * 64,
  ]);
  let guard = -1;
  const count = 20 + int(60);
  while (specs.length < count) {
    const pick = r();
    const len = 64;
    if (pick < 0.6) {
      const src = sources[int(sources.length)]!;
      const dst: [number, number, number] = [(src[0] + 1 + int(RANKS - 1)) % RANKS, 1, int(6) * 16];
      const engine = r() < 0.1 ? 2 + 2 * int(7) : undefined;
      specs.push({
        kind: "copy",
        src,
        dst,
        len,
        driver: src[0],
        ...(engine !== undefined ? { engine } : {}),
        ...(guard >= 0 && r() < 0.7 ? { guard } : {}),
      });
    } else if (pick < 0.8) {
      // A contiguous run of copies (batch-copies).
      const s = int(RANKS);
      const d = (s + 1) % RANKS;
      const at = 1024 + int(8) * 256;
      for (let k = 0; k < 2 + int(4); k++)
        specs.push({ kind: "copy", src: [s, 0, at + k * len], dst: [d, 1, at + k * len], len });
    } else if (pick < 0.88) {
      specs.push({ kind: "notify", signal: [0, int(RANKS)] });
    } else if (pick < 0.94) {
      guard = specs.length;
      specs.push({ kind: "wait", signal: [0, int(RANKS)], cmp: 5, value: 0 });
    } else {
      guard = -1;
    }
  }
  return buildModule([BUF, BUF], specs, { ranks: RANKS, signals: 1 });
}

const ctxOf = (m: IrModule): PassContext => ({
  target: MI300X,
  module: m,
  options: { level: 2, engines: { kind: "affinity" } },
  lower: { completion: "atomic" },
});

describe("the linear passes produce what the quadratic originals did", () => {
  it("canHoist agrees with the original on every pair", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const m = randomModule(seed);
      for (let i = 0; i < m.ops.count; i++)
        for (let j = i + 1; j < m.ops.count; j++)
          expect(canHoist(m, i, j), `seed ${seed} (${i}, ${j})`).toBe(canHoistRef(m, i, j));
    }
  });

  it("bcast-fusion, batch-copies and batch-completions on 60 random modules", () => {
    let fused = 0;
    let rejected = 0;
    let merged = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const m = randomModule(seed);
      const ctx = ctxOf(m);
      const prog = lowerToQueues(m, MI300X, ctx.lower);
      const got = bcastFusion.run(prog, ctx);
      const want = bcastFusionRef(prog, ctx);
      expect(got.counters, `seed ${seed}`).toEqual(want.counters);
      expect(JSON.stringify(toReadable(got.program)), `seed ${seed}`).toBe(
        JSON.stringify(toReadable(want.program)),
      );
      fused += got.counters["broadcasts formed"]!;
      rejected += got.counters["pairs rejected by alignment"]!;
      const copies = batchCopies.run(prog, ctx);
      merged += copies.counters["copies merged"]!;
      expect(
        JSON.stringify(toReadable(batchCompletions.run(prog, ctx).program)),
        `seed ${seed}`,
      ).toBe(JSON.stringify(batchCompletionsRef(toReadable(prog))));
    }
    // The generator reaches every branch: pairs formed, pairs rejected, copies merged.
    expect(fused).toBeGreaterThan(20);
    expect(rejected).toBeGreaterThan(5);
    expect(merged).toBeGreaterThan(20);
  });
});
