// Red-team class 4 (issue 11): the simulator said "verified" (exit 0) for streams that break the
// schedule's meaning or the runtime contract. Each case hand-edits a compiled output the way a
// careful adversary would: packets are dropped, duplicated, moved or changed, and the manifest is
// rebuilt around the edited streams (dwords, relocations, source map, completion slots:
// fuzz/stream-edit.ts), so the input validator has nothing to object to and only the executor's
// own checks stand in the way. Before the fix every case below ran to "verified".

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { assemble, cloneQueues, explode, type EditQueues } from "../../fuzz/stream-edit.js";
import { decodeStream } from "../../src/backend/sdma/decode.js";
import type { Manifest } from "../../src/backend/sdma/manifest.js";
import type { Trace } from "../../src/backend/trace/trace.js";
import { execute } from "../../src/sim/execute.js";
import { programFromManifest } from "../../src/sim/from-manifest.js";
import { simulate, type SimResult } from "../../src/sim/run.js";
import type { SimProgram } from "../../src/sim/program.js";
import { dmac, example } from "../helpers/cli.js";
import { compileFile, compileText, type Compiled } from "../unit/sim/compile-helper.js";
import { bufAddr, model, program, slotAddr, syncAddr } from "../unit/sim/node.js";
import { checksInProcess } from "../../src/sim/check-replay.js";

const api = { decodeStream };

const codes = (r: SimResult): string[] => r.diagnostics.map((d) => d.code);
const messages = (r: SimResult): string => r.diagnostics.map((d) => d.message).join("\n");

/** Runs the edited output (manifest rebuilt around the streams) with the schedule's IR. */
function run(c: Compiled, qs: EditQueues, opts: { signalPeriodUs?: number } = {}): SimResult {
  const { manifest, streams } = assemble(api, c.manifest, qs);
  return simulate({ manifest, streams, module: c.module }, { target: c.target, ...opts });
}

/** Index of the n-th packet of `kind` in a queue (optionally with a predicate on its words). */
function nth(
  qs: EditQueues,
  queue: string,
  kind: string,
  n = 0,
  test: (w: number[]) => boolean = () => true,
): number {
  const pks = qs.get(queue)!;
  let seen = 0;
  for (let i = 0; i < pks.length; i++)
    if (pks[i]!.kind === kind && test(pks[i]!.words) && seen++ === n) return i;
  throw new Error(`no ${kind} #${n} in ${queue}`);
}

const isAdd32 = (w: number[]): boolean => w[0] === 0x1e00000a;
const isAdd64 = (w: number[]): boolean => w[0] === 0x5e00000a;
/** Moves packet `from` of a queue so that it sits at index `to` (before the packet there now). */
function move(qs: EditQueues, queue: string, from: number, to: number): void {
  const pks = qs.get(queue)!;
  const [pk] = pks.splice(from, 1);
  pks.splice(to > from ? to - 1 : to, 0, pk!);
}

// pipelined_all_gather: gpu7.sdma14 copies rank 7's pieces to rank 6, each after `when
// ready@7 >= k + 1`, and raises done@6 after every round (`notify done@p`).
const PAG = compileFile(example("pipelined_all_gather.dmac"));
const Q = "gpu7.sdma14";
const base = (): EditQueues => cloneQueues(explode(api, PAG.manifest, PAG.streams));

describe("the edit helper is faithful", () => {
  it("an output rebuilt without edits still verifies", () => {
    const r = run(PAG, base());
    expect(codes(r)).toEqual([]);
    expect(r.verified).toBe(true);
  });
});

