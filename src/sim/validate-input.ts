// Validation of the executor's JSON inputs (manifest.json, trace.json) before anything runs.
// Contract: validateManifest / validateTrace take a parsed JSON value of unknown shape and return
// undefined when it is a well-formed schema-1 document the executor can run without tripping on
// it, else one DMAC6011 naming the file, the JSON path of the first bad field and why.
// Two halves. The structure (every field's type, required fields, enums, fixed ranges such as
// integers below 2^53, 32-bit values, strides, aligned words, queue file names, no unknown
// field) is the published JSON Schema's (schemas/, checked by checkExecutorInput in
// src/schemas.ts). What a schema cannot say stays here, in code, on a document the schema has
// accepted: GPUs below `ranks`, names and files unique, counts bounded by what the input could
// use (a slot array is at most SLOT_SLACK + the size of the input, so `count: 2^32` cannot make
// the executor allocate billions of regions), the memory areas disjoint, every instance of a
// buffer id the same size (the executor keeps one size per id: its access and provenance maps are
// sized by it), with the streams given every queue's packet file present and as long as its
// `dwords`, the regions gpu0 .. gpuN-1 then host, disjoint, each holding every area of its
// memory, relocations naming a queue once and staying inside its stream and their region, each
// completion slot listed by one queue at most, trace commands that write a completion slot
// following `completion.protocol`, and with the IR given (the module recompiled from the source,
// whose final state the run is checked against) the memory map declaring exactly the module's
// buffer instances with the module's sizes on the module's number of GPUs, and its user signals (a
// sync word declared as a signal is refused). One file per document: this one the manifest (and
// the checks both documents share: Checker), validate-trace.ts the trace, stream-check.ts what the
// manifest says about each decoded packet stream (relocated dwords, completion writes and slots).
// Checks stop at the first problem: a corrupt file usually has one, and the path says where.

import type {
  Manifest,
  ManifestMemory,
  ManifestQueue,
  SlotArray,
} from "../backend/sdma/manifest.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { HOST, HOST_REGION_RANK, type IrModule } from "../ir/ir.js";
import { checkExecutorInput } from "../schemas.js";
import { grown } from "../util/arrays.js";
import {
  SIDECAR_FIELDS,
  SYNC_WORD_NUMBERS,
  type SidecarArray,
  type SidecarInput,
} from "../backend/sdma/manifest-sidecar.js";
import { PackedRows } from "../backend/sdma/packed-rows.js";
import { syncWordColumns, SyncWordTable } from "./sync-words.js";

/** At most this many GPUs (the executor's model is a full mesh; 64 leaves room for any target). */
export const MAX_RANKS = 64;
/** Slot arrays may be this much larger than the input's size measure (see slotLimit). */
export const SLOT_SLACK = 1024;
const ADDR_LIMIT = 2 ** 53;

export interface ValidateOptions {
  /** The file name used in the diagnostic (default manifest.json / trace.json). */
  readonly file?: string | undefined;
  /** The file's size in bytes, when read from disk: slot counts are also bounded by it. */
  readonly fileBytes?: number | undefined;
  /** The packet streams by file name: each queue's file must be among them. */
  readonly streams?: ReadonlyMap<string, Uint32Array> | undefined;
  /** The IR the input is checked against: its buffers must be the declared ones. */
  readonly module?: IrModule | undefined;
  /**
   * The manifest's sidecar (backend/sdma/manifest-sidecar.ts): `json` was parsed with an empty
   * array in place of each of its arrays, which are put there once the schema has passed.
   */
  readonly sidecar?: SidecarInput | undefined;
}

/** Thrown only inside this module (never escapes): the first problem found. */
export class Bad {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {}
}

/** An array the input could not use this much of. */
export function bounded<T>(v: readonly T[], path: string, maxLength: number): readonly T[] {
  if (v.length > maxLength)
    throw new Bad(path, `${v.length} entries, more than the input could use (${maxLength})`);
  return v;
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "string") return `the string ${JSON.stringify(v.slice(0, 40))}`;
  return String(v);
}

