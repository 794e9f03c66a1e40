// Generic pack/unpack of packets over the PACKETS table: the only module of dmac that shifts or
// masks packet bits. At load time every PacketSpec is compiled into a CompiledPacket (masks,
// reserved-bit masks per dword, how to read the length); the compilation also checks the table
// itself (no two fields share a bit, every field fits its dword) and throws InternalError if not.
//
// pack() assumes a validated packet (encode.ts validates); the `unpack` of a CompiledPacket
// reads any bits and never throws; reserved bits are ignored by it (its `suspicious` and the
// decoder check them). All arithmetic is unsigned 32-bit (`>>> 0`); 64-bit values are split into dwords here.

import { InternalError } from "../../util/internal-error.js";
import type { FieldSpec, Packet, PacketKind, PacketSpec } from "./packets.js";
import { PACKETS } from "./packets.js";

const TWO_32 = 4294967296;

/** The mask of a `width`-bit field, as an unsigned number (width 1..32). */
export function fieldMask(width: number): number {
  return width >= 32 ? 0xffffffff : (2 ** width - 1) >>> 0;
}

/** Bits lo+width-1:lo of `word` (mask = fieldMask(width)). */
export function getBits(word: number, lo: number, mask: number): number {
  return ((word >>> lo) & mask) >>> 0;
}

/** `word` with bits of `mask << lo` replaced by `value` (value must fit the mask). */
export function setBits(word: number, lo: number, mask: number, value: number): number {
  return ((word & ~((mask << lo) >>> 0)) | ((value & mask) << lo)) >>> 0;
}

/** The opcode (DW0 7:0) and sub-opcode (DW0 15:8) of a header dword. */
export function headerOp(header: number): number {
  return header & 0xff;
}
export function headerSubOp(header: number): number {
  return (header >>> 8) & 0xff;
}

/** Splits an address below 2^53 into its low and high dwords. */
export function splitAddr(a: number): [lo: number, hi: number] {
  return [(a % TWO_32) >>> 0, Math.floor(a / TWO_32) >>> 0];
}

export function joinAddr(lo: number, hi: number): number {
  return hi * TWO_32 + (lo >>> 0);
}

export function splitU64(v: bigint): [lo: number, hi: number] {
  return [Number(v & 0xffffffffn), Number((v >> 32n) & 0xffffffffn)];
}

export function joinU64(lo: number, hi: number): bigint {
  return (BigInt(hi >>> 0) << 32n) | BigInt(lo >>> 0);
}

/** The largest high dword of an address that is still below 2^53. */
export const MAX_SAFE_ADDR_HI = 0x1fffff;

/** A field with its masks precomputed. */
export interface CompiledField {
  readonly spec: FieldSpec;
  readonly name: string;
  readonly type: FieldSpec["type"];
  readonly dw: number;
  readonly lo: number;
  /** Value mask (after shifting down by lo); for addr: the mask of bits 31:lo of the low dword,
   * in place. For words: the count field's mask. */
  readonly mask: number;
  readonly width: number;
  readonly bias: number;
  readonly optional: boolean;
  readonly enumNames: readonly string[] | undefined;
  /** enum only: raw value by name. */
  readonly enumRaw: ReadonlyMap<string, number> | undefined;
  /** words only: where the count (N - 1) lives. */
  readonly countDw: number;
  readonly countLo: number;
}

