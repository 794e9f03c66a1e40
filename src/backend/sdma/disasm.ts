// The text form of packet streams (dmac disasm, dump.txt). One line per packet:
//   OFFSET  RAW-DWORDS  MNEMONIC  name=value ...
// with the byte offset as 8 hex digits, the raw dwords as 8 hex digits each (at most 8 per line;
// longer packets continue on lines that start with the offset of their first dword), then the
// mnemonic and the decoded fields in table order. Optional fields at their default are not
// printed. Addresses, masks and 64-bit data are hex, counts decimal, enums by name. A dword that is
// not part of a decodable packet prints as `.dword 0x...  ; why`. Problems other than unknown and
// truncated packets (reserved bits, huge addresses) are appended to the packet's line as `; ...`.
// With `hooks` (listing.ts) the same loop writes the annotated listing: source lines above
// packets, names and sizes in place of some field values, warnings at the end of the line.

import {
  type CompiledField,
  COMPILED_BY_KIND,
  joinU64,
  lookupHeader,
  MAX_SAFE_ADDR_HI,
  type CompiledPacket,
} from "./bitfield.js";
import { scanStream } from "./decode.js";
import type { Packet } from "./packets.js";

export interface DisasmOptions {
  /** Added to every printed offset (the stream's position in a larger buffer). */
  readonly baseOffset?: number;
  /** Raw dwords per line before wrapping (default 8). */
  readonly dwordsPerLine?: number;
  /** The annotations of an annotated listing (listing.ts); absent: the plain listing. */
  readonly hooks?: ListingHooks | undefined;
  /** Byte offset of words[0] in its queue's stream (what the hooks are told; default 0). */
  readonly streamOffset?: number;
}

/** What an annotated listing adds to the plain one, called in stream order. */
export interface ListingHooks {
  /** Before the entry at stream byte offset `offset` (a packet, or an undecodable dword):
   * may write whole lines (source lines) above it. */
  begin(out: TextSink, offset: number, packet: Packet | undefined): void;
  /** The text of field `f` of the packet last begun, in place of its plain value; undefined:
   * the plain value. */
  value(f: CompiledField, v: unknown): string | undefined;
  /** Text appended to the packet's line (warnings), or "". */
  end(): string;
}

const MAX_DATA_PRINTED = 8;

// Hex formatting through a 256-entry byte table: Number.prototype.toString(16) goes through V8's
// general radix conversion and was ~15% of `dmac compile` of a 3M-packet program (profile in
// docs/performance.md). Same output as toString(16) (+ padStart) for every value printed here.
const BYTE_HEX: readonly string[] = Array.from({ length: 256 }, (_, i) =>
  i.toString(16).padStart(2, "0"),
);
/** 8 lower-case hex digits of the low 32 bits. */
const hex8 = (v: number): string =>
  BYTE_HEX[v >>> 24]! +
  BYTE_HEX[(v >>> 16) & 0xff]! +
  BYTE_HEX[(v >>> 8) & 0xff]! +
  BYTE_HEX[v & 0xff]!;
/** toString(16) of a non-negative integer below 2^32, without leading zeros. */
function hex32(v: number): string {
  if (v < 0x100) return v < 0x10 ? BYTE_HEX[v]![1]! : BYTE_HEX[v]!;
  const s = hex8(v);
  let i = 0;
  while (s.charCodeAt(i) === 48) i++; // '0'
  return i === 0 ? s : s.slice(i);
}
const hex = (v: number | bigint): string => {
  if (typeof v === "number" && Number.isInteger(v) && v >= 0) {
    if (v <= 0xffffffff) return `0x${hex32(v)}`;
    if (v <= Number.MAX_SAFE_INTEGER) {
      const hi = Math.floor(v / 0x1_0000_0000);
      return `0x${hex32(hi)}${hex8(v - hi * 0x1_0000_0000)}`;
    }
  }
  return `0x${v.toString(16)}`;
};
const offsetText = (v: number): string =>
  v <= 0xffffffff ? hex8(v) : v.toString(16).padStart(8, "0");