describe("notify", () => {
  it("removed: done@6 raised 3 of 4 times", () => {
    const qs = base();
    qs.get(Q)!.splice(nth(qs, Q, "atomic", 0, isAdd32), 1);
    const r = run(PAG, qs);
    expect(r.verified).toBe(false);
    expect(codes(r)).toContain("DMAC6013");
    expect(messages(r)).toMatch(/done@6 was raised 3 time\(s\), but the schedule notifies it 4/);
  });

  it("duplicated: done@6 raised 5 times", () => {
    const qs = base();
    const i = nth(qs, Q, "atomic", 0, isAdd32);
    const pks = qs.get(Q)!;
    pks.splice(i, 0, { ...pks[i]!, words: [...pks[i]!.words] });
    const r = run(PAG, qs);
    expect(r.verified).toBe(false);
    expect(messages(r)).toMatch(/done@6 is raised 5 times, but the schedule notifies it 4/);
  });

  it("moved before the copy it announces", () => {
    const qs = base();
    move(qs, Q, nth(qs, Q, "atomic", 0, isAdd32), nth(qs, Q, "copy_linear", 0));
    const r = run(PAG, qs);
    expect(r.verified).toBe(false);
    expect(messages(r)).toMatch(/done@6 reaches 1 \(notify op \d+ .*\) before .* has completed/);
  });

  it("moved before its guard (the poll of its `when`)", () => {
    const c = compileText(
      "guarded-notify.dmac",
      `schedule s(chunk: bytes = 4KiB) {
  buffer a: chunk
  signal go thermometer
  signal done
  copy a@0 -> a@1
  when go@1 >= 1 { notify done@1 }
}
`,
    );
    const qs = cloneQueues(explode(api, c.manifest, c.streams));
    const queue = [...qs.keys()].find((k) => qs.get(k)!.some((p) => isAdd32(p.words)))!;
    move(qs, queue, nth(qs, queue, "atomic", 0, isAdd32), nth(qs, queue, "poll_mem", 0));
    expect(run(c, cloneQueues(explode(api, c.manifest, c.streams))).verified).toBe(true);
    const r = run(c, qs);
    expect(r.verified).toBe(false);
    expect(messages(r)).toMatch(/notify op .* runs inside `when go@1 >= 1`, but no poll/);
  });
});

describe("when", () => {
  it("the poll that implements `when ready@7 >= 1` removed", () => {
    const qs = base();
    qs.get(Q)!.splice(nth(qs, Q, "poll_mem", 0), 1);
    const r = run(PAG, qs);
    expect(r.verified).toBe(false);
    expect(messages(r)).toMatch(/copy op .* runs inside `when ready@7 >= 1`, but no poll/);
  });

  it("a stream writing the external signal itself", () => {
    // One more ATOMIC add32 +1, on ready@6 (raised by the producer outside the schedule).
    const qs = base();
    const pks = qs.get(Q)!;
    const i = nth(qs, Q, "atomic", 0, isAdd32);
    const ready6 = PAG.manifest.memory.signals.find((s) => s.name === "ready" && s.gpu === 6)!;
    const words = [...pks[i]!.words];
    words[1] = ready6.address % 2 ** 32;
    words[2] = Math.floor(ready6.address / 2 ** 32);
    pks.splice(i, 0, { ...pks[i]!, words });
    const r = run(PAG, qs);
    expect(r.verified).toBe(false);
    expect(messages(r)).toMatch(/writes ready@6, an external signal/);
  });
});

