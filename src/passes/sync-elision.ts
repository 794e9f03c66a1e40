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
import {
  CMD,
  CmdBuilder,
  FUNC_GE,
  SPACE,
  type CmdTable,
  type QueueProgram,
  type SyncWord,
} from "../queues/queue-program.js";
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
function isEffect(c: CmdTable, i: number): boolean {
  return c.isData(i) || (c.kind(i) === CMD.signal && c.space(i) !== SPACE.sync);
}

/** A poll on a sync word: the word, else -1. */
function syncPoll(c: CmdTable, i: number): number {
  return c.kind(i) === CMD.poll ? c.syncWord(i) : -1;
}

/** A signal (FENCE) on a sync word: the word, else -1. */
function syncSignal(c: CmdTable, i: number): number {
  return c.kind(i) === CMD.signal ? c.syncWord(i) : -1;
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
    for (let i = 0; i < q.cmds.length; i++) {
      const w = syncPoll(q.cmds, i);
      if (w >= 0 && q.cmds.funcCode(i) !== FUNC_GE) opaque[w] = 1;
    }
  // need[q][i]: for a kept progress poll, the index in fences[word] of the FENCE it waits for.
  const need = prog.queues.map((q) => new Int32Array(q.cmds.length).fill(-1));
  const redundant = prog.queues.map((q) => new Uint8Array(q.cmds.length));
  // fenceIndex[q][i]: for a sync FENCE, its index in fences[word].
  const fenceIndex = prog.queues.map((q) => new Int32Array(q.cmds.length).fill(-1));
  const effBefore = prog.queues.map((q) => {
    const out = new Int32Array(q.cmds.length + 1);
    for (let i = 0; i < q.cmds.length; i++) out[i + 1] = out[i]! + (isEffect(q.cmds, i) ? 1 : 0);
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
        if (syncPoll(cmds, i) >= 0) {
          // A run of consecutive sync polls is one wait for all of them: nothing runs until every
          // one holds. Judge the polls whose FENCE knows the most first, so a poll implied by
          // another poll of the same run is removed whichever order lowering put them in.
          let end = i;
          let ready = true;
          for (; end < cmds.length; end++) {
            const w = syncPoll(cmds, end);
            if (w < 0) break;
            if (!compare((value[w]! & cmds.mask(end)) >>> 0, cmds.func(end), cmds.value(end)))
              ready = false;
          }
          if (!ready) break;
          const run: { at: number; fi: number; f: Fence; weight: number }[] = [];
          for (let j = i; j < end; j++) {
            const w = syncPoll(cmds, j);
            if (opaque[w]) continue;
            const fi = firstFenceAtLeast(fences[w]!, sorted[w]!, cmds.value(j));
            const f = fences[w]![fi];
            if (!f)
              throw new InternalError(`sync-elision: poll on word ${w} satisfied by no FENCE`);
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
        } else if (syncSignal(cmds, i) >= 0) {
          const w = syncSignal(cmds, i);
          const v = cmds.value(i);
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
          if (fs.length > 0 && !(fs[fs.length - 1]!.value <= v)) sorted[w] = 0;
          fenceIndex[qi]![i] = fs.length;
          fs.push({ value: v, queue: qi, pos: i, eff, vec, weight });
          value[w] = cmds.isFence(i) ? v : value[w]! + v;
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
  prog.queues.forEach((q, qi) => {
    need[qi]!.forEach((fi, i) => {
      if (fi < 0) return;
      const w = syncPoll(q.cmds, i);
      if (w >= 0) keepFence[w]![fi] = 1;
    });
  });
  const newValue = fences.map((fs, w) => {
    let v = 0;
    return fs.map((f, fi) => (opaque[w] ? f.value : keepFence[w]![fi] ? ++v : -1));
  });

  // Sync words still used, renumbered densely (computed before the rewrite, which needs them).
  const used = new Uint8Array(W);
  prog.queues.forEach((q, qi) => {
    const c = q.cmds;
    for (let i = 0; i < c.length; i++) {
      const pw = syncPoll(c, i);
      if (pw >= 0 && !redundant[qi]![i]) used[pw] = 1;
      const sw = syncSignal(c, i);
      if (sw >= 0 && newValue[sw]![fenceIndex[qi]![i]!]! >= 0) used[sw] = 1;
    }
  });
  const remap = new Int32Array(W).fill(-1);
  const syncWords: SyncWord[] = [];
  prog.syncWords.forEach((w, i) => {
    if (!used[i]) return;
    remap[i] = syncWords.length;
    syncWords.push(w);
  });

  let pollsRemoved = 0;
  let fencesRemoved = 0;
  const queues = prog.queues.map((q, qi) => {
    const c = q.cmds;
    const out = new CmdBuilder(c.length);
    for (let i = 0; i < c.length; i++) {
      const pw = syncPoll(c, i);
      if (pw >= 0) {
        if (redundant[qi]![i]) {
          pollsRemoved++;
          continue;
        }
        const j = out.take(c, i);
        if (!opaque[pw]) out.setValue(j, newValue[pw]![need[qi]![i]!]!);
        out.setWord(j, remap[pw]!);
        continue;
      }
      const sw = syncSignal(c, i);
      if (sw >= 0) {
        const v = newValue[sw]![fenceIndex[qi]![i]!]!;
        if (v < 0) {
          fencesRemoved++;
          continue;
        }
        const j = out.take(c, i);
        if (!opaque[sw]) out.setValue(j, v);
        out.setWord(j, remap[sw]!);
        continue;
      }
      out.take(c, i);
    }
    if (out.length === 0)
      throw new InternalError("sync-elision emptied a queue (a queue of sync commands only)");
    return { ...q, cmds: out.done() };
  });
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