/** `name=value` for every field of `p` (raw words, when given, supply exact huge addresses). */
function formatFields(
  c: CompiledPacket,
  p: Packet,
  raw?: { words: ArrayLike<number>; at: number },
): string[] {
  const rec = p as unknown as Readonly<Record<string, unknown>>;
  const out: string[] = [];
  for (const f of c.fields) {
    const v = rec[f.name];
    if (v === undefined) continue;
    let text: string;
    switch (f.type) {
      case "uint":
        text = f.spec.type === "uint" && f.spec.hex === true ? hex(v as number) : String(v);
        break;
      case "bool":
        text = v === true ? "1" : "0";
        break;
      case "enum":
        text = v as string;
        break;
      case "addr": {
        const hi = raw ? raw.words[raw.at + f.dw + 1]! : 0;
        text =
          raw && hi > MAX_SAFE_ADDR_HI
            ? hex(joinU64(raw.words[raw.at + f.dw]! & f.mask, hi))
            : hex(v as number);
        break;
      }
      case "u64":
        text = hex(v as bigint);
        break;
      case "words": {
        const data = v as readonly number[];
        const shown = data.slice(0, MAX_DATA_PRINTED).map(hex);
        if (data.length > MAX_DATA_PRINTED) shown.push(`... ${data.length} dwords`);
        text = `[${shown.join(",")}]`;
        break;
      }
    }
    out.push(`${f.name}=${text}`);
  }
  return out;
}

/** One line: the mnemonic and the decoded fields, e.g. `COPY_LINEAR  bytes=512 src=0x1000 dst=0x2000`. */
export function formatPacket(p: Packet): string {
  const c = COMPILED_BY_KIND[p.kind];
  const fields = formatFields(c, p);
  return fields.length > 0 ? `${c.spec.mnemonic}  ${fields.join(" ")}` : c.spec.mnemonic;
}

const ASCII = new TextEncoder();
/** Per packet kind, each field's ` name=` (and `  name=` for the first printed one) as bytes. */
const FIELD_PREFIXES = new Map<CompiledPacket, { first: Uint8Array; next: Uint8Array }[]>();
function fieldPrefixes(c: CompiledPacket): { first: Uint8Array; next: Uint8Array }[] {
  let list = FIELD_PREFIXES.get(c);
  if (!list) {
    list = c.fields.map((f) => ({
      first: ASCII.encode(`  ${f.name}=`),
      next: ASCII.encode(` ${f.name}=`),
    }));
    FIELD_PREFIXES.set(c, list);
  }
  return list;
}

/** formatFields(c, p, raw) written straight into the sink, with the separators of a listing line
 * ("  " before the first field, " " between fields): no string per field, no join. */
function writeFields(
  out: TextSink,
  c: CompiledPacket,
  p: Packet,
  words: ArrayLike<number>,
  at: number,
  hooks: ListingHooks | undefined,
): void {
  const rec = p as unknown as Readonly<Record<string, unknown>>;
  const prefixes = fieldPrefixes(c);
  let first = true;
  for (let i = 0; i < c.fields.length; i++) {
    const f = c.fields[i]!;
    const v = rec[f.name];
    if (v === undefined) continue;
    out.ascii(first ? prefixes[i]!.first : prefixes[i]!.next);
    first = false;
    if (hooks) {
      const named = hooks.value(f, v);
      if (named !== undefined) {
        out.text(named);
        continue;
      }
    }
    switch (f.type) {
      case "uint":
        if (f.spec.type === "uint" && f.spec.hex === true) out.hexNumber(v as number);
        else if (typeof v === "number") out.decimal(v);
        else out.text(String(v));
        break;
      case "bool":
        out.char(v === true ? 49 : 48);
        break;
      case "addr": {
        const hi = words[at + f.dw + 1]!;
        if (hi > MAX_SAFE_ADDR_HI) out.text(hex(joinU64(words[at + f.dw]! & f.mask, hi)));
        else out.hexNumber(v as number);
        break;
      }
      case "enum":
        out.text(v as string);
        break;
      case "u64":
        // From the raw halves: the same digits as hex(v) without BigInt arithmetic (1M atomics
        // at 10^6 operations).
        out.hex64(words[at + f.dw + 1]! >>> 0, words[at + f.dw]! >>> 0);
        break;
      default: {
        // words (WRITE's data): rare in listings; the string formatter has the rules.
        const one = formatFields(c, { kind: p.kind, [f.name]: v } as unknown as Packet, {
          words,
          at,
        });
        const text = one[0]!;
        out.text(text.slice(text.indexOf("=") + 1));
      }
    }
  }
}

