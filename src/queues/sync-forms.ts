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
// - `when FLAG CMP V` (user signals): `==` is kept. `>= V` (and `> V`, as `>= V+1`) with
//   1 <= V <= 32 becomes a masked equality on a THERMOMETER-coded flag: outside code raises the
//   flag to k by setting bits 0..k-1 (storing 2^k - 1), so `>= V` is bit V-1 set, polled as
//   `(flag & 2^(V-1)) == 2^(V-1)`. Bits are only ever set, so the masked value cannot pass the
//   awaited one. The manifest lists such flags (sync.thermometer); a thermometer flag the schedule
//   also notifies (ATOMIC add would break the code) or polls with `==`, and every other compare
//   or bound, cannot be expressed: the transform reports those waits (the pipeline: DMAC4020).
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
  FUNC,
  SPACE,
  type QueueProgram,
  type SyncWord,
} from "./queue-program.js";

export interface ConservativeResult {
  readonly program: QueueProgram;
  /** IR ops of `when` waits conservative forms cannot express (the pipeline: DMAC4020). */
  readonly unsupportedWaits: readonly number[];
}

const FUNC_GT = FUNC[">"];

/** The value a conservative FENCE writes into its write-once word. */
export const ONCE_VALUE = 1;

/**
 * `inPlace`: write the rewritten commands over p's own (p must not be read afterwards): the
 * compile pipeline's last step, which drops p; a copy of every command at 10^6 operations was
 * 180 MB of fresh memory (docs/performance.md, "The million-op compile, seventh round").
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
  const flags = userFlags(p);
  const thermometer = new Set<number>();
  const queues = p.queues.map((q) => {
    const c = q.cmds;
    // (In place: every branch below reads row i before it writes row out.length <= i.)
    const out = inPlace ? CmdBuilder.over(c) : new CmdBuilder(c.length);
    const fenceSeen = new Int32Array(W); // progress word -> FENCEs of it so far
    for (let i = 0; i < c.length; i++) {
      const w = c.syncWord(i);
      if (c.kind(i) === CMD.poll && c.space(i) === SPACE.trigger) {
        out.take(c, i);
        rewritePoll(out, FUNC_EQ, p.trigger?.value ?? ONCE_VALUE);
      } else if (c.kind(i) === CMD.poll && c.space(i) === SPACE.signal) {
        out.take(c, i);
        const key = signalKey(c.signalId(i), c.signalRank(i));
        const bit = thermometerBit(c.funcCode(i), c.value(i), c.mask(i));
        if (bit !== undefined && !flags.notified.has(key) && !flags.equal.has(key)) {
          rewritePoll(out, FUNC_EQ, bit);
          out.setMask(out.length - 1, bit);
          thermometer.add(key);
        } else if (c.funcCode(i) !== FUNC_EQ || flags.thermometer.has(key))
          for (const op of p.lists.of(c.opsHandle(i))) unsupportedWaits.push(op);
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
    return { ...q, cmds: out.done() };
  });
  return {
    program: {
      ...p,
      queues,
      syncWords,
      sync: {
        mode: "conservative",
        words,
        thermometer: [...thermometer].sort((a, b) => a - b).map(keySignal),
      },
    },
    unsupportedWaits: [...new Set(unsupportedWaits)].sort((a, b) => a - b),
  };
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
  for (const q of p.queues) {
    const c = q.cmds;
    for (let i = 0; i < c.length; i++) {
      const w = c.syncWord(i);
      if (w >= 0 && isProgress[w] === 1 && c.kind(i) === CMD.signal) base[w + 1]!++;
    }
  }
  for (let w = 0; w < W; w++) base[w + 1]! += base[w]!;
  const values = new Float64Array(base[W]!);
  const next = base.slice(0, W);
  for (const q of p.queues) {
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
  for (const q of p.queues) {
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

// User flags by (signal id, rank) packed in one number.
const signalKey = (id: number, rank: number): number => id * 65536 + rank;
const keySignal = (k: number): { readonly signal: number; readonly rank: number } => ({
  signal: Math.floor(k / 65536),
  rank: k % 65536,
});

/** Which user flags are notified, polled `==`, or polled in a thermometer form. */
function userFlags(p: QueueProgram): {
  notified: Set<number>;
  equal: Set<number>;
  thermometer: Set<number>;
} {
  const notified = new Set<number>();
  const equal = new Set<number>();
  const thermometer = new Set<number>();
  for (const q of p.queues) {
    const c = q.cmds;
    for (let i = 0; i < c.length; i++) {
      if (c.kind(i) !== CMD.poll && c.kind(i) !== CMD.signal) continue;
      if (c.space(i) !== SPACE.signal) continue;
      const key = signalKey(c.signalId(i), c.signalRank(i));
      if (c.kind(i) === CMD.signal) notified.add(key);
      else if (c.funcCode(i) === FUNC_EQ) equal.add(key);
      else if (thermometerBit(c.funcCode(i), c.value(i), c.mask(i)) !== undefined)
        thermometer.add(key);
    }
  }
  return { notified, equal, thermometer };
}

/** `>= V` / `> V` (unmasked, 1 <= V <= 32 after `> V` = `>= V+1`): the bit 2^(V-1); else undefined. */
function thermometerBit(func: number, value: number, mask: number): number | undefined {
  if (mask >>> 0 !== 0xffffffff) return undefined;
  const v = func === FUNC_GE ? value : func === FUNC_GT ? value + 1 : NaN;
  return v >= 1 && v <= 32 ? 2 ** (v - 1) : undefined;
}
