// sync-elision: removes cross-queue polls that other synchronisation already implies, then the
// progress FENCEs nobody needs, and renumbers each progress counter densely.
//
// Knowledge: know[q][r] = k means queue q, at its current point, is guaranteed that the first k
// commands of queue r have completed. A FENCE at position f of queue r takes effect after r's
// commands 0..f-1 completed, so it carries r's knowledge at f plus know[r] = f. A poll `word >= v`
// on a progress word is satisfied, at the earliest, by the first FENCE of that word with value
// >= v; once satisfied, the polling queue joins that FENCE's knowledge. Knowledge only flows
// through joins, so it is transitive: if q already knows r up to f when it reaches a poll that
// needs r's FENCE at f, the poll adds nothing (its join is already contained) and is removed.
// Removing such polls all at once is sound because none of them contributed knowledge.
// The vectors are computed by running the queues abstractly in a feasible order (the program is
// live: queues/verify.ts), exactly as the liveness check does.
//
// Then on each progress word only the FENCEs that some remaining poll needs are kept ("only the
// last FENCE before a poll matters": several signals from one queue to one consumer collapse into
// one counter value), their values become 1, 2, 3, ... and the polls wait for the new values.
// Barrier words, user signals and the trigger are left alone; a progress word polled with any
// compare but `>=` is left alone too.

import { compare } from "../queues/verify.js";
import type { QCmd, QueueProgram, SyncWord } from "../queues/queue-program.js";
import { InternalError } from "../util/internal-error.js";
import type { Pass, PassContext, PassResult } from "./pass.js";

interface Fence {
  readonly value: number;
  readonly queue: number;
  readonly pos: number;
  readonly vec: Int32Array;
}

function run(prog: QueueProgram, _ctx: PassContext): PassResult {
  const Q = prog.queues.length;
  const W = prog.syncWords.length;
  const know = prog.queues.map(() => new Int32Array(Q));
  const value = new Float64Array(W);
  const fences: Fence[][] = Array.from({ length: W }, () => []);
  const opaque = new Uint8Array(W); // words we do not rewrite
  prog.syncWords.forEach((w, i) => {
    if (w.kind !== "progress") opaque[i] = 1;
  });
  for (const q of prog.queues)
    for (const c of q.cmds)
      if (c.kind === "poll" && c.at.space === "sync" && c.func !== ">=") opaque[c.at.word] = 1;
  // need[q][i]: for a kept progress poll, the index in fences[word] of the FENCE it waits for.
  const need = prog.queues.map((q) => new Int32Array(q.cmds.length).fill(-1));
  const redundant = prog.queues.map((q) => new Uint8Array(q.cmds.length));
  const pc = new Int32Array(Q);
  let progress = true;
  while (progress) {
    progress = false;
    for (let qi = 0; qi < Q; qi++) {
      const cmds = prog.queues[qi]!.cmds;
      let i = pc[qi]!;
      for (; i < cmds.length; i++) {
        const c: QCmd = cmds[i]!;
        if (c.kind === "poll" && c.at.space === "sync") {
          const w = c.at.word;
          if (!compare((value[w]! & c.mask) >>> 0, c.func, c.value)) break;
          if (opaque[w]) continue;
          const fi = fences[w]!.findIndex((f) => f.value >= c.value);
          const f = fences[w]![fi];
          if (!f) throw new InternalError(`sync-elision: poll on word ${w} satisfied by no FENCE`);
          const k = know[qi]!;
          if (k[f.queue]! >= f.pos) {
            redundant[qi]![i] = 1;
            continue;
          }
          for (let r = 0; r < Q; r++) if (f.vec[r]! > k[r]!) k[r] = f.vec[r]!;
          if (f.pos > k[f.queue]!) k[f.queue] = f.pos;
          need[qi]![i] = fi;
        } else if (c.kind === "signal" && c.at.space === "sync") {
          const w = c.at.word;
          const vec = know[qi]!.slice();
          vec[qi] = i;
          fences[w]!.push({ value: c.value, queue: qi, pos: i, vec });
          value[w] = c.how === "fence" ? c.value : value[w]! + c.value;
        }
      }
      if (i !== pc[qi]) progress = true;
      pc[qi] = i;
    }
  }
  for (let qi = 0; qi < Q; qi++)
    if (pc[qi]! < prog.queues[qi]!.cmds.length)
      throw new InternalError(`sync-elision: queue ${qi} does not drain (input not live)`);

  // Which FENCEs stay, and their new values.
  const keepFence = fences.map((fs) => new Uint8Array(fs.length));
  prog.queues.forEach((_, qi) => {
    need[qi]!.forEach((fi, i) => {
      if (fi < 0) return;
      const c = prog.queues[qi]!.cmds[i]!;
      if (c.kind === "poll" && c.at.space === "sync") keepFence[c.at.word]![fi] = 1;
    });
  });
  const newValue = fences.map((fs, w) => {
    let v = 0;
    return fs.map((f, fi) => (opaque[w] ? f.value : keepFence[w]![fi] ? ++v : -1));
  });
  // (queue, pos) -> fence index, to find each FENCE command again.
  const fenceAt = new Map<number, number>();
  const posKey = (qi: number, i: number): number => qi * 0x1000000 + i;
  fences.forEach((fs) => fs.forEach((f, fi) => fenceAt.set(posKey(f.queue, f.pos), fi)));

  let pollsRemoved = 0;
  let fencesRemoved = 0;
  const used = new Uint8Array(W);
  const rewritten = prog.queues.map((q, qi) => {
    const cmds: QCmd[] = [];
    q.cmds.forEach((c, i) => {
      if (c.kind === "poll" && c.at.space === "sync") {
        const w = c.at.word;
        if (redundant[qi]![i]) {
          pollsRemoved++;
          return;
        }
        used[w] = 1;
        if (opaque[w]) cmds.push(c);
        else cmds.push({ ...c, value: newValue[w]![need[qi]![i]!]! });
        return;
      }
      if (c.kind === "signal" && c.at.space === "sync") {
        const w = c.at.word;
        const v = newValue[w]![fenceAt.get(posKey(qi, i))!]!;
        if (v < 0) {
          fencesRemoved++;
          return;
        }
        used[w] = 1;
        cmds.push(opaque[w] ? c : { ...c, value: v });
        return;
      }
      cmds.push(c);
    });
    return { ...q, cmds };
  });

  // Drop sync words nothing uses any more; renumber the rest.
  const remap = new Int32Array(W).fill(-1);
  const syncWords: SyncWord[] = [];
  prog.syncWords.forEach((w, i) => {
    if (!used[i]) return;
    remap[i] = syncWords.length;
    syncWords.push(w);
  });
  const reword = (c: QCmd): QCmd =>
    (c.kind === "poll" || c.kind === "signal") && c.at.space === "sync"
      ? { ...c, at: { space: "sync", word: remap[c.at.word]! } }
      : c;
  const queues = rewritten
    .map((q) => ({ ...q, cmds: q.cmds.map(reword) }))
    .filter((q) => q.cmds.length > 0);
  if (queues.length !== rewritten.length)
    throw new InternalError("sync-elision emptied a queue (a queue of sync commands only)");
  return {
    program: { ...prog, queues, syncWords },
    counters: {
      "polls removed": pollsRemoved,
      "fences removed": fencesRemoved,
      "sync words removed": W - syncWords.length,
    },
  };
}

const pass: Pass = {
  name: "sync-elision",
  description:
    "remove polls implied by other synchronisation and FENCEs no poll needs; renumber progress counters",
  levels: [1, 2],
  required: false,
  relowers: false,
  run,
};
export default pass;
