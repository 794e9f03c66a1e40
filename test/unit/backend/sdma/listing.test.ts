// Annotated listings (src/backend/sdma/listing.ts, symbols.ts): address names, the self-checks,
// source lines above the packets of each statement, sizes, the header.

import { describe, expect, it } from "vitest";
import { disassemble } from "../../../../src/backend/sdma/disasm.js";
import { encodePackets } from "../../../../src/backend/sdma/encode.js";
import {
  listingHeader,
  makeListing,
  packetNotes,
  QueueAnnotator,
  type ListingContext,
} from "../../../../src/backend/sdma/listing.js";
import type { ManifestMemory } from "../../../../src/backend/sdma/manifest.js";
import { PackedRowsBuilder } from "../../../../src/backend/sdma/packed-rows.js";
import type { Packet } from "../../../../src/backend/sdma/packets.js";
import { PACKET_NAME, PACKETS } from "../../../../src/backend/sdma/packets.js";

const BUF0 = 0x7000_0000_0000;
const BUF3 = 0x70c0_0000_0000;
const SIG = 0x7000_0010_0000;
const SYNC = 0x7000_0010_0040;
const COMPLETION = 0x6f00_0000_0040;
const TS = 0x6f00_0000_1000;
const TRIGGER = 0x6f00_0000_0000;

const MEMORY: ManifestMemory = {
  regions: [],
  buffers: [
    { name: "buf", id: 0, gpu: 0, address: BUF0, size: 1 << 20 },
    { name: "buf", id: 0, gpu: 3, address: BUF3, size: 1 << 20 },
  ],
  signals: [{ name: "ready", id: 0, gpu: 0, address: SIG }],
  syncWords: [
    {
      id: 0,
      kind: "progress",
      gpu: 0,
      address: SYNC,
      producer: "gpu3.sdma2",
      consumer: "gpu0.sdma4",
    },
  ],
  completionSignals: { base: COMPLETION, stride: 64, count: 4 },
  timestampSlots: { base: TS, stride: 32, count: 2 },
};

const SOURCE = ["schedule s() {", "  copy buf@0 -> buf@3", "  notify ready@0", "}"];

function context(over: Partial<ListingContext> = {}): ListingContext {
  return {
    memory: MEMORY,
    trigger: { address: TRIGGER, value: 1 },
    sourceFile: "s.dmac",
    stmts: [
      { line: 2, col: 3 },
      { line: 3, col: 3 },
    ],
    sourceLine: (n) => SOURCE[n - 1],
    ...over,
  };
}

const listing = makeListing(context());
const notes = (p: Packet): ReturnType<typeof packetNotes> => packetNotes(listing, p);

describe("address names", () => {
  const name = (a: number): string | undefined => {
    const s = listing.symbols.resolve(a);
    return s && (s.offset === 0 ? s.base : `${s.base}+0x${s.offset.toString(16)}`);
  };
  it("names buffers by rank and offset, words, slots and the trigger", () => {
    expect(name(BUF0)).toBe("buf@0");
    expect(name(BUF3 + 0x40)).toBe("buf@3+0x40");
    expect(name(BUF3 + (1 << 20) - 1)).toBe("buf@3+0xfffff");
    expect(name(SIG)).toBe("ready@0");
    expect(name(SYNC)).toBe("sync0");
    expect(name(COMPLETION + 64 * 3)).toBe("completion[3]");
    expect(name(COMPLETION + 64 * 3 + 4)).toBe("completion[3]+0x4");
    expect(name(TS + 32)).toBe("timestamp[1]");
    expect(name(TRIGGER)).toBe("trigger");
  });
  it("names nothing past an end, between slots or outside every area", () => {
    expect(name(BUF3 + (1 << 20))).toBeUndefined();
    expect(name(SIG + 4)).toBeUndefined();
    expect(name(COMPLETION + 8)).toBeUndefined();
    expect(name(COMPLETION + 64 * 4)).toBeUndefined();
    expect(name(0x1000)).toBeUndefined();
  });
});

