// Provenance intervals: for every (rank, buffer), which source bytes each byte range holds now,
// and which operation last wrote it. A byte holds either the initial content of some byte
// ({rank, buffer, offset}: "the initial bytes starting there") or a filled constant.
//
// Bytes are never materialised: a state costs O(segments), so verifying a schedule over 1 GiB
// buffers costs what it does over 1 KiB ones. A (rank, buffer) nobody wrote has no map at all
// and reads as its own initial bytes. Reads and writes are O(log n + k).
//
// Representation (no object per segment: the reference run and the executor write millions):
// each (rank, buffer) is an integer interval map (int-interval-map.ts) whose values are rows of
// one table per state (`ProvRows`: typed arrays). A row is (src, d, writer): `src` names the
// source (rank * buffers + buffer for initial bytes, -1 - value for a constant byte) and `d` is
// the source offset minus the position it sits at, so a row does not change when its segment is
// split, and two neighbours continue each other exactly when their rows are equal. Rows are
// interned (equal triples are one row), so the integer map's "neighbours with one value are one
// segment" gives the same segments as merging sources that continue each other would.
// `Source` objects are made only for callers that read segments (readRange and friends).

import { grown } from "../util/arrays.js";
import { assertNever } from "../util/assert-never.js";
import { invariant } from "../util/internal-error.js";
import {
  assign,
  createIntIntervalMap,
  nextPiece,
  pieceEnd,
  pieceStart,
  pieceValue,
  seek,
  type IntIntervalMap,
} from "./int-interval-map.js";

export type Source =
  | {
      readonly kind: "initial";
      readonly rank: number;
      readonly buffer: number;
      readonly offset: number;
    }
  | { readonly kind: "byte"; readonly value: number };

/** What a byte range holds: its source, and the op that last wrote it (-1: never written). */
export interface Prov {
  readonly source: Source;
  readonly writer: number;
}

/** A range [start, end) of one (rank, buffer) and what it holds (source shifted to `start`). */
export interface ProvSegment {
  readonly start: number;
  readonly end: number;
  readonly source: Source;
  readonly writer: number;
}

/**
 * The interned rows (src, d, writer) of one state. Every write so far came in bursts (all rows of
 * one writer made by consecutive writes: one op of the reference run, one command of the
 * executor), so a new row can only equal one of the current burst's: those are compared, no
 * index is kept. When a writer comes back after another one, or a burst grows long, `index`
 * (a hash of every row) is built and used from then on.
 */
export interface ProvRows {
  src: Int32Array;
  d: Float64Array;
  writer: Int32Array;
  n: number;
  /** Writers (by writer + 1) that made rows. */
  seen: Uint8Array;
  /** The writer of the current burst and its first row. */
  burstWriter: number;
  burstFrom: number;
  /** row + 1 per slot (0: empty), a power of two at most half full; empty until needed. */
  index: Int32Array;
}

/** A burst longer than this is looked up in the index (a copy of a fragmented range). */
const MAX_BURST_SCAN = 16;

export interface ProvenanceState {
  readonly ranks: number;
  /** Size of each buffer id (the same on every rank it exists on). */
  readonly bufferSizes: readonly number[];
  /** Indexed by rank * bufferSizes.length + buffer; absent = never written. */
  readonly maps: (IntIntervalMap | undefined)[];
  readonly rows: ProvRows;
}

export function sourceAt(s: Source, delta: number): Source {
  switch (s.kind) {
    case "initial":
      return delta === 0
        ? s
        : { kind: "initial", rank: s.rank, buffer: s.buffer, offset: s.offset + delta };
    case "byte":
      return s;
    default:
      return assertNever(s, "source");
  }
}

/** True if `b` is what follows `a` when `a` covers `aLen` bytes (same initial run or same byte). */
export function sourceContinues(a: Source, b: Source, aLen: number): boolean {
  if (a.kind === "initial") {
    return (
      b.kind === "initial" &&
      a.rank === b.rank &&
      a.buffer === b.buffer &&
      a.offset + aLen === b.offset
    );
  }
  return b.kind === "byte" && a.value === b.value;
}

/**
 * An empty state. `rows`: about how many rows the run will make (one per piece written), so the
 * row table is allocated once instead of grown by doubling.
 */
