// Conservative synchronisation (`--sync conservative`, the default of `target mi300x`): rewrites
// a finished queue program so that every POLL_REGMEM uses function 3 (==) on a word whose value
// cannot move past the awaited one before the poll sees it, the only form AMD's own gfx942 code
// (AMD-DMA-Latte, ROCr, Linux) emits (reference/mi300x-node.md section 6).
//
// It runs after the optimisation passes, so every pass (and the -O2 plan) works on the aggressive
// forms and the rewrite is one local step whose safety argument fits here:
// - progress words: a progress word is raised by one producer queue with FENCEs of strictly
//   increasing values (queues/verify.ts checks it) and polled by one consumer with `>= v`. Each
//   FENCE gets a word of its own, written once with 1 (0 -> 1: it cannot pass 1), and a poll
//   `>= v` becomes `== 1` on the word of the first FENCE with value >= v, which is the FENCE that
//   satisfied it before: the producer runs its FENCEs in order, so the first FENCE with value
//   >= v lands no later than any other that could satisfy the poll. Same happens-before, same
//   liveness. A FENCE no poll reads is dropped (it only wrote a counter nobody looked at).
// - barrier words (FENCE k; POLL == k, the queue's own word): already `==`, and only their own
//   queue writes them, after the poll (the queue is blocked at it), so k cannot be passed. Kept.
// - the prelaunch trigger: written once by the host with 1, so `>= 1` becomes `== 1`.
// - `when FLAG CMP V` (user signals): `==` is kept, and so is a thermometer flag's bit test
//   (flag & 2^(V-1)) == 2^(V-1), which lowering makes of `>= V` on a flag declared `thermometer`
//   (queues/lower.ts): bits are only ever set, so the masked value cannot pass the awaited one.
//   Any other compare is on a count flag, whose value outside code may raise past V before the
//   poll looks: it cannot become `==` without a possible hang, and turning it into a bit test
//   would change what outside code must store behind the user's back. The transform reports
//   those waits (the pipeline: DMAC4020, whose fix names `thermometer` and --sync aggressive).
// - `notify` stays ATOMIC add32 +1: its meaning is "raise by one" on a word outside code also
//   reads and may raise; a FENCE of a known value would need the schedule to own the word and
//   order all of its notifies, which the language does not promise (docs/runtime.md, section 6).
// Sync words move to host memory unless the target allows GPU-memory polling (SyncForms.words).

import { InternalError } from "../util/internal-error.js";
import {
  CMD,
  CmdBuilder,
  FUNC_EQ,
  FUNC_GE,
  SPACE,
  type CmdTable,
  type QueueProgram,
  type SyncWord,
} from "./queue-program.js";

export interface ConservativeResult {
  readonly program: QueueProgram;
  /** IR ops of `when` waits conservative forms cannot express (the pipeline: DMAC4020). */
  readonly unsupportedWaits: readonly number[];
}

/** The value a conservative FENCE writes into its write-once word. */
export const ONCE_VALUE = 1;

/**
 * `inPlace`: write the rewritten commands over p's own (p must not be read afterwards): the
 * compile pipeline's last step, which drops p; a copy of every command at 10^6 operations was
 * 180 MB of fresh memory (docs/performance.md, "Where the time goes").
 */
export function conservativeSync(
  p: QueueProgram,
  words: "host" | "gpu",
  inPlace = false,
): ConservativeResult {
  const fences = progressFences(p);
  // New words: a barrier keeps one word; a progress word gets one per polled FENCE. Flat
  // columns, not a map per word: half a million words at 10^6 operations.
  const W = p.syncWords.length;
  const syncWords: SyncWord[] = [];
  const barrierId = new Int32Array(W).fill(-1);
  const onceId = new Int32Array(fences.values.length).fill(-1);
  p.syncWords.forEach((sw, w) => {
    if (sw.kind !== "progress") {
      barrierId[w] = syncWords.length;
      syncWords.push(sw);
      return;
    }
    for (let k = fences.base[w]!; k < fences.base[w + 1]!; k++) {
      if (fences.polled[k] === 0) continue;
      onceId[k] = syncWords.length;
      syncWords.push(sw);
    }
  });

  const unsupportedWaits: number[] = [];
  const waitOps = (c: CmdTable, i: number): void => {
    for (const op of p.lists.of(c.opsHandle(i))) unsupportedWaits.push(op);
  };
  // Queue c's commands in their conservative forms, into `out`: the loop alone, nothing after
  // it (lower.ts emitCommands says why; the queue's table made after it sent every queue's
  // rewrite but the first back to the interpreter at its end).
  const rewrite = (c: CmdTable, out: CmdBuilder): void => {
    const fenceSeen = new Int32Array(W); // progress word -> FENCEs of it so far
    for (let i = 0; i < c.length; i++) {
      const w = c.syncWord(i);
      if (c.kind(i) === CMD.poll && c.space(i) === SPACE.trigger) {
        out.take(c, i);
        rewritePoll(out, FUNC_EQ, p.trigger?.value ?? ONCE_VALUE);
      } else if (c.kind(i) === CMD.poll && c.space(i) === SPACE.signal) {
        out.take(c, i);
        if (isUnsupportedWait(c, i)) waitOps(c, i);
      } else if (w < 0) out.take(c, i);
      else if (p.syncWords[w]!.kind !== "progress") {
        out.take(c, i);
        out.setWord(out.length - 1, barrierId[w]!);
      } else if (c.kind(i) === CMD.signal) {
        const id = onceId[fences.base[w]! + fenceSeen[w]!++]!;
        if (id < 0) continue; // nobody polls this FENCE's value
        out.take(c, i);
        out.setWord(out.length - 1, id);
        out.setValue(out.length - 1, ONCE_VALUE);
      } else {
        out.take(c, i);
        out.setWord(out.length - 1, onceId[fences.find(w, c.funcCode(i), c.value(i))]!);
        rewritePoll(out, FUNC_EQ, ONCE_VALUE);
      }
    }
  };
  const queues = p.queues.map((q) => {
    const c = q.cmds;
    // A queue with no command to rewrite keeps its table (an all-to-all has no sync word: its
    // 10^5 commands copied for nothing were ~5 % of its compile).
    if (!rewritesAny(c)) {
      for (let i = 0; i < c.length; i++) if (isUnsupportedWait(c, i)) waitOps(c, i);
      return q;
    }
    // (In place: every branch of `rewrite` reads row i before it writes row out.length <= i.)
    const out = inPlace ? CmdBuilder.over(c) : new CmdBuilder(c.length);
    rewrite(c, out);
    return { ...q, cmds: out.done() };
  });
  return {
    program: {
      ...p,
      queues,
      syncWords,
      sync: { mode: "conservative", words },
    },
    unsupportedWaits: [...new Set(unsupportedWaits)].sort((a, b) => a - b),
  };
}

