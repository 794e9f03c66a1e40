// THE table of SDMA packets for gfx942 (SDMA 4.4.2), bit-exact to
// ../shared/reference/sdma-gfx942.md sections 1 and 2. The encoder, decoder, disassembler and the
// executor all read this table; `bitfield.ts` is the only module that shifts packet bits.
//
// Conventions of the Packet values (the contract with the lowering and the executor):
// - Addresses are `number`s: byte addresses 0 <= a < 2^53 (GPU VAs are 48/57-bit; every address
//   dmac lays out is far below 2^53). On the wire they are a low and a high dword. A foreign stream
//   whose address does not fit is decoded (rounded) and reported as DMAC4104.
// - 64-bit data values (ATOMIC operands, TIMESTAMP_SET) are unsigned `bigint`s 0 <= v < 2^64; an
//   atomic add of -1 is `src: 0xFFFF_FFFF_FFFF_FFFFn`.
// - Counts are the human values: `bytes` for copies and fills (the wire field holds bytes - 1),
//   `dwords` for NOP (the whole packet; the wire field holds dwords - 1), `data.length` for WRITE.
//   Fields whose wire value is not the human value say so with `bias` (human = wire + bias).
// - Optional properties (flags, endian swaps, ...) default to 0/false/the first enum value; the
//   decoder omits them when they hold the default, so decode(encode(p)) deep-equals p whenever p
//   omits default-valued optional properties.
// - Every bit of a packet's fixed part that no field (and not op/sub_op/discriminator) claims is
//   reserved-zero: the encoder writes 0 and the decoder reports a set bit as DMAC4103. Reserved
//   low address bits (TIMESTAMP bits 2:0, COPY_SWAP bits 5:0) are part of that rule: the encoder
//   rejects such addresses, the decoder masks the bits off (as the engine's field does).
// - Enums cover their whole bit range; values the reference does not define are named and listed
//   as `reserved` (decoding one reports DMAC4103, encoding one is allowed).
//
// packet-rules.ts states the alignment rules the reference gives per kind (broadcast
// destinations share bits 4:0, swap 64 B, timestamp slots 32 B, poll/fence dword, 64-bit atomics
// and MEM_INCR 8 B, IB base 32 B). They are not encoding constraints: the emitter reports them as
// diagnostics, the executor refuses to run packets that break them.

import { POLL_FUNC_NAMES, type PollFuncName } from "../../target/poll.js";

// ---- Packet values -------------------------------------------------------------------------

/** A byte address below 2^53 (see the header comment). */
export type Addr = number;

/** NOP: `dwords` = whole packet length (1..0x4000); the body dwords are ignored and written 0. */
export interface NopPacket {
  readonly kind: "nop";
  readonly dwords: number;
}

interface CopyFlags {
  readonly tmz?: boolean;
  /** Header bit 16; the reference says write 0. */
  readonly encrypt?: boolean;
  /** Endian swap of the source (0 = none; meanings undocumented, always 0 from dmac). */
  readonly srcSw?: number;
}

export interface CopyLinearPacket extends CopyFlags {
  readonly kind: "copy_linear";
  readonly bytes: number;
  readonly src: Addr;
  readonly dst: Addr;
  readonly dstSw?: number;
}

/** COPY_LINEAR with header bit 27: one source, two destinations (same low 5 address bits). */
export interface CopyBroadcastPacket extends CopyFlags {
  readonly kind: "copy_broadcast";
  readonly bytes: number;
  readonly src: Addr;
  readonly dst1: Addr;
  readonly dst2: Addr;
  readonly dst1Sw?: number;
  readonly dst2Sw?: number;
}

/** COPY_SWAP (sub 9): exchanges `bytes` at `a` and `b` (both 64-byte aligned). */
export interface CopySwapPacket {
  readonly kind: "copy_swap";
  readonly bytes: number;
  readonly a: Addr;
  readonly b: Addr;
  readonly srcSw?: number;
  readonly dstSw?: number;
}

export type FillSize = "byte" | "size1" | "dword" | "size3";

