// Hostile packet streams against the executor's public API (simulate for manifest + streams,
// execute for a hand-built program where the manifest cannot express the case). Every bad
// access must be reported with the queue and the packet's byte offset, and must never be
// applied: the memory it would have written still holds its initial contents afterwards.

import { describe, expect, it } from "vitest";
import { encodePackets } from "../../../src/backend/sdma/encode.js";
import type { Packet } from "../../../src/backend/sdma/packets.js";
import { readRange } from "../../../src/ir/provenance.js";
import { execute } from "../../../src/sim/execute.js";
import { simulate } from "../../../src/sim/run.js";
import type { SimCmd } from "../../../src/sim/program.js";
import {
  bufAddr,
  copy,
  done,
  fence,
  manifestFor,
  model,
  poll,
  program,
  slotAddr,
  target,
} from "../sim/node.js";

const KiB = 1024;
const SIZE = 8 * KiB;
const codes = (r: { diagnostics: readonly { code: string }[] }): string[] =>
  r.diagnostics.map((d) => d.code);
const offsetOf = (packets: readonly Packet[]): string =>
  `+0x${(encodePackets(packets).length * 4).toString(16)}`;

/** Runs one queue on gpu0.sdma14 through the manifest path (real decoding). */
function runStream(packets: readonly Packet[], patch?: (w: Uint32Array) => void) {
  const { manifest, streams } = manifestFor(SIZE, [{ gpu: 0, engine: 14, packets }], {
    slots: 1,
  });
  if (patch) patch(streams.get("gpu0.sdma14.bin")!);
  return simulate({ manifest, streams }, { target });
}

/** Runs commands through execute() and returns the result with its provenance. */
function runCmds(cmds: readonly SimCmd[], ring?: { addr: number; bytes: number }) {
  const base = program(SIZE, [{ gpu: 0, engine: 14, cmds }]);
  const p = ring ? { ...base, queues: [{ ...base.queues[0]!, ring }] } : base;
  return execute(p, { model });
}

/** True if no byte of buffer 0 on `rank` was ever written. */
function untouched(r: ReturnType<typeof runCmds>, rank: number): boolean {
  return readRange(r.prov!, rank, 0, 0, SIZE).every((s) => s.writer === -1);
}

describe("hostile streams: out-of-bounds copies (DMAC6002)", () => {
  it("a copy running past the end of the destination, as the second packet", () => {
    const first = copy(bufAddr(0), bufAddr(2), 64);
    const r = runStream([first, copy(bufAddr(0), bufAddr(1, 6 * KiB), 4 * KiB), done(0)]);
    expect(codes(r)).toContain("DMAC6002");
    const d = r.diagnostics.find((x) => x.code === "DMAC6002")!;
    expect(d.message).toContain(`gpu0.sdma14 ${offsetOf([first])}`);
    expect(r.stats.peerBytes).toBe(64); // only the first, legal copy moved bytes
  });

  it("a copy reading past the end of the source", () => {
    const r = runStream([copy(bufAddr(0, 7 * KiB), bufAddr(1), 2 * KiB), done(0)]);
    expect(codes(r)).toContain("DMAC6002");
    expect(r.diagnostics[0]!.message).toContain("gpu0.sdma14 +0x0");
    expect(r.stats.peerBytes).toBe(0);
  });

  it("a copy to an address no region maps", () => {
    const r = runStream([copy(bufAddr(0), 0x4000_0000, 64), done(0)]);
    expect(codes(r)).toContain("DMAC6002");
    expect(r.stats.peerBytes + r.stats.localBytes).toBe(0);
  });

  it("is never applied", () => {
    const r = runCmds([
      { kind: "copy", src: bufAddr(0), dst: bufAddr(1, 6 * KiB), bytes: 4 * KiB },
    ]);
    expect(codes(r)).toContain("DMAC6002");
    expect(untouched(r, 1)).toBe(true);
  });

  it("a fence into unmapped memory", () => {
    const r = runStream([fence(0x4000_0000, 1), done(0)]);
    expect(codes(r)).toContain("DMAC6002");
    expect(r.diagnostics.find((d) => d.code === "DMAC6002")!.message).toContain("+0x0");
  });
});