export function createProvenance(
  ranks: number,
  bufferSizes: readonly number[],
  rows = 1024,
): ProvenanceState {
  const cap = 2 ** Math.ceil(Math.log2(Math.max(1024, Math.min(rows, 1 << 26))));
  return {
    ranks,
    bufferSizes,
    maps: [],
    rows: {
      src: new Int32Array(cap),
      d: new Float64Array(cap),
      writer: new Int32Array(cap),
      n: 0,
      seen: new Uint8Array(cap),
      burstWriter: -2,
      burstFrom: 0,
      index: new Int32Array(0),
    },
  };
}

// ---- rows ------------------------------------------------------------------------------------

/** The row's hash as an int32 (callers mask it: an unsigned one past 2^30 is a heap number when
 * the call is not inlined, one allocation per row interned). */
function hashRow(src: number, d: number, writer: number): number {
  const hi = Math.floor(d / 4294967296) | 0;
  let h = Math.imul(src ^ 0x5bd1e995, 0x9e3779b1);
  h = Math.imul(h ^ writer ^ (h >>> 15), 0x85ebca77);
  h = Math.imul(h ^ (d | 0) ^ (h >>> 13), 0xc2b2ae3d);
  return h ^ hi ^ (h >>> 16);
}

/** The row (src, d, writer), added if new. */
function intern(t: ProvRows, src: number, d: number, writer: number): number {
  if (t.index.length > 0) return internIndexed(t, src, d, writer);
  if (writer !== t.burstWriter) {
    // A new burst: a writer seen before may have made this row already.
    if (writer + 1 >= t.seen.length) growSeen(t, writer + 1);
    if (writer < 0 || t.seen[writer + 1] === 1) {
      buildIndex(t);
      return internIndexed(t, src, d, writer);
    }
    t.seen[writer + 1] = 1;
    t.burstWriter = writer;
    t.burstFrom = t.n;
  } else {
    for (let r = t.burstFrom; r < t.n; r++)
      if (t.src[r] === src && t.d[r] === d && t.writer[r] === writer) return r;
    if (t.n - t.burstFrom >= MAX_BURST_SCAN) {
      buildIndex(t);
      return internIndexed(t, src, d, writer);
    }
  }
  return addRow(t, src, d, writer);
}

/** A row no other row can equal (a new map's initial bytes, or checked by the caller). */
function addRow(t: ProvRows, src: number, d: number, writer: number): number {
  if (t.n === t.src.length) growRows(t);
  const row = t.n++;
  t.src[row] = src;
  t.d[row] = d;
  t.writer[row] = writer;
  return row;
}

/** intern() through the hash index. */
function internIndexed(t: ProvRows, src: number, d: number, writer: number): number {
  const mask = t.index.length - 1;
  let i = hashRow(src, d, writer) & mask;
  for (;;) {
    const r = t.index[i]! - 1;
    if (r < 0) break;
    if (t.src[r] === src && t.d[r] === d && t.writer[r] === writer) return r;
    i = (i + 1) & mask;
  }
  const row = addRow(t, src, d, writer);
  if (t.index.length < t.src.length * 2) {
    buildIndex(t); // the columns grew: the index follows, with the new row in it
    return row;
  }
  t.index[i] = row + 1;
  return row;
}

/** Doubles the row columns. */
function growRows(t: ProvRows): void {
  const cap = t.src.length * 2;
  t.src = grown(t.src, cap);
  t.d = grown(t.d, cap);
  t.writer = grown(t.writer, cap);
}

function growSeen(t: ProvRows, at: number): void {
  let n = t.seen.length;
  while (n <= at) n *= 2;
  t.seen = grown(t.seen, n);
}

/** (Re)builds the hash index of every row, at twice the row capacity. */
function buildIndex(t: ProvRows): void {
  const index = new Int32Array(t.src.length * 2);
  const mask = index.length - 1;
  for (let r = 0; r < t.n; r++) {
    let i = hashRow(t.src[r]!, t.d[r]!, t.writer[r]!) & mask;
    while (index[i] !== 0) i = (i + 1) & mask;
    index[i] = r + 1;
  }
  t.index = index;
}

/** `src` of the initial bytes of (rank, buffer). */
function initialSrc(st: ProvenanceState, rank: number, buffer: number): number {
  return rank * st.bufferSizes.length + buffer;
}

