// The executor's rows straight from a clean packet stream's words. The packets a program has by
// the million (linear copies, FENCEs, memory polls, ATOMIC adds) are read field by field into a
// scratch array (the packet table's generated `read`, bitfield.ts) and written into the row: no
// packet object, no BigInt. Anything else, or one of these with a field the executor does not
// model or a value the fast reading does not cover, goes through its packet object (`slow`), as
// every packet did before; test/unit/sim/packet-rows.test.ts holds both readings equal.
//
// A stream with anything irregular (an unknown header, a truncated packet, reserved bits, an
// address above 2^53) is not this module's business: it returns false at the first such packet
// and the caller reads the stream again with decode.ts's scanStream, which describes every
// problem.

import { COMPILED_BY_KIND, lengthAt } from "../backend/sdma/bitfield.js";
import { HeaderMemo } from "../backend/sdma/decode.js";
import type { CompiledPacket } from "../backend/sdma/bitfield.js";
import { ATOMIC_OP, POLL_FUNC, POLL_RETRY_FOREVER, type Packet } from "../backend/sdma/packets.js";
import { ATOMIC, COPY, FENCE, NOP, POLL, type CommandWriter } from "./program.js";
import { POLL_FUNC_NAMES, pollFuncCode, pollFuncOfName } from "../target/poll.js";
import { ADDR_DWORDS, type QueueStreamCheck } from "./validate-input.js";

/** Packet flags whose effect the executor does not model: set, the packet is not run (DMAC6007). */
export const UNMODELLED_FLAGS = ["encrypt", "tmz", "gpa", "loop", "hdpFlush"] as const;
/** Endian swaps (undocumented): non-zero, the packet is not run either. */
export const UNMODELLED_SWAPS = ["srcSw", "dstSw", "dst1Sw", "dst2Sw", "sw"] as const;

/** Writes the packet at words[at] into row `row`; false: the packet object must do it. */
type FastRow = (
  words: Uint32Array,
  at: number,
  w: CommandWriter,
  row: number,
  check: QueueStreamCheck,
) => boolean;

const scratch = new Float64Array(
  Math.max(...Object.values(COMPILED_BY_KIND).map((c) => c.slotCount)),
);

/** Slot of field `name` of packet kind c (the table must have it). */
function slot(c: CompiledPacket, name: string): number {
  const k = c.slots.get(name);
  if (k === undefined) throw new Error(`${c.kind} has no field ${name}`);
  return k;
}

/** The slots of c's fields that must be 0 for the executor to run it. */
function unmodelled(c: CompiledPacket): Int32Array {
  const names: readonly string[] = [...UNMODELLED_FLAGS, ...UNMODELLED_SWAPS];
  return Int32Array.from(
    c.fields.filter((f) => names.includes(f.name)).map((f) => slot(c, f.name)),
  );
}

function anySet(s: Float64Array, slots: Int32Array): boolean {
  for (let j = 0; j < slots.length; j++) if (s[slots[j]!] !== 0) return true;
  return false;
}

function copyRow(): FastRow {
  const c = COMPILED_BY_KIND.copy_linear;
  const [src, dst, bytes, zero] = [slot(c, "src"), slot(c, "dst"), slot(c, "bytes"), unmodelled(c)];
  const addrDws = ADDR_DWORDS.get(c.kind);
  return (words, at, w, row, check) => {
    const s = scratch;
    c.read(words, at, s);
    if (anySet(s, zero)) return false;
    check.seen(at, addrDws);
    w.kind[row] = COPY;
    w.a[row] = s[src]!;
    w.b[row] = s[dst]!;
    w.bytes[row] = s[bytes]!;
    return true;
  };
}

function fenceRow(): FastRow {
  const c = COMPILED_BY_KIND.fence;
  const [addr, data, zero] = [slot(c, "addr"), slot(c, "data"), unmodelled(c)];
  const addrDws = ADDR_DWORDS.get(c.kind);
  return (words, at, w, row, check) => {
    const s = scratch;
    c.read(words, at, s);
    if (anySet(s, zero)) return false;
    const slotK = check.slotAt(s[addr]!);
    // (A completion write that breaks the protocol is described from its packet object.)
    if (slotK !== undefined && !(check.protocol === "fence" && s[data] === 0)) return false;
    check.seen(at, addrDws);
    if (slotK !== undefined) check.signal(at * 4, slotK);
    w.kind[row] = FENCE;
    w.a[row] = s[addr]!;
    w.value[row] = s[data]!;
    return true;
  };
}

