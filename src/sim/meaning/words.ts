// User signals and completion slots (semantics.ts). A user signal is written only by ATOMIC
// add 1, and only if the schedule notifies it (an external signal is raised by its producer
// alone); it is raised exactly as many times as the schedule has `notify`s of it; and when it
// reaches k, every command of every data op before the k-th notify in program order that writes
// the signal's rank happened before. Each completion slot is written exactly once, by the queue
// the manifest gives it, and after every command of every op its packet announces; every data op
// that ran is announced by some slot, and no queue's data finishes after every completion. Over
// the checks' one record (state.ts).

import { ATOMIC, FENCE } from "../program.js";
import { checkGuards } from "./guards.js";
import {
  cmdWhere,
  isData,
  kindName,
  K_NOTIFY,
  opBefore,
  opName,
  opShort,
  report,
  sigKeyOf,
  sigName,
  validOp,
  where,
  type MeaningState,
} from "./state.js";
import { hasCommands } from "../op-commands.js";

/** A FENCE/ATOMIC of queue q to word region `region` was issued. */
export function wordWriteIssued(
  x: MeaningState,
  q: number,
  entry: number,
  region: number,
  vc: Int32Array,
): void {
  const e = x.cmdBase[q]! + entry;
  const kind = x.C.kind[e]!;
  const sig = x.info[3 * region]!;
  if (sig >= 0) {
    const name = sigName(x, sig);
    if (x.notifies[sig]!.length === 0) {
      report(
        x,
        where(x, q, entry),
        `${kindName(kind)} writes ${name}, an external signal: only its producer outside the schedule raises it`,
        "the schedule never notifies it, so no queue may write it",
      );
      return;
    }
    if (kind !== ATOMIC || x.C.aux[e] !== 32 || x.C.value[e] !== 1) {
      report(
        x,
        where(x, q, entry),
        `${kind === FENCE ? `FENCE of ${x.C.value[e]!}` : `ATOMIC add${x.C.aux[e]!} of ${x.C.value[e]!}`} on ${name}: a notify raises its signal by one (ATOMIC add32 of 1)`,
      );
      return;
    }
    let n0: number | undefined;
    for (let k = x.C.opsLo[e]!; k < x.C.opsHi[e]! && n0 === undefined; k++) {
      const o = x.C.ops[k]!;
      if (validOp(x, o) && x.t.kind[o] === K_NOTIFY && sigKeyOf(x, o) === sig) n0 = o;
    }
    if (n0 === undefined) {
      report(
        x,
        where(x, q, entry),
        `this ATOMIC raises ${name}, but its source map names no \`notify ${name}\``,
      );
      return;
    }
    if (x.t.guard[n0]! >= 0) checkGuards(x, n0, q, vc, entry);
    return;
  }
  if (sig === -1) return;
  const slot = -2 - sig;
  x.slotLive[q] = vc;
  x.slotOwn[q] = vc[q]!;
  const prev = x.info[3 * region + 1]!;
  if (prev >= 0) {
    report(
      x,
      where(x, q, entry),
      `writes completion slot ${slot} again (first written by ${cmdWhere(x, prev)}): each slot reaches its final value exactly once`,
    );
    return;
  }
  x.info[3 * region + 1] = x.cmdBase[q]! + entry;
  const owner = x.info[3 * region + 2]!;
  if (owner !== -2 && owner !== q) {
    report(
      x,
      where(x, q, entry),
      `writes completion slot ${slot}, which the manifest gives to ${owner >= 0 ? x.p.queues[owner]!.name : "no queue"}`,
      "a completion slot is signalled only by its own queue",
    );
    return;
  }
  let announced = 0;
  for (let k = x.C.opsLo[e]!; k < x.C.opsHi[e]!; k++) {
    const o = x.C.ops[k]!;
    if (!validOp(x, o) || !isData(x.t.kind[o]!)) continue;
    announced++;
    x.announcedOp[o] = 1;
    const late = opBefore(x, o, vc, -1);
    if (late >= 0) {
      report(
        x,
        where(x, q, entry),
        `completion slot ${slot} is signalled before ${cmdWhere(x, late)} (${opShort(x, o)}) that it announces has completed`,
        "a completion follows all the data it reports",
      );
      return;
    }
  }
  if (announced === 0)
    report(
      x,
      where(x, q, entry),
      `completion slot ${slot}: the source map names no data operation this completion announces`,
    );
}