export interface ConstantFillPacket {
  readonly kind: "constant_fill";
  readonly fillSize: FillSize;
  readonly dst: Addr;
  /** The fill pattern (the low byte for a byte fill). */
  readonly data: number;
  readonly bytes: number;
  readonly sw?: number;
}

/** WRITE linear (WRITE_UNTILED): writes `data` (1..2^20 dwords) at `dst`. */
export interface WriteLinearPacket {
  readonly kind: "write_linear";
  readonly dst: Addr;
  readonly data: readonly number[];
  readonly tmz?: boolean;
  readonly encrypt?: boolean;
  readonly sw?: number;
}

/** FENCE: writes the 32-bit `data` at `addr` once all earlier work of the queue is complete. */
export interface FencePacket {
  readonly kind: "fence";
  readonly addr: Addr;
  readonly data: number;
  /** Memory type of the write, 0..7; 3 = UC (MI300 GIM). ROCr on gfx9 writes 0. */
  readonly mtype?: number;
  readonly gcc?: boolean;
  readonly sys?: boolean;
  readonly snp?: boolean;
  readonly gpa?: boolean;
  readonly l2Policy?: number;
}

export interface TrapPacket {
  readonly kind: "trap";
  readonly intContext: number;
}

/** SEM MEM_INCR (op 7, sub 1): increments the 64-bit counter at `addr` (8-byte aligned). */
export interface SemMemIncrPacket {
  readonly kind: "sem_mem_incr";
  readonly addr: Addr;
}

/** A POLL_REGMEM packet's func field: a compare function by name (target/poll.ts), or code 7. */
export type PacketPollFunc = PollFuncName | "reserved7";

interface PollCommon {
  readonly value: number;
  readonly mask: number;
  readonly func: PacketPollFunc;
  /** Delay between retries in units of 16 clocks. */
  readonly interval: number;
  /** 0xFFF = retry forever. */
  readonly retryCount: number;
  readonly hdpFlush?: boolean;
}

/** POLL_REGMEM, memory form (mem_poll = 1): waits until (*addr & mask) func value (32-bit). */
export interface PollMemPacket extends PollCommon {
  readonly kind: "poll_mem";
  readonly addr: Addr;
}

/** POLL_REGMEM, register form (mem_poll = 0): DW1 register byte offset, DW2 the HDP-flush
 * request register byte offset (ROCr's HDP flush writes 0x80000000 there). */
export interface PollRegPacket extends PollCommon {
  readonly kind: "poll_reg";
  readonly reg: number;
  readonly reqReg: number;
}

/** COND_EXE: executes the next `execCount` dwords only if *addr == reference. */
export interface CondExePacket {
  readonly kind: "cond_exe";
  readonly addr: Addr;
  readonly reference: number;
  readonly execCount: number;
}

export type AtomicOp =
  | "swap32"
  | "cmpswap32"
  | "add32"
  | "sub32"
  | "smin32"
  | "umin32"
  | "smax32"
  | "umax32"
  | "and32"
  | "or32"
  | "xor32"
  | "inc32"
  | "dec32"
  | "swap64"
  | "cmpswap64"
  | "add64"
  | "sub64"
  | "smin64"
  | "umin64"
  | "smax64"
  | "umax64"
  | "and64"
  | "or64"
  | "xor64"
  | "inc64"
  | "dec64"
  | `op${number}`;

/** ATOMIC: `op` on the value at `addr` with operand `src` (and `cmp` for compare-swap). */
export interface AtomicPacket {
  readonly kind: "atomic";
  readonly op: AtomicOp;
  readonly addr: Addr;
  readonly src: bigint;
  readonly cmp?: bigint;
  readonly loop?: boolean;
  readonly loopInterval?: number;
  readonly tmz?: boolean;
}

export interface TimestampSetPacket {
  readonly kind: "timestamp_set";
  readonly value: bigint;
}

/** TIMESTAMP GET: writes the engine's local 64-bit counter at `addr` (32-byte slot). */
export interface TimestampGetPacket {
  readonly kind: "timestamp_get";
  readonly addr: Addr;
}