export interface CompiledPacket {
  readonly spec: PacketSpec;
  readonly kind: PacketKind;
  /** The fixed header bits: op | sub_op << 8 | discriminator. */
  readonly header: number;
  /** Which DW0 bits `header` fixes. */
  readonly headerMask: number;
  /** Dwords of the fixed part (the whole packet unless it has a variable-length tail). */
  readonly fixedDwords: number;
  /** Reserved-zero bits of each fixed dword. */
  readonly reserved: readonly number[];
  /** Length: fixed (lengthDw = -1), or getBits(words[at + lengthDw], lengthLo, lengthMask) + lengthAdd. */
  readonly fixedLength: number;
  readonly lengthDw: number;
  readonly lengthLo: number;
  readonly lengthMask: number;
  readonly lengthAdd: number;
  readonly fields: readonly CompiledField[];
  /** Dword indices holding the high half of an address (checked against MAX_SAFE_ADDR_HI). */
  readonly addrHiDws: readonly number[];
  /** The packet object: kind, then the fields in table order (optional ones left out at their
   * default). */
  readonly unpack: (words: ArrayLike<number>, at: number, length: number) => Packet;
  /** True if a reserved bit is set, an enum holds a reserved value or an address
   * is above 2^53 (the decoder then works out the details slowly). */
  readonly suspicious: (words: ArrayLike<number>, at: number) => boolean;
  /** Each field's number into out[slots.get(name)], allocating nothing (bool 0 or 1,
   * enum its raw value, addr the address, u64 its low dword then its high one in the next slot;
   * `words` fields are left out). The executor's fast path reads the few it needs. */
  readonly read: (words: ArrayLike<number>, at: number, out: Float64Array) => void;
  /** Where `read` puts each field. */
  readonly slots: ReadonlyMap<string, number>;
  /** Slots `read` fills (the size of its `out`). */
  readonly slotCount: number;
  /** Writes a valid packet into out[at .. at + length). */
  readonly pack: (p: Packet, out: Uint32Array | number[], at: number, length: number) => void;
  /** `read` backwards: the packet whose field values are in values[slots] into
   * out[at .. at + fixedLength), allocating nothing; false when a value is outside its field
   * (out is then partly written). Fixed-length kinds only (the others' throws InternalError). */
  readonly write: (values: ArrayLike<number>, out: Uint32Array, at: number) => boolean;
  /** `write` for the named fields only: the others are written at their defaults (all-zero
   * bits) whatever `values` holds there. The emitter's (which sets only those). */
  readonly writerOf: (names: readonly string[]) => CompiledPacket["write"];
  /** The slot values of a packet whose optional fields are all at their defaults (and whose
   * others are 0): a writer's starting values. */
  readonly defaults: Float64Array;
  /** Is every field present (or optional), of the right type and in range, with no
   * unknown property? (encode.ts explains a `false` with its slow validator.) */
  readonly valid: (p: Packet) => boolean;
}

function compileField(f: FieldSpec): CompiledField {
  const base = {
    spec: f,
    name: f.name,
    type: f.type,
    dw: f.dw,
    optional: f.optional === true,
    enumNames: undefined as readonly string[] | undefined,
    enumRaw: undefined as ReadonlyMap<string, number> | undefined,
    bias: 0,
    countDw: -1,
    countLo: 0,
  };
  switch (f.type) {
    case "uint":
    case "bool":
    case "enum": {
      const width = f.hi - f.lo + 1;
      if (f.lo < 0 || f.hi > 31 || width < 1)
        throw new InternalError(`bad bit range for ${f.name}`);
      if (f.type === "enum" && f.enum.names.length !== 2 ** width)
        throw new InternalError(`enum ${f.enum.name} does not cover ${width} bits`);
      return {
        ...base,
        lo: f.lo,
        width,
        mask: fieldMask(width),
        bias: f.type === "uint" ? (f.bias ?? 0) : 0,
        enumNames: f.type === "enum" ? f.enum.names : undefined,
        enumRaw: f.type === "enum" ? new Map(f.enum.names.map((n, raw) => [n, raw])) : undefined,
      };
    }
    case "addr":
      return { ...base, lo: f.lo, width: 64 - f.lo, mask: (fieldMask(32 - f.lo) << f.lo) >>> 0 };
    case "u64":
      return { ...base, lo: 0, width: 64, mask: 0xffffffff };
    case "words": {
      const width = f.countHi - f.countLo + 1;
      return {
        ...base,
        lo: 0,
        width,
        mask: fieldMask(width),
        bias: 1,
        countDw: f.countDw,
        countLo: f.countLo,
      };
    }
  }
}

// ---- Readers and writers over the compiled fields ----------------------------------------------
// The packet table is data. Each field gets one small closure per job, chosen by a switch on its
// type once at load time, with its dword, shift, mask and bias captured as constants; a kind's
// reader or writer runs its fields' closures in table order. `read` and `suspicious` (the
// executor's per-packet paths) and `write` (the emitter's) loop over typed arrays of the fields
// instead, on field values in numbered slots, not packet objects (faster there). The measured
// costs: docs/performance.md.