/** A byte range [a, a + bytes) that must stay below 2^53. */
function range(a: number, bytes: number, path: string): void {
  if (a + bytes > ADDR_LIMIT) throw new Bad(path, `the area ends above 2^53`);
}

interface BufferEntry {
  readonly size: number;
  readonly path: string;
}

/**
 * The declared memory areas as columns (half a million sync words on the forward program: no
 * object each). Area k is [start[k], end[k]) in the memory of GPU owner[k] (-1: host memory);
 * its JSON path `lists[list[k]][index[k]]` (or the list alone, index -1) is made only to report.
 */
class Areas {
  n = 0;
  start = new Float64Array(64);
  end = new Float64Array(64);
  owner = new Int32Array(64);
  list = new Int32Array(64);
  index = new Int32Array(64);
  private readonly lists: string[] = [];

  push(start: number, end: number, list: string, index: number, owner: number | null): void {
    if (this.n === this.start.length) {
      const cap = 2 * this.n;
      this.start = grown(this.start, cap);
      this.end = grown(this.end, cap);
      this.owner = grown(this.owner, cap);
      this.list = grown(this.list, cap);
      this.index = grown(this.index, cap);
    }
    // The lists come in runs (every sync word of `$.memory.syncWords`): the last one is reused.
    let l = this.lists.length - 1;
    if (l < 0 || this.lists[l] !== list) l = this.lists.push(list) - 1;
    const k = this.n++;
    this.start[k] = start;
    this.end[k] = end;
    this.owner[k] = owner ?? -1;
    this.list[k] = l;
    this.index[k] = index;
  }

  path(k: number): string {
    const list = this.lists[this.list[k]!]!;
    return this.index[k]! < 0 ? list : `${list}[${this.index[k]!}]`;
  }

  /**
   * The area indices sorted by start (stable). An index array with a comparator, not the typed
   * arrays' own sort: the areas come in sorted runs (each GPU's sync words), which Array sort's
   * merging of runs takes in about linear time and the typed arrays' sort does not (6x slower).
   */
  byStart(): number[] {
    return Array.from({ length: this.n }, (_, k) => k).sort(
      (x, y) => this.start[x]! - this.start[y]!,
    );
  }
}

interface RegionEntry {
  readonly name: string;
  readonly kind: string;
  readonly gpu: number | null;
  readonly base: number;
  readonly size: number;
  readonly path: string;
}

/**
 * What validateManifestModule reads of a manifest: the checks' thread is sent only this
 * (check-thread.ts), to hold its IR to the manifest before using it.
 */
export interface ManifestShape {
  readonly ranks: number;
  readonly trigger: Manifest["trigger"];
  readonly memory: Pick<ManifestMemory, "buffers" | "signals">;
}

/** The header and memory section both forms share (what the schema's types already hold). */
interface Document {
  readonly ranks: number;
  readonly trigger: Manifest["trigger"];
  readonly memory: ManifestMemory;
}

export const hex = (n: number): string => `0x${n.toString(16)}`;

/** Shared by both forms: ranks, queues, trigger, memory (on a document the schema accepted). */
export class Checker {
  readonly areas = new Areas();
  /** Declared buffer instances by id * MAX_RANKS + gpu. */
  readonly buffers = new Map<number, BufferEntry>();
  /** Declared user signal words by id * MAX_RANKS + gpu: their names and JSON paths. */
  readonly signals = new Map<number, { readonly name: string; readonly path: string }>();
  /** `$.memory.regions`, in order (index = region number of relocations). */
  readonly regions: RegionEntry[] = [];
  readonly queueNames = new Set<string>();
  readonly ranks: number;

  constructor(d: Pick<Document, "ranks" | "trigger">) {
    this.ranks = d.ranks;
    if (d.trigger !== null) this.area(d.trigger.address, 4, "$.trigger", null);
  }

  gpu(g: number, path: string): number {
    if (g >= this.ranks) throw new Bad(path, `${g} is outside [0, ${this.ranks})`);
    return g;
  }

