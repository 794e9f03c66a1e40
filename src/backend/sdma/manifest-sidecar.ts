// The manifest's sidecar (DIR/manifest.sidecar, docs/manifest.md "The sidecar"): the bulky
// arrays of manifest.json (relocations, packet starts, completion slots, source-map rows, sync
// words) once more in binary, with where each one lies in the JSON text.
// `dmac sim DIR` parses manifest.json with those spans cut out (one empty array each) and takes
// the numbers from here as typed arrays: at 10^6 operations the parse drops from ~120 MB of text
// to a fraction, and the collector no longer marks tens of millions of parsed numbers and a
// million row arrays for the whole run (docs/performance.md). The JSON stays complete, so a
// runtime or any other reader never needs the sidecar. Its reader compares every array with its
// span of manifest.json's text before use (sidecar-match.ts): that binds the two, and a sidecar
// that differs (the manifest was edited) or of another version is ignored, and the JSON is
// parsed whole.
//
// Layout (little-endian; every offset a multiple of 8):
//   0   "DMACSIDE"                     magic
//   8   u32 version (2), u32 n         the number of arrays
//   16  n entries of 48 bytes:
//         u32 field (SIDECAR_FIELDS), u32 index (of the queue / relocation list / source-map queue),
//         u32 element bytes (4: u32, 8: f64), u32 rows (source-map rows; 0 for flat arrays),
//         f64 start, f64 end            the value's bytes in manifest.json, '[' .. ']' inclusive
//         f64 count                     numbers in the array (all rows together)
//         f64 offset                    where its payload starts in the sidecar
//   payloads: rows + 1 u32 row starts (source map only, padded to 8), then the numbers.

import { PackedRows } from "./packed-rows.js";

export const SIDECAR_FILE = "manifest.sidecar";
export const SIDECAR_VERSION = 2;
const MAGIC = "DMACSIDE";
const HEADER_BYTES = 16;
const ENTRY_BYTES = 48;
const U32_LIMIT = 2 ** 32;

/** The arrays a sidecar may carry, by code (the JSON path each replaces, with its index i). */
export const SIDECAR_FIELDS = {
  1: { name: "relocations", path: (i: number) => `$.relocations[${i}].entries` },
  2: { name: "packetStarts", path: (i: number) => `$.queues[${i}].packetStarts` },
  3: { name: "completionSlots", path: (i: number) => `$.queues[${i}].completionSlots` },
  4: { name: "sourceMap", path: (i: number) => `$.sourceMap.queues[${i}].entries` },
  5: { name: "syncWords", path: (_i: number) => "$.memory.syncWords" },
} as const;
export type SidecarField = keyof typeof SIDECAR_FIELDS;

/**
 * Field 5, `memory.syncWords`: SYNC_WORD_NUMBERS numbers per word, [id, kind, gpu, address, a, b]
 * with kind an index of SYNC_WORD_KINDS, gpu NULL_GPU for null (host memory), and a, b indices of
 * `queues`: the producer and consumer of a progress word, the queue (and 0) of the others.
 */
export const SYNC_WORD_NUMBERS = 6;
export const SYNC_WORD_KINDS = ["progress", "barrier", "breadcrumb"] as const;
export const NULL_GPU = 64;

/** One array of manifest.json as the sidecar gives it. */
export interface SidecarArray {
  readonly field: SidecarField;
  readonly index: number;
  /** Its bytes in manifest.json: [start, end), from '[' to ']'. */
  readonly start: number;
  readonly end: number;
  /** The numbers (a source map's rows one after another). */
  readonly values: Float64Array | Uint32Array;
  /** Source map: row r is values[rowStarts[r] .. rowStarts[r + 1]). */
  readonly rowStarts?: Uint32Array | undefined;
}

/** A sidecar read for a manifest: its arrays, and its file (named by reports). */
export interface SidecarInput {
  readonly file: string;
  readonly arrays: readonly SidecarArray[];
}

/** An array to write: its field and index, its numbers, and its span in the JSON. */
export interface SidecarSource {
  readonly field: SidecarField;
  readonly index: number;
  /** The numbers (for sync words: encoded as SYNC_WORD_NUMBERS per word). */
  readonly value: ArrayLike<number> | PackedRows;
  readonly start: number;
  readonly end: number;
}

