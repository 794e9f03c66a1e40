// batch-copies: consecutive copies on one queue whose sources and destinations are both
// contiguous (the next copy starts where the previous one ends, on the same rank and buffer, in
// both) become one copy packet, then the program is re-lowered (relower.ts). A copy joins the
// previous one only if it may move up next to the first copy of the batch (no happens-before
// predecessor after it, same `when` guard, no wait/notify in between: relower.ts canHoist) and the
// batch stays within one packet (maxCopyBytes). Never slower under the model: one packet and one
// start-up instead of several, the same bytes on the same link.

import type { QueueProgram } from "../queues/queue-program.js";
import type { Pass, PassContext, PassResult } from "./pass.js";
import { canHoist, K_COPY, readPlacement, relower } from "./relower.js";

function run(prog: QueueProgram, ctx: PassContext): PassResult {
  const m = ctx.module;
  const t = m.ops;
  const base = readPlacement(prog, m);
  const maxCopy = ctx.lower.maxCopyBytes ?? ctx.target.limits.maxCopyBytes;
  const count = ctx.target.engines.count;
  const groups: number[][] = [];
  const open = new Map<number, { group: number[]; bytes: number }>(); // queue key -> last batch
  let merged = 0;
  for (const g of base.groups) {
    const i = g[0]!;
    const key = t.driver[i]! * count + base.engine[i]!;
    const single = g.length === 1 && t.kind[i] === K_COPY;
    if (!single) {
      groups.push([...g]);
      open.delete(key);
      continue;
    }
    const cur = open.get(key);
    if (cur) {
      const last = cur.group[cur.group.length - 1]!;
      const head = cur.group[0]!;
      const contiguous =
        t.srcRank[i] === t.srcRank[last] &&
        t.srcBuf[i] === t.srcBuf[last] &&
        t.srcOff[i] === t.srcOff[last]! + t.len[last]! &&
        t.dstRank[i] === t.dstRank[last] &&
        t.dstBuf[i] === t.dstBuf[last] &&
        t.dstOff[i] === t.dstOff[last]! + t.len[last]!;
      if (contiguous && cur.bytes + t.len[i]! <= maxCopy && canHoist(m, head, i)) {
        cur.group.push(i);
        cur.bytes += t.len[i]!;
        merged++;
        continue;
      }
    }
    const group = [i];
    groups.push(group);
    if (t.len[i]! <= maxCopy) open.set(key, { group, bytes: t.len[i]! });
    else open.delete(key);
  }
  if (merged === 0) return { program: prog, counters: { "copies merged": 0 } };
  const program = relower(m, { groups, engine: base.engine }, ctx.target, ctx.lower);
  return { program, counters: { "copies merged": merged } };
}

const pass: Pass = {
  name: "batch-copies",
  description:
    "consecutive copies on one queue with contiguous sources and destinations become one packet",
  levels: [1, 2],
  required: false,
  relowers: true,
  run,
};
export default pass;