/** The listing of a stream (see the module comment); every line ends with a newline. */
export function disassemble(
  words: Uint32Array | readonly number[],
  opts: DisasmOptions = {},
): string {
  return UTF8.decode(disassembleBytes(words, opts));
}

const UTF8 = new TextDecoder();
/** HEX_PAIR[b] = the two ASCII hex digits of byte b, as one little-endian 16-bit value. */
const HEX_PAIR = Uint16Array.from(BYTE_HEX, (h) => h.charCodeAt(0) | (h.charCodeAt(1) << 8));

/** DEC_PAIR[n] = the two ASCII digits of 0 <= n < 100, as one little-endian 16-bit value. */
const DEC_PAIR = Uint16Array.from({ length: 100 }, (_, n) => {
  const t = String(n).padStart(2, "0");
  return t.charCodeAt(0) | (t.charCodeAt(1) << 8);
});

/** Numbers TextSink.numberList writes per room check. */
const LIST_BLOCK = 1 << 14;
/** Room for one number of a list: ", " and at most 16 digits (a safe integer: 2^53 has 16). */
const WIDEST = 18;

/** POW10[k] = 10^k, k = 0 .. 9. */
const POW10 = Int32Array.from({ length: 10 }, (_, k) => 10 ** k);

/** Writes the digits of a non-negative int32 x at b[at ..] (room made); returns the new end.
 * Two digits per division. The digit count comes from the bit length (log10 2 ~ 1233 / 4096)
 * and one compare, not a tree of compares: V8 compiles a compare that has not run yet as an exit
 * from the compiled code, and a tree's compares for long numbers first run when the first such
 * number comes, well after the loops that call this were compiled. */
function int32Into(b: Uint8Array, at: number, x: number): number {
  const t = ((32 - Math.clz32(x)) * 1233) >>> 12;
  const digits = t + (x >= POW10[t]! ? 1 : 0) || 1;
  let k = at + digits - 1;
  while (x >= 100) {
    const q = (x / 100) | 0;
    const pair = DEC_PAIR[x - 100 * q]!;
    b[k] = pair >>> 8;
    b[k - 1] = pair & 0xff;
    k -= 2;
    x = q;
  }
  if (x >= 10) {
    const pair = DEC_PAIR[x]!;
    b[k] = pair >>> 8;
    b[k - 1] = pair & 0xff;
  } else b[k] = 48 + x;
  return at + digits;
}

/**
 * The bytes of a growing UTF-8 (in practice ASCII) text. Why not strings: a listing of a
 * 3M-packet program is 400 MB of text in 3M lines; built as strings, every line is a tree of
 * concatenations that survives until the final join, and garbage collection of those was 2/3 of
 * the time of `dmac compile` at that size (docs/performance.md). Hex digits go straight in, other
 * text through Buffer's native UTF-8 writer.
 */
