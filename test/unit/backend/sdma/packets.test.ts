// Hand-checked encodings from the reference (sdma-gfx942.md sections 1.3 and 2), the alignment
// rules, and the validator.

import { describe, expect, it } from "vitest";
import { COMPILED, COMPILED_BY_KIND } from "../../../../src/backend/sdma/bitfield.js";
import { decodePacketAt } from "../../../../src/backend/sdma/decode.js";
import {
  encodePacket,
  encodePackets,
  validatePacket,
} from "../../../../src/backend/sdma/encode.js";
import {
  checkPacketRules,
  packetRuleViolations,
} from "../../../../src/backend/sdma/packet-rules.js";
import {
  ATOMIC_OP,
  MTYPE_UC,
  packetDwords,
  PACKETS,
  POLL_RETRY_FOREVER,
  type Packet,
} from "../../../../src/backend/sdma/packets.js";
import { InternalError } from "../../../../src/util/internal-error.js";
import { KINDS, prng, randomPacket } from "./random-packets.js";

const header = (p: Packet): number => encodePacket(p)[0]!;
const ROCR_POLL = {
  value: 0,
  mask: 0xffffffff,
  func: "eq",
  interval: 4,
  retryCount: 0xfff,
} as const;

describe("section 1.3 header constants", () => {
  const cases: [string, Packet, number][] = [
    ["NOP, 1 dword", { kind: "nop", dwords: 1 }, 0x00000000],
    ["NOP spanning 4 dwords", { kind: "nop", dwords: 4 }, 0x00030000],
    ["COPY_LINEAR", { kind: "copy_linear", bytes: 1, src: 0, dst: 0 }, 0x00000001],
    [
      "COPY_LINEAR broadcast",
      { kind: "copy_broadcast", bytes: 1, src: 0, dst1: 0, dst2: 0 },
      0x08000001,
    ],
    ["WRITE linear", { kind: "write_linear", dst: 0, data: [0] }, 0x00000002],
    [
      "INDIRECT with VMID 5",
      { kind: "indirect_buffer", vmid: 5, base: 0, sizeDwords: 8 },
      0x00050004,
    ],
    ["FENCE", { kind: "fence", addr: 0, data: 0 }, 0x00000005],
    ["FENCE mtype UC", { kind: "fence", addr: 0, data: 0, mtype: MTYPE_UC }, 0x00030005],
    ["TRAP", { kind: "trap", intContext: 0 }, 0x00000006],
    ["SEM MEM_INCR", { kind: "sem_mem_incr", addr: 0 }, 0x00000107],
    ["POLL_REGMEM memory ==", { kind: "poll_mem", addr: 0, ...ROCR_POLL }, 0xb0000008],
    [
      "POLL_REGMEM register == HDP",
      { kind: "poll_reg", reg: 0, reqReg: 0, ...ROCR_POLL, hdpFlush: true },
      0x34000008,
    ],
    ["ATOMIC ADD64", { kind: "atomic", op: "add64", addr: 0, src: 0n }, 0x5e00000a],
    [
      "CONST_FILL dword",
      { kind: "constant_fill", fillSize: "dword", dst: 0, data: 0, bytes: 4 },
      0x8000000b,
    ],
    [
      "CONST_FILL byte (kernel)",
      { kind: "constant_fill", fillSize: "byte", dst: 0, data: 0, bytes: 1 },
      0x0000000b,
    ],
    ["TIMESTAMP SET", { kind: "timestamp_set", value: 0n }, 0x0000000d],
    ["TIMESTAMP GET", { kind: "timestamp_get", addr: 0 }, 0x0000010d],
    ["TIMESTAMP GET_GLOBAL", { kind: "timestamp_get_global", addr: 0 }, 0x0000020d],
    ["COPY_SWAP", { kind: "copy_swap", bytes: 64, a: 0, b: 64 }, 0x00000901],
    ["COND_EXE", { kind: "cond_exe", addr: 0, reference: 1, execCount: 7 }, 0x00000009],
  ];
  for (const [name, p, h] of cases)
    it(`${name} = 0x${h.toString(16).padStart(8, "0")}`, () => expect(header(p)).toBe(h));
});