type Words = ArrayLike<number>;
type Out = Uint32Array | number[];

/** Reads a field's value from the packet at `at` of `length` dwords. */
type Get = (w: Words, at: number, length: number) => unknown;
/** Is a field at its default (an optional field then is left out of the packet object)? */
type IsDefault = (w: Words, at: number) => boolean;
/** ORs a field's value into the packet at `at` (whose fixed dwords hold the header and zeros). */
type Put = (v: unknown, out: Out, at: number) => void;

/** Bits lo+..:lo of dword dw (the result of getBits, as a closure). */
function bitsOf(dw: number, lo: number, mask: number): (w: Words, at: number) => number {
  return (w, at) => ((w[at + dw]! >>> lo) & mask) >>> 0;
}

/** The address of an addr field (bits lo-1:0 of its low dword are reserved, not part of it). */
function addrOf(dw: number, mask: number): (w: Words, at: number) => number {
  return (w, at) => (w[at + dw + 1]! >>> 0) * TWO_32 + ((w[at + dw]! & mask) >>> 0);
}

function getter(f: CompiledField): Get {
  const { dw, bias } = f;
  switch (f.type) {
    case "uint": {
      const bits = bitsOf(dw, f.lo, f.mask);
      return bias === 0 ? bits : (w, at) => bits(w, at) + bias;
    }
    case "bool": {
      const bits = bitsOf(dw, f.lo, 1);
      return (w, at) => bits(w, at) !== 0;
    }
    case "enum": {
      const [bits, names] = [bitsOf(dw, f.lo, f.mask), f.enumNames!];
      return (w, at) => names[bits(w, at)];
    }
    case "addr":
      return addrOf(dw, f.mask);
    case "u64":
      return (w, at) => joinU64(w[at + dw]!, w[at + dw + 1]!);
    case "words":
      return (w, at, length) => readWords(w, at + dw, length - dw);
  }
}

function isDefaultOf(f: CompiledField): IsDefault {
  const { dw, mask } = f;
  switch (f.type) {
    case "uint":
    case "bool":
    case "enum": {
      const bits = bitsOf(dw, f.lo, mask);
      return (w, at) => bits(w, at) === 0;
    }
    case "addr":
      return (w, at) => (w[at + dw]! & mask) === 0 && w[at + dw + 1] === 0;
    case "u64":
      return (w, at) => w[at + dw] === 0 && w[at + dw + 1] === 0;
    case "words":
      return () => false;
  }
}

function readWords(w: Words, from: number, count: number): number[] {
  const data = new Array<number>(count);
  for (let k = 0; k < count; k++) data[k] = w[from + k]! >>> 0;
  return data;
}

function unpacker(kind: PacketKind, fields: readonly CompiledField[]): CompiledPacket["unpack"] {
  const names = fields.map((f) => f.name);
  const gets = fields.map(getter);
  const defaults = fields.map((f) => (f.optional ? isDefaultOf(f) : undefined));
  return (w, at, length) => {
    // Insertion order is the key order: kind, then the fields in table order.
    const o: Record<string, unknown> = { kind };
    for (let i = 0; i < gets.length; i++) {
      const isDefault = defaults[i];
      if (isDefault === undefined || !isDefault(w, at)) o[names[i]!] = gets[i]!(w, at, length);
    }
    return o as unknown as Packet;
  };
}

/** Where CompiledPacket.read puts each field (u64: two slots). */
function readSlots(fields: readonly CompiledField[]): Map<string, number> {
  const slots = new Map<string, number>();
  let n = 0;
  for (const f of fields) {
    if (f.type === "words") continue;
    slots.set(f.name, n);
    n += f.type === "u64" ? 2 : 1;
  }
  return slots;
}

/** How `read` stores a field (an index into READ_KINDS' order below). */
const READ_BITS = 0; // uint (plus its bias), bool and enum (the raw value)
const READ_ADDR = 1;
const READ_U64 = 2; // low dword, then high dword in the next slot