export class TextSink {
  private buf: Buffer;
  private len = 0;
  /** Bytes handed to `flush` so far. */
  private flushed = 0;
  /** `capacity`: expected bytes. A good guess matters for big texts: every regrowth is a large
   * external allocation, and V8 answers those with a full garbage collection, which costs seconds
   * when the heap holds a 10^6-operation program.
   * `flush`: a streaming sink. When the buffer is full its bytes go to `flush` (which must copy
   * or write them before returning) and the buffer is reused, so a 400 MB listing never exists
   * in memory; call `end()` for the last bytes. */
  constructor(
    capacity = 1 << 16,
    private readonly flush?: (chunk: Uint8Array) => void,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(64, capacity));
  }
  /** Bytes written and not yet flushed (without `flush`: the text's length so far). */
  get length(): number {
    return this.len;
  }
  /** Bytes written so far, flushed or not: the offset of the next byte in the whole text. */
  get position(): number {
    return this.flushed + this.len;
  }
  /** Streaming: hands the buffered bytes to `flush` (nothing without one). */
  end(): void {
    if (!this.flush || this.len === 0) return;
    this.flush(this.bytes());
    this.flushed += this.len;
    this.len = 0;
  }
  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    if (this.flush) {
      this.end();
      if (n <= this.buf.length) return;
    }
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 4, this.len + n));
    this.buf.copy(grown, 0, 0, this.len);
    this.buf = grown;
  }
  /** 8 lower-case hex digits of the low 32 bits. */
  hex8(v: number): void {
    this.room(8);
    const b = this.buf;
    const at = this.len;
    let pair = HEX_PAIR[v >>> 24]!;
    b[at] = pair & 0xff;
    b[at + 1] = pair >>> 8;
    pair = HEX_PAIR[(v >>> 16) & 0xff]!;
    b[at + 2] = pair & 0xff;
    b[at + 3] = pair >>> 8;
    pair = HEX_PAIR[(v >>> 8) & 0xff]!;
    b[at + 4] = pair & 0xff;
    b[at + 5] = pair >>> 8;
    pair = HEX_PAIR[v & 0xff]!;
    b[at + 6] = pair & 0xff;
    b[at + 7] = pair >>> 8;
    this.len = at + 8;
  }
  /** One ASCII character by code. */
  char(code: number): void {
    this.room(1);
    this.buf[this.len++] = code;
  }
  text(s: string): void {
    this.room(3 * s.length); // the UTF-8 worst case
    // Short ASCII texts (separators, names, indents: millions of calls for a big manifest) are
    // copied by hand; Buffer.write's native call costs more than the copy.
    if (s.length <= 32) {
      const b = this.buf;
      let at = this.len;
      for (let i = 0; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          at = -1;
          break;
        }
        b[at++] = c;
      }
      if (at >= 0) {
        this.len = at;
        return;
      }
    }
    this.len += this.buf.write(s, this.len, "utf8");
  }
  offset(v: number): void {
    if (v <= 0xffffffff) this.hex8(v);
    else this.text(offsetText(v));
  }
  /** Pre-encoded ASCII bytes. */
  ascii(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }
  /**
   * `[a, b, c]`: JSON's array of numbers, ", " between them, String(x) for each (which is
   * JSON.stringify(x) for finite x). One room check per block of numbers instead of several per
   * number: a 10^6-operation manifest holds ~12M of them. `start`, `end`: the part of `v` to
   * write (a row of packed rows, without a subarray object per row).
   */
  numberList(v: ArrayLike<number>, start = 0, end = v.length): void {
    this.char(0x5b); // [
    for (let from = start; from < end; from += LIST_BLOCK) {
      const to = Math.min(end, from + LIST_BLOCK);
      this.room(WIDEST * (to - from));
      this.len = this.numbers(v, from, to, from > start);
    }
    this.char(0x5d); // ]
  }
  /**
   * JSON's rows of numbers, one per line: `indent[a, b, c]` for each row, ",\n" between rows
   * and "\n" after the last (writeJson's arrays of arrays; row r is data[starts[r] ..
   * starts[r + 1])). A row is written with one room check, not one per bracket, indent and
   * separator: the source map has a row per operation.
   */
  numberRows(data: ArrayLike<number>, starts: ArrayLike<number>, indent: string): void {
    const rows = starts.length - 1;
    for (let r = 0; r < rows; r++) {
      const a = starts[r]!;
      const e = starts[r + 1]!;
      if (e - a > LIST_BLOCK) {
        this.text(indent);
        this.numberList(data, a, e);
      } else {
        this.room(indent.length + 1 + WIDEST * (e - a));
        const b = this.buf;
        let at = this.len;
        for (let k = 0; k < indent.length; k++) b[at++] = indent.charCodeAt(k); // spaces
        b[at++] = 0x5b; // [
        this.len = at;
        this.len = this.numbers(data, a, e, false);
        this.char(0x5d); // ]
      }
      // ",\n" between rows, "\n" after the last.
      this.room(2);
      if (r < rows - 1) this.buf[this.len++] = 0x2c;
      this.buf[this.len++] = 0x0a;
    }
  }
  /**
   * v[from .. to) as digits with ", " between them (and before the first when `comma`); the
   * caller made room for WIDEST bytes each, and stores the new length this returns (nothing
   * follows the loop but the return: the loop is compiled while it runs, before any code after it
   * has run, and such code, compiled without type feedback, sent every later call back to the
   * interpreter at the loop's end: lower.ts emitCommands). The buffer and length in locals: the
   * int32 numbers (nearly all of them) never touch `this`; any other goes through safeDigits or
   * text, which may move both.
   */
  private numbers(v: ArrayLike<number>, from: number, to: number, comma: boolean): number {
    let b = this.buf;
    let at = this.len;
    for (let i = from; i < to; i++) {
      if (i > from || comma) {
        b[at++] = 0x2c; // ,
        b[at++] = 0x20;
      }
      const x = v[i]!;
      // (An int32 local, so that int32Into divides as integers.)
      const n = x | 0;
      if (n === x && n >= 0) at = int32Into(b, at, n);
      else {
        this.len = at;
        if (!this.safeDigits(x)) {
          this.text(String(x));
          this.room(WIDEST * (to - i));
        }
        b = this.buf;
        at = this.len;
      }
    }
    return at;
  }
  /** The digits of a non-negative int32; the caller made room. */
  private int32Digits(x: number): void {
    this.len = int32Into(this.buf, this.len, x);
  }
  /** Nine digits of 0 <= x < 10^9, zero-padded; the caller made room. */
  private nineDigits(x: number): void {
    const b = this.buf;
    for (let k = this.len + 8; k >= this.len; k--) {
      const q = (x / 10) | 0;
      b[k] = 48 + x - 10 * q;
      x = q;
    }
    this.len += 9;
  }
  /** String(v) for a non-negative safe integer, else via String. */
  decimal(v: number): void {
    this.room(16);
    if (!this.safeDigits(v)) this.text(String(v));
  }
  /**
   * The digits of a non-negative safe integer (the caller made room for 16), false for any other
   * number. Small integers (nearly every number of a manifest) in int32 arithmetic; larger ones
   * (~48-bit addresses) as the digits above 10^9, then the low nine, both in int32 arithmetic.
   */
  private safeDigits(x: number): boolean {
    if (x >= 0 && x <= 0x7fffffff && (x | 0) === x) this.int32Digits(x);
    else if (Number.isSafeInteger(x) && x >= 0) {
      const hi = Math.floor(x / 1e9);
      this.int32Digits(hi);
      this.nineDigits(x - hi * 1e9);
    } else return false;
    return true;
  }
  /** hex(v) (0x, no leading zeros) for a non-negative safe integer, else via hex(). */
  hexNumber(v: number): void {
    if (!(Number.isSafeInteger(v) && v >= 0)) return this.text(hex(v));
    // 32-bit halves, so the digit loop runs on small integers (addresses are ~48-bit doubles).
    const hi = v > 0xffffffff ? Math.floor(v / 0x1_0000_0000) : 0;
    const lo = (v - hi * 0x1_0000_0000) >>> 0;
    this.room(18);
    const b = this.buf;
    b[this.len++] = 48; // 0
    b[this.len++] = 120; // x
    if (hi > 0) {
      this.hexDigits(hi);
      this.hex8(lo);
    } else this.hexDigits(lo);
  }
  /** hex() of the 64-bit value hi * 2^32 + lo (two uint32 halves): 0x, no leading zeros. */
  hex64(hi: number, lo: number): void {
    this.room(18);
    this.buf[this.len++] = 48; // 0
    this.buf[this.len++] = 120; // x
    if (hi !== 0) {
      this.hexDigits(hi);
      this.hex8(lo);
    } else this.hexDigits(lo);
  }
  /** The hex digits of a uint32 without leading zeros (at least one digit). */
  private hexDigits(v: number): void {
    let digits = 1;
    while (digits < 8 && v >>> (4 * digits) !== 0) digits++;
    this.room(digits);
    const b = this.buf;
    const at = this.len;
    for (let i = 0; i < digits; i++)
      b[at + i] = HEX_PAIR[(v >>> (4 * (digits - 1 - i))) & 15]! >>> 8;
    this.len = at + digits;
  }
  bytes(): Uint8Array {
    return new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.len);
  }
}

