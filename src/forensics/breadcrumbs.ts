// `--breadcrumbs`: hang forensics on hardware. Every queue gets one breadcrumb word (a sync word
// of kind "breadcrumb", in host memory so the host can read it while the GPUs hang) and, after
// each of its command groups, a FENCE of the group's step number (1, 2, 3, ...) into it. A FENCE
// lands only after every earlier command of its queue has completed, so the word's value k says
// "steps 1..k are complete" and step k+1 is where the queue stopped. A command group is a run of
// consecutive commands sharing one op list: one source-map entry (a data op with its completion
// and progress signals, a `when` poll, a notify), so each step maps to a source line; the
// manifest lists the statement of every step (manifest.ts, `breadcrumbs`).
//
// Runs last (after the sync forms): the breadcrumb FENCEs order nothing and are polled by nobody.
// Cost: one 4-dword FENCE per group, and a FENCE waits for the queue's earlier data commands, so
// back-to-back copies no longer overlap across a breadcrumb (docs/runtime.md, section 7).

import {
  CMD,
  CmdBuilder,
  SPACE,
  type QueueProgram,
  type SyncWord,
} from "../queues/queue-program.js";

export function addBreadcrumbs(p: QueueProgram): QueueProgram {
  const syncWords: SyncWord[] = [...p.syncWords];
  const queues = p.queues.map((q, qi) => {
    const word = syncWords.length;
    syncWords.push({ kind: "breadcrumb", gpu: q.gpu, queue: qi });
    const c = q.cmds;
    const out = new CmdBuilder(2 * c.length);
    let step = 0;
    for (let i = 0; i < c.length; i++) {
      out.take(c, i);
      const h = c.opsHandle(i);
      if (i + 1 < c.length && c.opsHandle(i + 1) === h) continue;
      out.signal(SPACE.sync, word, 0, "fence", ++step, "breadcrumb", h);
    }
    return { ...q, cmds: out.done() };
  });
  return { ...p, queues, syncWords };
}

/** Whether command i of a queue is a breadcrumb FENCE. */
export function isBreadcrumb(
  p: QueueProgram,
  c: QueueProgram["queues"][number]["cmds"],
  i: number,
): boolean {
  const w = c.kind(i) === CMD.signal ? c.syncWord(i) : -1;
  return w >= 0 && p.syncWords[w]!.kind === "breadcrumb";
}
