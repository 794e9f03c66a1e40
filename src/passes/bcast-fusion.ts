// bcast-fusion: two copies of the same source bytes, driven by the same GPU, to two destinations,
// become one COPY_LINEAR broadcast (one read, two writes), then the program is re-lowered
// (relower.ts). Conditions on a pair (i, j), i < j in program order:
// - both are copies not yet grouped, same driver, same source region (rank, buffer, offset, len),
//   at most one packet long (maxCopyBytes), and pinned alike by the source (or not at all);
// - no happens-before path between them and j may move up to i (relower.ts canHoist);
// - the broadcast alignment rule: the two destination addresses agree in their low 5 bits.
//   At the symbolic level this is `dstOff_i % 32 == dstOff_j % 32`, which is exact because layout
//   aligns every buffer instance to 4 KiB (backend/sdma/layout.ts bufferAlign); emit's DMAC4001
//   check remains the backstop should a layout ever break that assumption.
// Pairs are formed greedily in program order (first unpaired partner), so a rank sending one
// chunk to 7 peers gets 3 broadcasts and 1 copy, as DMA-Latte's `bcst` does. The broadcast runs on
// the engine of its second destination (lowering's rule) unless a later engine-assign moves it.

import type { QueueProgram } from "../queues/queue-program.js";
import type { Pass, PassContext, PassResult } from "./pass.js";
import { canHoist, K_COPY, readPlacement, relower } from "./relower.js";

/** Bytes of the bcast alignment rule (COPY_LINEAR broadcast: dst1 and dst2 share bits 4:0). */
const BCAST_ALIGN = 32;

function run(prog: QueueProgram, ctx: PassContext): PassResult {
  const m = ctx.module;
  const t = m.ops;
  const base = readPlacement(prog, m);
  const maxCopy = ctx.lower.maxCopyBytes ?? ctx.target.limits.maxCopyBytes;
  // Candidates: single copies, bucketed by (driver, source region, pin).
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
        if (!canHoist(m, i, j)) continue;
        if (t.dstOff[i]! % BCAST_ALIGN !== t.dstOff[j]! % BCAST_ALIGN) {
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
  // A fused broadcast takes the engine of its second copy (lowering's dst2 rule) unless pinned.
  const engine = new Int16Array(t.count).fill(-1);
  for (let i = 0; i < t.count; i++) if (t.engine[i]! >= 0) engine[i] = t.engine[i]!;
  const program = relower(m, { groups: keep, engine }, ctx.target, ctx.lower);
  return {
    program,
    counters: { "broadcasts formed": fused, "pairs rejected by alignment": rejectedAlign },
  };
}

const pass: Pass = {
  name: "bcast-fusion",
  description:
    "two unordered copies of the same source bytes by one GPU become one broadcast packet (destinations equal modulo 32)",
  levels: [2],
  required: false,
  relowers: true,
  run,
};
export default pass;