describe("hand-checked packets", () => {
  it("COPY_LINEAR of 512 bytes: DW1 = 0x1FF, split addresses", () => {
    expect(
      encodePacket({ kind: "copy_linear", bytes: 512, src: 0x1_0000_1000, dst: 0x1_0000_2000 }),
    ).toEqual([0x00000001, 0x000001ff, 0, 0x00001000, 0x00000001, 0x00002000, 0x00000001]);
  });
  it("COPY count is the 30-bit count_ext view: 1 GiB is DW1 0x3FFFFFFF, 1 GiB + 1 is rejected", () => {
    expect(encodePacket({ kind: "copy_linear", bytes: 2 ** 30, src: 0, dst: 0 })[1]).toBe(
      0x3fffffff,
    );
    expect(() => encodePacket({ kind: "copy_linear", bytes: 2 ** 30 + 1, src: 0, dst: 0 })).toThrow(
      InternalError,
    );
    expect(() => encodePacket({ kind: "copy_linear", bytes: 0, src: 0, dst: 0 })).toThrow(
      /bytes = 0 is outside 1\.\.1073741824/,
    );
  });
  it("broadcast: 9 dwords, dst1 then dst2", () => {
    expect(
      encodePacket({
        kind: "copy_broadcast",
        bytes: 64,
        src: 0x1000,
        dst1: 0x2_0000_0020,
        dst2: 0x3_0000_0020,
      }),
    ).toEqual([0x08000001, 63, 0, 0x1000, 0, 0x20, 2, 0x20, 3]);
  });
  it("ROCr's poll: DW0 0xB0000008, DW5 0x0FFF0004 for interval 4 retry 0xFFF", () => {
    const w = encodePacket({
      kind: "poll_mem",
      addr: 0x7f00_1234_5678,
      ...ROCR_POLL,
      retryCount: POLL_RETRY_FOREVER,
    });
    expect(w).toEqual([0xb0000008, 0x12345678, 0x7f00, 0, 0xffffffff, 0x0fff0004]);
  });
  it("every compare function has its code in DW0 30:28", () => {
    const funcs = ["always", "lt", "le", "eq", "ne", "ge", "gt"] as const;
    funcs.forEach((func, code) =>
      expect(header({ kind: "poll_mem", addr: 0, ...ROCR_POLL, func })).toBe(
        (0x80000008 | (code << 28)) >>> 0,
      ),
    );
  });
  it("ROCr's HDP flush (0x8, 0, 0x80000000, 0, 0, 0) is a register-form poll and round-trips", () => {
    const words = [0x00000008, 0, 0x80000000, 0, 0, 0];
    const r = decodePacketAt(words, 0);
    expect(r).toMatchObject({ ok: true, suspicious: false, words: 6 });
    if (!r.ok) return;
    expect(r.packet).toEqual({
      kind: "poll_reg",
      func: "always",
      reg: 0,
      reqReg: 0x80000000,
      value: 0,
      mask: 0,
      interval: 0,
      retryCount: 0,
    });
    expect(encodePacket(r.packet)).toEqual(words);
  });
  it("ROCr's atomic decrement: ADD64 of 0xFFFF_FFFF_FFFF_FFFF, header 0x5E00000A", () => {
    expect(
      encodePacket({
        kind: "atomic",
        op: "add64",
        addr: 0x7f00_0000_1008,
        src: 0xffff_ffff_ffff_ffffn,
      }),
    ).toEqual([0x5e00000a, 0x00001008, 0x7f00, 0xffffffff, 0xffffffff, 0, 0, 0]);
  });
  it("atomic_op codes: the TC_OP numbers of section 2.13", () => {
    expect(ATOMIC_OP.names.indexOf("add64")).toBe(47);
    expect(ATOMIC_OP.names.indexOf("swap64")).toBe(0x27);
    expect(ATOMIC_OP.names.indexOf("cmpswap64")).toBe(0x28);
    expect(ATOMIC_OP.names.indexOf("dec64")).toBe(0x39);
    expect(ATOMIC_OP.names.indexOf("add32")).toBe(0x0f);
    expect(ATOMIC_OP.names.indexOf("dec32")).toBe(0x19);
    expect(header({ kind: "atomic", op: "cmpswap32", addr: 0, src: 0n, loop: true })).toBe(
      ((0x08 << 25) | 0x1000a) >>> 0,
    );
  });
  it("FENCE: 4 dwords, mtype 3 gives 0x00030005", () => {
    expect(encodePacket({ kind: "fence", addr: 0x2000, data: 0xdeadbeef, mtype: 3 })).toEqual([
      0x00030005, 0x2000, 0, 0xdeadbeef,
    ]);
  });
  it("NOP of 4 dwords is the header and 3 zero dwords; the longest is 0x4000 dwords", () => {
    expect(encodePacket({ kind: "nop", dwords: 4 })).toEqual([0x00030000, 0, 0, 0]);
    expect(encodePacket({ kind: "nop", dwords: 0x4000 })[0]).toBe(0x3fff0000);
    expect(() => encodePacket({ kind: "nop", dwords: 0x4001 })).toThrow(InternalError);
  });
  it("WRITE linear: count = N - 1 in DW3, data follows", () => {
    expect(
      encodePacket({ kind: "write_linear", dst: 0x1_0000_0004, data: [7, 0xffffffff] }),
    ).toEqual([2, 4, 1, 1, 7, 0xffffffff]);
  });
  it("CONST_FILL: count = bytes - 1 in DW4, pattern in DW3", () => {
    expect(
      encodePacket({
        kind: "constant_fill",
        fillSize: "dword",
        dst: 0x1000,
        data: 0xa5a5a5a5,
        bytes: 4096,
      }),
    ).toEqual([0x8000000b, 0x1000, 0, 0xa5a5a5a5, 4095]);
  });
  it("TIMESTAMP GET_GLOBAL: address bits 2:0 are reserved (zero), so a misaligned slot cannot be encoded", () => {
    expect(encodePacket({ kind: "timestamp_get_global", addr: 0x1_0000_0020 })).toEqual([
      0x20d, 0x20, 1,
    ]);
    expect(validatePacket({ kind: "timestamp_get_global", addr: 0x1004 })).toEqual([
      "timestamp_get_global.addr = 0x1004: bits 2:0 are reserved (needs 8-byte alignment)",
    ]);
  });
  it("COPY_SWAP addresses: bits 5:0 reserved", () => {
    expect(validatePacket({ kind: "copy_swap", bytes: 64, a: 0x1020, b: 0 })).toHaveLength(1);
  });
  it("TRAP: 28-bit int_context", () => {
    expect(encodePacket({ kind: "trap", intContext: 0xfffffff })).toEqual([6, 0xfffffff]);
    expect(() => encodePacket({ kind: "trap", intContext: 0x10000000 })).toThrow(InternalError);
  });
  it("INDIRECT_BUFFER: ib_size is dwords, not minus 1", () => {
    expect(
      encodePacket({
        kind: "indirect_buffer",
        vmid: 0,
        base: 0x4000,
        sizeDwords: 16,
        csa: 0x1_0000_0000,
      }),
    ).toEqual([4, 0x4000, 0, 16, 0, 1]);
  });
  it("packetDwords agrees with the encoder", () => {
    const rand = prng(3);
    for (const kind of KINDS)
      for (let n = 0; n < 20; n++) {
        const p = randomPacket(rand, kind);
        expect(encodePacket(p)).toHaveLength(packetDwords(p));
      }
  });
});