/** Row `r` as a Source at position `at` of its map. */
function sourceOfRow(st: ProvenanceState, r: number, at: number): Source {
  const t = st.rows;
  const src = t.src[r]!;
  if (src < 0) return { kind: "byte", value: -1 - src };
  const B = st.bufferSizes.length;
  return { kind: "initial", rank: Math.floor(src / B), buffer: src % B, offset: t.d[r]! + at };
}

/** The row of `source` placed at position `at`, written by `writer`. */
function rowOfSource(st: ProvenanceState, source: Source, at: number, writer: number): number {
  if (source.kind === "byte") return intern(st.rows, -1 - source.value, 0, writer);
  return intern(st.rows, initialSrc(st, source.rank, source.buffer), source.offset - at, writer);
}

// ---- checks ----------------------------------------------------------------------------------

function key(st: ProvenanceState, rank: number, buffer: number): number {
  invariant(
    rank >= 0 && rank < st.ranks && buffer >= 0 && buffer < st.bufferSizes.length,
    () => `provenance access to rank ${rank} buffer ${buffer}`,
  );
  return rank * st.bufferSizes.length + buffer;
}

function checkRange(st: ProvenanceState, buffer: number, offset: number, len: number): void {
  const size = st.bufferSizes[buffer]!;
  invariant(
    offset >= 0 && len >= 0 && offset + len <= size,
    () => `range [${offset} +: ${len}] outside buffer of ${size}`,
  );
}

/** key() and checkRange() with one test on the common path. */
function checkFast(
  st: ProvenanceState,
  rank: number,
  buffer: number,
  offset: number,
  len: number,
): number {
  const size = st.bufferSizes[buffer];
  if (
    !(rank >= 0 && rank < st.ranks && buffer >= 0 && size !== undefined) ||
    !(offset >= 0 && len >= 0 && offset + len <= size)
  ) {
    key(st, rank, buffer); // throws the same InternalError as the general path
    checkRange(st, buffer, offset, len);
  }
  return rank * st.bufferSizes.length + buffer;
}

function mapFor(st: ProvenanceState, rank: number, buffer: number): IntIntervalMap {
  const k = key(st, rank, buffer);
  let map = st.maps[k];
  if (map === undefined) {
    // The only row of these bytes with no writer (one map per (rank, buffer)), so nothing to
    // look up; written through the index when there is one.
    const t = st.rows;
    const src = initialSrc(st, rank, buffer);
    const initial = t.index.length > 0 ? internIndexed(t, src, 0, -1) : addRow(t, src, 0, -1);
    map = createIntIntervalMap(st.bufferSizes[buffer]!, initial);
    st.maps[k] = map;
  }
  return map;
}

// ---- reading segments (objects, for reports and verification) -------------------------------

/** The segments of [offset, offset + len) of (rank, buffer), clipped, in order. */
export function readRange(
  st: ProvenanceState,
  rank: number,
  buffer: number,
  offset: number,
  len: number,
): ProvSegment[] {
  checkRange(st, buffer, offset, len);
  if (len === 0) return [];
  const map = st.maps[key(st, rank, buffer)];
  if (map === undefined) {
    return [
      {
        start: offset,
        end: offset + len,
        source: { kind: "initial", rank, buffer, offset },
        writer: -1,
      },
    ];
  }
  const out: ProvSegment[] = [];
  const hi = offset + len;
  seek(map, offset);
  for (;;) {
    const s = Math.max(pieceStart(map), offset);
    const e = Math.min(pieceEnd(map), hi);
    const r = pieceValue(map);
    out.push({ start: s, end: e, source: sourceOfRow(st, r, s), writer: st.rows.writer[r]! });
    if (e >= hi || !nextPiece(map)) return out;
  }
}

/**
 * Writes `segments` (as returned by readRange of a range of the same length, positions relative
 * to `from`) to [offset, ...) of (rank, buffer), recording `writer` as the op that wrote them.
 */
