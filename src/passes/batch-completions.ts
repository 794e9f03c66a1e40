// batch-completions: the commands of one queue share one host completion signal instead of one
// each (--completion per-queue). Every completion command of a queue is removed and one is put
// right after the queue's last data command, reporting all of their ops; slots are renumbered in
// queue order. A completion takes effect only after every earlier command of its queue, so the
// host still learns that each op is complete, once, when the whole queue's data work is. Queues
// that had no completion (only notifies) get none. Completions order nothing else (the lowering
// orders same-queue work with barriers), so removing them cannot break synchronisation.

import type { CompletionCmd, QCmd, QueueProgram } from "../queues/queue-program.js";
import { isDataCmd } from "../queues/queue-program.js";
import type { Pass, PassContext, PassResult } from "./pass.js";

function run(prog: QueueProgram, ctx: PassContext): PassResult {
  let slots = 0;
  let removed = 0;
  // seen[op] === queue index + 1: op is already in this queue's list (linear dedupe, first
  // report first). Ops past the module's table (none in a well-formed program) use a Set.
  const seen = new Int32Array(ctx.module.ops.count);
  const queues = prog.queues.map((q, qi) => {
    const ops: number[] = [];
    const extra = new Set<number>();
    const cmds: QCmd[] = [];
    let lastData = -1;
    let had = 0;
    for (const c of q.cmds) {
      if (c.kind === "completion") {
        for (const op of c.ops) {
          if (op >= 0 && op < seen.length && Number.isInteger(op)) {
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
      if (isDataCmd(c)) lastData = cmds.length;
      cmds.push(c);
    }
    if (had === 0) return q;
    removed += had - 1;
    const completion: CompletionCmd = { kind: "completion", slot: slots++, ops };
    cmds.splice(lastData + 1, 0, completion);
    return { ...q, cmds };
  });
  return {
    program: { ...prog, queues, completionSlots: slots },
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
