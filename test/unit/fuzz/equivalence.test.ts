// The executor fuzzers' equivalence oracle (fuzz/equivalence.ts) on its own: it must accept the
// original (from the packets and from the trace) and harmless edits, and it must catch each
// class of semantic change even when it is handed a run the executor did not check.

import { describe, expect, it } from "vitest";
import { nonEquivalence } from "../../../fuzz/equivalence.js";
import { assemble, cloneQueues, explode, type EditQueues } from "../../../fuzz/stream-edit.js";
import { decodeStream } from "../../../src/backend/sdma/decode.js";
import { simulate } from "../../../src/sim/run.js";
import type { SyncTrace } from "../../../src/sim/semantics.js";
import { compileFile } from "../sim/compile-helper.js";

const api = { decodeStream };
const c = compileFile("examples/pipelined_all_gather.dmac");
const Q = "gpu7.sdma14";

function traceOf(qs: EditQueues): SyncTrace {
  const { manifest, streams } = assemble(api, c.manifest, qs);
  const r = simulate(
    { manifest, streams, module: c.module },
    { target: c.target, syncTrace: true },
  );
  return r.syncTrace!;
}
const orig = traceOf(explode(api, c.manifest, c.streams));
const edit = (f: (pks: EditQueues) => void): string[] => {
  const qs = cloneQueues(explode(api, c.manifest, c.streams));
  f(qs);
  return nonEquivalence(c.module, c.manifest, orig, traceOf(qs));
};
const index = (qs: EditQueues, test: (w: number[]) => boolean): number =>
  qs.get(Q)!.findIndex((p) => test(p.words));

describe("equivalence oracle", () => {
  it("accepts the original, from the packets and from the trace", () => {
    expect(nonEquivalence(c.module, c.manifest, orig, orig)).toEqual([]);
    const r = simulate({ trace: c.trace, module: c.module }, { target: c.target, syncTrace: true });
    expect(nonEquivalence(c.module, c.manifest, orig, r.syncTrace!)).toEqual([]);
  });

  it("accepts a timing change (a longer poll interval) and a NOP", () => {
    expect(
      edit((qs) => {
        const pk = qs.get(Q)![index(qs, (w) => w[0] === 0xd0000008 || w[0] === 0xb0000008)]!;
        pk.words[5] = 0x0fff0040;
        qs.get(Q)!.unshift({ words: [0], kind: "nop", ops: undefined, stmt: 0 });
      }),
    ).toEqual([]);
  });

  it("catches a removed notify, a removed `when` poll, an early completion, a dropped copy", () => {
    const notify = (w: number[]) => w[0] === 0x1e00000a;
    expect(edit((qs) => qs.get(Q)!.splice(index(qs, notify), 1)).join()).toMatch(
      /done@6: 3 write\(s\), the original has 4/,
    );
    expect(edit((qs) => qs.get(Q)!.splice(0, 1)).join()).toMatch(/runs without a poll/);
    expect(
      edit((qs) => {
        const pks = qs.get(Q)!;
        const i = index(qs, (w) => w[0] === 0x5e00000a);
        const [done] = pks.splice(i, 1);
        pks.splice(1, 0, done!);
      }).join(),
    ).toMatch(/completion slot \d+ is written before/);
    expect(edit((qs) => qs.get(Q)!.splice(1, 1)).join()).toMatch(/runs fewer times/);
  });
});