describe("validatePacket and the encoder's fast check agree", () => {
  it("rejects missing, mistyped, out-of-range and unknown fields", () => {
    expect(validatePacket({ kind: "copy_linear", bytes: 8, src: 0 } as unknown as Packet)).toEqual([
      "copy_linear.dst is missing",
    ]);
    expect(
      validatePacket({
        kind: "copy_linear",
        bytes: 8,
        src: 0,
        dst: 0,
        tmZ: true,
      } as unknown as Packet),
    ).toEqual(["copy_linear has no field 'tmZ'"]);
    expect(
      validatePacket({
        kind: "copy_linear",
        bytes: 8.5,
        src: -1,
        dst: 2 ** 53,
      } as unknown as Packet),
    ).toHaveLength(3);
    expect(
      validatePacket({ kind: "atomic", op: "add65", addr: 0, src: 1 } as unknown as Packet),
    ).toHaveLength(2);
    expect(validatePacket({ kind: "bogus" } as unknown as Packet)).toEqual([
      'unknown packet kind "bogus"',
    ]);
    expect(validatePacket({ kind: "write_linear", dst: 0, data: [] })).toEqual([
      "write_linear.data must be an array of 1..1048576 dwords",
    ]);
  });
  it("for random mutations of valid packets", () => {
    const rand = prng(99);
    const bad: unknown[] = [
      -1,
      2 ** 32,
      0.5,
      "x",
      true,
      2n ** 64n,
      -1n,
      undefined,
      [],
      [2 ** 32],
      2 ** 53,
    ];
    let rejected = 0;
    for (const kind of KINDS) {
      const c = COMPILED_BY_KIND[kind];
      for (let n = 0; n < 200; n++) {
        const p = randomPacket(rand, kind) as unknown as Record<string, unknown>;
        const f = c.fields[Math.floor(rand() * c.fields.length)]!;
        p[f.name] = bad[Math.floor(rand() * bad.length)];
        const problems = validatePacket(p as unknown as Packet);
        expect(c.valid(p as unknown as Packet)).toBe(problems.length === 0);
        if (problems.length > 0) {
          rejected++;
          expect(() => encodePackets([p as unknown as Packet])).toThrow(InternalError);
        }
      }
    }
    expect(rejected).toBeGreaterThan(1000);
  });
});