/** TIMESTAMP GET_GLOBAL: writes the global GPU timestamp at `addr` (32-byte slot). */
export interface TimestampGetGlobalPacket {
  readonly kind: "timestamp_get_global";
  readonly addr: Addr;
}

export interface IndirectBufferPacket {
  readonly kind: "indirect_buffer";
  readonly vmid: number;
  readonly base: Addr;
  /** IB length in dwords (not minus 1). */
  readonly sizeDwords: number;
  readonly csa?: Addr;
}

export type Packet =
  | NopPacket
  | CopyLinearPacket
  | CopyBroadcastPacket
  | CopySwapPacket
  | ConstantFillPacket
  | WriteLinearPacket
  | FencePacket
  | TrapPacket
  | SemMemIncrPacket
  | PollMemPacket
  | PollRegPacket
  | CondExePacket
  | AtomicPacket
  | TimestampSetPacket
  | TimestampGetPacket
  | TimestampGetGlobalPacket
  | IndirectBufferPacket;

export type PacketKind = Packet["kind"];

// ---- Enums ---------------------------------------------------------------------------------

export interface EnumSpec {
  readonly name: string;
  /** names[raw] for every raw value of the field (length 2^width). */
  readonly names: readonly string[];
  /** Raw values the reference does not define. */
  readonly reserved: readonly number[];
}

function makeEnum(
  name: string,
  width: number,
  known: Readonly<Record<number, string>>,
  prefix: string,
): EnumSpec {
  const names: string[] = [];
  const reserved: number[] = [];
  for (let v = 0; v < 2 ** width; v++) {
    const n = known[v];
    if (n === undefined) reserved.push(v);
    names.push(n ?? `${prefix}${v}`);
  }
  return { name, names, reserved };
}

/** POLL_REGMEM func (DW0 30:28): the compare functions by code (target/poll.ts), 7 reserved. */
export const POLL_FUNC = makeEnum("poll_func", 3, { ...POLL_FUNC_NAMES }, "reserved");

/** CONSTANT_FILL fillsize (DW0 31:30): 0 byte, 2 dword; 1 and 3 undocumented. */
export const FILL_SIZE = makeEnum("fill_size", 2, { 0: "byte", 2: "dword" }, "size");

/** ATOMIC atomic_op (DW0 31:25): the TC_OP codes of section 2.13 (ADD64 = 47). */
export const ATOMIC_OP = makeEnum(
  "atomic_op",
  7,
  {
    0x07: "swap32",
    0x08: "cmpswap32",
    0x0f: "add32",
    0x10: "sub32",
    0x11: "smin32",
    0x12: "umin32",
    0x13: "smax32",
    0x14: "umax32",
    0x15: "and32",
    0x16: "or32",
    0x17: "xor32",
    0x18: "inc32",
    0x19: "dec32",
    0x27: "swap64",
    0x28: "cmpswap64",
    0x2f: "add64",
    0x30: "sub64",
    0x31: "smin64",
    0x32: "umin64",
    0x33: "smax64",
    0x34: "umax64",
    0x35: "and64",
    0x36: "or64",
    0x37: "xor64",
    0x38: "inc64",
    0x39: "dec64",
  },
  "op",
);

/** FENCE mtype value for uncached writes (the MI300 GIM driver's choice). */
export const MTYPE_UC = 3;
/** POLL_REGMEM retry_count meaning "retry forever". */
export const POLL_RETRY_FOREVER = 0xfff;

// ---- The table -----------------------------------------------------------------------------

interface FieldBase {
  /** The Packet property name (also what the disassembler prints). */
  readonly name: string;
  /** Dword index in the packet (DW0 = header). */
  readonly dw: number;
  /** Absent means 0/false/first enum value, and the decoder leaves it absent then. */
  readonly optional?: boolean;
  readonly doc?: string;
}

/** An unsigned integer in bits hi:lo of one dword; human value = wire + bias. */
export interface UintField extends FieldBase {
  readonly type: "uint";
  readonly lo: number;
  readonly hi: number;
  readonly bias?: number;
  /** Print in hex (masks, data, register offsets) rather than decimal. */
  readonly hex?: boolean;
  /** A byte count: annotated listings print it as a size (src/util/format-size.ts). */
  readonly size?: boolean;
}

