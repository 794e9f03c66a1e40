// The `when` checks (semantics.ts): a command of an op inside `when FLAG@r CMP V` (data or
// notify) runs only after a poll of that word saw a value meeting CMP V, on its own queue or on
// one ordered before it. Over the checks' one record (state.ts).

import { COMPARE_OPS } from "../../ir/ir.js";
import { holds } from "../../target/poll.js";
import { opName, report, sigKeyOf, sigName, where, type MeaningState } from "./state.js";

/** A satisfied poll of user-signal region `region` by queue q saw `value` at `clock`. */
export function observed(
  x: MeaningState,
  q: number,
  region: number,
  value: number,
  clock: number,
): void {
  if (x.info[3 * region]! < 0) return;
  let list = x.obs.get(region);
  if (!list) x.obs.set(region, (list = []));
  list.push(value, q, clock);
}

/** Checks every `when` around op o for a command of queue q with clock vc; reports. */
export function checkGuards(
  x: MeaningState,
  o: number,
  q: number,
  vc: Int32Array,
  entry: number,
): void {
  for (let w = x.t.guard[o]!; w >= 0 && w < x.n; w = x.t.guard[w]!) {
    const key = w * x.Q + q;
    if (x.guardOk.has(key)) continue;
    const region = x.regionOfSig[sigKeyOf(x, w)] ?? -1;
    const func = COMPARE_OPS[x.t.cmp[w]!] ?? "==";
    const ref = x.t.value[w]!;
    const list = region >= 0 ? x.obs.get(region) : undefined;
    let ok = false;
    if (list)
      for (let j = 0; j < list.length && !ok; j += 3)
        ok = holds(func, list[j]!, ref) && (list[j + 1] === q || vc[list[j + 1]!]! >= list[j + 2]!);
    if (ok) {
      x.guardOk.add(key);
      continue;
    }
    if (x.guardReported.has(key)) continue;
    x.guardReported.add(key);
    report(
      x,
      where(x, q, entry),
      `${opName(x, o)} runs inside \`when ${sigName(x, sigKeyOf(x, w))} ${func} ${ref}\`, but no poll of that signal saw it ${func} ${ref} before this command`,
      "a `when` is a POLL of its flag on the queue (or one ordered before it) ahead of every guarded command",
    );
  }
}
