// batch-completions: the commands of one queue share one host completion signal instead of one
// each (--completion per-queue). Every completion command of a queue is removed and one is put
// right after the queue's last data command, reporting all of their ops; slots are renumbered in
// queue order. A completion takes effect only after every earlier command of its queue, so the
// host still learns that each op is complete, once, when the whole queue's data work is. Queues
// that had no completion (only notifies) get none. Completions order nothing else (the lowering
// orders same-queue work with barriers), so removing them cannot break synchronisation.

import { CMD, CmdBuilder, ListsBuilder, type QueueProgram } from "../queues/queue-program.js";
import type { Pass, PassContext, PassResult } from "./pass.js";

function run(prog: QueueProgram, ctx: PassContext): PassResult {
  let slots = 0;
  let removed = 0;
  const lists = new ListsBuilder(prog.lists);
  // seen[op] === queue index + 1: op is already in this queue's list (linear dedupe, first
  // report first). Ops past the module's table (none in a well-formed program) use a Set.
  const seen = new Int32Array(ctx.module.ops.count);
  const queues = prog.queues.map((q, qi) => {
    const ops: number[] = [];
    const extra = new Set<number>();
    const c = q.cmds;
    const out = new CmdBuilder(c.length);
    let lastData = -1;
    let had = 0;
    for (let i = 0; i < c.length; i++) {
      if (c.kind(i) === CMD.completion) {
        for (const op of prog.lists.of(c.opsHandle(i))) {
          if (op >= 0 && op < seen.length) {
            if (seen[op] === qi + 1) continue;
            seen[op] = qi + 1;
          } else {
            if (extra.has(op)) continue;
            extra.add(op);
          }
          ops.push(op);
        }
        had++;
        continue;
      }
      if (c.isData(i)) lastData = i;
    }
    if (had === 0) return q;
    removed += had - 1;
    // Every command but the completions, with the one completion after the last data command.
    const slot = slots++;
    const handle = lists.add(ops);
    if (lastData < 0) out.completion(slot, handle);
    for (let i = 0; i < c.length; i++) {
      if (c.kind(i) !== CMD.completion) out.take(c, i);
      if (i === lastData) out.completion(slot, handle);
    }
    return { ...q, cmds: out.done() };
  });
  return {
    program: { ...prog, queues, completionSlots: slots, lists: lists.done() },
    counters: { "completions removed": removed, "completion slots": slots },
  };
}

const pass: Pass = {
  name: "batch-completions",
  description:
    "the commands of one queue share one host completion signal (--completion per-queue)",
  levels: [1, 2],
  required: false,
  relowers: false,
  run,
};
export default pass;