export interface BoolField extends FieldBase {
  readonly type: "bool";
  readonly lo: number;
  readonly hi: number;
}

export interface EnumField extends FieldBase {
  readonly type: "enum";
  readonly lo: number;
  readonly hi: number;
  readonly enum: EnumSpec;
}

/** A 64-bit address: low dword at `dw` (bits 31:lo, bits lo-1:0 reserved-zero), high at dw+1. */
export interface AddrField extends FieldBase {
  readonly type: "addr";
  readonly lo: number;
}

/** A 64-bit unsigned value (bigint): low dword at `dw`, high at dw+1. */
export interface U64Field extends FieldBase {
  readonly type: "u64";
}

/** Inline data dwords from `dw` to the end of the packet; their count N is stored as N-1 in
 * bits countHi:countLo of dword countDw. */
export interface WordsField extends FieldBase {
  readonly type: "words";
  readonly countDw: number;
  readonly countLo: number;
  readonly countHi: number;
}

export type FieldSpec = UintField | BoolField | EnumField | AddrField | U64Field | WordsField;

export interface PacketSpec {
  readonly kind: PacketKind;
  /**
   * THE name of the packet kind, everywhere people read one (listings, disasm --json `name`,
   * traces, simulator reports, docs): AMD's name from the reference (sections 1.1, 1.2 and the
   * headings of section 2). Both forms of POLL_REGMEM (memory and register, told apart by the
   * mem_poll bit) are POLL_REGMEM, as in AMD's headers; `kind` is the identifier that tells them
   * apart in code and JSON. Take it from PACKET_NAME, never spell it again.
   */
  readonly mnemonic: string;
  readonly op: number;
  readonly subOp: number;
  /** A header bit that tells apart two kinds sharing op and sub_op (broadcast, mem_poll). */
  readonly discriminator?: { readonly bit: number; readonly value: 0 | 1 };
  /** Fixed length in dwords, or the human value of a field plus a constant. */
  readonly length: number | { readonly field: string; readonly plus: number };
  readonly fields: readonly FieldSpec[];
  /** Alignment and other rules (packet-rules.ts checks them; the encoder does not). */
  readonly rules?: string;
  readonly doc: string;
}

const u = (
  name: string,
  dw: number,
  lo: number,
  hi: number,
  extra: Partial<UintField> = {},
): UintField => ({
  type: "uint",
  name,
  dw,
  lo,
  hi,
  ...extra,
});
const flag = (name: string, dw: number, bit: number): BoolField => ({
  type: "bool",
  name,
  dw,
  lo: bit,
  hi: bit,
  optional: true,
});
const addr = (name: string, dw: number, lo = 0, optional = false): AddrField => ({
  type: "addr",
  name,
  dw,
  lo,
  ...(optional ? { optional } : {}),
});
const opt = { optional: true } as const;

/** The 30-bit count_ext view of COPY count (DW1 29:0) that current ROCr uses on gfx942. The
 * 22-bit reading (bits 21:0) is a lowering policy: the target's maxCopyBytesConservative. */
const COPY_BYTES = u("bytes", 1, 0, 29, {
  bias: 1,
  size: true,
  doc: "bytes - 1 (30-bit count_ext view)",
});