  /** `$.queues[i]`: its name unique, its GPU below ranks. */
  queue(q: { readonly name: string; readonly gpu: number }, path: string): void {
    if (this.queueNames.has(q.name))
      throw new Bad(`${path}.name`, `a second queue named ${q.name}`);
    this.queueNames.add(q.name);
    this.gpu(q.gpu, `${path}.gpu`);
  }

  /** `index` >= 0: the area is `path[index]` (the path string is made only to report). */
  area(start: number, bytes: number, path: string, owner: number | null, index = -1): void {
    if (start + bytes > ADDR_LIMIT) range(start, bytes, index < 0 ? path : `${path}[${index}]`);
    if (bytes > 0) this.areas.push(start, start + bytes, path, index, owner);
  }

  /** `slots`: the bound on completion and timestamp slot counts. */
  memory(m: ManifestMemory, slots: number): void {
    m.regions.forEach((r, i) => {
      const p = `$.memory.regions[${i}]`;
      if (r.gpu !== null) this.gpu(r.gpu, `${p}.gpu`);
      range(r.base, r.size, p);
      this.regions.push({ ...r, path: p });
    });
    this.buffersOf(m.buffers);
    this.signalsOf(m.signals);
    const sync = syncWordColumns(m.syncWords);
    for (let i = 0; i < sync.count; i++) {
      const g = sync.gpu(i);
      const owner =
        g === null ? null : g < this.ranks ? g : this.gpu(g, `$.memory.syncWords[${i}].gpu`);
      this.area(sync.address(i), 4, "$.memory.syncWords", owner, i);
    }
    this.slots(m.completionSignals, "$.memory.completionSignals", slots);
    this.slots(m.timestampSlots, "$.memory.timestampSlots", slots);
  }

  /** `$.memory.signals`: on a GPU below ranks, one entry per (id, gpu). */
  signalsOf(signals: ManifestMemory["signals"]): void {
    signals.forEach((s, i) => {
      const p = `$.memory.signals[${i}]`;
      const g = this.gpu(s.gpu, `${p}.gpu`);
      this.area(s.address, 4, p, g);
      const key = s.id * MAX_RANKS + g;
      if (this.signals.has(key)) throw new Bad(p, `a second entry for signal ${s.id} on GPU ${g}`);
      this.signals.set(key, { name: s.name, path: p });
    });
  }

  /** `$.memory.buffers`: ids index dense tables, one size per id, one entry per (id, gpu). */
  buffersOf(buffers: ManifestMemory["buffers"]): void {
    const sizeOf = new Map<number, BufferEntry>();
    buffers.forEach((b, i) => {
      const p = `$.memory.buffers[${i}]`;
      if (b.id >= buffers.length)
        throw new Bad(`${p}.id`, `${b.id} is outside [0, ${buffers.length})`);
      const g = this.gpu(b.gpu, `${p}.gpu`);
      const key = b.id * MAX_RANKS + g;
      if (this.buffers.has(key))
        throw new Bad(`${p}`, `a second entry for buffer ${b.id} on GPU ${g}`);
      // One size per id: the executor sizes a buffer's access and provenance maps by it.
      const other = sizeOf.get(b.id);
      if (other !== undefined && other.size !== b.size)
        throw new Bad(
          `${p}.size`,
          `${b.size} bytes, but ${other.path} declares buffer ${b.id} with ${other.size}`,
        );
      if (other === undefined) sizeOf.set(b.id, { size: b.size, path: p });
      this.buffers.set(key, { size: b.size, path: p });
      this.area(b.address, b.size, p, b.host ? null : g); // a host buffer lies in "host"
    });
  }