function pollRow(): FastRow {
  const c = COMPILED_BY_KIND.poll_mem;
  const [addr, mask, value, interval, retry, func, zero] = [
    slot(c, "addr"),
    slot(c, "mask"),
    slot(c, "value"),
    slot(c, "interval"),
    slot(c, "retryCount"),
    slot(c, "func"),
    unmodelled(c),
  ];
  // The packet's raw compare code -> the row's (-1: not one the executor runs).
  const funcRow = Int32Array.from(POLL_FUNC.names, (n) => POLL_FUNC_ROW.get(n) ?? -1);
  const addrDws = ADDR_DWORDS.get(c.kind);
  return (words, at, w, row, check) => {
    const s = scratch;
    c.read(words, at, s);
    const f = funcRow[s[func]!]!;
    if (f < 0 || anySet(s, zero)) return false;
    check.seen(at, addrDws);
    w.kind[row] = POLL;
    w.a[row] = s[addr]!;
    w.b[row] = s[mask]!;
    w.c[row] = s[retry] === POLL_RETRY_FOREVER ? -1 : s[retry]!;
    w.bytes[row] = s[interval]!;
    w.value[row] = s[value]!;
    w.aux[row] = f;
    return true;
  };
}

/** The completion protocol's ATOMIC add64 of -1 (and any add of all ones: -1 at its width). */
function atomicRow(): FastRow {
  const c = COMPILED_BY_KIND.atomic;
  const [addr, op, srcLo, zero] = [slot(c, "addr"), slot(c, "op"), slot(c, "src"), unmodelled(c)];
  const add64 = ATOMIC_OP.names.indexOf("add64");
  const add32 = ATOMIC_OP.names.indexOf("add32");
  const addrDws = ADDR_DWORDS.get(c.kind);
  return (words, at, w, row, check) => {
    const s = scratch;
    c.read(words, at, s);
    const width = s[op] === add64 ? 64 : s[op] === add32 ? 32 : 0;
    // (Other values need BigInt arithmetic: the packet object's path.)
    const allOnes = s[srcLo] === 0xffff_ffff && s[srcLo + 1] === 0xffff_ffff;
    if (width === 0 || !allOnes || anySet(s, zero)) return false;
    const slotK = check.slotAt(s[addr]!);
    if (slotK !== undefined && !(check.protocol === "atomic" && width === 64)) return false;
    check.seen(at, addrDws);
    if (slotK !== undefined) check.signal(at * 4, slotK);
    w.kind[row] = ATOMIC;
    w.a[row] = s[addr]!;
    w.value[row] = -1;
    w.aux[row] = width;
    return true;
  };
}

/** A memory poll's compare function, by the packet's name, as the row's `aux` (its func code). */
export const POLL_FUNC_ROW: ReadonlyMap<string, number> = new Map(
  POLL_FUNC_NAMES.map((n) => [n, pollFuncCode(pollFuncOfName(n))]),
);

const FAST = new Map<CompiledPacket, FastRow>([
  [COMPILED_BY_KIND.copy_linear, copyRow()],
  [COMPILED_BY_KIND.fence, fenceRow()],
  [COMPILED_BY_KIND.poll_mem, pollRow()],
  [COMPILED_BY_KIND.atomic, atomicRow()],
]);

/**
 * Writes a row per packet of a clean stream (row position: its byte offset), feeding `check`
 * each packet and `opsAt` each row; `slow` writes a packet the fast reading leaves to its
 * object (and the caller's check.packet sees it). False at the first irregular packet. (`slow`
 * is one function for every stream, and gets what it needs as arguments: see SourceMapCursor.)
 */
export function rowsOfCleanStream(
  words: Uint32Array,
  w: CommandWriter,
  check: QueueStreamCheck,
  opsAt: { at(row: number, offset: number): void },
  slow: (
    w: CommandWriter,
    check: QueueStreamCheck,
    row: number,
    offset: number,
    packet: Packet,
  ) => void,
): boolean {
  const end = words.length;
  let i = 0;
  // (Each header's fast reading derived once, with its kind: a stream alternates between a few.)
  const memo = new HeaderMemo((c) => FAST.get(c));
  while (i < end) {
    memo.at(words, i);
    const c = memo.kind;
    if (c === undefined) return false;
    const fast = memo.derived;
    const len = lengthAt(c, words, i, end);
    if (len < 0 || i + len > end || c.suspicious(words, i)) return false;
    const row = w.row(NOP, i * 4);
    if (fast === undefined || !fast(words, i, w, row, check))
      slow(w, check, row, i * 4, c.unpack(words, i, len));
    opsAt.at(row, i * 4);
    i += len;
  }
  return true;
}