export const PACKETS: readonly PacketSpec[] = [
  {
    kind: "nop",
    mnemonic: "NOP",
    op: 0,
    subOp: 0,
    length: { field: "dwords", plus: 0 },
    fields: [u("dwords", 0, 16, 29, { bias: 1, doc: "count = body dwords after the header" })],
    doc: "2.1: 1 + count dwords; the body is ignored. An all-zero dword is a 1-dword NOP.",
  },
  {
    kind: "copy_linear",
    mnemonic: "COPY_LINEAR",
    op: 1,
    subOp: 0,
    discriminator: { bit: 27, value: 0 },
    length: 7,
    fields: [
      flag("encrypt", 0, 16),
      flag("tmz", 0, 18),
      COPY_BYTES,
      u("dstSw", 2, 16, 17, opt),
      u("srcSw", 2, 24, 25, opt),
      addr("src", 3),
      addr("dst", 5),
    ],
    doc: "2.2: 7 dwords. DW2 bits 22/30 (dst_ha/src_ha, undocumented) are treated as reserved.",
  },
  {
    kind: "copy_broadcast",
    mnemonic: "COPY_LINEAR_BROADCAST",
    op: 1,
    subOp: 0,
    discriminator: { bit: 27, value: 1 },
    length: 9,
    fields: [
      flag("encrypt", 0, 16),
      flag("tmz", 0, 18),
      COPY_BYTES,
      u("dst2Sw", 2, 8, 9, opt),
      u("dst1Sw", 2, 16, 17, opt),
      u("srcSw", 2, 24, 25, opt),
      addr("src", 3),
      addr("dst1", 5),
      addr("dst2", 7),
    ],
    rules: "dst1 and dst2 share address bits 4:0 (ROCr kDstAlignMask_ = 0x1F)",
    doc: "2.3: COPY_LINEAR with header bit 27 = 1, 9 dwords.",
  },
  {
    kind: "copy_swap",
    mnemonic: "COPY_SWAP",
    op: 1,
    subOp: 9,
    length: 7,
    fields: [
      COPY_BYTES,
      u("dstSw", 2, 16, 17, opt),
      u("srcSw", 2, 24, 25, opt),
      addr("a", 3, 6),
      addr("b", 5, 6),
    ],
    rules: "a and b 64-byte aligned (address bits 5:0 are reserved in the packet)",
    doc: "2.4: COPY_SWAP, sub 9, 7 dwords; max 0x3FFFFFE0 bytes per packet.",
  },
  {
    kind: "constant_fill",
    mnemonic: "CONST_FILL",
    op: 11,
    subOp: 0,
    length: 5,
    fields: [
      u("sw", 0, 16, 17, opt),
      { type: "enum", name: "fillSize", dw: 0, lo: 30, hi: 31, enum: FILL_SIZE },
      addr("dst", 1),
      u("data", 3, 0, 31, { hex: true }),
      u("bytes", 4, 0, 21, { bias: 1, size: true, doc: "bytes - 1 (22 bits)" }),
    ],
    rules: "dword fill: dword-aligned address and size (recommended, not enforced)",
    doc: "2.14: 5 dwords. ROCr's dword fill encodes (dwords-1)*4; dmac encodes bytes-1 as kfdtest.",
  },
  {
    kind: "write_linear",
    mnemonic: "WRITE_LINEAR",
    op: 2,
    subOp: 0,
    length: { field: "data", plus: 4 },
    fields: [
      flag("encrypt", 0, 16),
      flag("tmz", 0, 18),
      addr("dst", 1),
      u("sw", 3, 24, 25, opt),
      { type: "words", name: "data", dw: 4, countDw: 3, countLo: 0, countHi: 19 },
    ],
    doc: "2.5: 4 + N dwords; count = N - 1 in DW3 19:0 (the kernel's 20-bit width; 23:20 reserved).",
  },
  {
    kind: "fence",
    mnemonic: "FENCE",
    op: 5,
    subOp: 0,
    length: 4,
    fields: [
      u("mtype", 0, 16, 18, opt),
      flag("gcc", 0, 19),
      flag("sys", 0, 20),
      flag("snp", 0, 22),
      flag("gpa", 0, 23),
      u("l2Policy", 0, 24, 25, opt),
      addr("addr", 1),
      u("data", 3, 0, 31, { hex: true }),
    ],
    rules: "addr dword aligned (kernel BUG_ON(addr & 3))",
    doc: "2.7: 4 dwords. Only mtype is confirmed for 4.4.2; the other flags are ROCr's struct.",
  },
  {
    kind: "trap",
    mnemonic: "TRAP",
    op: 6,
    subOp: 0,
    length: 2,
    fields: [u("intContext", 1, 0, 27)],
    doc: "2.8: 2 dwords; int_context is delivered with the SDMA trap interrupt.",
  },
  {
    kind: "sem_mem_incr",
    mnemonic: "SEM_MEM_INCR",
    op: 7,
    subOp: 1,
    length: 3,
    fields: [addr("addr", 1)],
    rules: "addr 8-byte aligned",
    doc: "2.9: 3 dwords; increments a 64-bit counter (PAL).",
  },
  {
    kind: "poll_mem",
    mnemonic: "POLL_REGMEM",
    op: 8,
    subOp: 0,
    discriminator: { bit: 31, value: 1 },
    length: 6,
    fields: [
      flag("hdpFlush", 0, 26),
      { type: "enum", name: "func", dw: 0, lo: 28, hi: 30, enum: POLL_FUNC },
      addr("addr", 1),
      u("value", 3, 0, 31, { hex: true }),
      u("mask", 4, 0, 31, { hex: true }),
      u("interval", 5, 0, 15),
      u("retryCount", 5, 16, 27, { hex: true }),
    ],
    rules: "addr dword aligned",
    doc: "2.10: POLL_REGMEM with mem_poll = 1, 6 dwords; a 32-bit compare.",
  },
  {
    kind: "poll_reg",
    mnemonic: "POLL_REGMEM",
    op: 8,
    subOp: 0,
    discriminator: { bit: 31, value: 0 },
    length: 6,
    fields: [
      flag("hdpFlush", 0, 26),
      { type: "enum", name: "func", dw: 0, lo: 28, hi: 30, enum: POLL_FUNC },
      u("reg", 1, 0, 31, { hex: true }),
      u("reqReg", 2, 0, 31, { hex: true }),
      u("value", 3, 0, 31, { hex: true }),
      u("mask", 4, 0, 31, { hex: true }),
      u("interval", 5, 0, 15),
      u("retryCount", 5, 16, 27, { hex: true }),
    ],
    doc: "2.10: POLL_REGMEM with mem_poll = 0 (register form; ROCr's HDP flush).",
  },
  {
    kind: "cond_exe",
    mnemonic: "COND_EXE",
    op: 9,
    subOp: 0,
    length: 5,
    fields: [addr("addr", 1), u("reference", 3, 0, 31, { hex: true }), u("execCount", 4, 0, 13)],
    doc: "2.11: 5 dwords.",
  },
  {
    kind: "atomic",
    mnemonic: "ATOMIC",
    op: 10,
    subOp: 0,
    length: 8,
    fields: [
      flag("loop", 0, 16),
      flag("tmz", 0, 18),
      { type: "enum", name: "op", dw: 0, lo: 25, hi: 31, enum: ATOMIC_OP },
      addr("addr", 1),
      { type: "u64", name: "src", dw: 3 },
      { type: "u64", name: "cmp", dw: 5, optional: true },
      u("loopInterval", 7, 0, 12, opt),
    ],
    rules: "addr 8-byte aligned for 64-bit ops, dword aligned for 32-bit ops",
    doc: "2.13: 8 dwords; atomic_op is the TC_OP code (ADD64 = 47).",
  },
  {
    kind: "timestamp_set",
    mnemonic: "TIMESTAMP_SET",
    op: 13,
    subOp: 0,
    length: 3,
    fields: [{ type: "u64", name: "value", dw: 1 }],
    doc: "2.16: sets the engine's local counter.",
  },
  {
    kind: "timestamp_get",
    mnemonic: "TIMESTAMP_GET",
    op: 13,
    subOp: 1,
    length: 3,
    fields: [addr("addr", 1, 3)],
    rules: "addr 32-byte aligned (slots; the field itself starts at bit 3)",
    doc: "2.16: writes the 64-bit local timestamp.",
  },
  {
    kind: "timestamp_get_global",
    mnemonic: "TIMESTAMP_GET_GLOBAL",
    op: 13,
    subOp: 2,
    length: 3,
    fields: [addr("addr", 1, 3)],
    rules: "addr 32-byte aligned (slots; the field itself starts at bit 3)",
    doc: "2.16: writes the 64-bit global GPU timestamp.",
  },
  {
    kind: "indirect_buffer",
    mnemonic: "INDIRECT_BUFFER",
    op: 4,
    subOp: 0,
    length: 6,
    fields: [
      u("vmid", 0, 16, 19),
      addr("base", 1),
      u("sizeDwords", 3, 0, 19),
      addr("csa", 4, 0, true),
    ],
    rules: "base 32-byte aligned",
    doc: "2.6: 6 dwords; ib_size in dwords (not minus 1).",
  },
];