export function writeSegments(
  st: ProvenanceState,
  rank: number,
  buffer: number,
  offset: number,
  from: number,
  segments: readonly ProvSegment[],
  writer: number,
): void {
  if (segments.length === 0) return;
  const len = segments[segments.length - 1]!.end - from;
  checkRange(st, buffer, offset, len);
  const map = mapFor(st, rank, buffer);
  const delta = offset - from;
  let expect = from;
  for (const s of segments) {
    invariant(s.start === expect && s.end > s.start, "pieces must tile the assigned range");
    expect = s.end;
    const at = s.start + delta;
    assign(map, at, s.end + delta, rowOfSource(st, s.source, at, writer));
  }
}

/** Fills [offset, offset + len) of (rank, buffer) with the byte `value`. */
export function fillRange(
  st: ProvenanceState,
  rank: number,
  buffer: number,
  offset: number,
  len: number,
  value: number,
  writer: number,
): void {
  checkRange(st, buffer, offset, len);
  invariant(value >= 0 && value <= 0xff, () => `fill byte ${value}`);
  if (len === 0) return;
  assign(mapFor(st, rank, buffer), offset, offset + len, intern(st.rows, -1 - value, 0, writer));
}

/**
 * The segments of a range with neighbours that continue each other merged (same writer, same
 * source run): the canonical form used to compare states reached by different histories.
 */
export function coalesce(segments: readonly ProvSegment[], withWriter = true): ProvSegment[] {
  const out: ProvSegment[] = [];
  for (const s of segments) {
    const last = out[out.length - 1];
    if (
      last !== undefined &&
      last.end === s.start &&
      (!withWriter || last.writer === s.writer) &&
      sourceContinues(last.source, s.source, last.end - last.start)
    ) {
      out[out.length - 1] = {
        start: last.start,
        end: s.end,
        source: last.source,
        writer: last.writer,
      };
    } else {
      out.push(s);
    }
  }
  return out;
}

/**
 * coalesce(readRange(st, rank, buffer, offset, len), withWriter) without the list of pieces:
 * only the runs are allocated (verification reads whole buffers of a million pieces this way).
 * With the writer, pieces never continue each other (equal rows are one segment), so the runs
 * are the pieces.
 */
export function coalescedRange(
  st: ProvenanceState,
  rank: number,
  buffer: number,
  offset: number,
  len: number,
  withWriter = true,
): ProvSegment[] {
  checkRange(st, buffer, offset, len);
  const map = st.maps[key(st, rank, buffer)];
  if (map === undefined || len === 0) return readRange(st, rank, buffer, offset, len);
  const t = st.rows;
  const out: ProvSegment[] = [];
  const hi = offset + len;
  let start = offset;
  let end = offset;
  let run = -1; // the row of the current run (positions relative to its own segment)
  seek(map, offset);
  for (;;) {
    const s = Math.max(pieceStart(map), offset);
    const e = Math.min(pieceEnd(map), hi);
    const r = pieceValue(map);
    const joins =
      run >= 0 && (!withWriter || t.writer[run] === t.writer[r]) && sameSourceRows(t, run, t, r);
    if (joins) end = e;
    else {
      if (run >= 0) out.push(runSegment(st, run, start, end));
      run = r;
      start = s;
      end = e;
    }
    if (e >= hi || !nextPiece(map)) break;
  }
  out.push(runSegment(st, run, start, end));
  return out;
}

function runSegment(st: ProvenanceState, r: number, start: number, end: number): ProvSegment {
  return { start, end, source: sourceOfRow(st, r, start), writer: st.rows.writer[r]! };
}

/** Rows whose sources are the same bytes at the same position (writers aside). */
function sameSourceRows(a: ProvRows, ra: number, b: ProvRows, rb: number): boolean {
  return a.src[ra] === b.src[rb] && a.d[ra] === b.d[rb];
}

// ---- moves on rows (the reference run's and the executor's hot paths) ------------------------

// The pieces read by a move, before any is written (source and destination may overlap): each
// piece's start, src and d, for up to two ranges (a swap reads both first).
class Pieces {
  start = new Float64Array(64);
  src = new Int32Array(64);
  d = new Float64Array(64);

  grow(): void {
    const n = this.start.length * 2;
    this.start = grown(this.start, n);
    this.src = grown(this.src, n);
    this.d = grown(this.d, n);
  }
}
const scratch = [new Pieces(), new Pieces()] as const;