function reader(fields: readonly CompiledField[]): CompiledPacket["read"] {
  // The executor's hot path: one loop over typed arrays, no calls (closures per field were ~2x
  // slower here). Slots follow table order (readSlots), words have none.
  const read = fields.filter((f) => f.type !== "words");
  const how = Uint8Array.from(read, (f) =>
    f.type === "addr" ? READ_ADDR : f.type === "u64" ? READ_U64 : READ_BITS,
  );
  const dw = Int32Array.from(read, (f) => f.dw);
  const lo = Int32Array.from(read, (f) => (f.type === "addr" ? 0 : f.lo));
  const mask = Uint32Array.from(read, (f) => f.mask);
  const bias = Float64Array.from(read, (f) => f.bias);
  return (w, at, out) => {
    let k = 0;
    for (let i = 0; i < how.length; i++) {
      const d = at + dw[i]!;
      switch (how[i]) {
        case READ_BITS:
          out[k++] = (((w[d]! >>> lo[i]!) & mask[i]!) >>> 0) + bias[i]!;
          break;
        case READ_ADDR:
          out[k++] = (w[d + 1]! >>> 0) * TWO_32 + ((w[d]! & mask[i]!) >>> 0);
          break;
        default:
          out[k++] = w[d]! >>> 0;
          out[k++] = w[d + 1]! >>> 0;
      }
    }
  };
}

/** A kind's `writerOf` (`read`'s slots and conventions, backwards). */
function writer(
  kind: PacketKind,
  header: number,
  fixedLength: number,
  fields: readonly CompiledField[],
  slots: ReadonlyMap<string, number>,
): CompiledPacket["writerOf"] {
  return (names) => {
    if (fixedLength < 0)
      return () => {
        throw new InternalError(`${kind} has no fixed length: write its packet object`);
      };
    // Like `reader`: one loop over typed arrays of the fields. A field left out is at its
    // default, whose bits are all zero (a uint's default is its bias).
    const put = fields.filter((f) => f.type !== "words" && names.includes(f.name));
    if (put.length !== names.length)
      throw new InternalError(`${kind} has no fields ${names.join(", ")} to write`);
    const how = Uint8Array.from(put, (f) =>
      f.type === "addr" ? READ_ADDR : f.type === "u64" ? READ_U64 : READ_BITS,
    );
    const slot = Int32Array.from(put, (f) => slots.get(f.name)!);
    const dw = Int32Array.from(put, (f) => f.dw);
    const lo = Int32Array.from(put, (f) => f.lo);
    const mask = Float64Array.from(put, (f) => f.mask);
    const bias = Float64Array.from(put, (f) => f.bias);
    // An address's reserved low bits (it must be a multiple of 2^lo).
    const alignMask = Int32Array.from(put, (f) => (f.type === "addr" ? 2 ** f.lo - 1 : 0));
    return (v, out, at) => {
      out[at] = header;
      for (let d = 1; d < fixedLength; d++) out[at + d] = 0;
      for (let i = 0; i < how.length; i++) {
        const d = at + dw[i]!;
        const k = slot[i]!;
        switch (how[i]) {
          case READ_BITS: {
            // (x >>> 0 === x: an integer in 0 .. 2^32 - 1.)
            const raw = v[k]! - bias[i]!;
            if (!(raw >>> 0 === raw && raw <= mask[i]!)) return false;
            out[d] = out[d]! | (raw << lo[i]!);
            break;
          }
          case READ_ADDR: {
            // The dwords by division, not `%` (a call into C for a double); an integer has an
            // integer low dword; NaN fails `a >= 0`.
            const a = v[k]!;
            const high = Math.floor(a / TWO_32);
            const low = a - high * TWO_32;
            if (!(a >= 0 && a <= Number.MAX_SAFE_INTEGER && low >>> 0 === low)) return false;
            if ((low & alignMask[i]!) !== 0) return false;
            out[d] = out[d]! | low;
            out[d + 1] = out[d + 1]! | high;
            break;
          }
          default: {
            const low = v[k]!;
            const high = v[k + 1]!;
            if (!(isDword(low) && isDword(high))) return false;
            out[d] = out[d]! | low;
            out[d + 1] = out[d + 1]! | high;
          }
        }
      }
      return true;
    };
  };
}