/** The table indexed by kind. */
export const PACKET_BY_KIND: { readonly [K in PacketKind]: PacketSpec } = Object.fromEntries(
  PACKETS.map((s) => [s.kind, s]),
) as { readonly [K in PacketKind]: PacketSpec };

/**
 * The one name of each packet kind (PacketSpec.mnemonic): what listings, disasm --json, traces
 * and simulator reports call a packet. Exported for every module that names packets, so no
 * other spelling (POLL_MEM, poll_mem, poll) reaches a reader.
 */
export const PACKET_NAME: { readonly [K in PacketKind]: string } = Object.fromEntries(
  PACKETS.map((s) => [s.kind, s.mnemonic]),
) as { readonly [K in PacketKind]: string };

/** Opcodes (DW0 7:0) of section 1.1. */
export const SDMA_OP = {
  NOP: 0,
  COPY: 1,
  WRITE: 2,
  INDIRECT: 4,
  FENCE: 5,
  TRAP: 6,
  SEM: 7,
  POLL_REGMEM: 8,
  COND_EXE: 9,
  ATOMIC: 10,
  CONST_FILL: 11,
  PTEPDE: 12,
  TIMESTAMP: 13,
  SRBM_WRITE: 14,
  PRE_EXE: 15,
} as const;

/** Names of op / sub_op pairs the reference lists but dmac does not decode (for messages).
 * Key: op | sub_op << 8, or op alone (-1 - op) when every sub-op of the opcode is unsupported. */
