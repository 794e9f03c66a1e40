// Dwords -> packet values, for any gfx942 SDMA stream (not only dmac's). Never throws on input:
// - an unknown opcode / sub-op (DMAC4101) becomes an "unknown" entry for that one dword and
//   decoding resumes at the next dword;
// - a packet that runs past the end of the stream (DMAC4102) is reported at its header's offset
//   and its remaining dwords become "unknown" entries;
// - reserved bits set or undefined enum values (DMAC4103) and addresses above 2^53 (DMAC4104) are
//   reported, and the packet is decoded anyway (reserved bits are dropped, as the engine does).
// Offsets are in bytes from the start of `words`.
//
// decodePacketAt is the executor's hot path: one table lookup, one object per packet, no
// per-field allocation; problem details are only computed by decodeStream.

import {
  getBits,
  headerOp,
  headerSubOp,
  lookupHeader,
  lengthAt,
  MAX_SAFE_ADDR_HI,
  type CompiledPacket,
} from "./bitfield.js";
import { SDMA_OP, UNSUPPORTED_PACKETS, type Packet } from "./packets.js";

export type StreamProblemCode = "DMAC4101" | "DMAC4102" | "DMAC4103" | "DMAC4104";

export interface StreamProblem {
  /** Byte offset of the packet (or dword) concerned. */
  readonly offset: number;
  readonly code: StreamProblemCode;
  readonly detail: string;
}

/** A dword that is not (part of) a decodable packet: an unknown header or a truncated tail. */
export interface UnknownDword {
  readonly kind: "unknown";
  readonly word: number;
}

export interface DecodedEntry {
  /** Byte offset of the packet. */
  readonly offset: number;
  readonly packet: Packet | UnknownDword;
  /** Length in dwords. */
  readonly words: number;
}

export interface DecodedStream {
  readonly packets: DecodedEntry[];
  readonly problems: StreamProblem[];
}

export type PacketAt =
  | {
      readonly ok: true;
      readonly packet: Packet;
      readonly words: number;
      /** Reserved bits, an undefined enum value or an address above 2^53: see decodeStream. */
      readonly suspicious: boolean;
    }
  | { readonly ok: false; readonly code: "DMAC4101" | "DMAC4102"; readonly detail: string };

const OP_NAMES = new Map<number, string>(Object.entries(SDMA_OP).map(([name, op]) => [op, name]));

function hex8(v: number): string {
  return `0x${(v >>> 0).toString(16).padStart(8, "0")}`;
}

/** Why a header dword cannot be decoded. */
function unknownHeaderDetail(header: number): string {
  const op = headerOp(header);
  const sub = headerSubOp(header);
  const whole = UNSUPPORTED_PACKETS.get(-1 - op);
  if (whole !== undefined) return `unsupported packet ${whole} (opcode ${op})`;
  const named = UNSUPPORTED_PACKETS.get(op | (sub << 8));
  if (named !== undefined) return `unsupported packet ${named} (opcode ${op}, sub-opcode ${sub})`;
  const opName = OP_NAMES.get(op);
  if (opName !== undefined) return `unknown sub-opcode ${sub} of opcode ${op} (${opName})`;
  return `unknown opcode ${op}`;
}

/** Decodes the packet whose header is words[index]. */
export function decodePacketAt(words: ArrayLike<number>, index: number): PacketAt {
  const end = words.length;
  const c = lookupHeader(words[index]!);
  if (c === undefined)
    return { ok: false, code: "DMAC4101", detail: unknownHeaderDetail(words[index]!) };
  const len = lengthAt(c, words, index, end);
  if (len < 0 || index + len > end) {
    const left = end - index;
    const need = len < 0 ? "its length dword" : `${len} dwords`;
    return {
      ok: false,
      code: "DMAC4102",
      detail: `truncated ${c.spec.mnemonic}: needs ${need}, ${left} left`,
    };
  }
  return {
    ok: true,
    packet: c.unpack(words, index, len),
    words: len,
    suspicious: c.suspicious(words, index),
  };
}

/** The DMAC4103/DMAC4104 problems of a decoded (suspicious) packet at words[at]. */
function describeSuspicious(
  c: CompiledPacket,
  words: ArrayLike<number>,
  at: number,
  out: StreamProblem[],
): void {
  const offset = at * 4;
  const bad: string[] = [];
  for (let d = 0; d < c.reserved.length; d++) {
    const bits = (words[at + d]! & c.reserved[d]!) >>> 0;
    if (bits !== 0) bad.push(`DW${d} ${hex8(bits)}`);
  }
  if (bad.length > 0)
    out.push({
      offset,
      code: "DMAC4103",
      detail: `${c.spec.mnemonic}: reserved bits set in ${bad.join(", ")}`,
    });
  for (const f of c.fields) {
    if (f.spec.type === "enum") {
      const raw = getBits(words[at + f.dw]!, f.lo, f.mask);
      if (f.spec.enum.reserved.includes(raw))
        out.push({
          offset,
          code: "DMAC4103",
          detail: `${c.spec.mnemonic}: ${f.name} = ${raw} is not a value the reference defines`,
        });
    }
    if (f.type === "addr" && words[at + f.dw + 1]! > MAX_SAFE_ADDR_HI)
      out.push({
        offset,
        code: "DMAC4104",
        detail: `${c.spec.mnemonic}: ${f.name} high dword ${hex8(words[at + f.dw + 1]!)} puts it above 2^53`,
      });
  }
}

