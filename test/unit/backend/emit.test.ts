import { describe, it, expect } from "vitest";
import { buildOutputs } from "../../../src/driver/outputs.js";
import { emitSdma } from "../../../src/backend/sdma/emit.js";
import {
  DEFAULT_LAYOUT,
  layoutProgram,
  regionOf,
  type Layout,
} from "../../../src/backend/sdma/layout.js";
import { decodeStream } from "../../../src/backend/sdma/decode.js";
import { lowerToQueues } from "../../../src/queues/lower.js";
import { fromReadable, toReadable } from "../../../src/queues/readable.js";
import { lineCol } from "../../../src/source/source-file.js";
import { allGatherPcpy, buildModule, MI300X, queuesOf, sourceFile } from "../queues/helpers.js";

const codes = (ds: readonly { code: string }[]): string[] => ds.map((d) => d.code);

function emitSource(text: string) {
  const file = sourceFile(`target mi300x\nschedule s() {\n  buffer buf: 16KiB\n${text}\n}\n`);
  const compiled = queuesOf(file);
  return { file, ...buildOutputs(file, compiled, { emit: ["sdma"] }) };
}

describe("SDMA emission diagnostics", () => {
  it("DMAC4001: broadcast destinations differing in their low 5 bits, at the statement", () => {
    const r = emitSource("  copy buf@0[0B +: 64B] -> buf@1[0B +: 64B], buf@2[4B +: 64B]");
    expect(codes(r.diagnostics)).toEqual(["DMAC4001"]);
    expect(r.files).toBeUndefined();
    const d = r.diagnostics[0]!;
    expect(lineCol(r.file, d.span!.start).line).toBe(4);
  });

  it("DMAC4002: swap halves not 64-byte aligned", () => {
    const r = emitSource("  swap buf@0[4B +: 64B] <-> buf@1[4B +: 64B]");
    expect(codes(r.diagnostics)).toEqual(["DMAC4002"]);
    expect(lineCol(r.file, r.diagnostics[0]!.span!.start).line).toBe(4);
  });

  it("accepts aligned broadcasts and swaps", () => {
    const r = emitSource(
      "  copy buf@0[0B +: 64B] -> buf@1[32B +: 64B], buf@2[64B +: 64B]\n  swap buf@0[128B +: 64B] <-> buf@1[192B +: 64B]",
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.files?.map((f) => f.name)).toContain("manifest.json");
  });

  it("DMAC4003: a timestamp slot that is not 32-byte aligned", () => {
    const m = allGatherPcpy(4096, 2);
    const base = toReadable(lowerToQueues(m, MI300X, { completion: "atomic" }));
    const q = base.queues[0]!;
    const p = fromReadable({
      ...base,
      timestampSlots: 2,
      queues: [
        {
          ...q,
          cmds: [
            { kind: "timestamp", slot: 0, ops: [0] },
            ...q.cmds,
            { kind: "timestamp", slot: 1, ops: [0] },
          ],
        },
        ...base.queues.slice(1),
      ],
    });
    const { layout } = layoutProgram(m, p, undefined, { ...DEFAULT_LAYOUT, timestampAlign: 8 });
    const r = emitSdma(p, m, layout!, undefined);
    expect(codes(r.diagnostics)).toEqual(["DMAC4003"]);
  });

  it("DMAC4004: a poll or fence address that is not dword aligned", () => {
    const m = buildModule(
      [4096],
      [
        { kind: "copy", src: [0, 0, 0], dst: [1, 0, 0], len: 256 },
        { kind: "copy", src: [1, 0, 0], dst: [2, 0, 0], len: 256 },
      ],
    );
    const p = lowerToQueues(m, MI300X, { completion: "atomic" });
    const laid = layoutProgram(m, p, undefined).layout!;
    const syncAddr = Float64Array.from(laid.syncAddr);
    syncAddr[0]! += 2;
    const layout: Layout = { ...laid, syncAddr };
    const r = emitSdma(p, m, layout, undefined);
    expect(codes(r.diagnostics)).toEqual(["DMAC4004"]);
  });

  it("DMAC4005: a copy larger than the count field when --max-copy-bytes exceeds it", () => {
    const len = 1.5 * 2 ** 30;
    const m = buildModule([len], [{ kind: "copy", src: [0, 0, 0], dst: [1, 0, 0], len }]);
    const p = lowerToQueues(m, MI300X, { completion: "atomic", maxCopyBytes: 2 ** 31 });
    const r = emitSdma(p, m, layoutProgram(m, p, undefined).layout!, undefined);
    expect(codes(r.diagnostics)).toEqual(["DMAC4005"]);
    expect(r.diagnostics[0]!.message).toContain("30 bits");
    // the default limit splits it instead
    const ok = lowerToQueues(m, MI300X, { completion: "atomic" });
    expect(emitSdma(ok, m, layoutProgram(m, ok, undefined).layout!, undefined).diagnostics).toEqual(
      [],
    );
  });

  it("DMAC4006: a stream larger than the limit", () => {
    const m = allGatherPcpy(4096, 2);
    const p = lowerToQueues(m, MI300X, { completion: "atomic" });
    const r = emitSdma(p, m, layoutProgram(m, p, undefined).layout!, undefined, {
      maxStreamBytes: 32,
    });
    expect(codes(r.diagnostics)).toEqual(["DMAC4006", "DMAC4006"]);
  });

  it("DMAC4008: buffers that do not fit a GPU's window", () => {
    const m = buildModule(
      [300 * 2 ** 30],
      [{ kind: "copy", src: [0, 0, 0], dst: [1, 0, 0], len: 64 }],
      { ranks: 2 },
    );
    const p = lowerToQueues(m, MI300X, { completion: "atomic" });
    const r = layoutProgram(m, p, undefined);
    expect(r.layout).toBeUndefined();
    expect(codes(r.diagnostics)).toEqual(["DMAC4008"]);
  });
});