describe("completion slots", () => {
  it("signalled before the data it announces", () => {
    const qs = base();
    move(qs, Q, nth(qs, Q, "atomic", 0, isAdd64), nth(qs, Q, "copy_linear", 0));
    const r = run(PAG, qs);
    expect(r.verified).toBe(false);
    expect(messages(r)).toMatch(/completion slot \d+ is signalled before .* that it announces/);
  });

  it("a copy moved to another queue and its slot's source map naming another op (fuzz: executor-49fdceb9)", () => {
    // host_upload_pieces: each queue's ATOMIC announces the copy before it. The edit moves one
    // of gpu0.sdma1's copies onto gpu0.sdma0 and gives its slot the ops of an earlier slot: every
    // data command is still followed by a completion on its queue, but no slot names the moved op.
    const c = compileFile(example("host_upload_pieces.dmac"));
    const qs = cloneQueues(explode(api, c.manifest, c.streams));
    const from = qs.get("gpu0.sdma1")!;
    const copies = from.flatMap((p, i) => (p.kind === "copy_linear" ? [i] : []));
    const atomics = from.flatMap((p, i) => (p.kind === "atomic" ? [i] : []));
    from[atomics.at(-1)!] = { ...from[atomics.at(-1)!]!, ops: from[atomics[0]!]!.ops };
    const [moved] = from.splice(copies.at(-1)!, 1);
    const to = qs.get("gpu0.sdma0")!;
    to.splice(nth(qs, "gpu0.sdma0", "atomic", 2), 0, moved!);
    const r = run(c, qs);
    expect(r.verified).toBe(false);
    expect(messages(r)).toMatch(/copy op \d+ .* is announced by no completion slot/);
  });

  it("decremented twice (a trace, which lists no slots to cross-check)", () => {
    const trace = structuredClone(PAG.trace) as Trace & { queues: { cmds: unknown[] }[] };
    const cmds = trace.queues[0]!.cmds;
    const i = cmds.findIndex((c) => (c as { op: string; width?: number }).width === 64);
    cmds.splice(i, 0, structuredClone(cmds[i]));
    const r = simulate({ trace, module: PAG.module }, { target: PAG.target });
    expect(r.verified).toBe(false);
    expect(messages(r)).toMatch(/writes completion slot \d+ again/);
  });

  it("data published only by a clock its reader joined after its last completion", () => {
    // gpu0.sdma14 signals its slot, then polls a word gpu1.sdma14 fences after its copy: what
    // the slot published is gpu0's clock at the slot, which does not cover gpu1's copy (the
    // clock joined later counts for nothing; semantics.ts keeps the slot's clock lazily).
    const c = compileText(
      "late.dmac",
      "target mi300x\nschedule s() {\n  buffer buf: 8KiB\n  copy buf@1[0 +: 64B] -> buf@2[0 +: 64B]\n  copy buf@0[0 +: 64B] -> buf@3[0 +: 64B]\n}\n",
    );
    const cmd = (kind: "copy", src: number, dst: number) => ({ kind, src, dst, bytes: 64 });
    const base = program(
      8 * 1024,
      [
        {
          gpu: 0,
          engine: 14,
          cmds: [
            cmd("copy", bufAddr(0), bufAddr(3)),
            { kind: "atomic", addr: slotAddr(0), width: 64, add: -1 },
            { kind: "poll", addr: syncAddr(1, 0), func: ">=", value: 1, mask: -1, interval: 4 },
          ],
        },
        {
          gpu: 1,
          engine: 14,
          cmds: [
            cmd("copy", bufAddr(1), bufAddr(2)),
            { kind: "fence", addr: syncAddr(1, 0), value: 1 },
          ],
        },
      ],
      1,
    );
    const opsOf = [
      [[1], [1], undefined],
      [[0], undefined],
    ];
    const p: SimProgram = {
      ...base,
      queues: base.queues.map((q, k) => ({
        ...q,
        entries: q.entries.map((e, i) => ({ ...e, ops: opsOf[k]![i] })),
      })),
      meaning: { module: c.module!, signals: [], slotOwner: [0] },
    };
    for (const checks of [undefined, checksInProcess(c.module)]) {
      const found = execute(p, { model, checks }).diagnostics.map((d) => d.message);
      expect(found.join("\n")).toMatch(/copy op 0 .* is announced by no completion slot/);
      expect(found.join("\n")).toMatch(
        /gpu1\.sdma14: data commands of this queue finish after every completion signal/,
      );
      expect(found).toHaveLength(2);
    }
  });

  it("another queue's slot, and a slot written twice: the executor's own check", () => {
    // The manifest validator ties slots to streams; the executor checks its program too.
    const built = programFromManifest(PAG.manifest, PAG.streams);
    if (!("program" in built)) throw new Error("no program");
    const p = built.program;
    const [a, b] = [0, 1].map((k) => p.queues[k]!);
    const slotOf = (q: typeof a) => q!.entries.findIndex((e) => e.cmd.kind === "atomic");
    const ea = a!.entries[slotOf(a)]!;
    const eb = b!.entries[slotOf(b)]!;
    const swapped: SimProgram = {
      ...p,
      queues: p.queues.map((q, k) =>
        k > 1
          ? q
          : {
              ...q,
              entries: q.entries.map((e) =>
                e === ea ? { ...e, cmd: eb.cmd } : e === eb ? { ...e, cmd: ea.cmd } : e,
              ),
            },
      ),
      meaning: {
        module: PAG.module,
        signals: PAG.manifest.memory.signals.map((s) => ({
          addr: s.address,
          signal: s.id,
          rank: s.gpu,
        })),
        slotOwner: slotOwners(PAG.manifest),
      },
    };
    const r = execute(swapped, { model });
    expect(r.diagnostics.map((d) => d.message).join("\n")).toMatch(
      /writes completion slot \d+, which the manifest gives to gpu0\.sdma/,
    );
  });
});

