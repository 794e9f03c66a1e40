// Generic pack/unpack of packets over the PACKETS table: the only module of dmac that shifts or
// masks packet bits. At load time every PacketSpec is compiled into a CompiledPacket (masks,
// reserved-bit masks per dword, how to read the length); the compilation also checks the table
// itself (no two fields share a bit, every field fits its dword) and throws InternalError if not.
//
// pack() assumes a validated packet (encode.ts validates); the generated `unpack` of a
// CompiledPacket reads any bits and never throws; reserved bits are ignored by it (the generated
// `suspicious` and the decoder check them). All arithmetic is unsigned 32-bit (`>>> 0`); 64-bit values are split into dwords here.

import { InternalError } from "../../util/internal-error.js";
import type { EnumField, FieldSpec, Packet, PacketKind, PacketSpec } from "./packets.js";
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
  /** Generated from the fields: see `generateUnpack`. */
  readonly unpack: (words: ArrayLike<number>, at: number, length: number) => Packet;
  /** Generated: true if a reserved bit is set, an enum holds a reserved value or an address
   * is above 2^53 (the decoder then works out the details slowly). */
  readonly suspicious: (words: ArrayLike<number>, at: number) => boolean;
  /** Generated: each field's number into out[slots.get(name)], allocating nothing (bool 0 or 1,
   * enum its raw value, addr the address, u64 its low dword then its high one in the next slot;
   * `words` fields are left out). The executor's fast path reads the few it needs. */
  readonly read: (words: ArrayLike<number>, at: number, out: Float64Array) => void;
  /** Where `read` puts each field. */
  readonly slots: ReadonlyMap<string, number>;
  /** Slots `read` fills (the size of its `out`). */
  readonly slotCount: number;
  /** Generated: writes a valid packet into out[at .. at + length). */
  readonly pack: (p: Packet, out: Uint32Array | number[], at: number, length: number) => void;
  /** Generated: is every field present (or optional), of the right type and in range, with no
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

// ---- Generated readers -----------------------------------------------------------------------
// The executor decodes millions of packets per second. A generic loop that stores fields under
// computed keys is ~0.3 M packets/s (megamorphic keyed stores); so, like TableGen, the table is
// compiled once at load time into one straight-line reader per kind that builds the packet as
// an object literal (one hidden class per kind). The generated text depends only on PACKETS.

const hexLit = (v: number): string => `0x${(v >>> 0).toString(16)}`;

function rawExpr(dw: number, lo: number, mask: number): string {
  const word = `w[at + ${dw}]`;
  if (mask === 0xffffffff && lo === 0) return `(${word} >>> 0)`;
  return `((${word} >>> ${lo}) & ${hexLit(mask)})`;
}

function valueExpr(f: CompiledField, enumIndex: number): string {
  switch (f.type) {
    case "uint":
      return f.bias === 0
        ? rawExpr(f.dw, f.lo, f.mask)
        : `(${rawExpr(f.dw, f.lo, f.mask)} + ${f.bias})`;
    case "bool":
      return `(${rawExpr(f.dw, f.lo, 1)} !== 0)`;
    case "enum":
      return `E[${enumIndex}][${rawExpr(f.dw, f.lo, f.mask)}]`;
    case "addr":
      return `((w[at + ${f.dw + 1}] >>> 0) * ${TWO_32} + ((w[at + ${f.dw}] & ${hexLit(f.mask)}) >>> 0))`;
    case "u64":
      return `((BigInt(w[at + ${f.dw + 1}] >>> 0) << 32n) | BigInt(w[at + ${f.dw}] >>> 0))`;
    case "words":
      return `readWords(w, at + ${f.dw}, length - ${f.dw})`;
  }
}

/** Is the value of optional field f at its default (so the decoder leaves it out)? */
function isDefaultExpr(f: CompiledField): string {
  switch (f.type) {
    case "uint":
    case "bool":
    case "enum":
      return `${rawExpr(f.dw, f.lo, f.mask)} === 0`;
    case "addr":
      return `(w[at + ${f.dw}] & ${hexLit(f.mask)}) === 0 && w[at + ${f.dw + 1}] === 0`;
    case "u64":
      return `w[at + ${f.dw}] === 0 && w[at + ${f.dw + 1}] === 0`;
    case "words":
      return "false";
  }
}