export const UNSUPPORTED_PACKETS: ReadonlyMap<number, string> = new Map([
  [1 | (1 << 8), "COPY_TILED"],
  [1 | (3 << 8), "COPY_STRUCT"],
  [1 | (4 << 8), "COPY_LINEAR_SUB_WIND"],
  [1 | (5 << 8), "COPY_TILED_SUB_WIND"],
  [1 | (6 << 8), "COPY_T2T_SUB_WIND"],
  [1 | (7 << 8), "COPY_DIRTY_PAGE"],
  [1 | (8 << 8), "COPY_LINEAR_PHY"],
  [1 | (10 << 8), "COPY_MULTICAST"],
  [2 | (1 << 8), "WRITE_TILED"],
  [7 | (0 << 8), "SEMAPHORE"],
  [8 | (1 << 8), "POLL_REG_WRITE_MEM"],
  [8 | (2 << 8), "POLL_DBIT_WRITE_MEM"],
  [8 | (3 << 8), "POLL_MEM_VERIFY"],
  [11 | (1 << 8), "DATA_FILL_MULTI"],
  [12 | (0 << 8), "PTEPDE_GEN"],
  [12 | (1 << 8), "PTEPDE_COPY"],
  [12 | (2 << 8), "PTEPDE_RMW"],
  [12 | (3 << 8), "PTEPDE_COPY_BACKWARDS"],
  [-1 - 14, "SRBM_WRITE"],
  [-1 - 15, "PRE_EXE"],
  [-1 - 16, "DUMMY_TRAP/GPUVM_INV"],
  [-1 - 17, "GCR_REQ"],
  [-1 - 32, "DUMMY_TRAP"],
]);

/** Length in dwords of the encoded packet. */
export function packetDwords(p: Packet): number {
  switch (p.kind) {
    case "nop":
      return p.dwords;
    case "write_linear":
      return 4 + p.data.length;
    default: {
      const len = PACKET_BY_KIND[p.kind].length;
      return typeof len === "number" ? len : 0;
    }
  }
}

/** An address as messages print it (the rules' of packet-rules.ts among them). */
export const hexAddr = (a: number): string => `0x${a.toString(16)}`;