const pad8 = (n: number): number => Math.ceil(n / 8) * 8;

/** The sidecar for the arrays in `sources` (spans in manifest.json), in span order. */
export function writeSidecar(sources: readonly SidecarSource[]): Uint8Array {
  const chunks: Uint8Array[] = [];
  writeSidecarTo(sources, (c) => chunks.push(c.slice()));
  return Buffer.concat(chunks);
}

/** The sidecar is handed over in chunks of this many bytes: the sidecar of a 4x10^6-operation
 * program is 400 MB, streamed to its file (output.ts) rather than assembled, and a small chunk
 * (512 KiB) is fewer pages of fresh memory to fault in, as manifest.json's 512 KiB chunks are.
 * Whole chunks, not one per array: a write system call per array (~300 for a 65,536-copy
 * all-to-all) cost more than the copies. A multiple of 8, so a position in the chunk keeps the
 * alignment of its offset in the file (every payload starts 8-aligned). */
const CHUNK = 1 << 19;

/** Does a number of `v` need 8 bytes (2^32 or more)? */
function anyWide(v: Float64Array | Uint32Array): boolean {
  for (let k = 0; k < v.length; k++) if (v[k]! >= U32_LIMIT) return true;
  return false;
}

/** writeSidecar, handed to `write` in chunks (each valid only during the call). */
export function writeSidecarTo(
  sources: readonly SidecarSource[],
  write: (chunk: Uint8Array) => void,
): void {
  const list = [...sources].sort((a, b) => a.start - b.start);
  const plan = list.map((s) => {
    // Typed arrays only (the completion slots are a plain array): the loops over the numbers
    // then see one or two array types, and the conversion below is native.
    const numbers =
      s.value instanceof PackedRows
        ? s.value.data
        : s.value instanceof Float64Array || s.value instanceof Uint32Array
          ? s.value
          : Float64Array.from(s.value);
    const wide = !(numbers instanceof Uint32Array) && anyWide(numbers);
    const rows = s.value instanceof PackedRows ? s.value.length : 0;
    const rowBytes = s.value instanceof PackedRows ? pad8(4 * (rows + 1)) : 0;
    return { s, numbers, width: wide ? 8 : 4, rows, rowBytes };
  });
  let at = HEADER_BYTES + ENTRY_BYTES * plan.length;
  const offsets = plan.map((p) => {
    const o = at;
    at += p.rowBytes + pad8(p.width * p.numbers.length);
    return o;
  });
  const head = Buffer.alloc(HEADER_BYTES + ENTRY_BYTES * plan.length);
  head.write(MAGIC, 0, "latin1");
  head.writeUInt32LE(SIDECAR_VERSION, 8);
  head.writeUInt32LE(plan.length, 12);
  plan.forEach((p, k) => {
    const e = HEADER_BYTES + ENTRY_BYTES * k;
    head.writeUInt32LE(p.s.field, e);
    head.writeUInt32LE(p.s.index, e + 4);
    head.writeUInt32LE(p.width, e + 8);
    head.writeUInt32LE(p.rows, e + 12);
    head.writeDoubleLE(p.s.start, e + 16);
    head.writeDoubleLE(p.s.end, e + 24);
    head.writeDoubleLE(p.numbers.length, e + 32);
    head.writeDoubleLE(offsets[k]!, e + 40);
  });
  // The numbers convert natively into the chunk (set(): every number is an integer below 2^32
  // when the width is 4); payloads are padded to 8 bytes with zeros.
  const chunk = new ArrayBuffer(CHUNK);
  const bytes = new Uint8Array(chunk);
  const u32 = new Uint32Array(chunk);
  const f64 = new Float64Array(chunk);
  let pos = 0;
  const flush = (): void => {
    if (pos > 0) write(bytes.subarray(0, pos));
    pos = 0;
  };
  if (head.length <= CHUNK) {
    bytes.set(head);
    pos = head.length;
  } else write(head);
  const numbers = (values: Float64Array | Uint32Array, width: number): void => {
    const view = width === 4 ? u32 : f64;
    for (let from = 0; from < values.length;) {
      if (pos === CHUNK) flush();
      const n = Math.min(values.length - from, (CHUNK - pos) / width);
      view.set(values.subarray(from, from + n), pos / width);
      pos += n * width;
      from += n;
    }
    // (pos is a multiple of `width`, CHUNK of 8: the padding fits.)
    const pad = pad8(pos) - pos;
    bytes.fill(0, pos, pos + pad);
    pos += pad;
  };
  for (const p of plan) {
    if (p.s.value instanceof PackedRows) numbers(p.s.value.starts, 4);
    numbers(p.numbers, p.width);
  }
  flush();
}

