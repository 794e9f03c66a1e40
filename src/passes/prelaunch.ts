// prelaunch: every queue begins with a POLL on the host trigger word (>= 1), and the program
// records the trigger (QueueProgram.trigger), so the manifest names the word the host writes.
// The host can then build every packet and ring every doorbell ahead of time and release the
// whole schedule with one store; the executor's timing starts at that store (DMA-Latte `+PL`).
// Idempotent: a queue that already starts with the trigger poll is left alone.

import type { PollCmd, QueueProgram } from "../queues/queue-program.js";
import type { Pass, PassContext, PassResult } from "./pass.js";

export const TRIGGER_VALUE = 1;

function run(prog: QueueProgram, _ctx: PassContext): PassResult {
  const poll: PollCmd = {
    kind: "poll",
    at: { space: "trigger" },
    func: ">=",
    value: TRIGGER_VALUE,
    mask: 0xffffffff,
    why: "trigger",
    ops: [],
  };
  let added = 0;
  const queues = prog.queues.map((q) => {
    const first = q.cmds[0];
    if (first?.kind === "poll" && first.why === "trigger") return q;
    added++;
    return { ...q, cmds: [poll, ...q.cmds] };
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
