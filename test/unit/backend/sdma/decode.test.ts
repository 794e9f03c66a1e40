// Decoding streams dmac did not write: unknown opcodes, truncation, reserved bits, huge addresses,
// with exact byte offsets.

import { describe, expect, it } from "vitest";
import { decodePacketAt, decodeStream } from "../../../../src/backend/sdma/decode.js";
import { encodePacket } from "../../../../src/backend/sdma/encode.js";

const COPY = encodePacket({
  kind: "copy_linear",
  bytes: 512,
  src: 0x1_0000_1000,
  dst: 0x1_0000_2000,
});

describe("decodeStream", () => {
  it("reports an unknown opcode at its offset and resumes at the next dword; a truncated tail at its header", () => {
    const words = [...COPY, 0x00000003, 0x00000000, ...COPY.slice(0, 3)];
    const { packets, problems } = decodeStream(words);
    expect(problems).toEqual([
      { offset: 28, code: "DMAC4101", detail: "unknown opcode 3" },
      { offset: 36, code: "DMAC4102", detail: "truncated COPY_LINEAR: needs 7 dwords, 3 left" },
    ]);
    expect(packets.map((e) => [e.offset, e.packet.kind, e.words])).toEqual([
      [0, "copy_linear", 7],
      [28, "unknown", 1],
      [32, "nop", 1],
      [36, "unknown", 1],
      [40, "unknown", 1],
      [44, "unknown", 1],
    ]);
    expect(packets[1]!.packet).toEqual({ kind: "unknown", word: 3 });
  });

  it("names unsupported and unknown sub-opcodes", () => {
    const { problems } = decodeStream([0x00000101, 0x00000201, 0xf000000e, 0x000000ff, 0x00000106]);
    expect(problems.map((p) => [p.offset, p.detail])).toEqual([
      [0, "unsupported packet COPY_TILED (opcode 1, sub-opcode 1)"],
      [4, "unknown sub-opcode 2 of opcode 1 (COPY)"],
      [8, "unsupported packet SRBM_WRITE (opcode 14)"],
      [12, "unknown opcode 255"],
      [16, "unknown sub-opcode 1 of opcode 6 (TRAP)"],
    ]);
    expect(problems.every((p) => p.code === "DMAC4101")).toBe(true);
  });

  it("a NOP or WRITE whose length runs past the end is truncated; so is one whose length dword is missing", () => {
    expect(decodeStream([0, 0x00050000, 0, 0]).problems).toEqual([
      { offset: 4, code: "DMAC4102", detail: "truncated NOP: needs 6 dwords, 3 left" },
    ]);
    expect(decodeStream([0x00000002, 0x1000]).problems).toEqual([
      {
        offset: 0,
        code: "DMAC4102",
        detail: "truncated WRITE_LINEAR: needs its length dword, 2 left",
      },
    ]);
    expect(decodeStream([0x00000002, 0x1000, 0, 1, 5]).problems[0]!.detail).toBe(
      "truncated WRITE_LINEAR: needs 6 dwords, 5 left",
    );
  });

  it("reports reserved bits (DMAC4103) and still decodes the packet, without the reserved bits", () => {
    const words = [...COPY];
    words[2] = 0x00400000; // dst_ha, undocumented: reserved for dmac
    words[0] = 0x10000001; // header bit 28
    const { packets, problems } = decodeStream([0, ...words]);
    expect(problems).toEqual([
      {
        offset: 4,
        code: "DMAC4103",
        detail: "COPY_LINEAR: reserved bits set in DW0 0x10000000, DW2 0x00400000",
      },
    ]);
    expect(packets[1]!.packet).toEqual({
      kind: "copy_linear",
      bytes: 512,
      src: 0x1_0000_1000,
      dst: 0x1_0000_2000,
    });
  });

  it("reports low address bits below a field start and reserved enum values as DMAC4103", () => {
    const { packets, problems } = decodeStream([0x0000020d, 0x1007, 0, 0x7000000b, 0, 0, 0, 3]);
    expect(problems).toEqual([
      {
        offset: 0,
        code: "DMAC4103",
        detail: "TIMESTAMP_GET_GLOBAL: reserved bits set in DW1 0x00000007",
      },
      { offset: 12, code: "DMAC4103", detail: "CONST_FILL: reserved bits set in DW0 0x30000000" },
      {
        offset: 12,
        code: "DMAC4103",
        detail: "CONST_FILL: fillSize = 1 is not a value the reference defines",
      },
    ]);
    expect(packets[0]!.packet).toEqual({ kind: "timestamp_get_global", addr: 0x1000 });
    expect(packets[1]!.packet).toMatchObject({
      kind: "constant_fill",
      fillSize: "size1",
      bytes: 4,
    });
  });

  it("reports an address above 2^53 as DMAC4104", () => {
    const { problems } = decodeStream([0x00000005, 0x10, 0xffff8000, 1]);
    expect(problems).toEqual([
      {
        offset: 0,
        code: "DMAC4104",
        detail: "FENCE: addr high dword 0xffff8000 puts it above 2^53",
      },
    ]);
  });

  it("accepts an empty stream", () => {
    expect(decodeStream(new Uint32Array(0))).toEqual({ packets: [], problems: [] });
  });
});

describe("decodePacketAt", () => {
  it("decodes the packet at a dword index", () => {
    const r = decodePacketAt([0, ...COPY], 1);
    expect(r).toEqual({
      ok: true,
      words: 7,
      suspicious: false,
      packet: { kind: "copy_linear", bytes: 512, src: 0x1_0000_1000, dst: 0x1_0000_2000 },
    });
  });
  it("returns the problem for an unknown or truncated packet", () => {
    expect(decodePacketAt([3], 0)).toEqual({
      ok: false,
      code: "DMAC4101",
      detail: "unknown opcode 3",
    });
    expect(decodePacketAt(COPY.slice(0, 6), 0)).toMatchObject({ ok: false, code: "DMAC4102" });
  });
});