/** Why a sidecar cannot be used: `path` names the entry or the JSON value, `detail` the fault. */
export interface SidecarProblem {
  readonly path: string;
  readonly detail: string;
}

export type SidecarRead =
  /** Usable: manifest.json's text with every span an empty array, and the arrays. */
  | { readonly skeleton: string; readonly arrays: readonly SidecarArray[] }
  /** Of another version, or whose spans do not fit this JSON: parse the JSON whole. */
  | { readonly stale: string }
  | { readonly problem: SidecarProblem };

/**
 * Reads `sidecar` against manifest.json's bytes. Everything in it is checked before use: the
 * table, every span (inside the JSON, in order, from '[' to ']'), every payload (inside the
 * file), row starts (from 0, non-decreasing, ending at the count, two numbers per row at least)
 * and every number (an integer below 2^53, what the schema asks of these arrays). The numbers
 * are views of `sidecar`'s memory where aligned (a copy otherwise). Whether the numbers are the
 * JSON's own is the caller's comparison (sidecar-match.ts).
 */
export function readSidecar(json: Uint8Array, sidecar: Uint8Array): SidecarRead {
  // Typed views need 8-byte alignment (a small file read into Node's buffer pool lacks it).
  let b = Buffer.from(sidecar.buffer, sidecar.byteOffset, sidecar.byteLength);
  if (b.byteOffset % 8 !== 0) {
    b = Buffer.alloc(sidecar.byteLength); // never pooled: offset 0
    b.set(sidecar);
  }
  if (b.length < HEADER_BYTES || b.toString("latin1", 0, 8) !== MAGIC)
    return { problem: { path: "header", detail: "not a dmac manifest sidecar" } };
  const version = b.readUInt32LE(8);
  if (version !== SIDECAR_VERSION)
    return { stale: `sidecar version ${version} (this dmac reads ${SIDECAR_VERSION})` };
  const n = b.readUInt32LE(12);
  const arrays: SidecarArray[] = [];
  if (HEADER_BYTES + ENTRY_BYTES * n > b.length)
    return { problem: { path: "header", detail: `${n} entries, but the file ends inside them` } };
  const seen = new Set<number>();
  let prevEnd = 0;
  for (let k = 0; k < n; k++) {
    const r = readEntry(b, json, k, prevEnd);
    if ("problem" in r || "stale" in r) return r;
    const key = r.field * U32_LIMIT + r.index;
    if (seen.has(key))
      return { problem: { path: `entry ${k}`, detail: `a second array for ${fieldPath(r)}` } };
    seen.add(key);
    prevEnd = r.end;
    arrays.push(r);
  }
  return { skeleton: skeletonOf(json, arrays), arrays };
}

function fieldPath(a: { readonly field: SidecarField; readonly index: number }): string {
  return SIDECAR_FIELDS[a.field].path(a.index);
}

