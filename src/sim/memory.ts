// The node's memory as the executor sees it: the address map (which declared region holds an
// address), the 32/64-bit words that polls read and fences/atomics write, the provenance of
// every buffer byte range (ir/provenance.ts: where the bytes came from, never the bytes), and
// per byte range the accesses needed for race detection.
//
// Race detection is FastTrack-style: each access is an epoch (queue, clock) of the queue that
// made it; the access is ordered before an operation whose vector clock C has C[queue] >= clock.
// Per byte range we keep the last write and the reads since it (reads ordered before a newer
// read are dropped: anything ordered after the newer read is ordered after them too).
//
// Nothing here is allocated per access on the common paths: an epoch is the global id of the
// command that made it (its queue and clock live in typed arrays indexed by that id), and the
// value of a byte range in the access map is a small integer naming a row of an access table
// (write epoch + read epochs) kept in typed arrays, so the maps hold no objects for the garbage
// collector to trace.

import {
  accessRowAt,
  assignAccess,
  createAccessMap,
  granuleOf,
  updateAccess,
  visitAccess,
  type AccessMap,
} from "./access-map.js";
import { createProvenance, type ProvenanceState } from "../ir/provenance.js";
import type { SimProgram, SimRegion } from "./program.js";
import { REGION_KINDS, regionMap, type RegionMap } from "./regions.js";

/**
 * The words (signal, sync, completion, trigger and timestamp regions) by region index, as
 * parallel arrays: there may be one completion slot per packet, so no object per word.
 * A word's clock is the join of the vector clocks of every write so far. Most words (completion
 * slots) are written once and never polled, so the first write's clock is kept as the writer's
 * shared snapshot `first` plus its own component (firstClock at firstQueue), not copied; `vc`
 * is the materialised join from the second write on (null: not needed yet).
 */
export interface Words {
  readonly isWord: Uint8Array;
  /**
   * 1 where the word's clock can be read: a POLL reads the word, the meaning checks read it (user
   * signals) or the sync trace records it (createExecState sets it). Elsewhere (a million
   * completion slots nothing polls) the clock is never kept, so no writer's snapshot outlives the
   * write's flight.
   */
  readonly clockRead: Uint8Array;
  readonly value: Float64Array;
  // The clock columns, by region: empty until a word's clock is kept (keepClocks). On the
  // all-to-all no word's is (nothing polls its million completion slots), and two JS arrays of a
  // million nulls were 8 MB for each full collection to mark.
  vc: (Int32Array | null)[];
  first: (ArrayLike<number> | null)[];
  firstQueue: Int32Array;
  firstClock: Int32Array;
}

/**
 * Rows for writes in flight that a run's tables make up front (exec-state.ts pendingRows, the
 * checks' in checker.ts): the rows a table growing from empty would number first.
 */
export const PENDING_ROWS = 64;

/** Makes the clock columns of `w` (R regions), once a word's clock is kept (clockRead). */
export function keepClocks(w: Words): void {
  const R = w.clockRead.length;
  if (w.vc.length === R) return;
  w.vc = new Array<Int32Array | null>(R).fill(null);
  w.first = new Array<ArrayLike<number> | null>(R).fill(null);
  w.firstQueue = new Int32Array(R);
  w.firstClock = new Int32Array(R);
}

/** One access: which queue, its clock value, and the command (global id) that made it. */
export interface Epoch {
  readonly queue: number;
  readonly clock: number;
  readonly cmd: number;
}

/** The regions (sorted by address: regions.ts) and what the run keeps per byte and word. */
export interface Memory extends RegionMap {
  readonly words: Words;
  readonly prov: ProvenanceState;
  /** Access map of each buffer instance (gpu * buffers + buffer); values are access-table rows. */
  readonly access: (AccessMap | undefined)[];
  readonly buffers: number;
  /** Epochs by global command id: the queue of the command and its clock value when it ran. */
  readonly epochQueue: Int32Array;
  readonly epochClock: Int32Array;
  readonly table: AccessTable;
}

/**
 * Access-table rows: the last write (a command id, -1 none) and the reads since it. One read
 * lives in read0; a row with two or more reads keeps them all in `more` instead (read0 = MORE,
 * so that the map is looked up only for those).
 */
interface AccessTable {
  write: Int32Array;
  read0: Int32Array;
  readonly more: Map<number, number[]>;
  n: number;
}

const NONE = -1;
const MORE = -2;