function slotOwners(m: Manifest): number[] {
  const out = new Array<number>(m.memory.completionSignals.count).fill(-1);
  m.queues.forEach((q, i) => q.completionSlots.forEach((k) => (out[k] = i)));
  return out;
}

describe("reserved and unsupported fields (DMAC6007)", () => {
  const cases: [string, string, number, number][] = [
    ["COPY_LINEAR dst_sw", "copy_linear", 2, 1 << 16],
    ["COPY_LINEAR src_sw", "copy_linear", 2, 1 << 24],
    ["COPY_LINEAR encrypt", "copy_linear", 0, 1 << 16],
    ["COPY_LINEAR tmz", "copy_linear", 0, 1 << 18],
  ];
  for (const [name, kind, dw, bit] of cases)
    it(name, () => {
      const qs = base();
      const pk = qs.get(Q)![nth(qs, Q, kind)]!;
      pk.words[dw] = (pk.words[dw]! | bit) >>> 0;
      const r = run(PAG, qs);
      expect(r.verified).toBe(false);
      expect(codes(r)).toContain("DMAC6007");
      expect(messages(r)).toMatch(/the reference says to write 0 there/);
    });

  it("broadcast endian swap, and a fill's", () => {
    const c = compileText(
      "bf.dmac",
      `schedule s(chunk: bytes = 4KiB) {
  buffer a: chunk
  fill a@0 with 7
  copy a@0 -> a@1, a@2
}
`,
    );
    for (const [kind, dw, bit] of [
      ["copy_broadcast", 2, 1 << 8],
      ["copy_broadcast", 2, 1 << 17],
      ["constant_fill", 0, 1 << 16],
      ["copy_broadcast", 0, 1 << 18],
    ] as const) {
      const qs = cloneQueues(explode(api, c.manifest, c.streams));
      const queue = [...qs.keys()].find((k) => qs.get(k)!.some((p) => p.kind === kind))!;
      const pk = qs.get(queue)![nth(qs, queue, kind)]!;
      pk.words[dw] = (pk.words[dw]! | bit) >>> 0;
      const r = run(c, qs);
      expect(r.verified, `${kind} DW${dw} bit ${Math.log2(bit)}`).toBe(false);
      expect(codes(r)).toContain("DMAC6007");
    }
  });
});