/** Reads the pieces of [offset, offset + len) into `out`; returns their number. */
function readPieces(
  st: ProvenanceState,
  out: Pieces,
  mapKey: number,
  offset: number,
  len: number,
): number {
  const map = st.maps[mapKey];
  if (map === undefined) {
    // Never written: its own initial bytes (mapKey is their src, rank * buffers + buffer).
    out.start[0] = offset;
    out.src[0] = mapKey;
    out.d[0] = 0;
    return 1;
  }
  const t = st.rows;
  const hi = offset + len;
  let n = 0;
  seek(map, offset);
  for (;;) {
    if (n === out.start.length) out.grow();
    const r = pieceValue(map);
    out.start[n] = Math.max(pieceStart(map), offset);
    out.src[n] = t.src[r]!;
    out.d[n++] = t.d[r]!;
    if (pieceEnd(map) >= hi || !nextPiece(map)) return n;
  }
}

/**
 * Writes the n pieces of `from` (read from [at, at + len)) to [offset, offset + len) of
 * (rank, buffer) as written by `writer`.
 */
function writePieces(
  st: ProvenanceState,
  p: Pieces,
  n: number,
  rank: number,
  buffer: number,
  offset: number,
  at: number,
  len: number,
  writer: number,
): void {
  const map = mapFor(st, rank, buffer);
  const t = st.rows;
  const delta = offset - at;
  for (let i = 0; i < n; i++) {
    const src = p.src[i]!;
    const lo = p.start[i]! + delta;
    const hi = i + 1 < n ? p.start[i + 1]! + delta : offset + len;
    assign(map, lo, hi, intern(t, src, src < 0 ? 0 : p.d[i]! - delta, writer));
  }
}

/**
 * Copies [from, from + len) of (srcRank, srcBuf) to [offset, offset + len) of (rank, buffer),
 * and to [offset2, ...) of (rank2, buffer2) when rank2 >= 0 (a broadcast), as op `writer`:
 * readRange + writeSegments without the segment objects. Returns the pieces read.
 */
export function copyRange(
  st: ProvenanceState,
  srcRank: number,
  srcBuf: number,
  from: number,
  len: number,
  rank: number,
  buffer: number,
  offset: number,
  writer: number,
  rank2 = -1,
  buffer2 = -1,
  offset2 = 0,
): number {
  const k = checkFast(st, srcRank, srcBuf, from, len);
  if (len <= 0) return 0;
  checkFast(st, rank, buffer, offset, len);
  if (rank2 >= 0) checkFast(st, rank2, buffer2, offset2, len);
  const p = scratch[0];
  const n = readPieces(st, p, k, from, len);
  writePieces(st, p, n, rank, buffer, offset, from, len, writer);
  if (rank2 >= 0) writePieces(st, p, n, rank2, buffer2, offset2, from, len, writer);
  return n;
}

/** Exchanges [a, a + len) of (rankA, bufA) and [b, b + len) of (rankB, bufB) as op `writer`. */
export function swapRanges(
  st: ProvenanceState,
  rankA: number,
  bufA: number,
  a: number,
  rankB: number,
  bufB: number,
  b: number,
  len: number,
  writer: number,
): number {
  const ka = checkFast(st, rankA, bufA, a, len);
  const kb = checkFast(st, rankB, bufB, b, len);
  if (len <= 0) return 0;
  const [pa, pb] = scratch;
  const na = readPieces(st, pa, ka, a, len);
  const nb = readPieces(st, pb, kb, b, len);
  writePieces(st, pb, nb, rankA, bufA, a, b, len, writer);
  writePieces(st, pa, na, rankB, bufB, b, a, len, writer);
  return na + nb;
}

/**
 * The first byte of [0, size) of (rank, buffer) where states `a` and `b` hold different source
 * bytes (writers aside), or -1 when they agree everywhere: the final-state check's fast path
 * (it makes segments only to describe a difference).
 */
