// The DMA-Latte variants reproduce their hand-written form, counted from the EMITTED packets
// (compiled to SDMA streams and decoded with backend/sdma/decode.ts), and every example verifies
// in the executor at -O0, -O1 and -O2.

import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { Packet } from "../../../src/backend/sdma/packets.js";
import {
  build,
  countPerGpu,
  emit,
  enginesPerGpu,
  exampleText,
  isCompletion,
  O,
  simulateBuilt,
} from "./helpers.js";

const isCopy = (p: Packet): boolean => p.kind === "copy_linear" || p.kind === "copy_broadcast";
const isBcast = (p: Packet): boolean => p.kind === "copy_broadcast";
const isSwap = (p: Packet): boolean => p.kind === "copy_swap";
const each = (m: Map<number, number>): number[] => [...m.keys()].sort().map((g) => m.get(g)!);

describe("DMA-Latte variants from the emitted packets", () => {
  it("all_gather_pcpy at -O0: 7 copies and 7 completions per GPU on 7 engines", () => {
    const e = emit(build("pcpy", exampleText("all_gather_pcpy.dmac"), O(0)));
    expect(each(countPerGpu(e, isCopy))).toEqual(Array(8).fill(7));
    expect(each(countPerGpu(e, isCompletion))).toEqual(Array(8).fill(7));
    expect(each(enginesPerGpu(e))).toEqual(Array(8).fill(7));
  });

  it("all_gather_bcst at -O0: 4 copy packets (3 broadcasts) and 4 completions per GPU", () => {
    const e = emit(build("bcst", exampleText("all_gather_bcst.dmac"), O(0)));
    expect(each(countPerGpu(e, isCopy))).toEqual(Array(8).fill(4));
    expect(each(countPerGpu(e, isBcast))).toEqual(Array(8).fill(3));
    expect(each(countPerGpu(e, isCompletion))).toEqual(Array(8).fill(4));
    expect(each(enginesPerGpu(e))).toEqual(Array(8).fill(4));
  });

  it("all_gather_pcpy with bcast-fusion forms the bcst shape (3 broadcasts + 1 copy per GPU)", () => {
    const b = build(
      "pcpy",
      exampleText("all_gather_pcpy.dmac"),
      O(0, { enable: { "bcast-fusion": true } }),
    );
    const e = emit(b);
    expect(each(countPerGpu(e, isCopy))).toEqual(Array(8).fill(4));
    expect(each(countPerGpu(e, isBcast))).toEqual(Array(8).fill(3));
    expect(b.stats.find((s) => s.pass === "bcast-fusion")!.counters["broadcasts formed"]).toBe(24);
    expect(simulateBuilt(b, e).verified).toBe(true);
  });

  it("all_gather_b2b (pinned) at -O1: 7 copies and 1 completion on that one engine", () => {
    const e = emit(build("b2b", exampleText("all_gather_b2b.dmac"), O(1)));
    expect([...e.packets.keys()].sort()).toEqual([...Array(8).keys()].map((g) => `gpu${g}.sdma8`));
    expect(each(countPerGpu(e, isCopy))).toEqual(Array(8).fill(7));
    expect(each(countPerGpu(e, isCompletion))).toEqual(Array(8).fill(1));
  });

  it("all_to_all_swap at -O0: 28 swaps in the node, at most 4 per GPU", () => {
    const e = emit(build("swap", exampleText("all_to_all_swap.dmac"), O(0)));
    const per = each(countPerGpu(e, isSwap));
    expect(per.reduce((a, b) => a + b, 0)).toBe(28);
    expect(Math.max(...per)).toBeLessThanOrEqual(4);
  });

  it("with --prelaunch: one trigger poll at the head of each queue, named in the manifest", () => {
    const e = emit(build("pcpy", exampleText("all_gather_pcpy.dmac"), O(0, { prelaunch: true })));
    const trig = e.manifest.trigger;
    expect(trig).not.toBeNull();
    for (const [name, pk] of e.packets) {
      const polls = pk.filter((p) => p.kind === "poll_mem" && p.addr === trig!.address);
      expect(polls, name).toHaveLength(1);
      expect(pk[0]!.kind === "poll_mem" && pk[0]!.addr === trig!.address, name).toBe(true);
    }
  });

  it("single:E,... puts every command of a GPU on one engine (b2b from plain pcpy)", () => {
    const b = build(
      "pcpy",
      exampleText("all_gather_pcpy.dmac"),
      O(1, { engines: { kind: "single", engines: [3, 5] } }),
    );
    const e = emit(b);
    expect([...e.packets.keys()].sort()).toEqual(
      [...Array(8).keys()].map((g) => `gpu${g}.sdma${g % 2 === 0 ? 3 : 5}`),
    );
    expect(each(countPerGpu(e, isCompletion))).toEqual(Array(8).fill(1));
    expect(simulateBuilt(b, e).verified).toBe(true);
  });

  it("spread:2 uses two engines per GPU and spread:8 separates an all-to-all's local copy", () => {
    const two = emit(
      build(
        "a2a",
        exampleText("all_to_all_pcpy_local.dmac"),
        O(1, { engines: { kind: "spread", k: 2 } }),
      ),
    );
    expect(each(enginesPerGpu(two))).toEqual(Array(8).fill(2));
    const eight = build(
      "a2a",
      exampleText("all_to_all_pcpy_local.dmac"),
      O(1, { engines: { kind: "spread", k: 8 } }),
    );
    expect(each(enginesPerGpu(emit(eight)))).toEqual(Array(8).fill(8));
    const aff = build("a2a", exampleText("all_to_all_pcpy_local.dmac"), O(1), { chunk: "1MiB" });
    const spread = build(
      "a2a",
      exampleText("all_to_all_pcpy_local.dmac"),
      O(1, { engines: { kind: "spread", k: 8 } }),
      { chunk: "1MiB" },
    );
    const ta = simulateBuilt(aff);
    const ts = simulateBuilt(spread);
    expect(ta.verified && ts.verified).toBe(true);
    expect(ts.stats.totalUs).toBeLessThan(ta.stats.totalUs);
  });
});

