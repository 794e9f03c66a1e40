// prelaunch: every queue begins with a POLL on the host trigger word (>= 1), and the program
// records the trigger (QueueProgram.trigger), so the manifest names the word the host writes.
// The host can then build every packet and ring every doorbell ahead of time and release the
// whole schedule with one store; the executor's timing starts at that store (DMA-Latte `+PL`).
// Idempotent: a queue that already starts with the trigger poll is left alone.

import {
  CMD,
  CmdBuilder,
  EMPTY_LIST,
  FUNC_GE,
  MASK_ALL,
  SPACE,
  type CmdTable,
  type QueueProgram,
} from "../queues/queue-program.js";
import type { Pass, PassContext, PassResult } from "./pass.js";

export const TRIGGER_VALUE = 1;

const isTriggerPoll = (c: CmdTable, i: number): boolean =>
  c.kind(i) === CMD.poll && c.why(i) === "trigger";

function run(prog: QueueProgram, _ctx: PassContext): PassResult {
  let added = 0;
  const queues = prog.queues.map((q) => {
    const c = q.cmds;
    if (c.length > 0 && isTriggerPoll(c, 0)) return q;
    added++;
    const out = new CmdBuilder(c.length + 1);
    out.poll(SPACE.trigger, 0, 0, FUNC_GE, TRIGGER_VALUE, MASK_ALL, "trigger", EMPTY_LIST);
    for (let i = 0; i < c.length; i++) out.take(c, i);
    return { ...q, cmds: out.done() };
  });
  return {
    program: { ...prog, queues, trigger: { value: TRIGGER_VALUE } },
    counters: { "trigger polls": added },
  };
}

const pass: Pass = {
  name: "prelaunch",
  description:
    "each queue starts with a poll on a host trigger word: submit everything ahead, release with one store",
  levels: [],
  required: false,
  relowers: false,
  run,
};
export default pass;