/** Table entry k, checked (see readSidecar). */
function readEntry(
  b: Buffer,
  json: Uint8Array,
  k: number,
  prevEnd: number,
): SidecarArray | { problem: SidecarProblem } | { stale: string } {
  const e = HEADER_BYTES + ENTRY_BYTES * k;
  const bad = (detail: string) => ({ problem: { path: `entry ${k}`, detail } });
  const field = b.readUInt32LE(e);
  if (!(field in SIDECAR_FIELDS)) return bad(`unknown field code ${field}`);
  const index = b.readUInt32LE(e + 4);
  const width = b.readUInt32LE(e + 8);
  if (width !== 4 && width !== 8) return bad(`element size ${width} (4 or 8)`);
  const rows = b.readUInt32LE(e + 12);
  const start = b.readDoubleLE(e + 16);
  const end = b.readDoubleLE(e + 24);
  const count = b.readDoubleLE(e + 32);
  const offset = b.readDoubleLE(e + 40);
  const isRows = field === 4;
  if (!isRows && rows !== 0) return bad(`${rows} rows for a flat array`);
  if (field === 5 && (index !== 0 || count % SYNC_WORD_NUMBERS !== 0))
    return bad(
      `sync words: index ${index} and ${count} numbers (index 0, ${SYNC_WORD_NUMBERS} per word)`,
    );
  // (A span that does not fit the JSON says the JSON was edited since: not a fault of the sidecar.)
  if (!Number.isInteger(start) || !Number.isInteger(end) || start < prevEnd || end > json.length)
    return { stale: `span [${start}, ${end}) is not inside manifest.json after the previous one` };
  if (end - start < 2 || json[start] !== 0x5b || json[end - 1] !== 0x5d)
    return { stale: `span [${start}, ${end}) of manifest.json is not a JSON array` };
  const rowBytes = isRows ? pad8(4 * (rows + 1)) : 0;
  if (
    !Number.isInteger(count) ||
    !Number.isInteger(offset) ||
    count < 0 ||
    offset % 8 !== 0 ||
    offset < HEADER_BYTES ||
    offset + rowBytes + width * count > b.length
  )
    return bad(`payload of ${count} numbers at ${offset} is not inside the sidecar`);
  const path = SIDECAR_FIELDS[field as SidecarField].path(index);
  const at = b.byteOffset + offset;
  let rowStarts: Uint32Array | undefined;
  if (isRows) {
    rowStarts = new Uint32Array(b.buffer, at, rows + 1);
    if (rowStarts[0] !== 0 || rowStarts[rows] !== count)
      return bad(`row starts run from ${rowStarts[0]} to ${rowStarts[rows]}, not 0 to ${count}`);
    for (let r = 0; r < rows; r++)
      if (rowStarts[r + 1]! < rowStarts[r]! + 2)
        return { problem: { path: `${path}[${r}]`, detail: "fewer than 2 numbers" } };
  }
  const values =
    width === 4
      ? new Uint32Array(b.buffer, at + rowBytes, count)
      : new Float64Array(b.buffer, at + rowBytes, count);
  if (width === 8)
    for (let i = 0; i < count; i++) {
      const v = values[i]!;
      if (!(Number.isInteger(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER))
        return {
          problem: {
            path: isRows ? `${path} (number ${i} of its rows)` : `${path}[${i}]`,
            detail: `${v} is not an integer in [0, 2^53)`,
          },
        };
    }
  if (field === 5) {
    const problem = syncWordProblem(values);
    if (problem) return { problem: { path: `${path}[${problem.word}]`, detail: problem.detail } };
  }
  return { field: field as SidecarField, index, start, end, values, rowStarts };
}

/** What the schema asks of each sync word that the numbers can break (queues: when attached). */
function syncWordProblem(v: ArrayLike<number>): { word: number; detail: string } | undefined {
  for (let at = 0; at < v.length; at += SYNC_WORD_NUMBERS) {
    const word = at / SYNC_WORD_NUMBERS;
    const kind = v[at + 1]!;
    if (kind >= SYNC_WORD_KINDS.length) return { word, detail: `kind code ${kind}` };
    if (v[at + 2]! > NULL_GPU)
      return { word, detail: `gpu ${v[at + 2]!} (at most 63, or ${NULL_GPU}: null)` };
    if (v[at + 3]! % 4 !== 0)
      return { word, detail: `address ${v[at + 3]!} is not 4-byte aligned` };
    if (kind !== 0 && v[at + 5] !== 0)
      return { word, detail: `a ${SYNC_WORD_KINDS[kind]} word with a consumer` };
  }
  return undefined;
}

/** manifest.json's text with each array's span replaced by `[]`. */
function skeletonOf(json: Uint8Array, arrays: readonly SidecarArray[]): string {
  const text = Buffer.from(json.buffer, json.byteOffset, json.byteLength);
  const parts: string[] = [];
  let at = 0;
  // (Every span starts at '[' and ends at ']', so the cuts fall between characters.)
  for (const a of arrays) {
    parts.push(text.toString("utf8", at, a.start), "[]");
    at = a.end;
  }
  parts.push(text.toString("utf8", at, json.length));
  return parts.join("");
}