describe("self-checks", () => {
  it("a copy inside its buffers: names, no warning", () => {
    expect(notes({ kind: "copy_linear", bytes: 4096, src: BUF0 + 0x1000, dst: BUF3 })).toEqual({
      symbols: { src: "buf@0+0x1000", dst: "buf@3" },
      warnings: [],
    });
  });
  it("a count that runs past the end of the buffer", () => {
    const p: Packet = { kind: "copy_linear", bytes: 8192, src: BUF0 + 0xff000, dst: BUF3 };
    expect(notes(p).warnings).toEqual(["src runs 4 KiB past the end of buf@0 (1 MiB)"]);
  });
  it("a data address in no buffer, or on a word", () => {
    const p: Packet = { kind: "copy_broadcast", bytes: 64, src: 0x1000, dst1: BUF3, dst2: SIG };
    expect(notes(p).warnings).toEqual([
      "src 0x1000 is in no buffer",
      "dst2 is ready@0, not a buffer",
    ]);
  });
  const poll = (addr: number): Packet => ({
    kind: "poll_mem",
    addr,
    value: 1,
    mask: 0xffffffff,
    func: "ge",
    interval: 4,
    retryCount: 0xfff,
  });
  it("a poll on a word the program does not name, or on buffer data", () => {
    expect(notes(poll(SYNC)).warnings).toEqual([]);
    expect(notes(poll(TRIGGER)).warnings).toEqual([]);
    expect(notes(poll(0x2000)).warnings).toEqual([
      "polls 0x2000, a word the program does not name",
    ]);
    expect(notes(poll(BUF0 + 8)).warnings).toEqual([
      "polls buf@0+0x8, not a signal, sync or completion word",
    ]);
  });
  it("a 64-bit atomic on a 32-bit word; a completion slot is 64-bit", () => {
    const add = (addr: number): Packet => ({ kind: "atomic", op: "add64", addr, src: 1n });
    expect(notes(add(SIG)).warnings).toEqual(["64-bit add64 on the 32-bit word ready@0"]);
    expect(notes(add(COMPLETION)).warnings).toEqual([]);
    expect(notes({ kind: "fence", addr: 0x40, data: 1 }).warnings).toEqual([
      "writes 0x40, a word the program does not name",
    ]);
  });
  it("a timestamp outside the timestamp slots", () => {
    expect(notes({ kind: "timestamp_get_global", addr: TS }).warnings).toEqual([]);
    expect(notes({ kind: "timestamp_get", addr: COMPLETION }).warnings).toEqual([
      `writes 0x${COMPLETION.toString(16)}, not a timestamp slot`,
    ]);
  });
});

/** Source-map rows [byteOffset, stmt, ...ops]. */
function rows(...r: number[][]): ReturnType<PackedRowsBuilder["done"]> {
  const b = new PackedRowsBuilder();
  for (const row of r) {
    b.startRow();
    for (const v of row) b.value(v);
  }
  return b.done();
}

const STREAM: Packet[] = [
  {
    kind: "poll_mem",
    addr: TRIGGER,
    value: 1,
    mask: 0xffffffff,
    func: "ge",
    interval: 4,
    retryCount: 0xfff,
  },
  { kind: "copy_linear", bytes: 1 << 19, src: BUF0, dst: BUF3 },
  { kind: "copy_linear", bytes: 1 << 19, src: BUF0 + (1 << 19), dst: BUF3 + (1 << 19) },
  { kind: "atomic", op: "add32", addr: SIG, src: 1n },
  { kind: "atomic", op: "add64", addr: COMPLETION + 64, src: 0xffff_ffff_ffff_ffffn },
];
const ROWS = rows([24, 0, 0], [52, 0, 1], [80, 1, 2], [112, 0, 0, 1]);