/** Does conservativeSync change a command of `c` (a sync word's, or a trigger poll)? */
function rewritesAny(c: CmdTable): boolean {
  for (let i = 0; i < c.length; i++)
    if (c.syncWord(i) >= 0 || (c.kind(i) === CMD.poll && c.space(i) === SPACE.trigger)) return true;
  return false;
}

/** A `when` poll on a user signal with a compare conservative forms cannot keep. */
function isUnsupportedWait(c: CmdTable, i: number): boolean {
  return c.kind(i) === CMD.poll && c.space(i) === SPACE.signal && c.funcCode(i) !== FUNC_EQ;
}

/**
 * Every progress word's FENCEs, in producer order, as one flat column: word w's are
 * values[base[w] .. base[w+1]); `polled[k]` is set when some poll waits for FENCE k. `find`: the
 * FENCE a poll `func v` of word w waits for, the first with value >= v, by binary search (the
 * values strictly increase, checked here; a linear search made this quadratic on a word polled
 * many times, 77 % of a 10^6-op compile).
 */
function progressFences(p: QueueProgram): {
  readonly base: Int32Array;
  readonly values: Float64Array;
  readonly polled: Uint8Array;
  readonly find: (w: number, func: number, v: number) => number;
} {
  const W = p.syncWords.length;
  const isProgress = Uint8Array.from(p.syncWords, (sw) => (sw.kind === "progress" ? 1 : 0));
  const base = new Int32Array(W + 1);
  // Without a progress word there is nothing to find (an all-to-all: 10^5 commands to scan).
  const queues = isProgress.includes(1) ? p.queues : [];
  for (const q of queues) {
    const c = q.cmds;
    for (let i = 0; i < c.length; i++) {
      const w = c.syncWord(i);
      if (w >= 0 && isProgress[w] === 1 && c.kind(i) === CMD.signal) base[w + 1]!++;
    }
  }
  for (let w = 0; w < W; w++) base[w + 1]! += base[w]!;
  const values = new Float64Array(base[W]!);
  const next = base.slice(0, W);
  for (const q of queues) {
    const c = q.cmds;
    for (let i = 0; i < c.length; i++) {
      const w = c.syncWord(i);
      if (w < 0 || isProgress[w] !== 1 || c.kind(i) !== CMD.signal) continue;
      const k = next[w]!++;
      if (!c.isFence(i) || (k > base[w]! && values[k - 1]! >= c.value(i)))
        throw new InternalError(`progress word ${w}: FENCE values must strictly increase`);
      values[k] = c.value(i);
    }
  }
  const find = (w: number, func: number, v: number): number => {
    let lo = base[w]!;
    let hi = base[w + 1]!;
    const end = hi;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (values[mid]! < v) lo = mid + 1;
      else hi = mid;
    }
    const found = lo < end && (func === FUNC_GE || (func === FUNC_EQ && values[lo] === v));
    if (!found) throw new InternalError(`progress word ${w}: no FENCE satisfies its poll (${v})`);
    return lo;
  };
  const polled = new Uint8Array(values.length);
  for (const q of queues) {
    const c = q.cmds;
    for (let i = 0; i < c.length; i++) {
      const w = c.syncWord(i);
      if (c.kind(i) === CMD.poll && w >= 0 && isProgress[w] === 1)
        polled[find(w, c.funcCode(i), c.value(i))] = 1;
    }
  }
  return { base, values, polled, find };
}

/** The last command of `out` (a poll) with another compare and value. */
function rewritePoll(out: CmdBuilder, func: number, value: number): void {
  const i = out.length - 1;
  out.setFunc(i, func);
  out.setValue(i, value);
}