/** A write to word region `region` landed (queue >= Q: the host or the producer). */
export function wordLanded(
  x: MeaningState,
  region: number,
  queue: number,
  add: boolean,
  operand: number,
): void {
  const sig = x.info[3 * region]!;
  if (sig < 0 || queue >= x.Q || !add || operand !== 1) return;
  const list = x.notifies[sig]!;
  if (list.length === 0) return;
  const k = ++x.raised[sig]!;
  if (k > list.length) {
    if (!x.overRaised[sig]) {
      x.overRaised[sig] = 1;
      report(
        x,
        x.p.queues[queue]!.name,
        `${sigName(x, sig)} is raised ${k} times, but the schedule notifies it ${list.length} time(s)`,
        "each `notify` is one ATOMIC add of 1, exactly once",
      );
    }
    return;
  }
  // Every data op writing the rank between the previous notify and this one (earlier ones
  // were checked at lower values; the word's clock only grows).
  const r = sig % x.ranks;
  const from = k >= 2 ? list[k - 2]! : -1;
  const to = list[k - 1]!;
  const ws = x.writers[r]!;
  let lo = 0;
  let hi = ws.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (ws[mid]! <= from) lo = mid + 1;
    else hi = mid;
  }
  for (let j = lo; j < ws.length && ws[j]! < to; j++) {
    const o = ws[j]!;
    const late = opBefore(x, o, null, region);
    if (late >= 0) {
      report(
        x,
        x.p.queues[queue]!.name,
        `${sigName(x, sig)} reaches ${k} (${opName(x, to)}) before ${cmdWhere(x, late)} (${opShort(x, o)}) has completed; a notify announces every earlier write to rank ${r}`,
        "the ATOMIC of a notify follows (on its queue or through a poll) every earlier command writing its rank",
      );
      return;
    }
  }
}

/** At the end of a run (`clean`: every queue drained and no error): every data op announced, no
 * data after every completion. */
export function slotsAtEnd(x: MeaningState, clean: boolean): void {
  if (clean && x.p.completions.count > 0 && x.unmapped.size === 0) unannounced(x);
  const seen = clean && x.p.completions.count > 0 ? published(x) : undefined;
  if (seen)
    for (let q = 0; q < x.Q; q++)
      if (x.lastData[q]! > seen[q]!)
        report(
          x,
          x.p.queues[q]!.name,
          "data commands of this queue finish after every completion signal: the host can see the schedule complete before they do",
          "every data command is followed, on its queue or through a fence another queue polls, by a completion signal",
        );
}

/** At the end of a clean run: every signal raised as many times as it is notified. */
export function notifiesAtEnd(x: MeaningState): void {
  for (let s = 0; s < x.notifies.length; s++) {
    const want = x.notifies[s]!.length;
    if (want > 0 && x.raised[s]! < want)
      report(
        x,
        "end of run",
        `${sigName(x, s)} was raised ${x.raised[s]} time(s), but the schedule notifies it ${want} time(s)`,
        "each `notify` needs one ATOMIC add of 1 on its signal",
      );
  }
}

export function keepSlotVc(x: MeaningState, q: number): void {
  const live = x.slotLive[q];
  if (live === undefined) return;
  const kept = (x.lastSlotVc[q] ??= new Int32Array(live.length));
  kept.set(live);
  kept[q] = x.slotOwn[q]!;
  x.slotLive[q] = undefined;
}
export function published(x: MeaningState): Float64Array {
  const out = new Float64Array(x.Q);
  for (let q = 0; q < x.Q; q++) keepSlotVc(x, q);
  for (const vc of x.lastSlotVc)
    if (vc) for (let r = 0; r < x.Q; r++) out[r] = Math.max(out[r]!, vc[r]!);
  return out;
}

export function unannounced(x: MeaningState): void {
  for (let o = 0; o < x.n; o++)
    if (hasCommands(x.opCmds, o) && x.announcedOp[o] === 0)
      report(
        x,
        "end of run",
        `${opName(x, o)} is announced by no completion slot: the host cannot tell when its bytes have landed`,
        "each data operation is named in the source map of the completion packet that follows it",
      );
}