describe("the table", () => {
  it("compiles: every kind has one entry, headers are unique, every fixed dword is fully described", () => {
    expect(new Set(PACKETS.map((s) => s.kind)).size).toBe(PACKETS.length);
    expect(COMPILED).toHaveLength(PACKETS.length);
    const copy = COMPILED_BY_KIND.copy_linear;
    expect(copy.reserved).toEqual([
      ~(0xffff | (1 << 16) | (1 << 18) | (1 << 27)) >>> 0,
      0xc0000000,
      ~0x03030000 >>> 0,
      0,
      0,
      0,
      0,
    ]);
    expect(COMPILED_BY_KIND.trap.reserved).toEqual([0xffff0000, 0xf0000000]);
  });
});

describe("checkPacketRules", () => {
  it("passes aligned packets", () => {
    expect(
      checkPacketRules({ kind: "copy_broadcast", bytes: 8, src: 0, dst1: 0x1003, dst2: 0x2023 }),
    ).toEqual([]);
    expect(checkPacketRules({ kind: "timestamp_get", addr: 0x40 })).toEqual([]);
    expect(checkPacketRules({ kind: "atomic", op: "add32", addr: 0x44, src: 1n })).toEqual([]);
  });
  it("reports each rule with its code", () => {
    expect(
      checkPacketRules({ kind: "copy_broadcast", bytes: 8, src: 0, dst1: 0x1000, dst2: 0x2010 }),
    ).toEqual([
      "DMAC4001: broadcast destinations 0x1000 and 0x2010 differ in their low 5 address bits",
    ]);
    expect(checkPacketRules({ kind: "copy_swap", bytes: 64, a: 0x1000, b: 0x2020 })).toEqual([
      "DMAC4002: swap address 0x2020 is not 64-byte aligned",
    ]);
    expect(checkPacketRules({ kind: "timestamp_get_global", addr: 0x1008 })).toEqual([
      "DMAC4003: timestamp slot 0x1008 is not 32-byte aligned",
    ]);
    expect(checkPacketRules({ kind: "poll_mem", addr: 0x1002, ...ROCR_POLL })).toEqual([
      "DMAC4004: POLL_REGMEM address 0x1002 is not dword aligned",
    ]);
    expect(checkPacketRules({ kind: "fence", addr: 0x1001, data: 0 })).toEqual([
      "DMAC4004: FENCE address 0x1001 is not dword aligned",
    ]);
    expect(checkPacketRules({ kind: "atomic", op: "add64", addr: 0x1004, src: 1n })).toEqual([
      "DMAC4007: ATOMIC add64 address 0x1004 is not 8-byte aligned",
    ]);
    expect(packetRuleViolations({ kind: "sem_mem_incr", addr: 4 })).toEqual([
      { code: "DMAC4007", args: ["SEM_MEM_INCR", "0x4", 8] },
    ]);
    expect(
      packetRuleViolations({ kind: "indirect_buffer", vmid: 0, base: 0x10, sizeDwords: 8 }),
    ).toEqual([{ code: "DMAC4007", args: ["INDIRECT_BUFFER", "0x10", 32] }]);
  });
});