  slots(s: SlotArray, path: string, limit: number): void {
    if (s.count > limit)
      throw new Bad(
        `${path}.count`,
        `${s.count} slots, more than an input of this size could use (at most ${limit})`,
      );
    this.area(s.base, s.count * s.stride, path, null);
  }
  /**
   * The declared buffer instances are exactly the module's (id, rank) pairs with its sizes, on
   * its number of GPUs: the final-state check reads both by the module's buffer table.
   */
  matches(m: IrModule): void {
    if (this.ranks !== m.ranks)
      throw new Bad("$.ranks", `${this.ranks} GPUs, but the schedule's IR has ${m.ranks}`);
    let instances = 0;
    for (const b of m.buffers)
      for (let g = 0; g < m.ranks; g++) {
        if (b.rank !== -1 && homeRank(b.rank) !== g) continue;
        instances++;
        const e = this.buffers.get(b.id * MAX_RANKS + g);
        if (e === undefined)
          throw new Bad(
            "$.memory.buffers",
            `no entry for buffer ${b.name} (id ${b.id}) on GPU ${g}, which the schedule declares`,
          );
        if (e.size !== b.size)
          throw new Bad(
            `${e.path}.size`,
            `${e.size} bytes, but the schedule declares ${b.name} with ${b.size}`,
          );
      }
    if (this.buffers.size !== instances) {
      const known = new Map(m.buffers.map((b) => [b.id, b]));
      for (const [key, e] of this.buffers) {
        const id = Math.floor(key / MAX_RANKS);
        const g = key % MAX_RANKS;
        const b = known.get(id);
        if (b === undefined || (b.rank !== -1 && homeRank(b.rank) !== g))
          throw new Bad(e.path, `buffer ${id} on GPU ${g} is not in the schedule`);
      }
    }
    // User signals likewise: a runtime hands them to the outside world, while sync words are the
    // compiler's (zeroed before the queues start): one must not pass for the other.
    let signals = 0;
    for (const s of m.signals)
      for (let g = 0; g < m.ranks; g++) {
        if (s.rank !== -1 && s.rank !== g) continue;
        signals++;
        const e = this.signals.get(s.id * MAX_RANKS + g);
        if (e === undefined)
          throw new Bad(
            "$.memory.signals",
            `no entry for signal ${s.name} (id ${s.id}) on GPU ${g}, which the schedule declares`,
          );
        if (e.name !== s.name)
          throw new Bad(
            `${e.path}.name`,
            `"${e.name}", but the schedule's signal ${s.id} is ${s.name}`,
          );
      }
    if (this.signals.size !== signals) {
      const known = new Map(m.signals.map((s) => [s.id, s]));
      for (const [key, e] of this.signals) {
        const id = Math.floor(key / MAX_RANKS);
        const g = key % MAX_RANKS;
        const s = known.get(id);
        if (s === undefined || (s.rank !== -1 && s.rank !== g))
          throw new Bad(
            e.path,
            `signal ${id} on GPU ${g} is not a signal of the schedule (a sync word declared as a signal?)`,
          );
      }
    }
  }

  /** Every declared area is disjoint from the others (the executor's memory map assumes it). */
  disjoint(): void {
    const a = this.areas;
    const order = a.byStart();
    for (let i = 1; i < order.length; i++) {
      const k = order[i]!;
      const before = order[i - 1]!;
      if (a.start[k]! < a.end[before]!) throw new Bad(a.path(k), `overlaps ${a.path(before)}`);
    }
  }

