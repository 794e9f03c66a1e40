// Provenance intervals: for every (rank, buffer), which source bytes each byte range holds now,
// and which operation last wrote it. A byte holds either the initial content of some byte
// ({rank, buffer, offset}: "the initial bytes starting there") or a filled constant.
//
// Bytes are never materialised: a state costs O(segments), so verifying a schedule over 1 GiB
// buffers costs what it does over 1 KiB ones. A (rank, buffer) nobody wrote has no map at all
// and reads as its own initial bytes. Reads and writes are O(log n + k) (see interval-map.ts).

import { assertNever } from "../util/assert-never.js";
import { invariant } from "../util/internal-error.js";
import {
  assignOne,
  assignRange,
  createIntervalMap,
  forEachPiece,
  singlePiece,
  type IntervalMap,
  type IntervalValueOps,
} from "./interval-map.js";

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

export interface ProvenanceState {
  readonly ranks: number;
  /** Size of each buffer id (the same on every rank it exists on). */
  readonly bufferSizes: readonly number[];
  /** Keyed by rank * bufferSizes.length + buffer; absent = never written. */
  readonly maps: Map<number, IntervalMap<Prov>>;
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

const PROV_OPS: IntervalValueOps<Prov> = {
  shift: (v, delta) =>
    delta === 0 || v.source.kind === "byte"
      ? v
      : { source: sourceAt(v.source, delta), writer: v.writer },
  continues: (a, b, aLen) => a.writer === b.writer && sourceContinues(a.source, b.source, aLen),
};

export function createProvenance(ranks: number, bufferSizes: readonly number[]): ProvenanceState {
  return { ranks, bufferSizes, maps: new Map() };
}

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
  const map = st.maps.get(key(st, rank, buffer));
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
  forEachPiece(map, offset, offset + len, (start, end, v) =>
    out.push({ start, end, source: v.source, writer: v.writer }),
  );
  return out;
}

function mapFor(st: ProvenanceState, rank: number, buffer: number): IntervalMap<Prov> {
  const k = key(st, rank, buffer);
  let map = st.maps.get(k);
  if (map === undefined) {
    const initial: Prov = { source: { kind: "initial", rank, buffer, offset: 0 }, writer: -1 };
    map = createIntervalMap(st.bufferSizes[buffer]!, initial, PROV_OPS);
    st.maps.set(k, map);
  }
  return map;
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
  const delta = offset - from;
  if (segments.length === 1 && segments[0]!.start === from) {
    // The common case: one piece, without the temporary lists.
    assignOne(mapFor(st, rank, buffer), offset, offset + len, {
      source: segments[0]!.source,
      writer,
    });
    return;
  }
  const pieces = segments.map((s) => ({
    start: s.start + delta,
    end: s.end + delta,
    value: { source: s.source, writer },
  }));
  assignRange(mapFor(st, rank, buffer), offset, offset + len, pieces);
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
  if (len === 0) return;
  const v: Prov = { source: { kind: "byte", value }, writer };
  assignOne(mapFor(st, rank, buffer), offset, offset + len, v);
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
  const map = st.maps.get(key(st, rank, buffer));
  if (map === undefined || len === 0) return readRange(st, rank, buffer, offset, len);
  const out: ProvSegment[] = [];
  let start = offset;
  let end = offset;
  let source: Source | undefined;
  let writer = -1;
  forEachPiece(map, offset, offset + len, (s, e, v) => {
    if (
      source !== undefined &&
      (!withWriter || writer === v.writer) &&
      sourceContinues(source, v.source, end - start)
    ) {
      end = e;
      return;
    }
    if (source !== undefined) out.push({ start, end, source, writer });
    start = s;
    end = e;
    source = v.source;
    writer = v.writer;
  });
  if (source !== undefined) out.push({ start, end, source, writer });
  return out;
}

// ---- allocation-light variants (the executor's hot path; same results as the general ones) ----

function checkFast(st: ProvenanceState, rank: number, buffer: number, offset: number, len: number) {
  const size = st.bufferSizes[buffer];
  if (
    !(rank >= 0 && rank < st.ranks && buffer >= 0 && size !== undefined) ||
    !(offset >= 0 && len >= 0 && offset + len <= size)
  ) {
    key(st, rank, buffer); // throws the same InternalError as the general path
    checkRange(st, buffer, offset, len);
  }
}

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
  checkFast(st, rank, buffer, offset, len);
  if (len <= 0) return undefined;
  const map = st.maps.get(rank * st.bufferSizes.length + buffer);
  if (map === undefined) return { kind: "initial", rank, buffer, offset };
  return singlePiece(map, offset, offset + len)?.source;
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
  assignOne(mapFor(st, rank, buffer), offset, offset + len, { source, writer });
}