function readWords(w: ArrayLike<number>, from: number, count: number): number[] {
  const data = new Array<number>(count);
  for (let k = 0; k < count; k++) data[k] = w[from + k]! >>> 0;
  return data;
}

function generateUnpack(
  kind: PacketKind,
  fields: readonly CompiledField[],
): CompiledPacket["unpack"] {
  const enums = fields.map((f) => f.enumNames ?? []);
  const required = fields
    .map((f, i) => (f.optional ? "" : `, ${f.name}: ${valueExpr(f, i)}`))
    .join("");
  const optional = fields
    .map((f, i) =>
      f.optional ? `if (!(${isDefaultExpr(f)})) o.${f.name} = ${valueExpr(f, i)};\n` : "",
    )
    .join("");
  const body =
    `return function unpack_${kind}(w, at, length) {\n` +
    `const o = { kind: ${JSON.stringify(kind)}${required} };\n${optional}return o;\n};`;
  return new Function("E", "readWords", body)(enums, readWords) as CompiledPacket["unpack"];
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

function generateRead(
  fields: readonly CompiledField[],
  slots: ReadonlyMap<string, number>,
): CompiledPacket["read"] {
  const stores = fields.map((f) => {
    const k = slots.get(f.name);
    switch (f.type) {
      case "words":
        return "";
      case "bool":
      case "enum":
        return `out[${k}] = ${rawExpr(f.dw, f.lo, f.mask)};`;
      case "u64":
        return `out[${k}] = w[at + ${f.dw}] >>> 0; out[${k! + 1}] = w[at + ${f.dw + 1}] >>> 0;`;
      default:
        return `out[${k}] = ${valueExpr(f, 0)};`;
    }
  });
  const body = `return function read(w, at, out) {\n${stores.join("\n")}\n};`;
  return new Function(body)() as CompiledPacket["read"];
}

function generateSuspicious(
  reserved: readonly number[],
  fields: readonly CompiledField[],
): CompiledPacket["suspicious"] {
  const terms: string[] = [];
  reserved.forEach((mask, d) => {
    if (mask !== 0) terms.push(`(w[at + ${d}] & ${hexLit(mask)}) !== 0`);
  });
  const flags: boolean[][] = [];
  for (const f of fields) {
    if (f.type === "addr") terms.push(`w[at + ${f.dw + 1}] > ${hexLit(MAX_SAFE_ADDR_HI)}`);
    if (f.spec.type === "enum" && f.spec.enum.reserved.length > 0) {
      const isReserved = f.spec.enum.names.map((_, raw) =>
        (f.spec as EnumField).enum.reserved.includes(raw),
      );
      terms.push(`R[${flags.length}][${rawExpr(f.dw, f.lo, f.mask)}]`);
      flags.push(isReserved);
    }
  }
  const body = `return function suspicious(w, at) { return ${terms.length > 0 ? terms.join(" || ") : "false"}; };`;
  return new Function("R", body)(flags) as CompiledPacket["suspicious"];
}

// ---- Generated writers -----------------------------------------------------------------------

function generatePack(
  header: number,
  fixedDwords: number,
  fields: readonly CompiledField[],
): CompiledPacket["pack"] {
  const terms: string[][] = Array.from({ length: fixedDwords }, () => []);
  terms[0]!.push(hexLit(header));
  const lets: string[] = [];
  let tail = "for (let k = " + fixedDwords + "; k < length; k++) out[at + k] = 0;";
  fields.forEach((f, i) => {
    const v = `p.${f.name}`;
    switch (f.type) {
      case "uint":
        terms[f.dw]!.push(
          f.optional
            ? `(((${v} ?? ${f.bias}) - ${f.bias}) & ${hexLit(f.mask)}) << ${f.lo}`
            : `((${v} - ${f.bias}) & ${hexLit(f.mask)}) << ${f.lo}`,
        );
        break;
      case "bool":
        terms[f.dw]!.push(`(${v} === true ? ${hexLit(2 ** f.lo)} : 0)`);
        break;
      case "enum":
        terms[f.dw]!.push(
          f.optional
            ? `(${v} === undefined ? 0 : E[${i}].get(${v}) << ${f.lo})`
            : `E[${i}].get(${v}) << ${f.lo}`,
        );
        break;
      case "addr":
        lets.push(`const a${i} = ${f.optional ? `${v} ?? 0` : v};`);
        terms[f.dw]!.push(`(a${i} % ${TWO_32}) & ${hexLit(f.mask)}`);
        terms[f.dw + 1]!.push(`Math.floor(a${i} / ${TWO_32})`);
        break;
      case "u64":
        lets.push(`const b${i} = ${f.optional ? `${v} ?? 0n` : v};`);
        terms[f.dw]!.push(`Number(b${i} & 0xffffffffn)`);
        terms[f.dw + 1]!.push(`Number(b${i} >> 32n)`);
        break;
      case "words":
        terms[f.countDw]!.push(`((${v}.length - 1) & ${hexLit(f.mask)}) << ${f.countLo}`);
        tail = `const d = ${v}; for (let k = 0; k < d.length; k++) out[at + ${f.dw} + k] = d[k] >>> 0;`;
        break;
    }
  });
  const stores = terms.map(
    (t, d) => `out[at + ${d}] = (${t.length > 0 ? t.join(" | ") : "0"}) >>> 0;`,
  );
  const body = `return function pack(p, out, at, length) {\n${lets.join("\n")}\n${stores.join("\n")}\n${tail}\n};`;
  const enums = fields.map((f) => new Map((f.enumNames ?? []).map((n, raw) => [n, raw])));
  return new Function("E", body)(enums) as CompiledPacket["pack"];
}

function generateValid(fields: readonly CompiledField[]): CompiledPacket["valid"] {
  const checks: string[] = [];
  fields.forEach((f, i) => {
    const v = `p.${f.name}`;
    let check: string;
    switch (f.type) {
      case "uint":
        check = `typeof ${v} === "number" && ${v} >= ${f.bias} && ${v} <= ${f.mask + f.bias} && Math.floor(${v}) === ${v}`;
        break;
      case "bool":
        check = `typeof ${v} === "boolean"`;
        break;
      case "enum":
        check = `typeof ${v} === "string" && E[${i}].has(${v})`;
        break;
      case "addr":
        check = `typeof ${v} === "number" && ${v} >= 0 && ${v} <= ${Number.MAX_SAFE_INTEGER} && ${v} % ${2 ** f.lo} === 0 && Math.floor(${v}) === ${v}`;
        break;
      case "u64":
        check = `typeof ${v} === "bigint" && ${v} >= 0n && ${v} <= 0xffffffffffffffffn`;
        break;
      case "words":
        check = `validWords(${v}, ${f.mask + 1})`;
        break;
    }
    checks.push(f.optional ? `(${v} === undefined ? true : (n++, ${check}))` : `(n++, ${check})`);
  });
  const body =
    `return function valid(p) {\nlet n = 1;\n` +
    `if (!(${checks.length > 0 ? checks.join(" &&\n") : "true"})) return false;\n` +
    `let keys = 0; for (const k in p) if (p[k] !== undefined) keys++; return keys === n;\n};`;
  const enums = fields.map((f) => new Set(f.enumNames ?? []));
  return new Function("E", "validWords", body)(enums, validWords) as CompiledPacket["valid"];
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
  return {
    spec,
    kind: spec.kind,
    header:
      (spec.op | (spec.subOp << 8) | (disc && disc.value === 1 ? (1 << disc.bit) >>> 0 : 0)) >>> 0,
    headerMask: (0xffff | (disc ? (1 << disc.bit) >>> 0 : 0)) >>> 0,
    fixedDwords,
    reserved,
    fixedLength: typeof spec.length === "number" ? spec.length : -1,
    lengthDw,
    lengthLo,
    lengthMask,
    lengthAdd,
    fields,
    addrHiDws: fields.filter((f) => f.type === "addr").map((f) => f.dw + 1),
    unpack: generateUnpack(spec.kind, fields),
    read: generateRead(fields, slots),
    slots,
    slotCount: fields.reduce((n, f) => n + (f.type === "words" ? 0 : f.type === "u64" ? 2 : 1), 0),
    suspicious: generateSuspicious(reserved, fields),
    pack: generatePack(header, fixedDwords, fields),
    valid: generateValid(fields),
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