  /**
   * The regions a runtime maps (and relocations rebase): `gpu0` .. `gpu<ranks-1>`, then `host`,
   * pairwise disjoint, each holding every declared area of its memory (GPU G's buffers, signals
   * and sync words; the host's trigger, completion signals and timestamp slots).
   */
  regionsCover(): void {
    const R = this.ranks;
    const regions = this.regions;
    if (regions.length !== R + 1)
      throw new Bad(
        "$.memory.regions",
        `${regions.length} regions, but a ${R}-GPU manifest has ${R + 1}: gpu0 .. gpu${R - 1}, then host`,
      );
    regions.forEach((r, i) => {
      const host = i === R;
      const name = host ? "host" : `gpu${i}`;
      if (r.name !== name || r.kind !== (host ? "host" : "device") || r.gpu !== (host ? null : i))
        throw new Bad(
          r.path,
          `expected region ${i} to be ${name} (kind "${host ? "host" : "device"}", gpu ${host ? "null" : i}), found ${r.name} (kind ${kindOf(r.kind)}, gpu ${kindOf(r.gpu)})`,
        );
    });
    const sorted = regions.filter((r) => r.size > 0).sort((x, y) => x.base - y.base);
    for (let i = 1; i < sorted.length; i++)
      if (sorted[i]!.base < sorted[i - 1]!.base + sorted[i - 1]!.size)
        throw new Bad(sorted[i]!.path, `overlaps ${sorted[i - 1]!.path}`);
    const a = this.areas;
    for (let k = 0; k < a.n; k++) {
      const owner = a.owner[k]!;
      const r = regions[owner < 0 ? R : owner]!;
      const start = a.start[k]!;
      const end = a.end[k]!;
      if (start < r.base || end > r.base + r.size)
        throw new Bad(
          a.path(k),
          `[${hex(start)}, ${hex(end)}) is not inside region ${r.name} [${hex(r.base)}, ${hex(r.base + r.size)}): the region is too small or misplaced`,
        );
    }
  }

  /** `$.relocations`: each names a queue once, in triples [dword, region, addend] inside it. */
  relocations(list: Manifest["relocations"], dwordsOf: ReadonlyMap<string, number>): void {
    const seen = new Set<string>();
    bounded(list, "$.relocations", dwordsOf.size).forEach((r, i) => {
      const p = `$.relocations[${i}]`;
      const dwords = dwordsOf.get(r.queue);
      if (dwords === undefined)
        throw new Bad(`${p}.queue`, `${kindOf(r.queue)} is not a queue of this manifest`);
      if (seen.has(r.queue)) throw new Bad(`${p}.queue`, `a second relocation list for ${r.queue}`);
      seen.add(r.queue);
      // An address takes two dwords: at most dwords / 2 triples.
      const e = bounded(r.entries, `${p}.entries`, 3 * Math.floor(dwords / 2));
      if (e.length % 3 !== 0)
        throw new Bad(
          `${p}.entries`,
          `${e.length} numbers, not a list of [dword, region, addend] triples`,
        );
      const top = Math.max(0, dwords - 1);
      const R = this.regions.length;
      // (The sizes as a column: a million triples read one number each, not a region object.)
      const size = Float64Array.from(this.regions, (g) => g.size);
      // (The loop is its own function, optimised once; the failing triple is described here.)
      const k = firstOutOfRange(e, top, size);
      if (k < 0) return;
      const [dword, region, addend] = [e[k]!, e[k + 1]!, e[k + 2]!];
      if (dword >= top) throw new Bad(`${p}.entries[${k}]`, `${dword} is outside [0, ${top})`);
      if (region >= R) throw new Bad(`${p}.entries[${k + 1}]`, `${region} is outside [0, ${R})`);
      const reg = this.regions[region]!;
      throw new Bad(
        `${p}.entries[${k + 2}]`,
        `addend ${addend} is past the end of region ${reg.name} (${reg.size} bytes)`,
      );
    });
  }
}

/**
 * The first relocation triple [dword, region, addend] (its index in `e`) whose dword is not below
 * `top`, whose region is not one of `size`'s, or whose addend is not inside that region; -1 if
 * none.
 */
function firstOutOfRange(e: ArrayLike<number>, top: number, size: Float64Array): number {
  const R = size.length;
  for (let k = 0; k < e.length; k += 3) {
    const region = e[k + 1]!;
    if (e[k]! >= top || region >= R || e[k + 2]! >= size[region]!) return k;
  }
  return -1;
}

/** Slot arrays may hold at most this many slots (see the header). */
export function slotLimit(units: number, fileBytes: number | undefined): number {
  return SLOT_SLACK + Math.min(units, fileBytes ?? Infinity);
}

export function run(file: string, body: () => void): Diagnostic | undefined {
  try {
    body();
    return undefined;
  } catch (e) {
    if (e instanceof Bad) return diag("DMAC6011", undefined, [file, e.path, e.detail]);
    throw e;
  }
}