const isDword = (x: number): boolean => x >>> 0 === x;

/** `read`'s slot values of packet object `p` (by field name: slow, for tests and reports;
 * optional fields left out hold their defaults). */
export function slotValues(
  c: Pick<CompiledPacket, "fields" | "slots" | "slotCount">,
  p: Packet,
): Float64Array {
  const values = p as unknown as Record<string, unknown>;
  const out = new Float64Array(c.slotCount);
  for (const f of c.fields) {
    const k = c.slots.get(f.name);
    if (k === undefined) continue; // words
    const v = values[f.name];
    if (f.type === "u64") [out[k], out[k + 1]] = splitU64((v ?? 0n) as bigint);
    else if (f.type === "bool") out[k] = v === true ? 1 : 0;
    else if (f.type === "enum") out[k] = v === undefined ? 0 : (f.enumRaw!.get(v as string) ?? NaN);
    else out[k] = v === undefined ? f.bias : (v as number);
  }
  return out;
}

function suspiciousTest(
  reserved: readonly number[],
  fields: readonly CompiledField[],
): CompiledPacket["suspicious"] {
  // The executor's hot path too: loops over typed arrays (closures per test were ~2x slower).
  const resDw = Int32Array.from(reserved.flatMap((mask, d) => (mask !== 0 ? [d] : [])));
  const resMask = Uint32Array.from(resDw, (d) => reserved[d]!);
  const addrHi = Int32Array.from(
    fields.filter((f) => f.type === "addr"),
    (f) => f.dw + 1,
  );
  const enums = fields.flatMap((f) => {
    if (f.spec.type !== "enum" || f.spec.enum.reserved.length === 0) return [];
    const r = f.spec.enum.reserved;
    const [bits, isReserved] = [
      bitsOf(f.dw, f.lo, f.mask),
      f.enumNames!.map((_, v) => r.includes(v)),
    ];
    return [(w: Words, at: number): boolean => isReserved[bits(w, at)]!];
  });
  return (w, at) => {
    for (let j = 0; j < resDw.length; j++)
      if ((w[at + resDw[j]!]! & resMask[j]!) !== 0) return true;
    for (let j = 0; j < addrHi.length; j++) if (w[at + addrHi[j]!]! > MAX_SAFE_ADDR_HI) return true;
    for (let j = 0; j < enums.length; j++) if (enums[j]!(w, at)) return true;
    return false;
  };
}

// ---- Writers ---------------------------------------------------------------------------------

function orInto(o: Out, i: number, bits: number): void {
  o[i] = (o[i]! | bits) >>> 0;
}

function putter(f: CompiledField): Put {
  const { dw, lo, mask, bias } = f;
  switch (f.type) {
    case "uint":
      return (v, o, at) => orInto(o, at + dw, ((((v ?? bias) as number) - bias) & mask) << lo);
    case "bool": {
      const bit = 2 ** lo;
      return (v, o, at) => orInto(o, at + dw, v === true ? bit : 0);
    }
    case "enum": {
      const raws = f.enumRaw!;
      return (v, o, at) => orInto(o, at + dw, v === undefined ? 0 : raws.get(v as string)! << lo);
    }
    case "addr":
      return (v, o, at) => {
        const a = (v ?? 0) as number;
        orInto(o, at + dw, (a % TWO_32) & mask);
        orInto(o, at + dw + 1, Math.floor(a / TWO_32));
      };
    case "u64":
      return (v, o, at) => {
        const b = (v ?? 0n) as bigint;
        orInto(o, at + dw, Number(b & 0xffffffffn));
        orInto(o, at + dw + 1, Number(b >> 32n));
      };
    case "words": {
      const { countDw, countLo } = f;
      return (v, o, at) => {
        const d = v as readonly number[];
        orInto(o, at + countDw, ((d.length - 1) & mask) << countLo);
        for (let k = 0; k < d.length; k++) o[at + dw + k] = d[k]! >>> 0;
      };
    }
  }
}