describe("overlapping ranges (DMAC6012)", () => {
  it("a copy whose source and destination overlap", () => {
    // A second copy of the same bytes onto themselves, after the completion (so no race).
    const qs = base();
    const pks = qs.get(Q)!;
    const i = nth(qs, Q, "copy_linear", 0);
    const words = [...pks[i]!.words];
    words[5] = words[3]! + 64;
    words[6] = words[4]!;
    pks.splice(nth(qs, Q, "atomic", 0, isAdd64) + 1, 0, { ...pks[i]!, words });
    const r = run(PAG, qs);
    expect(r.verified).toBe(false);
    expect(codes(r)).toContain("DMAC6012");
    expect(messages(r)).toMatch(/COPY source and destination overlap/);
  });

  it("a broadcast whose destinations overlap", () => {
    const c = compileFile(example("all_gather_bcst.dmac"), {});
    const qs = cloneQueues(explode(api, c.manifest, c.streams));
    const queue = [...qs.keys()].find((k) => qs.get(k)!.some((p) => p.kind === "copy_broadcast"))!;
    const pks = qs.get(queue)!;
    const i = nth(qs, queue, "copy_broadcast");
    const words = [...pks[i]!.words];
    words[7] = words[5]!;
    words[8] = words[6]!;
    const after = pks.findIndex((p, k) => k > i && p.kind === "atomic");
    pks.splice(after + 1, 0, { ...pks[i]!, words });
    const r = run(c, qs);
    expect(r.verified).toBe(false);
    expect(codes(r)).toContain("DMAC6012");
    expect(messages(r)).toMatch(/BCAST destinations overlap/);
  });
});

describe("polls", () => {
  it("a retry count is honoured: a poll that runs out of retries fails (DMAC6014)", () => {
    // `when ready@7 >= 1` with the producer raising ready by one every 1000 us: with 0 retries
    // the poll's one check comes too early.
    const qs = base();
    const pk = qs.get(Q)![nth(qs, Q, "poll_mem", 0)]!;
    pk.words[5] = 0x00000004; // retry_count 0, interval 4
    const r = run(PAG, qs, { signalPeriodUs: 1000 });
    expect(r.verified).toBe(false);
    expect(codes(r)).toContain("DMAC6014");
    expect(messages(r)).toMatch(/gave up after its 0 retries/);
  });

  it("a retry count that is enough is fine", () => {
    const qs = base();
    const pk = qs.get(Q)![nth(qs, Q, "poll_mem", 0)]!;
    pk.words[5] = 0x0ffe0004; // 4094 retries
    expect(run(PAG, qs, { signalPeriodUs: 1000 }).verified).toBe(true);
  });

  it("a register poll (mem_poll = 0), with or without HDP flush, is rejected (DMAC6007)", () => {
    for (const header of [0x50000008, 0x54000008, 0x34000008]) {
      const qs = base();
      const pk = qs.get(Q)![nth(qs, Q, "poll_mem", 0)]!;
      pk.words[0] = header;
      const r = run(PAG, qs);
      expect(r.verified, `header 0x${header.toString(16)}`).toBe(false);
      expect(codes(r)).toContain("DMAC6007");
      expect(messages(r)).toMatch(/register polls are not allowed/);
    }
  });

  it("ROCr's HDP flush form is still a no-op", () => {
    const qs = base();
    qs.get(Q)!.unshift({ words: [8, 0, 0x80000000, 0, 0, 0], kind: "poll_reg", ops: [], stmt: 0 });
    expect(run(PAG, qs).verified).toBe(true);
  });
});

describe("through the CLI: exit 1 on an edited output directory", () => {
  it("dmac sim DIR after a notify was removed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dmac-adv-sem-"));
    const out = join(dir, "out");
    expect((await dmac("compile", example("pipelined_all_gather.dmac"), "-o", out)).code).toBe(0);
    const on = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as Manifest;
    const streams = new Map(
      on.queues.map((q) => {
        const b = readFileSync(join(out, q.file));
        return [q.file, new Uint32Array(b.buffer, b.byteOffset, b.byteLength / 4)] as const;
      }),
    );
    const qs = explode(api, on, streams);
    qs.get(Q)!.splice(nth(qs, Q, "atomic", 0, isAdd32), 1);
    const edited = assemble(api, on, qs);
    writeFileSync(join(out, "manifest.json"), JSON.stringify(edited.manifest));
    for (const [file, words] of edited.streams)
      writeFileSync(join(out, file), new Uint8Array(words.buffer));
    const r = await dmac("sim", out, "--format", "concise");
    expect(r.code).toBe(1);
    expect(r.out).not.toMatch(/^verified/m);
    expect(r.err).toMatch(/DMAC6013/);
  });
});