describe("packet starts", () => {
  it("are recorded as the packets are encoded: the offsets a decoder finds", () => {
    const m = allGatherPcpy(4096, 2);
    for (const completion of ["atomic", "fence"] as const) {
      const p = lowerToQueues(m, MI300X, { completion });
      const { queues } = emitSdma(p, m, layoutProgram(m, p, undefined).layout!, undefined);
      expect(queues.length).toBeGreaterThan(0);
      for (const q of queues) {
        const decoded = decodeStream(q.words);
        expect(decoded.problems).toEqual([]);
        expect([...q.packetStarts]).toEqual(decoded.packets.map((e) => e.offset / 4));
        expect(q.packetStarts.length).toBe(q.packetCount);
      }
    }
  });
});

describe("layout and relocations", () => {
  it("places buffers 4 KiB aligned per GPU window and sync words 64 B apart; relocations rebase", () => {
    const m = buildModule(
      [100, 5000],
      [
        { kind: "copy", src: [0, 0, 0], dst: [1, 1, 0], len: 64 },
        { kind: "copy", src: [1, 1, 0], dst: [2, 1, 64], len: 64 },
        { kind: "copy", src: [0, 0, 0], dst: [2, 1, 0], len: 64 },
        { kind: "copy", src: [1, 1, 0], dst: [2, 0, 0], len: 64 },
      ],
    );
    const p = lowerToQueues(m, MI300X, { completion: "atomic" });
    const l = layoutProgram(m, p, undefined).layout!;
    const R = 8;
    for (let g = 0; g < R; g++) {
      const b0 = l.bufferAddr[0 * R + g]!;
      const b1 = l.bufferAddr[1 * R + g]!;
      expect(b0).toBe(DEFAULT_LAYOUT.deviceBase + g * DEFAULT_LAYOUT.deviceWindow);
      expect(b1).toBe(b0 + 4096);
      expect(regionOf(l, b1)).toBe(g);
    }
    expect(p.syncWords.length).toBeGreaterThan(0);
    for (const a of l.syncAddr) expect(a % 64).toBe(0);
    const emitted = emitSdma(p, m, l, undefined);
    for (const q of emitted.queues) {
      const { packets } = decodeStream(q.words);
      expect(packets.length).toBe(q.packetCount);
      for (let i = 0; i < q.relocations.length; i += 3) {
        const [dw, region, addend] = Array.from(q.relocations.slice(i, i + 3)) as [
          number,
          number,
          number,
        ];
        const addr = q.words[dw]! + q.words[dw + 1]! * 2 ** 32;
        expect(addr).toBe(l.regions[region]!.base + addend);
      }
    }
  });
});