/**
 * Visits a stream's entries in order, each with the problems found at its offset (the same
 * entries and problems as decodeStream, which is built on it). No list of the whole stream is
 * kept: the listing of a 10^6-operation program visits 20M dwords, and holding every decoded
 * packet of a queue at once was the largest heap of `dmac compile` (docs/performance.md).
 */
export function scanStream(
  words: Uint32Array | readonly number[],
  visit: (entry: DecodedEntry, problems: readonly StreamProblem[]) => void,
): void {
  const end = words.length;
  let i = 0;
  while (i < end) {
    const r = decodePacketAt(words, i);
    if (r.ok) {
      let here: StreamProblem[] = NONE;
      if (r.suspicious) describeSuspicious(lookupHeader(words[i]!)!, words, i, (here = []));
      visit({ offset: i * 4, packet: r.packet, words: r.words }, here);
      i += r.words;
      continue;
    }
    const problem: StreamProblem = { offset: i * 4, code: r.code, detail: r.detail };
    if (r.code === "DMAC4101") {
      visit({ offset: i * 4, packet: { kind: "unknown", word: words[i]! >>> 0 }, words: 1 }, [
        problem,
      ]);
      i += 1;
    } else {
      for (let first = true; i < end; i++, first = false)
        visit(
          { offset: i * 4, packet: { kind: "unknown", word: words[i]! >>> 0 }, words: 1 },
          first ? [problem] : NONE,
        );
    }
  }
}

const NONE: StreamProblem[] = [];

/**
 * A stream's packet kinds by header dword, each with what its caller derives from the kind
 * (`derive`, called on a lookup only). The last two headers are remembered: a stream alternates
 * between a few packets with the same header each time (a copy and its completion ATOMIC), so
 * most packets skip the header table. The headers of a stream's first LOOKED_UP dwords are looked
 * up all the same: otherwise the lookup is made at a stream's first two packets only, before V8
 * keeps feedback for the caller's loop, and the loop compiled without it was thrown away at the
 * next stream's first packet. One per stream: countEntries here, sim's stream reader
 * (stream-rows.ts).
 */
export class HeaderMemo<T> {
  /** The packet kind at the dword last asked (undefined: no packet starts with it). */
  kind: CompiledPacket | undefined = undefined;
  /** derive(kind), or undefined with no kind. */
  derived: T | undefined = undefined;
  private h0 = -1;
  private k0: CompiledPacket | undefined = undefined;
  private d0: T | undefined = undefined;
  private h1 = -1;
  private k1: CompiledPacket | undefined = undefined;
  private d1: T | undefined = undefined;

  constructor(private readonly derive: (c: CompiledPacket) => T) {}

  /** Sets kind and derived for the packet starting at words[i]. */
  at(words: ArrayLike<number>, i: number): void {
    const h = words[i]!;
    if (h === this.h0 && i >= LOOKED_UP) {
      this.kind = this.k0;
      this.derived = this.d0;
    } else if (h === this.h1 && i >= LOOKED_UP) {
      this.kind = this.k1;
      this.derived = this.d1;
    } else {
      const c = lookupHeader(h);
      const d = c === undefined ? undefined : this.derive(c);
      this.h1 = this.h0;
      this.k1 = this.k0;
      this.d1 = this.d0;
      this.h0 = h;
      this.k0 = c;
      this.d0 = d;
      this.kind = c;
      this.derived = d;
    }
  }
}

/** Dwords at a stream's start whose headers are looked up even when remembered (HeaderMemo). */
const LOOKED_UP = 1024;

/**
 * The number of entries decodeStream would give (packets, plus one per undecodable dword), from
 * the headers and length fields alone: no packet is decoded or allocated. Stops counting once past
 * `limit` (and returns a value above it), so a loader can refuse a 128 MiB stream of NOPs (33M
 * packets) before building anything from it.
 */
export function countEntries(words: Uint32Array | readonly number[], limit = Infinity): number {
  const end = words.length;
  let n = 0;
  let i = 0;
  const memo = new HeaderMemo(() => undefined);
  while (i < end && n <= limit) {
    memo.at(words, i);
    const c = memo.kind;
    if (c === undefined) {
      n++;
      i++;
      continue;
    }
    const len = lengthAt(c, words, i, end);
    if (len < 1 || i + len > end) return n + (end - i); // truncated: the rest are single dwords
    n++;
    i += len;
  }
  return n;
}

/** Decodes a whole stream; see the module comment for how problems are handled. */
export function decodeStream(words: Uint32Array | readonly number[]): DecodedStream {
  const packets: DecodedEntry[] = [];
  const problems: StreamProblem[] = [];
  scanStream(words, (entry, here) => {
    packets.push(entry);
    for (const p of here) problems.push(p);
  });
  return { packets, problems };
}