function newRow(t: AccessTable, write: number, read0: number): number {
  if (t.n === t.write.length) {
    const w = new Int32Array(t.n * 2);
    w.set(t.write);
    t.write = w;
    const r = new Int32Array(t.n * 2);
    r.set(t.read0);
    t.read0 = r;
  }
  const row = t.n++;
  t.write[row] = write;
  t.read0[row] = read0;
  return row;
}

/** Row 0 of every table: never accessed. */
const NO_ACCESS = 0;

/** Word kinds by region code (regions.ts). */
const IS_WORD_KIND = Uint8Array.from(REGION_KINDS, (k) =>
  k === "signal" || k === "sync" || k === "completion" || k === "trigger" || k === "timestamp"
    ? 1
    : 0,
);

/**
 * `commandQueue`: the queue of each command (global command ids index it); `writes` and
 * `accesses`: about how many ranges the data commands write and access (the provenance and access
 * rows to allocate up front instead of growing them by doubling).
 */
export function createMemory(
  p: SimProgram,
  commandQueue: Int32Array,
  writes: number,
  accesses: number,
): Memory {
  const map = regionMap(p);
  const R = map.starts.length;
  const words: Words = {
    isWord: new Uint8Array(R),
    clockRead: new Uint8Array(R),
    value: new Float64Array(R),
    vc: [],
    first: [],
    firstQueue: new Int32Array(0),
    firstClock: new Int32Array(0),
  };
  for (let i = 0; i < R; i++) {
    if (IS_WORD_KIND[map.kind[i]!] !== 1) continue;
    words.isWord[i] = 1;
    words.value[i] = map.initial[i]!;
  }
  const rows = Math.max(1024, Math.min(accesses + 1, 1 << 26));
  const table: AccessTable = {
    write: new Int32Array(rows),
    read0: new Int32Array(rows),
    more: new Map(),
    n: 0,
  };
  newRow(table, NONE, NONE);
  return {
    ...map,
    words,
    // (About a row per range written: most data commands write one range of one piece; and
    // each (GPU, buffer) written has its initial row.)
    prov: createProvenance(p.gpus, p.bufferSizes, writes + p.gpus * p.bufferSizes.length),
    // (Every (GPU, buffer) slot up front: a read past the end of a growing array threw the
    // compiled access checks away.)
    access: new Array<AccessMap | undefined>(p.gpus * p.bufferSizes.length).fill(undefined),
    buffers: p.bufferSizes.length,
    epochQueue: commandQueue,
    epochClock: new Int32Array(commandQueue.length),
    table,
  };
}

/** Element-wise dst = max(dst, src); true if dst changed. */
function joinVc(dst: Int32Array, src: ArrayLike<number>): boolean {
  let changed = false;
  for (let i = 0; i < dst.length; i++)
    if (src[i]! > dst[i]!) {
      dst[i] = src[i]!;
      changed = true;
    }
  return changed;
}

/** dst = max(dst, vc, own component `clock` at `queue`); true if dst changed. */
function joinStamp(dst: Int32Array, vc: ArrayLike<number>, queue: number, clock: number): boolean {
  let changed = joinVc(dst, vc);
  if (clock > dst[queue]!) {
    dst[queue] = clock;
    changed = true;
  }
  return changed;
}

/** Joins a write's clock (snapshot `vc` + own component) into the clock of word i. */
export function wordWriteClock(
  w: Words,
  i: number,
  vc: ArrayLike<number>,
  queue: number,
  clock: number,
): void {
  if (w.clockRead[i] !== 1) return;
  let own = w.vc[i]!;
  if (own === null) {
    const first = w.first[i]!;
    if (first === null) {
      w.first[i] = vc;
      w.firstQueue[i] = queue;
      w.firstClock[i] = clock;
      return;
    }
    own = new Int32Array(vc.length);
    joinStamp(own, first, w.firstQueue[i]!, w.firstClock[i]!);
    w.vc[i] = own;
    w.first[i] = null;
  }
  joinStamp(own, vc, queue, clock);
}

/** Joins the clock of word i into `dst` (a poll that saw the word); true if dst changed. */
export function joinWordClock(dst: Int32Array, w: Words, i: number): boolean {
  const own = w.vc[i] ?? null; // (none kept: keepClocks)
  if (own !== null) return joinVc(dst, own);
  const first = w.first[i] ?? null;
  if (first !== null) return joinStamp(dst, first, w.firstQueue[i]!, w.firstClock[i]!);
  return false;
}

