// The listing format: offsets, raw dwords, mnemonics, fields, wrapping, unknown and truncated dwords.

import { describe, expect, it } from "vitest";
import {
  disassemble,
  disassembleInto,
  formatPacket,
  TextSink,
} from "../../../../src/backend/sdma/disasm.js";
import { encodePackets } from "../../../../src/backend/sdma/encode.js";
import type { Packet } from "../../../../src/backend/sdma/packets.js";

const STREAM: Packet[] = [
  { kind: "copy_linear", bytes: 512, src: 0x1_0000_1000, dst: 0x1_0000_2000 },
  {
    kind: "copy_broadcast",
    bytes: 4096,
    src: 0x1000,
    dst1: 0x2_0000_0020,
    dst2: 0x3_0000_0020,
    tmz: true,
  },
  {
    kind: "poll_mem",
    addr: 0x7f00_0000_1004,
    value: 0,
    mask: 0xffffffff,
    func: "eq",
    interval: 4,
    retryCount: 0xfff,
  },
  { kind: "atomic", op: "add64", addr: 0x7f00_0000_1000, src: 0xffff_ffff_ffff_ffffn },
  { kind: "timestamp_get_global", addr: 0x7f00_0000_2000 },
  { kind: "nop", dwords: 2 },
];

describe("disassemble", () => {
  it("prints one line per packet, wrapping long ones, then unknown and truncated dwords", () => {
    const words = [...encodePackets(STREAM), 0x00000003, 0x00000005, 0x1000];
    expect("\n" + disassemble(words)).toBe(`
00000000  00000001 000001ff 00000000 00001000 00000001 00002000 00000001  COPY_LINEAR  bytes=512 src=0x100001000 dst=0x100002000
0000001c  08040001 00000fff 00000000 00001000 00000000 00000020 00000002 00000020  COPY_LINEAR_BROADCAST  tmz=1 bytes=4096 src=0x1000 dst1=0x200000020 dst2=0x300000020
0000003c  00000003
00000040  b0000008 00001004 00007f00 00000000 ffffffff 0fff0004  POLL_REGMEM  func=eq addr=0x7f0000001004 value=0x0 mask=0xffffffff interval=4 retryCount=0xfff
00000058  5e00000a 00001000 00007f00 ffffffff ffffffff 00000000 00000000 00000000  ATOMIC  op=add64 addr=0x7f0000001000 src=0xffffffffffffffff
00000078  0000020d 00002000 00007f00  TIMESTAMP_GET_GLOBAL  addr=0x7f0000002000
00000084  00010000 00000000  NOP  dwords=2
0000008c  00000003  .dword 0x00000003  ; unknown opcode 3
00000090  00000005  .dword 0x00000005  ; truncated FENCE: needs 4 dwords, 2 left
00000094  00001000  .dword 0x00001000  ; part of the truncated packet above
`);
  });

  it("adds the base offset and notes reserved bits on the packet's line", () => {
    expect(disassemble([0x00000006, 0xf0000001], { baseOffset: 0x100 })).toBe(
      "00000100  00000006 f0000001  TRAP  intContext=1  ; DMAC4103 TRAP: reserved bits set in DW1 0xf0000000\n",
    );
  });

  it("prints a huge address exactly from the raw dwords", () => {
    expect(disassemble([0x00000005, 0x11, 0xffff8000, 1])).toBe(
      "00000000  00000005 00000011 ffff8000 00000001  FENCE  addr=0xffff800000000011 data=0x1  ; DMAC4104 FENCE: addr high dword 0xffff8000 puts it above 2^53\n",
    );
  });

  it("shortens long WRITE data in the fields, not in the raw dwords", () => {
    const data = Array.from({ length: 10 }, (_, i) => i);
    const text = disassemble(encodePackets([{ kind: "write_linear", dst: 0x40, data }]));
    expect(text.split("\n")[0]).toBe(
      "00000000  00000002 00000040 00000000 00000009 00000000 00000001 00000002 00000003  WRITE_LINEAR  dst=0x40 data=[0x0,0x1,0x2,0x3,0x4,0x5,0x6,0x7,... 10 dwords]",
    );
    expect(text.split("\n").slice(1)).toEqual([
      "00000020  00000004 00000005 00000006 00000007 00000008 00000009",
      "",
    ]);
  });
});

describe("formatPacket", () => {
  it("is the mnemonic and the fields", () => {
    expect(formatPacket({ kind: "fence", addr: 0x1000, data: 1, mtype: 3 })).toBe(
      "FENCE  mtype=3 addr=0x1000 data=0x1",
    );
    expect(
      formatPacket({ kind: "constant_fill", fillSize: "dword", dst: 0x40, data: 0, bytes: 64 }),
    ).toBe("CONST_FILL  fillSize=dword dst=0x40 data=0x0 bytes=64");
    expect(formatPacket({ kind: "timestamp_set", value: 5n })).toBe("TIMESTAMP_SET  value=0x5");
  });
});

describe("TextSink streaming", () => {
  it("hands out the same bytes in chunks no larger than its buffer (dump.txt is streamed)", () => {
    const words = encodePackets([...STREAM, ...STREAM, ...STREAM]);
    const whole = disassemble(words);
    for (const capacity of [64, 100, 257]) {
      const chunks: Buffer[] = [];
      const sink = new TextSink(capacity, (c) => chunks.push(Buffer.from(c)));
      disassembleInto(sink, words);
      sink.text("tail \u00e9\n");
      sink.end();
      expect(chunks.length).toBeGreaterThan(1);
      for (const c of chunks) expect(c.length).toBeLessThanOrEqual(Math.max(64, capacity));
      expect(Buffer.concat(chunks).toString("utf8")).toBe(whole + "tail \u00e9\n");
    }
  });
});

describe("TextSink.decimal", () => {
  it("writes String(v) for every kind of number", () => {
    const values = [0, 7, 10, 999_999_999, 1e9, 2 ** 31 - 1, 2 ** 31, 2 ** 32, 1e9 * 4096 + 7];
    values.push(0x7000_0000_0000 + 4096 * 3, Number.MAX_SAFE_INTEGER, -1, 1.5, 2 ** 60, NaN);
    let x = 1;
    for (let k = 0; k < 2000; k++) {
      x = (x * 48271) % 2147483647;
      values.push(x * (k % 3 === 0 ? 1 : k % 3 === 1 ? 4093 : 2 ** 21) + (k % 1000));
    }
    const sink = new TextSink(16);
    for (const v of values) {
      sink.decimal(v);
      sink.char(0x2c);
    }
    expect(Buffer.from(sink.bytes()).toString("utf8")).toBe(values.map(String).join(",") + ",");
  });
});