function packer(
  header: number,
  fixedDwords: number,
  fields: readonly CompiledField[],
): CompiledPacket["pack"] {
  const names = fields.map((f) => f.name);
  const puts = fields.map(putter);
  const hasWords = fields.some((f) => f.type === "words");
  return (p, out, at, length) => {
    const values = p as unknown as Record<string, unknown>;
    out[at] = header;
    for (let d = 1; d < fixedDwords; d++) out[at + d] = 0;
    for (let i = 0; i < puts.length; i++) puts[i]!(values[names[i]!], out, at);
    // Without inline data, the dwords past the fixed part (if the length says so) are zero.
    if (!hasWords) for (let k = fixedDwords; k < length; k++) out[at + k] = 0;
  };
}

function checker(f: CompiledField): (v: unknown) => boolean {
  const { mask, bias } = f;
  switch (f.type) {
    case "uint":
      return (v) => typeof v === "number" && v >= bias && v <= mask + bias && Math.floor(v) === v;
    case "bool":
      return (v) => typeof v === "boolean";
    case "enum": {
      const raws = f.enumRaw!;
      return (v) => typeof v === "string" && raws.has(v);
    }
    case "addr": {
      const align = 2 ** f.lo;
      return (v) =>
        typeof v === "number" &&
        v >= 0 &&
        v <= Number.MAX_SAFE_INTEGER &&
        v % align === 0 &&
        Math.floor(v) === v;
    }
    case "u64":
      return (v) => typeof v === "bigint" && v >= 0n && v <= 0xffffffffffffffffn;
    case "words":
      return (v) => validWords(v, mask + 1);
  }
}

function validator(fields: readonly CompiledField[]): CompiledPacket["valid"] {
  const names = fields.map((f) => f.name);
  const optional = fields.map((f) => f.optional);
  const checks = fields.map(checker);
  return (p) => {
    const values = p as unknown as Record<string, unknown>;
    let n = 1; // kind
    for (let i = 0; i < checks.length; i++) {
      const v = values[names[i]!];
      if (v === undefined && optional[i]) continue;
      n++;
      if (!checks[i]!(v)) return false;
    }
    // No unknown property: as many defined ones as kind and the fields present.
    let keys = 0;
    for (const k in values) if (values[k] !== undefined) keys++;
    return keys === n;
  };
}

function validWords(v: unknown, max: number): boolean {
  if (!Array.isArray(v) || v.length < 1 || v.length > max) return false;
  for (const x of v)
    if (typeof x !== "number" || !Number.isInteger(x) || x < 0 || x > 0xffffffff) return false;
  return true;
}

