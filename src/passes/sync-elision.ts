// sync-elision: removes cross-queue polls that other synchronisation already implies, then the
// progress FENCEs nobody needs, and renumbers each progress counter densely.
//
// Knowledge: know[q][r] = k means queue q, at its current point, is guaranteed that the first k
// effects of queue r (its data commands and user-signal writes, what another queue can depend
// on) have completed. A FENCE of queue r takes effect after every earlier command of r, so it
// carries r's knowledge at that point plus know[r] = r's effects before it. A poll `word >= v`
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
import { isDataCmd, type QCmd, type QueueProgram, type SyncWord } from "../queues/queue-program.js";
import { InternalError } from "../util/internal-error.js";
import type { Pass, PassContext, PassResult } from "./pass.js";

interface Fence {
  readonly value: number;
  readonly queue: number;
  readonly pos: number;
  /** Effects (data commands and user-signal writes) of its queue before it. */
  readonly eff: number;
  /** Where its knowledge vector (Q entries) starts in `vecs`, and the sum of the vector. */
  readonly vec: number;
  readonly weight: number;
}

/** Commands whose effect another queue can depend on (sync FENCEs and completions are not). */
function isEffect(c: QCmd): boolean {
  return isDataCmd(c) || (c.kind === "signal" && c.at.space !== "sync");
}

/** The index of the first FENCE with value >= v (-1: none); binary search when sorted. */
function firstFenceAtLeast(fs: readonly Fence[], sorted: number, v: number): number {
  if (!sorted) return fs.findIndex((f) => f.value >= v);
  let lo = 0;
  let hi = fs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (fs[mid]!.value >= v) hi = mid;
    else lo = mid + 1;
  }
  return lo < fs.length ? lo : -1;
}

function run(prog: QueueProgram, _ctx: PassContext): PassResult {
  const Q = prog.queues.length;
  const W = prog.syncWords.length;
  const know = prog.queues.map(() => new Int32Array(Q));
  // The FENCEs' knowledge vectors, Q entries each, in one growing array (not one per FENCE: at
  // 10^5 FENCEs the small typed arrays cost more in allocation and collection than the work).
  let vecs = new Int32Array(Math.max(1, Q) * 1024);
  let vecTop = 0;
  const value = new Float64Array(W);
  const fences: Fence[][] = Array.from({ length: W }, () => []);
  // sorted[w]: the FENCE values of word w, in the order they take effect, never decrease (a
  // progress counter's always do), so the first one >= v is found by binary search.
  const sorted = new Uint8Array(W).fill(1);
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
  const effBefore = prog.queues.map((q) => {
    const out = new Int32Array(q.cmds.length + 1);
    q.cmds.forEach((c, i) => (out[i + 1] = out[i]! + (isEffect(c) ? 1 : 0)));
    return out;
  });
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
          // A run of consecutive sync polls is one wait for all of them: nothing runs until every
          // one holds. Judge the polls whose FENCE knows the most first, so a poll implied by
          // another poll of the same run is removed whichever order lowering put them in.
          let end = i;
          let ready = true;
          for (; end < cmds.length; end++) {
            const d = cmds[end]!;
            if (d.kind !== "poll" || d.at.space !== "sync") break;
            if (!compare((value[d.at.word]! & d.mask) >>> 0, d.func, d.value)) ready = false;
          }
          if (!ready) break;
          const run: { at: number; fi: number; f: Fence; weight: number }[] = [];
          for (let j = i; j < end; j++) {
            const d = cmds[j]!;
            if (d.kind !== "poll" || d.at.space !== "sync" || opaque[d.at.word]) continue;
            const fi = firstFenceAtLeast(fences[d.at.word]!, sorted[d.at.word]!, d.value);
            const f = fences[d.at.word]![fi];
            if (!f)
              throw new InternalError(
                `sync-elision: poll on word ${d.at.word} satisfied by no FENCE`,
              );
            run.push({ at: j, fi, f, weight: f.weight });
          }
          run.sort((a, b) => b.weight - a.weight || a.at - b.at);
          const k = know[qi]!;
          for (const { at, fi, f } of run) {
            if (k[f.queue]! >= f.eff) {
              redundant[qi]![at] = 1;
              continue;
            }
            for (let r = 0; r < Q; r++) if (vecs[f.vec + r]! > k[r]!) k[r] = vecs[f.vec + r]!;
            if (f.eff > k[f.queue]!) k[f.queue] = f.eff;
            need[qi]![at] = fi;
          }
          i = end - 1;
        } else if (c.kind === "signal" && c.at.space === "sync") {
          const w = c.at.word;
          const eff = effBefore[qi]![i]!;
          if (vecTop + Q > vecs.length) {
            const grown = new Int32Array(vecs.length * 2);
            grown.set(vecs);
            vecs = grown;
          }
          const vec = vecTop;
          vecTop += Q;
          vecs.set(know[qi]!, vec);
          vecs[vec + qi] = eff;
          let weight = 0;
          for (let r = 0; r < Q; r++) weight += vecs[vec + r]!;
          const fs = fences[w]!;
          if (fs.length > 0 && !(fs[fs.length - 1]!.value <= c.value)) sorted[w] = 0;
          fs.push({ value: c.value, queue: qi, pos: i, eff, vec, weight });
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