/** Index of the region whose range starts at or below `addr` (-1: below every region). */
export function regionIndex(m: Memory, addr: number): number {
  const s = m.starts;
  let lo = 0;
  let hi = s.length - 1;
  if (hi < 0 || addr < s[0]!) return -1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (s[mid]! <= addr) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Index of the region holding all of [addr, addr + bytes), or -1 (resolve() says why). `hint`
 * is a guess (the region the caller found last time): the search gallops forward from it, since a
 * queue's consecutive packets touch the same or later regions (a few strides on).
 */
export function regionOf(m: Memory, addr: number, bytes: number, hint = -1): number {
  const s = m.starts;
  const i =
    hint >= 0 && hint < s.length && s[hint]! <= addr ? gallop(s, hint, addr) : regionIndex(m, addr);
  if (i < 0) return -1;
  // Integers below 2^53: the same test as offset + bytes <= region bytes.
  return addr + bytes <= m.ends[i]! ? i : -1;
}

/**
 * regionOf(addr, bytes, hint), trying region `guess` first: a caller walking regions at a stride
 * (a queue's completion slots, the slots in address order) guesses the next one, and regionOf's
 * gallop would take several probes to find it. The guess is taken only when it is the last region
 * that starts at or before addr, which is where regionOf would land.
 */
export function regionGuessed(
  m: Memory,
  addr: number,
  bytes: number,
  guess: number,
  hint: number,
): number {
  const { starts, ends } = m;
  if (
    guess >= 0 &&
    guess < starts.length &&
    starts[guess]! <= addr &&
    (guess + 1 === starts.length || addr < starts[guess + 1]!)
  )
    return addr + bytes <= ends[guess]! ? guess : -1; // (what regionOf decides at that region)
  return regionOf(m, addr, bytes, hint);
}

/**
 * regionOf(addr, bytes) for lookups that go on at a stride (hint h: hints[h], the region found
 * last, and steps[h], how many regions on it was from the one before): the region as many on
 * again is tried first (regionGuessed). A queue's completion slots and sync words come at a stride
 * (every 14th slot, say), which the gallop of regionOf would take ~8 probes to find.
 */
export function regionStepped(
  m: Memory,
  addr: number,
  bytes: number,
  hints: Int32Array,
  steps: Int32Array,
  h: number,
): number {
  const last = hints[h]!;
  const i = regionGuessed(m, addr, bytes, last >= 0 ? last + steps[h]! : -1, last);
  if (i >= 0) {
    steps[h] = last >= 0 ? i - last : 0;
    hints[h] = i;
  }
  return i;
}

/** The last index at or after `from` (where s[from] <= x) whose start is <= x. */
function gallop(s: Float64Array, from: number, x: number): number {
  let a = from;
  let step = 1;
  let z: number;
  for (;;) {
    const c = a + step;
    if (c >= s.length || s[c]! > x) {
      z = Math.min(c, s.length) - 1;
      break;
    }
    a = c;
    step *= 2;
  }
  while (a < z) {
    const mid = (a + z + 1) >> 1;
    if (s[mid]! <= x) a = mid;
    else z = mid - 1;
  }
  return a;
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
  const r = m.region(lo);
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
  return r.kind === "buffer" ? `buffer ${bufferLabel(r)}` : `${r.kind} word ${r.name} (${where})`;
}

/**
 * `name@rank`, or `name@host` for a buffer declared `on host` (whose manifest `gpu` is a
 * placeholder 0, so `gpu` alone would name a GPU buffer that does not exist).
 */
export function bufferLabel(r: SimRegion): string {
  return `${r.name}@${r.host === true || r.gpu === null ? "host" : r.gpu}`;
}

export function hex(n: number): string {
  return "0x" + n.toString(16);
}

function accessMap(m: Memory, gpu: number, buffer: number, size: number): AccessMap {
  const key = gpu * m.buffers + buffer;
  let map = m.access[key];
  if (map === undefined) {
    map = createAccessMap(size, NO_ACCESS);
    m.access[key] = map;
  }
  return map;
}

export interface Conflict {
  readonly earlier: Epoch;
  readonly earlierWrites: boolean;
  readonly start: number;
  readonly end: number;
}

// The access being recorded (module state so that the interval-map callbacks allocate nothing).
let curMem: Memory;
let curVc: Int32Array;
let curCmd = 0;
let curWrites = false;
let found: Conflict | undefined;

function ordered(cmd: number): boolean {
  return curVc[curMem.epochQueue[cmd]!]! >= curMem.epochClock[cmd]!;
}

function epochOf(cmd: number): Epoch {
  return { queue: curMem.epochQueue[cmd]!, clock: curMem.epochClock[cmd]!, cmd };
}

function checkPiece(start: number, end: number, row: number): void {
  if (found) return;
  const t = curMem.table;
  const w = t.write[row]!;
  if (w !== NONE && !ordered(w) && w !== curCmd) {
    found = { earlier: epochOf(w), earlierWrites: true, start, end };
    return;
  }
  if (!curWrites) return;
  const r0 = t.read0[row]!;
  if (r0 !== MORE) {
    if (r0 !== NONE && !ordered(r0) && r0 !== curCmd)
      found = { earlier: epochOf(r0), earlierWrites: false, start, end };
    return;
  }
  for (const r of t.more.get(row)!)
    if (!ordered(r) && r !== curCmd) {
      found = { earlier: epochOf(r), earlierWrites: false, start, end };
      return;
    }
}

function checkAndAddRead(row: number, start: number, end: number): number {
  checkPiece(start, end, row);
  return addRead(row);
}

/** The row after a read by curCmd: the reads not ordered before it, then curCmd. */
function addRead(row: number): number {
  const t = curMem.table;
  const write = t.write[row]!;
  const r0 = t.read0[row]!;
  if (r0 !== MORE) {
    if (r0 === NONE || ordered(r0)) return newRow(t, write, curCmd);
    const out = newRow(t, write, MORE);
    t.more.set(out, [r0, curCmd]);
    return out;
  }
  const kept: number[] = [];
  for (const r of t.more.get(row)!) if (!ordered(r)) kept.push(r);
  if (kept.length === 0) return newRow(t, write, curCmd);
  kept.push(curCmd);
  const out = newRow(t, write, MORE);
  t.more.set(out, kept);
  return out;
}

/**
 * Records an access by command `cmd` (whose queue's vector clock is `vc`; its epoch must be in
 * epochQueue/epochClock) to [lo, hi) of a buffer instance and returns the first earlier access it
 * is unordered with (a data race), if any.
 */
export function recordAccess(
  m: Memory,
  gpu: number,
  buffer: number,
  size: number,
  lo: number,
  hi: number,
  cmd: number,
  vc: Int32Array,
  writes: boolean,
): Conflict | undefined {
  const map = accessMap(m, gpu, buffer, size);
  curMem = m;
  curVc = vc;
  curCmd = cmd;
  curWrites = writes;
  found = undefined;
  const k = granuleOf(map, lo, hi);
  if (k >= 0) {
    // One granule: its row is the one piece (what the visits below would do, without them).
    const row = map.rows[k]!;
    checkPiece(lo, hi, row);
    map.rows[k] = writes ? newRow(m.table, cmd, NONE) : addRead(row);
  } else if (writes) {
    visitAccess(map, lo, hi, checkPiece);
    assignAccess(map, lo, hi, newRow(m.table, cmd, NONE));
  } else {
    // One pass: updateAccess visits the same pieces in the same order as visitAccess would, and
    // each piece is checked against its old row before its new (fresh) row is made.
    updateAccess(map, lo, hi, checkAndAddRead);
  }
  const conflict = found;
  found = undefined;
  return conflict;
}

/** The command that last wrote byte `at` of a buffer instance (the access maps), or -1. */
export function lastWriter(m: Memory, gpu: number, buffer: number, at: number): number {
  const map = m.access[gpu * m.buffers + buffer];
  if (map === undefined) return -1;
  const w = m.table.write[accessRowAt(map, at)]!;
  return w === NONE ? -1 : w;
}

/** Component `queue` of word i's clock (the join of its writes); 0 if never written. */
export function wordClockAt(w: Words, i: number, queue: number): number {
  const own = w.vc[i] ?? null; // (none kept: keepClocks)
  if (own !== null) return own[queue]!;
  const first = w.first[i] ?? null;
  if (first === null) return 0;
  const c = first[queue]!;
  return w.firstQueue[i] === queue ? Math.max(c, w.firstClock[i]!) : c;
}

/** A copy of word i's clock (for the sync trace), `n` components. */
export function wordClockCopy(w: Words, i: number, n: number): Int32Array {
  const out = new Int32Array(n);
  for (let q = 0; q < n; q++) out[q] = wordClockAt(w, i, q);
  return out;
}
