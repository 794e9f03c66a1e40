// The packed queue program (queue-program.ts): what the builder writes the accessors read back,
// op-list handles (shared lists stay shared, through the readable form too), and the readable
// form's round trip on every example, with and without the passes.

import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { SIMULATED_COST_MODEL } from "../../../src/driver/cost-model.js";
import { runPasses } from "../../../src/passes/index.js";
import {
  CMD,
  CmdBuilder,
  FUNC,
  ListsBuilder,
  programHash,
  programsEqual,
  SPACE,
} from "../../../src/queues/queue-program.js";
import { fromReadable, toReadable } from "../../../src/queues/readable.js";
import { exampleFile, MI300X, queuesOf } from "./helpers.js";

describe("CmdBuilder and CmdTable", () => {
  it("reads back every command kind as written", () => {
    const lists = new ListsBuilder();
    const ops = lists.add([3, 4]);
    const one = lists.one(9);
    const b = new CmdBuilder(2); // grows
    b.copy(1, 2, 4096, 3, 4, 2 ** 36, 512, ops);
    b.bcast(0, 1, 0, 2, 1, 32, 5, 1, 64, 1024, ops);
    b.swap(1, 0, 64, 2, 0, 128, 256, one);
    b.fill(6, 2, 7, 3, 0xab, one);
    b.poll(SPACE.sync, 11, 0, FUNC[">="], 5, 0xffffffff, "dep", ops);
    b.poll(SPACE.signal, 2, 7, FUNC["<"], 3, 0xff, "wait", one);
    b.signal(SPACE.sync, 11, 0, "fence", 6, "barrier", ops);
    b.signal(SPACE.signal, 2, 7, "add", 1, "notify", one);
    b.completion(8, ops);
    b.timestamp(2, one);
    const t = b.done();
    const l = lists.done();
    expect(t.length).toBe(10);
    expect(Array.from({ length: 10 }, (_, i) => t.kindName(i))).toEqual([
      "copy",
      "bcast",
      "swap",
      "fill",
      "poll",
      "poll",
      "signal",
      "signal",
      "completion",
      "timestamp",
    ]);
    expect([t.rank(0, 0), t.buffer(0, 0), t.offset(0, 0), t.bytes(0)]).toEqual([1, 2, 4096, 512]);
    expect([t.rank(0, 1), t.buffer(0, 1), t.offset(0, 1)]).toEqual([3, 4, 2 ** 36]);
    expect([t.rank(1, 2), t.buffer(1, 2), t.offset(1, 2), t.kind(1)]).toEqual([
      5,
      1,
      64,
      CMD.bcast,
    ]);
    expect([t.rank(3, 1), t.offset(3, 1), t.bytes(3), t.value(3)]).toEqual([6, 7, 3, 0xab]);
    expect([t.syncWord(4), t.func(4), t.value(4), t.mask(4), t.why(4)]).toEqual([
      11,
      ">=",
      5,
      0xffffffff,
      "dep",
    ]);
    expect([t.syncWord(5), t.space(5), t.signalId(5), t.signalRank(5), t.func(5)]).toEqual([
      -1,
      SPACE.signal,
      2,
      7,
      "<",
    ]);
    expect([t.how(6), t.isFence(6), t.why(6), t.how(7), t.why(7)]).toEqual([
      "fence",
      true,
      "barrier",
      "add",
      "notify",
    ]);
    expect([t.slot(8), t.slot(9)]).toEqual([8, 2]);
    expect(Array.from(l.of(t.opsHandle(0)))).toEqual([3, 4]);
    expect(t.opsHandle(0)).toBe(t.opsHandle(1)); // one shared list
    expect(Array.from(l.of(t.opsHandle(3)))).toEqual([9]);
  });

  it("take copies a command verbatim; setters rewrite the last one", () => {
    const b = new CmdBuilder();
    b.poll(SPACE.sync, 1, 0, FUNC[">="], 2, 0xffffffff, "dep", 0);
    const src = b.done();
    const out = new CmdBuilder(1);
    const j = out.take(src, 0);
    out.setValue(j, 7);
    out.setWord(j, 4);
    const t = out.done();
    expect([t.syncWord(0), t.value(0), t.func(0), t.why(0)]).toEqual([4, 7, ">=", "dep"]);
    expect(src.value(0)).toBe(2); // the source is untouched
  });
});

describe("the readable form", () => {
  const examples = readdirSync(fileURLToPath(new URL("../../../examples", import.meta.url)))
    .filter((f) => f.endsWith(".dmac"))
    .sort();
  for (const name of examples)
    it(`${name}: fromReadable(toReadable(p)) is p, before and after the -O2 passes`, () => {
      const { module, program } = queuesOf(exampleFile(name));
      const passed = runPasses(program, module, {
        target: MI300X,
        module,
        options: { level: 2, engines: { kind: "spread", k: 2 }, prelaunch: true },
        lower: { completion: "atomic" },
        costModel: SIMULATED_COST_MODEL,
      }).program;
      for (const p of [program, passed]) {
        const r = toReadable(p);
        const back = fromReadable(r);
        expect(programsEqual(back, p)).toBe(true);
        expect(programHash(back)).toBe(programHash(p));
        expect(JSON.stringify(toReadable(back))).toBe(JSON.stringify(r));
        // Commands that share a handle share an array, and back.
        for (let q = 0; q < p.queues.length; q++) {
          const c = p.queues[q]!.cmds;
          const d = back.queues[q]!.cmds;
          for (let i = 1; i < c.length; i++) {
            const shared = c.opsHandle(i) === c.opsHandle(i - 1);
            expect(r.queues[q]!.cmds[i]!.ops === r.queues[q]!.cmds[i - 1]!.ops).toBe(shared);
            expect(d.opsHandle(i) === d.opsHandle(i - 1)).toBe(shared);
          }
        }
      }
    });
});
