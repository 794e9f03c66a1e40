import { describe, it, expect } from "vitest";
import { lowerToQueues, writeOp } from "../../../src/queues/lower.js";
import { CMD, CmdBuilder } from "../../../src/queues/queue-program.js";
import { verifyQueueProgram } from "../../../src/queues/verify.js";
import { toReadable, type ReadableProgram } from "../../../src/queues/readable.js";
import { allGatherPcpy, buildModule, exampleFile, MI300X, queuesOf } from "./helpers.js";

const lower = (
  m: Parameters<typeof lowerToQueues>[0],
  opts: Partial<Parameters<typeof lowerToQueues>[2]> = {},
) => {
  const p = lowerToQueues(m, MI300X, { completion: "atomic", ...opts });
  verifyQueueProgram(p, m);
  return toReadable(p);
};

const kinds = (p: ReadableProgram, qi: number) => p.queues[qi]!.cmds.map((c) => c.kind);

describe("lowerToQueues (-O0)", () => {
  it("all-gather pcpy at 8 ranks: 56 queues, one copy and one completion each, on the map's engine", () => {
    const chunk = 8192;
    const m = allGatherPcpy(chunk);
    const p = lower(m);
    expect(p.queues).toHaveLength(56);
    expect(p.completionSlots).toBe(56);
    expect(p.syncWords).toHaveLength(0);
    for (const q of p.queues) {
      expect(q.cmds.map((c) => c.kind)).toEqual(["copy", "completion"]);
      const c = q.cmds[0]!;
      if (c.kind !== "copy") throw new Error("not a copy");
      expect(c.src.rank).toBe(q.gpu);
      expect(q.engine).toBe(MI300X.recommendedEngine.map[q.gpu]![c.dst.rank]);
      expect(c.bytes).toBe(chunk);
      expect(c.src.offset).toBe(q.gpu * chunk);
    }
    // sorted by (gpu, engine)
    const order = p.queues.map((q) => q.gpu * 100 + q.engine);
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  it("uses the driver's engine for a pull and localCopy for a copy within one GPU", () => {
    const m = buildModule(
      [4096],
      [
        { kind: "copy", driver: 3, src: [5, 0, 0], dst: [3, 0, 1024], len: 512 },
        { kind: "copy", src: [2, 0, 0], dst: [2, 0, 2048], len: 512 },
      ],
    );
    const p = lower(m);
    expect(p.queues.map((q) => [q.gpu, q.engine])).toEqual([
      [2, MI300X.engines.localCopy],
      [3, MI300X.recommendedEngine.map[3]![5]!],
    ]);
  });

  it("honours a pinned engine and puts a broadcast on its second destination's engine", () => {
    const m = buildModule(
      [4096],
      [
        { kind: "copy", engine: 7, src: [0, 0, 0], dst: [1, 0, 0], len: 64 },
        { kind: "bcast", src: [0, 0, 64], dst: [1, 0, 64], dst2: [2, 0, 64], len: 64 },
      ],
    );
    const p = lower(m);
    expect(p.queues.map((q) => q.engine).sort((a, b) => a - b)).toEqual(
      [7, MI300X.recommendedEngine.map[0]![2]!].sort((a, b) => a - b),
    );
  });

  it("turns a cross-queue dependency into a progress signal and a >= poll", () => {
    // 0 -> 1 on gpu0 (engine map[0][1]); then gpu1 forwards the same bytes to 2 (RAW on gpu1).
    const m = buildModule(
      [4096],
      [
        { kind: "copy", src: [0, 0, 0], dst: [1, 0, 0], len: 256 },
        { kind: "copy", src: [1, 0, 0], dst: [2, 0, 0], len: 256 },
      ],
    );
    const p = lower(m);
    expect(p.syncWords).toEqual([{ kind: "progress", gpu: 1, producer: 0, consumer: 1 }]);
    expect(kinds(p, 0)).toEqual(["copy", "completion", "signal"]);
    expect(kinds(p, 1)).toEqual(["poll", "copy", "completion"]);
    const sig = p.queues[0]!.cmds[2]!;
    const poll = p.queues[1]!.cmds[0]!;
    expect(sig).toMatchObject({
      kind: "signal",
      how: "fence",
      value: 1,
      at: { space: "sync", word: 0 },
    });
    expect(poll).toMatchObject({
      kind: "poll",
      func: ">=",
      value: 1,
      at: { space: "sync", word: 0 },
    });
  });

  it("puts a barrier between dependent ops on one queue", () => {
    const m = buildModule(
      [4096],
      [
        { kind: "copy", src: [0, 0, 0], dst: [1, 0, 0], len: 256 },
        { kind: "copy", src: [0, 0, 512], dst: [1, 0, 0], len: 256 }, // WAW on gpu1 bytes 0..256
        { kind: "copy", src: [0, 0, 1024], dst: [1, 0, 1024], len: 256 }, // independent
      ],
    );
    const p = lower(m);
    expect(p.queues).toHaveLength(1);
    expect(kinds(p, 0)).toEqual([
      "copy",
      "completion",
      "signal",
      "poll",
      "copy",
      "completion",
      "copy",
      "completion",
    ]);
    expect(p.syncWords).toEqual([{ kind: "barrier", gpu: 0, queue: 0 }]);
  });

  it("splits copies at the per-packet maximum with consecutive chunk addresses", () => {
    const max = MI300X.limits.maxCopyBytesConservative;
    const len = 2 * max + 100;
    const m = buildModule([len + 4096], [{ kind: "copy", src: [0, 0, 4096], dst: [1, 0, 0], len }]);
    const p = lower(m, { maxCopyBytes: max });
    const copies = p.queues[0]!.cmds.filter((c) => c.kind === "copy");
    expect(copies.map((c) => [c.src.offset, c.dst.offset, c.bytes])).toEqual([
      [4096, 0, max],
      [4096 + max, max, max],
      [4096 + 2 * max, 2 * max, 100],
    ]);
    expect(p.queues[0]!.cmds.at(-1)!.kind).toBe("completion");
    expect(p.completionSlots).toBe(1);
  });

  it("splits fills at maxFillBytes and swaps at 64-byte multiples", () => {
    const fillMax = MI300X.limits.maxFillBytes;
    const m = buildModule(
      [fillMax * 2],
      [
        { kind: "fill", dst: [0, 0, 0], len: fillMax + 4, value: 7 },
        { kind: "swap", src: [0, 0, 0], dst: [1, 0, 0], len: 4096, driver: 0 },
      ],
    );
    const p = lower(m, { maxCopyBytes: 1000 });
    const all = p.queues.flatMap((q) => q.cmds);
    expect(all.filter((c) => c.kind === "fill").map((c) => c.bytes)).toEqual([fillMax, 4]);
    const swaps = all.filter((c) => c.kind === "swap").map((c) => c.bytes);
    expect(swaps.every((b) => b % 64 === 0 || b === swaps.at(-1))).toBe(true);
    expect(swaps.reduce((a, b) => a + b, 0)).toBe(4096);
    expect(swaps[0]).toBe(960);
  });

  it("compiles every example and verifies the queue program", () => {
    for (const name of [
      "all_gather_pcpy.dmac",
      "all_gather_bcst.dmac",
      "all_to_all_pcpy.dmac",
      "all_to_all_swap.dmac",
      "pipelined_all_gather.dmac",
      "ring_all_gather.dmac",
      "broadcast.dmac",
      "gather.dmac",
      "scatter.dmac",
    ]) {
      const { module, program } = queuesOf(exampleFile(name));
      expect(() => verifyQueueProgram(program, module), name).not.toThrow();
    }
  });

  it("example pcpy: 56 queues; bcst: 4 copy packets (3 broadcasts) and 4 completions per GPU", () => {
    expect(queuesOf(exampleFile("all_gather_pcpy.dmac")).program.queues).toHaveLength(56);
    const program = toReadable(queuesOf(exampleFile("all_gather_bcst.dmac")).program);
    for (let g = 0; g < 8; g++) {
      const cmds = program.queues.filter((q) => q.gpu === g).flatMap((q) => q.cmds);
      expect(cmds.filter((c) => c.kind === "bcast")).toHaveLength(3);
      expect(cmds.filter((c) => c.kind === "copy")).toHaveLength(1);
      expect(cmds.filter((c) => c.kind === "completion")).toHaveLength(4);
    }
  });

  it("lowers when to a poll on the flag and notify to an atomic add after the covered ops", () => {
    const { program } = queuesOf(exampleFile("pipelined_all_gather.dmac"), {
      defines: { pieces: "2" },
    });
    const all = toReadable(program).queues.flatMap((q) => q.cmds);
    const waits = all.filter((c) => c.kind === "poll" && c.why === "wait");
    // 8 ranks x 2 pieces x 7 peer queues
    expect(waits).toHaveLength(8 * 2 * 7);
    // `ready` is declared thermometer: `>= k + 1` is a test of bit k.
    expect(waits[0]).toMatchObject({ at: { space: "signal" }, func: "==", mask: 1, value: 1 });
    const notifies = all.filter((c) => c.kind === "signal" && c.why === "notify");
    expect(notifies).toHaveLength(8 * 2);
    expect(notifies[0]).toMatchObject({ how: "add", value: 1 });
  });
});

describe("writeOp (one op's own commands)", () => {
  it("splits a copy at maxCopy and a fill at maxFill, offsets advancing", () => {
    const m = buildModule(
      [1 << 20],
      [
        { kind: "copy", src: [0, 0, 100], dst: [1, 0, 200], len: 3 * 4096 + 1 },
        { kind: "fill", dst: [2, 0, 8], len: 10, value: 7 },
      ],
    );
    const b = new CmdBuilder();
    writeOp(b, m, 0, 0, { maxCopy: 4096, swapMax: 4096, maxFill: 4 });
    writeOp(b, m, 1, 0, { maxCopy: 4096, swapMax: 4096, maxFill: 4 });
    const t = b.done();
    const rows = Array.from({ length: t.length }, (_, i) => [
      t.kindName(i),
      t.offset(i, t.kind(i) === CMD.fill ? 1 : 0),
      t.offset(i, 1),
      t.bytes(i),
    ]);
    expect(rows).toEqual([
      ["copy", 100, 200, 4096],
      ["copy", 4196, 4296, 4096],
      ["copy", 8292, 8392, 4096],
      ["copy", 12388, 12488, 1],
      ["fill", 8, 8, 4],
      ["fill", 12, 12, 4],
      ["fill", 16, 16, 2],
    ]);
    expect(t.value(4)).toBe(7);
  });
});