const SPACE = 0x20;
const NEWLINE = 0x0a;

/** disassemble() as UTF-8 bytes (what dump.txt holds), without building the text as strings. */
export function disassembleBytes(
  words: Uint32Array | readonly number[],
  opts: DisasmOptions = {},
): Uint8Array {
  const out = new TextSink();
  disassembleInto(out, words, opts);
  return out.bytes();
}

/** disassemble() appended to `out` (several streams into one text without copying). */
export function disassembleInto(
  out: TextSink,
  words: Uint32Array | readonly number[],
  opts: DisasmOptions = {},
): void {
  const base = opts.baseOffset ?? 0;
  const perLine = Math.max(1, opts.dwordsPerLine ?? 8);
  const hooks = opts.hooks;
  const origin = opts.streamOffset ?? 0;
  let truncated = false;
  // One packet at a time (scanStream), not the decoded list of the whole stream.
  scanStream(words, (e, here) => {
    const at = e.offset / 4;
    if (hooks)
      hooks.begin(out, origin + e.offset, e.packet.kind === "unknown" ? undefined : e.packet);
    if (e.packet.kind === "unknown") {
      const why = here.map((p) => p.detail);
      if (here.some((p) => p.code === "DMAC4102")) truncated = true;
      else if (why.length === 0 && truncated) why.push("part of the truncated packet above");
      const comment = why.length > 0 ? `  ; ${why.join("; ")}` : "";
      out.offset(base + e.offset);
      out.text("  ");
      out.hex8(e.packet.word);
      out.text("  .dword 0x");
      out.hex8(e.packet.word);
      out.text(`${comment}\n`);
      return;
    }
    const c = lookupHeader(words[at]!)!;
    for (let k = 0; k < e.words; k += perLine) {
      out.offset(base + e.offset + k * 4);
      out.char(SPACE);
      for (let j = k; j < Math.min(e.words, k + perLine); j++) {
        out.char(SPACE);
        out.hex8(words[at + j]!);
      }
      if (k === 0) {
        out.char(SPACE);
        out.char(SPACE);
        out.text(c.spec.mnemonic);
        writeFields(out, c, e.packet, words, at, hooks);
        if (here.length > 0) out.text(`  ; ${here.map((p) => `${p.code} ${p.detail}`).join("; ")}`);
        if (hooks) out.text(hooks.end());
      }
      out.char(NEWLINE);
    }
  });
}
