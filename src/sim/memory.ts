// The node's memory as the executor sees it: the address map (which declared region holds an
// address), the 32/64-bit words that polls read and fences/atomics write, the provenance of
// every buffer byte range (ir/provenance.ts: where the bytes came from, never the bytes), and
// per byte range the accesses needed for race detection.
//
// Race detection is FastTrack-style: each access is an epoch (queue, clock) of the queue that
// made it; the access is ordered before an operation whose vector clock C has C[queue] >= clock.
// Per byte range we keep the last write and the reads since it (reads ordered before a newer
// read are dropped: anything ordered after the newer read is ordered after them too).

import {
  createIntervalMap,
  assignRange,
  forEachPiece,
  updateRange,
  type IntervalMap,
} from "../ir/interval-map.js";
import { createProvenance, type ProvenanceState } from "../ir/provenance.js";
import type { SimProgram, SimRegion } from "./program.js";

export interface WordState {
  value: number;
  /** Join of the vector clocks of every write so far (null: never written by a queue). */
  vc: Int32Array | null;
}

/** One access: which queue, its clock value, and the command (global id) that made it. */
export interface Epoch {
  readonly queue: number;
  readonly clock: number;
  readonly cmd: number;
}

interface Access {
  readonly write: Epoch | null;
  readonly reads: readonly Epoch[];
}

const NO_ACCESS: Access = { write: null, reads: [] };
const ACCESS_OPS = { shift: (v: Access) => v, continues: (a: Access, b: Access) => a === b };

export interface Memory {
  /** Regions sorted by address. */
  readonly regions: readonly SimRegion[];
  readonly starts: Float64Array;
  readonly words: Map<number, WordState>;
  readonly prov: ProvenanceState;
  readonly access: Map<number, IntervalMap<Access>>;
  readonly buffers: number;
}

export function createMemory(p: SimProgram): Memory {
  const regions = [...p.regions].sort((a, b) => a.addr - b.addr);
  const words = new Map<number, WordState>();
  for (const r of regions) {
    if (
      r.kind === "signal" ||
      r.kind === "sync" ||
      r.kind === "completion" ||
      r.kind === "trigger" ||
      r.kind === "timestamp"
    )
      words.set(r.addr, { value: r.initial ?? 0, vc: null });
  }
  return {
    regions,
    starts: Float64Array.from(regions.map((r) => r.addr)),
    words,
    prov: createProvenance(p.gpus, p.bufferSizes),
    access: new Map(),
    buffers: p.bufferSizes.length,
  };
}

/** The region containing [addr, addr + bytes), or why there is none. */
export function resolve(
  m: Memory,
  addr: number,
  bytes: number,
): { readonly region: SimRegion; readonly offset: number } | { readonly error: string } {
  const s = m.starts;
  let lo = 0;
  let hi = s.length - 1;
  if (hi < 0 || addr < s[0]!)
    return { error: `address ${hex(addr)} is not in any declared region` };
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (s[mid]! <= addr) lo = mid;
    else hi = mid - 1;
  }
  const r = m.regions[lo]!;
  const offset = addr - r.addr;
  if (offset >= r.bytes)
    return {
      error: `address ${hex(addr)} is not in any declared region (nearest below: ${describeRegion(r)})`,
    };
  if (offset + bytes > r.bytes)
    return {
      error: `[${hex(addr)}, +${bytes}) runs ${offset + bytes - r.bytes} bytes past the end of ${describeRegion(r)} (${r.bytes} bytes)`,
    };
  return { region: r, offset };
}

export function describeRegion(r: SimRegion): string {
  const where = r.gpu === null ? "host" : `gpu${r.gpu}`;
  return r.kind === "buffer"
    ? `buffer ${r.name}@${r.gpu ?? "host"}`
    : `${r.kind} word ${r.name} (${where})`;
}

export function hex(n: number): string {
  return "0x" + n.toString(16);
}

function accessMap(m: Memory, gpu: number, buffer: number, size: number): IntervalMap<Access> {
  const key = gpu * m.buffers + buffer;
  let map = m.access.get(key);
  if (map === undefined) {
    map = createIntervalMap<Access>(size, NO_ACCESS, ACCESS_OPS);
    m.access.set(key, map);
  }
  return map;
}

export interface Conflict {
  readonly earlier: Epoch;
  readonly earlierWrites: boolean;
  readonly start: number;
  readonly end: number;
}

function ordered(e: Epoch, vc: Int32Array): boolean {
  return vc[e.queue]! >= e.clock;
}

/**
 * Records an access by `who` (whose vector clock is `vc`) to [lo, hi) of a buffer instance and
 * returns the first earlier access it is unordered with (a data race), if any.
 */
export function recordAccess(
  m: Memory,
  gpu: number,
  buffer: number,
  size: number,
  lo: number,
  hi: number,
  who: Epoch,
  vc: Int32Array,
  writes: boolean,
): Conflict | undefined {
  const map = accessMap(m, gpu, buffer, size);
  let conflict: Conflict | undefined;
  forEachPiece(map, lo, hi, (start, end, a) => {
    if (conflict) return;
    if (a.write && a.write.queue !== -1 && !ordered(a.write, vc) && !(a.write.cmd === who.cmd))
      conflict = { earlier: a.write, earlierWrites: true, start, end };
    else if (writes)
      for (const r of a.reads)
        if (!ordered(r, vc) && r.cmd !== who.cmd) {
          conflict = { earlier: r, earlierWrites: false, start, end };
          break;
        }
  });
  if (writes) {
    assignRange(map, lo, hi, [{ start: lo, end: hi, value: { write: who, reads: [] } }]);
  } else {
    updateRange(map, lo, hi, (a) => ({
      write: a.write,
      reads: [...a.reads.filter((r) => !ordered(r, vc)), who],
    }));
  }
  return conflict;
}