export function validateManifest(
  json: unknown,
  opts: ValidateOptions = {},
): Diagnostic | undefined {
  const file = opts.file ?? "manifest.json";
  const structural = checkExecutorInput("manifest", json, file);
  if (structural) return structural;
  const d = json as Manifest;
  if (opts.sidecar) {
    const sidecar = opts.sidecar;
    const bad = run(sidecar.file, () => attachSidecar(d, sidecar.arrays));
    if (bad) return bad;
  }
  return run(file, () => {
    const c = new Checker(d);
    const queues = bounded(d.queues, "$.queues", c.ranks * 256);
    // The size measure: the dwords of the streams (each signalled slot needs a packet).
    let units = 0;
    const files = new Set<string>();
    const dwordsOf = new Map<string, number>();
    queues.forEach((q, i) => {
      const p = `$.queues[${i}]`;
      c.queue(q, p);
      if (files.has(q.file)) throw new Bad(`${p}.file`, `a second queue reads ${q.file}`);
      files.add(q.file);
      dwordsOf.set(q.name, q.dwords);
      streamOf(q, p, opts.streams);
      units += q.dwords;
    });
    c.memory(d.memory, slotLimit(units, opts.fileBytes));
    completionSlots(queues, d.memory.completionSignals.count);
    c.disjoint();
    if (opts.module) c.matches(opts.module);
    c.regionsCover();
    c.relocations(d.relocations, dwordsOf);
  });
}

/**
 * What the packet streams and the IR add to a manifest that validateManifest accepted without
 * them (`dmac sim DIR` validates the document before it reads the streams and rebuilds the IR):
 * the checks validateManifest makes with `streams` and `module`, in its order, less those of the
 * document alone, which cannot fail again. The schema and the document's own checks are half of
 * a big manifest's validation time.
 */
export function validateManifestInputs(
  d: Manifest,
  opts: ValidateOptions = {},
): Diagnostic | undefined {
  return run(opts.file ?? "manifest.json", () => {
    d.queues.forEach((q, i) => streamOf(q, `$.queues[${i}]`, opts.streams));
    if (opts.module) matchesModule(d, opts.module);
  });
}

/**
 * validateManifestInputs' check of the module alone, for a module that comes after the streams
 * were checked (built on a helper thread: src/sim/session/helper.ts).
 */
export function validateManifestModule(
  d: ManifestShape,
  opts: ValidateOptions & { readonly module: IrModule },
): Diagnostic | undefined {
  return run(opts.file ?? "manifest.json", () => matchesModule(d, opts.module));
}

function matchesModule(d: ManifestShape, module: IrModule): void {
  // (matches() reads the buffers and signals alone: not the other areas, a million words.)
  const c = new Checker(d);
  c.buffersOf(d.memory.buffers);
  c.signalsOf(d.memory.signals);
  c.matches(module);
}

/**
 * Puts each sidecar array where manifest.json has its placeholder (an empty array the schema
 * accepted), as a typed array: the checks below and the executor only index them. The source
 * map's rows become one PackedRows per queue. The sidecar reader has checked every number.
 */