describe("the annotated listing", () => {
  it("prints each statement's line once above its packets, names, sizes", () => {
    const text = disassemble(encodePackets(STREAM), {
      hooks: new QueueAnnotator(listing, ROWS),
      dwordsPerLine: 2,
    });
    expect("\n" + text).toBe(`
00000000  d0000008 00000000  POLL_REGMEM  func=ge addr=trigger value=0x1 mask=0xffffffff interval=4 retryCount=0xfff
00000008  00006f00 00000001
00000010  ffffffff 0fff0004
; 2: copy buf@0 -> buf@3
00000018  00000001 0007ffff  COPY_LINEAR  bytes=512 KiB src=buf@0 dst=buf@3
00000020  00000000 00000000
00000028  00007000 00000000
00000030  000070c0
00000034  00000001 0007ffff  COPY_LINEAR  bytes=512 KiB src=buf@0+0x80000 dst=buf@3+0x80000
0000003c  00000000 00080000
00000044  00007000 00080000
0000004c  000070c0
; 3: notify ready@0
00000050  1e00000a 00100000  ATOMIC  op=add32 addr=ready@0 src=0x1
00000058  00007000 00000001
00000060  00000000 00000000
00000068  00000000 00000000
; 2: copy buf@0 -> buf@3
00000070  5e00000a 00000080  ATOMIC  op=add64 addr=completion[1] src=0xffffffffffffffff
00000078  00006f00 ffffffff
00000080  ffffffff 00000000
00000088  00000000 00000000
`);
  });

  it("prints line numbers alone without the source, and warnings at the end of the line", () => {
    const bare = makeListing(context({ sourceLine: undefined }));
    const words = encodePackets([{ kind: "copy_linear", bytes: 64, src: 0x10, dst: BUF3 }]);
    expect(disassemble(words, { hooks: new QueueAnnotator(bare, rows([0, 0, 0])) })).toBe(
      "; 2\n00000000  00000001 0000003f 00000000 00000010 00000000 00000000 000070c0  COPY_LINEAR  bytes=64 B src=0x10 dst=buf@3  ; warning: src 0x10 is in no buffer\n",
    );
  });

  it("is the plain listing without hooks", () => {
    const words = encodePackets(STREAM);
    expect(disassemble(words)).not.toContain("buf@");
    expect(disassemble(words)).toContain("bytes=524288 src=0x700000000000");
  });

  it("has a header naming every area with its address", () => {
    expect(listingHeader(makeListing(context({ sourceNote: "not found" })))).toBe(
      [
        "# source: s.dmac (not found)",
        "# buffer buf@0 at 0x700000000000, 1 MiB",
        "# buffer buf@3 at 0x70c000000000, 1 MiB",
        "# signal ready@0 at 0x700000100000, count: stores k",
        "# sync0 at 0x700000100040: progress gpu3.sdma2 -> gpu0.sdma4",
        "# completion[0..3] at 0x6f0000000040, 64 B apart",
        "# timestamp[0..1] at 0x6f0000001000, 32 B apart",
        "# trigger at 0x6f0000000000, released by 1",
        "",
        "",
      ].join("\n"),
    );
  });
});

describe("one name per packet kind", () => {
  it("is the table's, AMD's: both POLL_REGMEM forms share it", () => {
    expect(PACKET_NAME.poll_mem).toBe("POLL_REGMEM");
    expect(PACKET_NAME.poll_reg).toBe("POLL_REGMEM");
    for (const s of PACKETS) expect(PACKET_NAME[s.kind]).toBe(s.mnemonic);
  });
});

describe("host memory and breadcrumbs", () => {
  const HOST_BUF = 0x6f00_0000_2000;
  const CRUMB = 0x6f00_0000_1000;
  const memory: ManifestMemory = {
    ...MEMORY,
    // A host buffer's `gpu` is a placeholder (0): its name says host, as the source writes it.
    buffers: [
      ...MEMORY.buffers,
      { name: "staging", id: 1, gpu: 0, address: HOST_BUF, size: 4096, host: true },
    ],
    syncWords: [
      ...MEMORY.syncWords,
      { id: 1, kind: "breadcrumb", gpu: null, address: CRUMB, queue: "gpu0.sdma4" },
    ],
  };
  const l = makeListing(context({ memory }));

  it("names a host buffer staging@host, not by its placeholder rank", () => {
    const s = l.symbols.resolve(HOST_BUF + 0x10);
    expect(s && s.base).toBe("staging@host");
    expect(listingHeader(l)).toContain("# buffer staging@host at 0x6f0000002000, 4 KiB");
  });

  it("says a breadcrumb word is one (not a barrier)", () => {
    expect(listingHeader(l)).toContain("# sync1 at 0x6f0000001000: breadcrumb of gpu0.sdma4");
  });
});