describe("every example verifies in the executor", () => {
  const files = readdirSync(new URL("../../../examples/", import.meta.url)).filter((f) =>
    f.endsWith(".dmac"),
  );
  for (const f of files) {
    it(`${f} at -O0, -O1, -O2 (and -O1 is never slower than -O0)`, () => {
      const times: number[] = [];
      for (const level of [0, 1, 2] as const) {
        const b = build(f, exampleText(f), O(level));
        const r = simulateBuilt(b);
        expect(
          r.diagnostics.filter((d) => d.severity === "error"),
          `${f} -O${level}`,
        ).toEqual([]);
        expect(r.verified, `${f} -O${level}`).toBe(true);
        times.push(r.stats.totalUs);
      }
      expect(times[1]!).toBeLessThanOrEqual(times[0]! + 1e-6);
      expect(times[2]!).toBeLessThanOrEqual(times[1]! + 1e-6);
    }, 30_000);
  }

  it("per-queue completions are never slower than per-op (why -O2 only tries per-queue)", () => {
    for (const f of ["all_gather_b2b.dmac", "all_to_all_pcpy.dmac", "ring_all_gather.dmac"]) {
      for (const chunk of ["1KiB", "1MiB"]) {
        const perOp = simulateBuilt(
          build(f, exampleText(f), O(1, { completion: "per-op" }), { chunk }),
        );
        const perQ = simulateBuilt(
          build(f, exampleText(f), O(1, { completion: "per-queue" }), { chunk }),
        );
        expect(perQ.stats.totalUs, `${f} ${chunk}`).toBeLessThanOrEqual(perOp.stats.totalUs + 1e-6);
      }
    }
  }, 60_000);
});