export function firstDifference(
  a: ProvenanceState,
  b: ProvenanceState,
  rank: number,
  buffer: number,
  size: number,
): number {
  checkRange(a, buffer, 0, size);
  checkRange(b, buffer, 0, size);
  if (size === 0) return -1;
  const ma = a.maps[key(a, rank, buffer)];
  const mb = b.maps[key(b, rank, buffer)];
  if (ma === undefined && mb === undefined) return -1;
  if (ma !== undefined) seek(ma, 0);
  if (mb !== undefined) seek(mb, 0);
  let pos = 0;
  for (;;) {
    const ea = ma === undefined ? size : pieceEnd(ma);
    const eb = mb === undefined ? size : pieceEnd(mb);
    const ra = ma === undefined ? -1 : pieceValue(ma);
    const rb = mb === undefined ? -1 : pieceValue(mb);
    if (!sameSourceAt(a, ra, b, rb, rank, buffer)) return pos;
    pos = Math.min(ea, eb);
    if (pos >= size) return -1;
    if (ea === pos) nextPiece(ma!);
    if (eb === pos) nextPiece(mb!);
  }
}

/**
 * Rows ra of state a and rb of state b (-1: the initial bytes of (rank, buffer)) hold the same
 * source at the same position. The states may number buffers differently, so sources compare
 * as (rank, buffer) pairs.
 */
function sameSourceAt(
  a: ProvenanceState,
  ra: number,
  b: ProvenanceState,
  rb: number,
  rank: number,
  buffer: number,
): boolean {
  const ta = a.rows;
  const tb = b.rows;
  const sa = ra < 0 ? initialSrc(a, rank, buffer) : ta.src[ra]!;
  const sb = rb < 0 ? initialSrc(b, rank, buffer) : tb.src[rb]!;
  const da = ra < 0 ? 0 : ta.d[ra]!;
  const db = rb < 0 ? 0 : tb.d[rb]!;
  if (sa < 0 || sb < 0) return sa === sb;
  if (da !== db) return false;
  const Ba = a.bufferSizes.length;
  const Bb = b.bufferSizes.length;
  if (Ba === Bb) return sa === sb;
  return Math.floor(sa / Ba) === Math.floor(sb / Bb) && sa % Ba === sb % Bb;
}

/**
 * A copy of `st` whose every segment holds the same source and names `writerAt(rank, buffer, its
 * first byte)` as its writer: for a state moved without writers (writer -1 throughout), given
 * where each byte was last written. Segments stay as they are (equal rows are one segment, so
 * they are already maximal runs of continuing sources).
 */
export function withWriters(
  st: ProvenanceState,
  writerAt: (rank: number, buffer: number, at: number) => number,
): ProvenanceState {
  const out = createProvenance(st.ranks, st.bufferSizes);
  const B = st.bufferSizes.length;
  const t = st.rows;
  for (let k = 0; k < st.maps.length; k++) {
    const map = st.maps[k];
    if (map === undefined) continue;
    const rank = Math.floor(k / B);
    const buffer = k % B;
    const to = mapFor(out, rank, buffer);
    seek(map, 0);
    for (;;) {
      const start = pieceStart(map);
      const r = pieceValue(map);
      const writer = writerAt(rank, buffer, start);
      const src = t.src[r]!;
      assign(to, start, pieceEnd(map), intern(out.rows, src, t.d[r]!, writer));
      if (!nextPiece(map)) break;
    }
  }
  return out;
}

// ---- single-piece helpers (kept for callers and tests; same results as the general ones) -----

/**
 * The source of [offset, offset + len) of (rank, buffer) when it is one segment (readRange would
 * return exactly one segment with this source), else undefined; len must be > 0.
 */
export function singleSource(
  st: ProvenanceState,
  rank: number,
  buffer: number,
  offset: number,
  len: number,
): Source | undefined {
  const k = checkFast(st, rank, buffer, offset, len);
  if (len <= 0) return undefined;
  const map = st.maps[k];
  if (map === undefined) return { kind: "initial", rank, buffer, offset };
  seek(map, offset);
  if (pieceEnd(map) < offset + len) return undefined;
  return sourceOfRow(st, pieceValue(map), offset);
}

/**
 * Same as writeSegments with one segment holding `source` over [offset, offset + len) of
 * (rank, buffer), without the temporary lists.
 */
export function writeSource(
  st: ProvenanceState,
  rank: number,
  buffer: number,
  offset: number,
  len: number,
  source: Source,
  writer: number,
): void {
  checkFast(st, rank, buffer, offset, len);
  if (len <= 0) return;
  assign(mapFor(st, rank, buffer), offset, offset + len, rowOfSource(st, source, offset, writer));
}