function attachSidecar(d: Manifest, arrays: readonly SidecarArray[]): void {
  const slot = (owner: unknown, key: string, path: string): Record<string, unknown> => {
    const o = owner as Record<string, unknown> | undefined;
    const v = o?.[key];
    if (!Array.isArray(v) || v.length !== 0)
      throw new Bad(
        path,
        "the sidecar gives this array, but manifest.json has no empty array here",
      );
    return o!;
  };
  for (const a of arrays) {
    const path = SIDECAR_FIELDS[a.field].path(a.index);
    switch (a.field) {
      case 1:
        slot(d.relocations[a.index], "entries", path)["entries"] = a.values;
        break;
      case 2:
        slot(d.queues[a.index], "packetStarts", path)["packetStarts"] = a.values;
        break;
      case 3:
        slot(d.queues[a.index], "completionSlots", path)["completionSlots"] = a.values;
        break;
      case 4:
        slot(d.sourceMap.queues[a.index], "entries", path)["entries"] = new PackedRows(
          a.values,
          a.rowStarts!,
        );
        break;
      case 5: {
        const v = a.values;
        for (let k = 0; k < v.length; k += SYNC_WORD_NUMBERS)
          if (v[k + 4]! >= d.queues.length || v[k + 5]! >= d.queues.length)
            throw new Bad(
              `${path}[${k / SYNC_WORD_NUMBERS}]`,
              "names a queue the manifest does not list",
            );
        slot(d.memory, "syncWords", path)["syncWords"] = new SyncWordTable(
          v,
          d.queues.map((q) => q.name),
        );
        break;
      }
    }
  }
}

/** Queue `q`'s packet stream, when streams are given: present, and of its declared length. */
function streamOf(
  q: ManifestQueue,
  p: string,
  streams: ReadonlyMap<string, Uint32Array> | undefined,
): void {
  const given = streams?.get(q.file);
  if (streams && !given) throw new Bad(`${p}.file`, `the packet stream ${q.file} is missing`);
  if (given && given.length !== q.dwords)
    throw new Bad(
      `${p}.dwords`,
      `${q.dwords} dwords, but the packet stream ${q.file} holds ${given.length}`,
    );
}

/**
 * Each completion slot is below the count and signalled by one queue, once: the host waits for
 * it on that queue's behalf. (Listed at queue i, index k: kept as two numbers; the path is built
 * only to report.) `count` is bounded already (Checker.slots).
 */
function completionSlots(queues: readonly ManifestQueue[], count: number): void {
  const slotPath = (i: number, k: number): string => `$.queues[${i}].completionSlots[${k}]`;
  const byQueue = new Int32Array(count).fill(-1);
  const byIndex = new Float64Array(count);
  for (let i = 0; i < queues.length; i++) {
    const list = queues[i]!.completionSlots;
    const k = firstBadSlot(list, i, count, byQueue, byIndex);
    if (k < 0) continue;
    const s = list[k]!;
    throw new Bad(
      slotPath(i, k),
      s >= count
        ? `slot ${s} of ${count}`
        : `slot ${s} is already listed at ${slotPath(byQueue[s]!, byIndex[s]!)}`,
    );
  }
}

/**
 * Queue i's slots entered in byQueue/byIndex, up to the first that is out of range or already
 * listed: its index (-1: none). (A function of its own: the loop over queues, first run before V8
 * kept feedback for completionSlots, threw away the code it compiled while in this loop.)
 */
function firstBadSlot(
  list: ArrayLike<number>,
  i: number,
  count: number,
  byQueue: Int32Array,
  byIndex: Float64Array,
): number {
  for (let k = 0; k < list.length; k++) {
    const s = list[k]!;
    if (s >= count || byQueue[s]! >= 0) return k;
    byQueue[s] = i;
    byIndex[s] = k;
  }
  return -1;
}

/** What each completion protocol writes into a slot. */
export const PROTOCOL_WRITE = {
  atomic: "an ATOMIC add64 of -1",
  fence: "a FENCE of 0 into the slot's low dword",
} as const;

/** The completion slot whose 64-bit word starts at `addr`, if any. */
export function slotAt(
  slots: { readonly base: number; readonly stride: number; readonly count: number },
  addr: number,
): number | undefined {
  const off = addr - slots.base;
  if (off < 0 || off % slots.stride !== 0) return undefined;
  const k = off / slots.stride;
  // (As an int32: a quotient is a double, and the first one pushed into a queue's list of
  // signalled slots changed that list's element kind, which threw away the compiled reader.)
  return k < slots.count ? k | 0 : undefined;
}

/** The rank a buffer's one instance is recorded at: a host buffer's placeholder (ir.ts HOST). */
function homeRank(rank: number): number {
  return rank === HOST ? HOST_REGION_RANK : rank;
}