function compilePacket(spec: PacketSpec): CompiledPacket {
  const fields = spec.fields.map(compileField);
  const words = fields.find((f) => f.type === "words");
  const fixedDwords =
    typeof spec.length === "number" ? spec.length : words ? words.dw : 1; /* NOP: the header */
  const used = new Array<number>(fixedDwords).fill(0);
  const claim = (dw: number, bits: number, what: string): void => {
    if (dw >= fixedDwords) throw new InternalError(`${spec.kind}.${what} lies outside the packet`);
    if ((used[dw]! & bits) !== 0)
      throw new InternalError(`${spec.kind}.${what} overlaps another field`);
    used[dw] = (used[dw]! | bits) >>> 0;
  };
  const disc = spec.discriminator;
  claim(0, 0xffff | (disc ? (1 << disc.bit) >>> 0 : 0), "header");
  for (const f of fields) {
    switch (f.type) {
      case "uint":
      case "bool":
      case "enum":
        claim(f.dw, (f.mask << f.lo) >>> 0, f.name);
        break;
      case "addr":
        claim(f.dw, f.mask, f.name);
        claim(f.dw + 1, 0xffffffff, f.name);
        break;
      case "u64":
        claim(f.dw, 0xffffffff, f.name);
        claim(f.dw + 1, 0xffffffff, f.name);
        break;
      case "words":
        claim(f.countDw, (f.mask << f.countLo) >>> 0, `${f.name} count`);
        break;
    }
  }
  let lengthDw = -1;
  let lengthLo = 0;
  let lengthMask = 0;
  let lengthAdd = 0;
  if (typeof spec.length !== "number") {
    const lf = fields.find((f) => f.name === (spec.length as { field: string }).field);
    if (!lf || (lf.type !== "uint" && lf.type !== "words"))
      throw new InternalError(`${spec.kind}: length field missing`);
    lengthDw = lf.type === "words" ? lf.countDw : lf.dw;
    lengthLo = lf.type === "words" ? lf.countLo : lf.lo;
    lengthMask = lf.mask;
    lengthAdd = lf.bias + spec.length.plus;
  }
  const reserved = used.map((bits) => ~bits >>> 0);
  const header =
    (spec.op | (spec.subOp << 8) | (disc && disc.value === 1 ? (1 << disc.bit) >>> 0 : 0)) >>> 0;
  const slots = readSlots(fields);
  const fixedLength = typeof spec.length === "number" ? spec.length : -1;
  const compiled: Omit<CompiledPacket, "defaults" | "write" | "writerOf"> = {
    spec,
    kind: spec.kind,
    header,
    headerMask: (0xffff | (disc ? (1 << disc.bit) >>> 0 : 0)) >>> 0,
    fixedDwords,
    reserved,
    fixedLength,
    lengthDw,
    lengthLo,
    lengthMask,
    lengthAdd,
    fields,
    addrHiDws: fields.filter((f) => f.type === "addr").map((f) => f.dw + 1),
    unpack: unpacker(spec.kind, fields),
    read: reader(fields),
    slots,
    slotCount: fields.reduce((n, f) => n + (f.type === "words" ? 0 : f.type === "u64" ? 2 : 1), 0),
    suspicious: suspiciousTest(reserved, fields),
    pack: packer(header, fixedDwords, fields),
    valid: validator(fields),
  };
  const writerOf = writer(spec.kind, header, fixedLength, fields, slots);
  return {
    ...compiled,
    writerOf,
    write: writerOf([...slots.keys()]),
    defaults: slotValues(compiled, { kind: spec.kind } as Packet),
  };
}

export const COMPILED: readonly CompiledPacket[] = PACKETS.map(compilePacket);

export const COMPILED_BY_KIND: { readonly [K in PacketKind]: CompiledPacket } = Object.fromEntries(
  COMPILED.map((c) => [c.kind, c]),
) as { readonly [K in PacketKind]: CompiledPacket };

/** Candidates by DW0 bits 15:0 (op | sub_op << 8); a few share one slot (told apart by
 * their discriminator bit). */
export const COMPILED_BY_HEADER: ReadonlyMap<number, readonly CompiledPacket[]> = (() => {
  const m = new Map<number, CompiledPacket[]>();
  for (const c of COMPILED) {
    const key = c.header & 0xffff;
    const list = m.get(key) ?? [];
    for (const other of list)
      if ((other.headerMask & c.headerMask & (other.header ^ c.header)) === 0)
        throw new InternalError(`${c.kind} and ${other.kind} have indistinguishable headers`);
    list.push(c);
    m.set(key, list);
  }
  return m;
})();

const BY_HEADER16: (readonly CompiledPacket[] | undefined)[] = new Array(0x10000).fill(undefined);
for (const [key, list] of COMPILED_BY_HEADER) BY_HEADER16[key] = list;

/** Finds the table entry for a header dword, or undefined. */
export function lookupHeader(header: number): CompiledPacket | undefined {
  const list = BY_HEADER16[header & 0xffff];
  if (list === undefined) return undefined;
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    if (((header ^ c.header) & c.headerMask) === 0) return c;
  }
  return undefined;
}

/** The length in dwords of the packet of type `c` starting at words[at], or -1 if the dword
 * that holds the length lies beyond `end`. */
export function lengthAt(
  c: CompiledPacket,
  words: ArrayLike<number>,
  at: number,
  end: number,
): number {
  if (c.lengthDw < 0) return c.fixedLength;
  if (at + c.lengthDw >= end) return -1;
  return getBits(words[at + c.lengthDw]!, c.lengthLo, c.lengthMask) + c.lengthAdd;
}

/** Writes the validated packet `p` of type `c` into out[at .. at + length). */
export function pack(
  c: CompiledPacket,
  p: Packet,
  out: Uint32Array | number[],
  at: number,
  length: number,
): void {
  c.pack(p, out, at, length);
}