describe("hostile streams: misaligned access (DMAC6006)", () => {
  it("a broadcast whose destinations differ in alignment, as the second packet", () => {
    // The encoder does not enforce packet rules (checkPacketRules does, at compile time), so a
    // hand-made stream can carry the bad packet: the executor must not trust it.
    const lead = copy(bufAddr(0), bufAddr(3), 64);
    const bcast: Packet = {
      kind: "copy_broadcast",
      bytes: 64,
      src: bufAddr(0),
      dst1: bufAddr(1),
      dst2: bufAddr(2, 4),
    };
    const r = runStream([lead, bcast, done(0)]);
    expect(codes(r)).toContain("DMAC6006");
    expect(r.diagnostics.find((d) => d.code === "DMAC6006")!.message).toContain(
      `gpu0.sdma14 ${offsetOf([lead])}`,
    );
    expect(r.stats.peerBytes).toBe(64); // only the lead copy moved bytes
  });

  it("a 64-bit atomic on an address that is not 8-byte aligned", () => {
    const bad: Packet = { kind: "atomic", op: "add64", addr: slotAddr(0) + 4, src: 1n };
    const r = runStream([bad, done(0)]);
    expect(codes(r)).toContain("DMAC6006");
    expect(r.diagnostics.find((d) => d.code === "DMAC6006")!.message).toContain("+0x0");
  });

  it("is never applied", () => {
    const r = runCmds([{ kind: "swap", a: bufAddr(0, 4), b: bufAddr(1, 4), bytes: 64 }]);
    expect(codes(r)).toContain("DMAC6006");
    expect(untouched(r, 0)).toBe(true);
    expect(untouched(r, 1)).toBe(true);
  });
});

describe("hostile streams: a write into the queue's own ring (DMAC6009)", () => {
  it("is reported and never applied", () => {
    const r = runCmds([{ kind: "copy", src: bufAddr(0), dst: bufAddr(1), bytes: 64 }], {
      addr: bufAddr(1),
      bytes: 4096,
    });
    expect(codes(r)).toContain("DMAC6009");
    expect(r.diagnostics.find((d) => d.code === "DMAC6009")!.message).toContain("gpu0.sdma14");
    expect(untouched(r, 1)).toBe(true);
  });
});

describe("hostile streams: a poll on an unmapped word (DMAC6010)", () => {
  it("is reported with the packet's offset, and the queue does not run past it", () => {
    const lead = copy(bufAddr(0), bufAddr(2), 64);
    const r = runStream([lead, poll(0x5000, 1), copy(bufAddr(0), bufAddr(1), 64), done(0)]);
    expect(codes(r)).toContain("DMAC6010");
    expect(r.diagnostics.find((d) => d.code === "DMAC6010")!.message).toContain(
      `gpu0.sdma14 ${offsetOf([lead])}`,
    );
    expect(r.stats.peerBytes).toBe(64); // the copy after the bad poll never ran
    expect(r.verified).toBe(false);
  });
});

describe("hostile streams: garbage", () => {
  it("random dwords after a valid packet are a malformed packet, never a crash", () => {
    const r = runStream([copy(bufAddr(0), bufAddr(2), 64), done(0)], (w) => {
      w[0] = 0xdeadbeef;
    });
    expect(codes(r)).toContain("DMAC6007");
    expect(r.diagnostics.find((d) => d.code === "DMAC6007")!.message).toContain("+0x0");
  });

  it("a completion slot address is not a buffer: copying onto it is rejected", () => {
    const r = runStream([copy(bufAddr(0), slotAddr(0), 64), done(0)]);
    expect(r.verified).toBe(false);
    expect(r.diagnostics.length).toBeGreaterThan(0);
  });
});

describe("hostile streams: reserved bits (DMAC6007)", () => {
  it("a COPY_SWAP with address bits 5:0 set is reported at its offset and not run", () => {
    const first = copy(bufAddr(0), bufAddr(2), 64);
    const swap: Packet = { kind: "copy_swap", a: bufAddr(0, 256), b: bufAddr(1, 256), bytes: 64 };
    const clean = runStream([first, swap, done(0)]);
    expect(codes(clean)).toEqual([]);
    const at = encodePackets([first]).length;
    const words = encodePackets([swap]);
    const lo = words.findIndex((w) => w >>> 0 === bufAddr(0, 256) >>> 0);
    expect(lo).toBeGreaterThan(0);
    const r = runStream(
      [first, swap, done(0)],
      (w) => void (w[at + lo] = (w[at + lo]! | 0x8) >>> 0),
    );
    expect(codes(r)).toContain("DMAC6007");
    const d = r.diagnostics.find((x) => x.code === "DMAC6007")!;
    expect(d.message).toContain(`gpu0.sdma14 ${offsetOf([first])}`);
    expect(d.message).toMatch(/COPY_SWAP: reserved bits set/);
    // Not run: neither side of the swap was written.
    expect(r.verified).toBe(false);
    expect(r.stats.packets).toBeLessThan(clean.stats.packets);
  });
});
