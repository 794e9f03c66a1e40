// Validation of the executor's JSON inputs (manifest.json, trace.json) before anything runs.
// Contract: validateManifest / validateTrace take a parsed JSON value of unknown shape and return
// undefined when it is a well-formed schema-1 document the executor can run without tripping on
// it, else one DMAC6011 naming the file, the JSON path of the first bad field and why. "Well
// formed" means: every field the executor reads has its type and range (integers, addresses and
// byte counts below 2^53, GPUs below `ranks`, 32-bit values), array lengths agree, counts are
// bounded by what the input could use (a slot array is at most SLOT_SLACK + the size of the input,
// so `count: 2^32` cannot make the executor allocate billions of regions), the memory areas are
// disjoint, every instance of a buffer id has the same size (the executor keeps one size per id:
// its access and provenance maps are sized by it), with the streams given every queue's packet
// file is present and as long as its `dwords`, the regions are gpu0 .. gpuN-1 then host, disjoint,
// each holding every area of its memory, relocations name a queue once and stay inside its stream
// and their region, each completion slot is listed by one queue at most, trace commands that write
// a completion slot follow `completion.protocol`, and with the IR given (the module recompiled
// from the source, whose final state the run is checked against) the memory map declares exactly
// the module's buffer instances with the module's sizes on the module's number of GPUs, and its
// user signals (a sync word declared as a signal is refused). checkQueueStream checks what the
// manifest says about each decoded packet stream (relocated dwords, completion writes and slots).
// Checks stop at the first problem: a corrupt file usually has one, and the path says where.

import { COMPILED_BY_KIND } from "../backend/sdma/bitfield.js";
import {
  decodeStream,
  type DecodedEntry,
  type DecodedStream,
  type StreamProblem,
} from "../backend/sdma/decode.js";
import type { Manifest } from "../backend/sdma/manifest.js";
import type { Packet } from "../backend/sdma/packets.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import type { IrModule } from "../ir/ir.js";
import { assertNever } from "../util/assert-never.js";

/** At most this many GPUs (the executor's model is a full mesh; 64 leaves room for any target). */
export const MAX_RANKS = 64;
/** Slot arrays may be this much larger than the input's size measure (see slotLimit). */
export const SLOT_SLACK = 1024;
const ADDR_LIMIT = 2 ** 53;
const U32 = 2 ** 32;
const COMPARE_OPS: ReadonlySet<unknown> = new Set(["==", "!=", "<", "<=", ">", ">="]);

export interface ValidateOptions {
  /** The file name used in the diagnostic (default manifest.json / trace.json). */
  readonly file?: string | undefined;
  /** The file's size in bytes, when read from disk: slot counts are also bounded by it. */
  readonly fileBytes?: number | undefined;
  /** The packet streams by file name: each queue's file must be among them. */
  readonly streams?: ReadonlyMap<string, Uint32Array> | undefined;
  /** The IR the input is checked against: its buffers must be the declared ones. */
  readonly module?: IrModule | undefined;
}

/** Thrown only inside this module (never escapes): the first problem found. */
class Bad {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {}
}

type Obj = Record<string, unknown>;

function obj(v: unknown, path: string): Obj {
  if (typeof v !== "object" || v === null || Array.isArray(v))
    throw new Bad(path, `expected an object, found ${kindOf(v)}`);
  return v as Obj;
}

function arr(v: unknown, path: string, maxLength = Infinity): readonly unknown[] {
  if (!Array.isArray(v)) throw new Bad(path, `expected an array, found ${kindOf(v)}`);
  if (v.length > maxLength)
    throw new Bad(path, `${v.length} entries, more than the input could use (${maxLength})`);
  return v;
}

function str(v: unknown, path: string): string {
  if (typeof v !== "string") throw new Bad(path, `expected a string, found ${kindOf(v)}`);
  return v;
}

/** Whether int() would accept v (the hot loops test first and build a path only to throw). */
function isInt(v: unknown, lo: number, hi: number): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= lo && v < hi;
}

/** An integer in [lo, hi). */
function int(v: unknown, path: string, lo: number, hi: number): number {
  if (typeof v !== "number" || !Number.isInteger(v))
    throw new Bad(path, `expected an integer, found ${kindOf(v)}`);
  if (v < lo || v >= hi) throw new Bad(path, `${v} is outside [${lo}, ${hi})`);
  return v;
}

function oneOf<T>(v: unknown, path: string, allowed: readonly T[]): T {
  if (!allowed.includes(v as T))
    throw new Bad(path, `expected one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`);
  return v as T;
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  if (typeof v === "string") return `the string ${JSON.stringify(v.slice(0, 40))}`;
  if (typeof v === "number") return String(v);
  return typeof v === "object" ? "an object" : typeof v;
}

const addr = (v: unknown, path: string): number => int(v, path, 0, ADDR_LIMIT);

/** A byte range [a, a + bytes) that must stay below 2^53. */
function range(a: number, bytes: number, path: string): void {
  if (a + bytes > ADDR_LIMIT) throw new Bad(path, `the area ends above 2^53`);
}

interface BufferEntry {
  readonly size: number;
  readonly path: string;
}

interface Area {
  readonly start: number;
  readonly end: number;
  readonly path: string;
  /** The GPU whose memory holds it, or null for host memory. */
  readonly owner: number | null;
}

interface RegionEntry {
  readonly name: string;
  readonly kind: unknown;
  readonly gpu: unknown;
  readonly base: number;
  readonly size: number;
  readonly path: string;
}

const hex = (n: number): string => `0x${n.toString(16)}`;

/** Shared by both forms: header fields, completion, trigger, memory. */
class Checker {
  readonly areas: Area[] = [];
  /** Declared buffer instances by id * MAX_RANKS + gpu. */
  readonly buffers = new Map<number, BufferEntry>();
  /** Declared user signal words by id * MAX_RANKS + gpu: their names and JSON paths. */
  readonly signals = new Map<number, { readonly name: string; readonly path: string }>();
  /** `$.memory.regions`, in order (index = region number of relocations). */
  readonly regions: RegionEntry[] = [];
  ranks = 0;

  header(d: Obj, kind: string): void {
    if (d["kind"] !== kind)
      throw new Bad("$.kind", `expected "${kind}", found ${kindOf(d["kind"])}`);
    if (d["version"] !== 1)
      throw new Bad("$.version", `this dmac reads schema version 1, found ${kindOf(d["version"])}`);
    str(d["dmac"], "$.dmac");
    str(d["target"], "$.target");
    // Optional (older outputs lack it): the --target file, relative to the document.
    if (d["targetFile"] !== undefined && d["targetFile"] !== null)
      str(d["targetFile"], "$.targetFile");
    str(d["schedule"], "$.schedule");
    this.ranks = int(d["ranks"], "$.ranks", 1, MAX_RANKS + 1);
    const c = obj(d["completion"], "$.completion");
    oneOf(c["protocol"], "$.completion.protocol", ["atomic", "fence"]);
    oneOf(c["width"], "$.completion.width", [64]);
    oneOf(c["initial"], "$.completion.initial", [1]);
    oneOf(c["done"], "$.completion.done", [0]);
    if (d["trigger"] !== null) {
      const t = obj(d["trigger"], "$.trigger");
      this.area(addr(t["address"], "$.trigger.address"), 4, "$.trigger", null);
      int(t["value"], "$.trigger.value", 0, U32);
    }
  }

  gpu(v: unknown, path: string): number {
    return int(v, path, 0, this.ranks);
  }

  readonly queueNames = new Set<string>();

  /** `$.queues[i]` as an object, with its unique name, GPU and engine checked. */
  queue(v: unknown, path: string): Obj {
    const q = obj(v, path);
    const name = str(q["name"], `${path}.name`);
    if (this.queueNames.has(name)) throw new Bad(`${path}.name`, `a second queue named ${name}`);
    this.queueNames.add(name);
    this.gpu(q["gpu"], `${path}.gpu`);
    int(q["engine"], `${path}.engine`, 0, 256);
    return q;
  }

  area(start: number, bytes: number, path: string, owner: number | null): void {
    range(start, bytes, path);
    if (bytes > 0) this.areas.push({ start, end: start + bytes, path, owner });
  }

  /** `slots`: the bound on completion and timestamp slot counts. */
  memory(m: Obj, slots: number): void {
    const regions = arr(m["regions"], "$.memory.regions", MAX_RANKS + 16);
    regions.forEach((v, i) => {
      const p = `$.memory.regions[${i}]`;
      const r = obj(v, p);
      const name = str(r["name"], `${p}.name`);
      const kind = oneOf(r["kind"], `${p}.kind`, ["device", "host"]);
      if (r["gpu"] !== null) this.gpu(r["gpu"], `${p}.gpu`);
      const base = addr(r["base"], `${p}.base`);
      const size = addr(r["size"], `${p}.size`);
      range(base, size, p);
      this.regions.push({ name, kind, gpu: r["gpu"], base, size, path: p });
    });
    const buffers = arr(m["buffers"], "$.memory.buffers");
    const sizeOf = new Map<number, BufferEntry>();
    buffers.forEach((v, i) => {
      const p = `$.memory.buffers[${i}]`;
      const b = obj(v, p);
      str(b["name"], `${p}.name`);
      // Buffer ids index dense tables: one id per buffer, at most one entry per (id, gpu).
      const id = int(b["id"], `${p}.id`, 0, buffers.length);
      const g = this.gpu(b["gpu"], `${p}.gpu`);
      const key = id * MAX_RANKS + g;
      if (this.buffers.has(key))
        throw new Bad(`${p}`, `a second entry for buffer ${id} on GPU ${g}`);
      const size = addr(b["size"], `${p}.size`);
      // One size per id: the executor sizes a buffer's access and provenance maps by it.
      const other = sizeOf.get(id);
      if (other !== undefined && other.size !== size)
        throw new Bad(
          `${p}.size`,
          `${size} bytes, but ${other.path} declares buffer ${id} with ${other.size}`,
        );
      if (other === undefined) sizeOf.set(id, { size, path: p });
      this.buffers.set(key, { size, path: p });
      this.area(addr(b["address"], `${p}.address`), size, p, g);
    });
    arr(m["signals"], "$.memory.signals").forEach((v, i) => {
      const p = `$.memory.signals[${i}]`;
      const s = obj(v, p);
      const name = str(s["name"], `${p}.name`);
      const id = int(s["id"], `${p}.id`, 0, ADDR_LIMIT);
      const g = this.gpu(s["gpu"], `${p}.gpu`);
      this.word(s["address"], `${p}.address`, p, g);
      const key = id * MAX_RANKS + g;
      if (this.signals.has(key)) throw new Bad(p, `a second entry for signal ${id} on GPU ${g}`);
      this.signals.set(key, { name, path: p });
    });
    arr(m["syncWords"], "$.memory.syncWords").forEach((v, i) => {
      const p = `$.memory.syncWords[${i}]`;
      const w = obj(v, p);
      int(w["id"], `${p}.id`, 0, ADDR_LIMIT);
      const kind = oneOf(w["kind"], `${p}.kind`, ["progress", "barrier"]);
      const g = this.gpu(w["gpu"], `${p}.gpu`);
      this.word(w["address"], `${p}.address`, p, g);
      if (kind === "progress") {
        str(w["producer"], `${p}.producer`);
        str(w["consumer"], `${p}.consumer`);
      } else str(w["queue"], `${p}.queue`);
    });
    this.slots(m["completionSignals"], "$.memory.completionSignals", 8, slots);
    this.slots(m["timestampSlots"], "$.memory.timestampSlots", 8, slots);
  }

  word(v: unknown, path: string, areaPath: string, owner: number): void {
    const a = addr(v, path);
    if (a % 4 !== 0) throw new Bad(path, `${a} is not 4-byte aligned`);
    this.area(a, 4, areaPath, owner);
  }

  slots(v: unknown, path: string, minStride: number, limit: number): void {
    const s = obj(v, path);
    const base = addr(s["base"], `${path}.base`);
    const stride = int(s["stride"], `${path}.stride`, minStride, 1 << 20);
    const count = int(s["count"], `${path}.count`, 0, ADDR_LIMIT);
    if (count > limit)
      throw new Bad(
        `${path}.count`,
        `${count} slots, more than an input of this size could use (at most ${limit})`,
      );
    this.area(base, count * stride, path, null);
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
        if (b.rank !== -1 && b.rank !== g) continue;
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
        if (b === undefined || (b.rank !== -1 && b.rank !== g))
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
    const a = [...this.areas].sort((x, y) => x.start - y.start);
    for (let i = 1; i < a.length; i++)
      if (a[i]!.start < a[i - 1]!.end) throw new Bad(a[i]!.path, `overlaps ${a[i - 1]!.path}`);
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
    for (const a of this.areas) {
      const r = regions[a.owner ?? R]!;
      if (a.start < r.base || a.end > r.base + r.size)
        throw new Bad(
          a.path,
          `[${hex(a.start)}, ${hex(a.end)}) is not inside region ${r.name} [${hex(r.base)}, ${hex(r.base + r.size)}): the region is too small or misplaced`,
        );
    }
  }

  /** `$.relocations`: each names a queue once, in triples [dword, region, addend] inside it. */
  relocations(v: unknown, dwordsOf: ReadonlyMap<string, number>): void {
    const seen = new Set<string>();
    arr(v, "$.relocations", dwordsOf.size).forEach((rv, i) => {
      const p = `$.relocations[${i}]`;
      const r = obj(rv, p);
      const queue = str(r["queue"], `${p}.queue`);
      const dwords = dwordsOf.get(queue);
      if (dwords === undefined)
        throw new Bad(`${p}.queue`, `${kindOf(queue)} is not a queue of this manifest`);
      if (seen.has(queue)) throw new Bad(`${p}.queue`, `a second relocation list for ${queue}`);
      seen.add(queue);
      // An address takes two dwords: at most dwords / 2 triples.
      const e = arr(r["entries"], `${p}.entries`, 3 * Math.floor(dwords / 2));
      if (e.length % 3 !== 0)
        throw new Bad(
          `${p}.entries`,
          `${e.length} numbers, not a list of [dword, region, addend] triples`,
        );
      const top = Math.max(0, dwords - 1);
      const R = this.regions.length;
      for (let k = 0; k < e.length; k += 3) {
        const dword = e[k];
        if (!isInt(dword, 0, top)) int(dword, `${p}.entries[${k}]`, 0, top);
        const region = e[k + 1];
        if (!isInt(region, 0, R)) int(region, `${p}.entries[${k + 1}]`, 0, R);
        const reg = this.regions[region as number]!;
        const v = e[k + 2];
        const addend = isInt(v, 0, ADDR_LIMIT)
          ? v
          : int(v, `${p}.entries[${k + 2}]`, 0, ADDR_LIMIT);
        if (addend >= reg.size)
          throw new Bad(
            `${p}.entries[${k + 2}]`,
            `addend ${addend} is past the end of region ${reg.name} (${reg.size} bytes)`,
          );
      }
    });
  }
}

/** Slot arrays may hold at most this many slots (see the header). */
function slotLimit(units: number, fileBytes: number | undefined): number {
  return SLOT_SLACK + Math.min(units, fileBytes ?? Infinity);
}

function run(file: string, body: () => void): Diagnostic | undefined {
  try {
    body();
    return undefined;
  } catch (e) {
    if (e instanceof Bad) return diag("DMAC6011", undefined, [file, e.path, e.detail]);
    throw e;
  }
}

/** A queue's packet file: a plain relative path that stays inside the manifest's directory. */
function queueFile(v: unknown, path: string): string {
  const f = str(v, path);
  if (f === "" || f.startsWith("/") || f.includes("\\") || f.split("/").includes(".."))
    throw new Bad(path, `${JSON.stringify(f)} is not a file name inside the manifest's directory`);
  return f;
}

/** `$.params`: the schedule's parameter values (manifest, and trace when it names its source). */
function checkParams(v: unknown): void {
  arr(v, "$.params").forEach((pv, i) => {
    const p = obj(pv, `$.params[${i}]`);
    str(p["name"], `$.params[${i}].name`);
    oneOf(p["type"], `$.params[${i}].type`, ["int", "bytes", "bool"]);
    if (typeof p["value"] !== "boolean" && typeof p["value"] !== "number")
      throw new Bad(`$.params[${i}].value`, `expected a number or a boolean`);
  });
}

export function validateManifest(
  json: unknown,
  opts: ValidateOptions = {},
): Diagnostic | undefined {
  const file = opts.file ?? "manifest.json";
  return run(file, () => {
    const d = obj(json, "$");
    const c = new Checker();
    c.header(d, "dmac-manifest");
    checkParams(d["params"]);
    const queues = arr(d["queues"], "$.queues", c.ranks * 256);
    // The size measure: the dwords of the streams (each signalled slot needs a packet).
    let units = 0;
    const files = new Set<string>();
    const dwordsOf = new Map<string, number>();
    queues.forEach((v, i) => {
      const p = `$.queues[${i}]`;
      const q = c.queue(v, p);
      const f = queueFile(q["file"], `${p}.file`);
      if (files.has(f)) throw new Bad(`${p}.file`, `a second queue reads ${f}`);
      files.add(f);
      const dwords = int(q["dwords"], `${p}.dwords`, 0, ADDR_LIMIT);
      dwordsOf.set(q["name"] as string, dwords);
      const given = opts.streams?.get(f);
      if (opts.streams && !given) throw new Bad(`${p}.file`, `the packet stream ${f} is missing`);
      if (given && given.length !== dwords)
        throw new Bad(
          `${p}.dwords`,
          `${dwords} dwords, but the packet stream ${f} holds ${given.length}`,
        );
      units += dwords;
      arr(q["completionSlots"], `${p}.completionSlots`).forEach((s, k) => {
        if (!isInt(s, 0, ADDR_LIMIT)) int(s, `${p}.completionSlots[${k}]`, 0, ADDR_LIMIT);
      });
    });
    const mem = obj(d["memory"], "$.memory");
    c.memory(mem, slotLimit(units, opts.fileBytes));
    const count = (mem["completionSignals"] as Obj)["count"] as number;
    // Each slot is signalled by one queue, once: the host waits for it on that queue's behalf.
    // (Listed at queue i, index k: kept as two numbers; the path is built only to report.)
    const slotPath = (i: number, k: number): string => `$.queues[${i}].completionSlots[${k}]`;
    const byQueue = new Int32Array(count).fill(-1); // (count is bounded: c.memory)
    const byIndex = new Float64Array(byQueue.length);
    queues.forEach((v, i) =>
      ((v as Obj)["completionSlots"] as number[]).forEach((s, k) => {
        if (s >= count) throw new Bad(slotPath(i, k), `slot ${s} of ${count}`);
        if (byQueue[s]! >= 0)
          throw new Bad(
            slotPath(i, k),
            `slot ${s} is already listed at ${slotPath(byQueue[s]!, byIndex[s]!)}`,
          );
        byQueue[s] = i;
        byIndex[s] = k;
      }),
    );
    c.disjoint();
    if (opts.module) c.matches(opts.module);
    c.regionsCover();
    c.relocations(d["relocations"], dwordsOf);
    const sm = obj(d["sourceMap"], "$.sourceMap");
    str(sm["file"], "$.sourceMap.file");
    arr(sm["stmts"], "$.sourceMap.stmts").forEach((v, i) => {
      const s = obj(v, `$.sourceMap.stmts[${i}]`);
      int(s["line"], `$.sourceMap.stmts[${i}].line`, 0, ADDR_LIMIT);
      int(s["col"], `$.sourceMap.stmts[${i}].col`, 0, ADDR_LIMIT);
    });
    arr(sm["queues"], "$.sourceMap.queues").forEach((v, i) => {
      const p = `$.sourceMap.queues[${i}]`;
      const q = obj(v, p);
      str(q["queue"], `${p}.queue`);
      const entries = arr(q["entries"], `${p}.entries`);
      for (let k = 0; k < entries.length; k++) {
        const e = entries[k];
        const row = Array.isArray(e) ? (e as unknown[]) : arr(e, `${p}.entries[${k}]`);
        if (row.length < 2) throw new Bad(`${p}.entries[${k}]`, "expected [byteOffset, stmt, ...]");
        for (let j = 0; j < row.length; j++)
          if (!isInt(row[j], 0, ADDR_LIMIT)) int(row[j], `${p}.entries[${k}][${j}]`, 0, ADDR_LIMIT);
      }
    });
  });
}

/** What each trace command's fields must be (TraceAddr fields, plain integers, enums). */
type FieldType = "addr" | "bytes" | "byte" | "u32" | "func" | "width" | "add";
const TRACE_FIELDS: Readonly<Record<string, readonly (readonly [string, FieldType])[]>> = {
  copy: [
    ["src", "addr"],
    ["dst", "addr"],
    ["bytes", "bytes"],
  ],
  bcast: [
    ["src", "addr"],
    ["dst", "addr"],
    ["dst2", "addr"],
    ["bytes", "bytes"],
  ],
  swap: [
    ["a", "addr"],
    ["b", "addr"],
    ["bytes", "bytes"],
  ],
  fill: [
    ["dst", "addr"],
    ["bytes", "bytes"],
    ["value", "byte"],
  ],
  poll: [
    ["at", "addr"],
    ["func", "func"],
    ["value", "u32"],
    ["mask", "u32"],
  ],
  fence: [
    ["at", "addr"],
    ["value", "u32"],
  ],
  atomic: [
    ["at", "addr"],
    ["width", "width"],
    ["add", "add"],
  ],
  timestamp: [["at", "addr"]],
};

export function validateTrace(json: unknown, opts: ValidateOptions = {}): Diagnostic | undefined {
  const file = opts.file ?? "trace.json";
  return run(file, () => {
    const d = obj(json, "$");
    const c = new Checker();
    c.header(d, "dmac-trace");
    // Optional (traces from before they named their source): both or neither.
    if (d["source"] !== undefined && d["source"] !== null) {
      str(d["source"], "$.source");
      checkParams(d["params"]);
    }
    const queues = arr(d["queues"], "$.queues", c.ranks * 256);
    let units = 0;
    queues.forEach((v, i) => {
      const p = `$.queues[${i}]`;
      const q = c.queue(v, p);
      const cmds = arr(q["cmds"], `${p}.cmds`);
      units += cmds.length;
      cmds.forEach((cv, k) => {
        const cp = `${p}.cmds[${k}]`;
        const cmd = obj(cv, cp);
        const op = cmd["op"];
        const fields =
          typeof op === "string" && Object.hasOwn(TRACE_FIELDS, op) ? TRACE_FIELDS[op] : undefined;
        if (!fields) throw new Bad(`${cp}.op`, `unknown command ${kindOf(op)}`);
        for (const [name, type] of fields) {
          const fp = `${cp}.${name}`;
          const x = cmd[name];
          switch (type) {
            case "addr": {
              const a = obj(x, fp);
              if (a["gpu"] !== null) c.gpu(a["gpu"], `${fp}.gpu`);
              addr(a["addr"], `${fp}.addr`);
              break;
            }
            case "bytes":
              int(x, fp, 0, ADDR_LIMIT);
              break;
            case "byte":
              int(x, fp, 0, 256);
              break;
            case "u32":
              int(x, fp, 0, U32);
              break;
            case "func":
              if (!COMPARE_OPS.has(x))
                throw new Bad(fp, `expected a comparison (==, !=, <, <=, >, >=)`);
              break;
            case "width":
              oneOf(x, fp, [32, 64]);
              break;
            case "add":
              int(x, fp, -ADDR_LIMIT, ADDR_LIMIT);
              break;
            default:
              assertNever(type, "trace field type");
          }
        }
        if (cmd["ops"] !== undefined) arr(cmd["ops"], `${cp}.ops`);
      });
    });
    const mem = obj(d["memory"], "$.memory");
    c.memory(mem, slotLimit(units, opts.fileBytes));
    c.disjoint();
    if (opts.module) c.matches(opts.module);
    c.regionsCover();
    // Completion signals are written the way `completion.protocol` says (a runtime may wait for
    // them either way, but by what the document declares).
    const protocol = (d["completion"] as Obj)["protocol"] as "atomic" | "fence";
    const slots = mem["completionSignals"] as { base: number; stride: number; count: number };
    queues.forEach((qv, i) =>
      ((qv as Obj)["cmds"] as Obj[]).forEach((cmd, k) => {
        if (cmd["op"] !== "fence" && cmd["op"] !== "atomic") return;
        const at = (cmd["at"] as { addr: number }).addr;
        const slot = slotAt(slots, at);
        if (slot === undefined) return;
        const ok =
          protocol === "atomic"
            ? cmd["op"] === "atomic" && cmd["width"] === 64 && cmd["add"] === -1
            : cmd["op"] === "fence" && cmd["value"] === 0;
        if (!ok)
          throw new Bad(
            `$.queues[${i}].cmds[${k}]`,
            `signals completion slot ${slot} with ${describeTraceSignal(cmd)}, but $.completion.protocol is "${protocol}" (${PROTOCOL_WRITE[protocol]})`,
          );
      }),
    );
  });
}

/** What each completion protocol writes into a slot. */
const PROTOCOL_WRITE = {
  atomic: "an ATOMIC add64 of -1",
  fence: "a FENCE of 0 into the slot's low dword",
} as const;

function describeTraceSignal(cmd: Obj): string {
  return cmd["op"] === "fence"
    ? `a fence of ${String(cmd["value"])}`
    : `an atomic add${String(cmd["width"])} of ${String(cmd["add"])}`;
}

/** The completion slot whose 64-bit word starts at `addr`, if any. */
function slotAt(
  slots: { readonly base: number; readonly stride: number; readonly count: number },
  addr: number,
): number | undefined {
  const off = addr - slots.base;
  if (off < 0 || off % slots.stride !== 0) return undefined;
  const k = off / slots.stride;
  return k < slots.count ? k : undefined;
}

/** Low dwords of the address fields of each packet kind (from the packet table). */
const ADDR_DWORDS = new Map<string, readonly number[]>(
  Object.values(COMPILED_BY_KIND).map((c) => [
    c.kind,
    c.fields.filter((f) => f.type === "addr").map((f) => f.dw),
  ]),
);

const MNEMONIC = new Map<string, string>(
  Object.values(COMPILED_BY_KIND).map((c) => [c.kind, c.spec.mnemonic]),
);

/**
 * What the manifest says about one queue's packet stream, checked against the decoded stream
 * (the executor's loader feeds it every entry of its one decoding pass, scanStream, then asks
 * finish()): each relocation names the low dword of a packet's address field and the address
 * there is its region's base plus the addend; the packets that write completion slots do it as
 * `completion.protocol` says and signal exactly the queue's `completionSlots`, in that order. A
 * stream the decoder flags (an unknown or truncated packet, reserved bits) is left to the
 * executor, which reports it (DMAC6007) and never verifies it. `manifest` must have passed
 * validateManifest. Nothing is kept per packet but one byte per dword (the address dwords).
 */
export class QueueStreamCheck {
  private readonly isAddr: Uint8Array;
  private readonly signalled: number[] = [];
  /** The first completion write that breaks the protocol: its message. */
  private wrongWrite: string | undefined;
  private flagged = false;

  constructor(
    private readonly manifest: Manifest,
    private readonly index: number,
    private readonly words: Uint32Array,
  ) {
    this.isAddr = new Uint8Array(words.length);
  }

  /** One decoded entry, in stream order, with the problems the decoder found at it. */
  visit(e: DecodedEntry, problems: readonly StreamProblem[]): void {
    if (problems.length > 0) this.flagged = true;
    if (this.flagged || e.packet.kind === "unknown") return;
    this.packet(e.offset, e.packet);
  }

  /** One decoded packet the decoder found no problem with, at byte offset `offset`. */
  packet(offset: number, pk: Packet): void {
    if (this.flagged) return;
    const dws = ADDR_DWORDS.get(pk.kind);
    if (dws !== undefined) for (const dw of dws) this.isAddr[offset / 4 + dw] = 1;
    if (pk.kind !== "fence" && pk.kind !== "atomic" && pk.kind !== "sem_mem_incr") return;
    const slot = slotAt(this.manifest.memory.completionSignals, pk.addr);
    if (slot === undefined) return;
    const protocol = this.manifest.completion.protocol;
    const ok =
      protocol === "atomic"
        ? pk.kind === "atomic" && pk.op === "add64" && pk.src === 0xffff_ffff_ffff_ffffn
        : pk.kind === "fence" && pk.data >>> 0 === 0;
    if (!ok && this.wrongWrite === undefined)
      this.wrongWrite = `"${protocol}", but ${this.manifest.queues[this.index]!.name} ${hex(offset)} signals completion slot ${slot} with ${describePacketSignal(pk)}, not ${PROTOCOL_WRITE[protocol]}`;
    this.signalled.push(slot);
  }

  finish(file = "manifest.json"): Diagnostic | undefined {
    const { manifest, index, words } = this;
    return run(file, () => {
      const q = manifest.queues[index]!;
      if (this.flagged) return;
      const regions = manifest.memory.regions;
      const r = relocationIndex(manifest).get(q.name) ?? -1;
      const entries = r >= 0 ? manifest.relocations[r]!.entries : [];
      for (let k = 0; k < entries.length; k += 3) {
        const dword = entries[k]!;
        const p = `$.relocations[${r}].entries[${k}]`;
        if (this.isAddr[dword] !== 1) {
          // (The error path: decode again to name the packet the dword is in.)
          const at = decodeStream(words).packets.findLast((e) => e.offset / 4 <= dword);
          throw new Bad(
            p,
            `dword ${dword} of ${q.file} is not the low half of an address (it is dword ${dword - (at ? at.offset / 4 : 0)} of the ${at ? (MNEMONIC.get(at.packet.kind) ?? at.packet.kind) : "stream"} at ${hex(at ? at.offset : 0)}): rebasing it would corrupt the stream`,
          );
        }
        const region = regions[entries[k + 1]!]!;
        const want = region.base + entries[k + 2]!;
        const got = words[dword]! + words[dword + 1]! * 2 ** 32;
        if (got !== want)
          throw new Bad(
            `$.relocations[${r}].entries[${k + 2}]`,
            `dword ${dword} of ${q.file} holds ${hex(got)}, not ${region.name} + ${entries[k + 2]!} = ${hex(want)}`,
          );
      }
      if (this.wrongWrite !== undefined) throw new Bad("$.completion.protocol", this.wrongWrite);
      const listed = q.completionSlots;
      const signalled = this.signalled;
      if (signalled.length !== listed.length || signalled.some((s, k) => s !== listed[k]))
        throw new Bad(
          `$.queues[${index}].completionSlots`,
          `lists ${shortList(listed)}, but ${q.file} signals ${shortList(signalled)} (in stream order)`,
        );
    });
  }
}

/** QueueStreamCheck over a stream decoded whole. */
export function checkQueueStream(
  manifest: Manifest,
  index: number,
  words: Uint32Array,
  decoded: DecodedStream,
  file = "manifest.json",
): Diagnostic | undefined {
  const check = new QueueStreamCheck(manifest, index, words);
  const problems = new Set(decoded.problems.map((p) => p.offset));
  for (const e of decoded.packets)
    check.visit(e, problems.has(e.offset) ? [decoded.problems[0]!] : []);
  return check.finish(file);
}

const RELOCATION_INDEX = new WeakMap<Manifest, ReadonlyMap<string, number>>();

/** Index in `$.relocations` of each queue's list (computed once per manifest). */
function relocationIndex(m: Manifest): ReadonlyMap<string, number> {
  let index = RELOCATION_INDEX.get(m);
  if (!index) {
    index = new Map(m.relocations.map((r, i) => [r.queue, i]));
    RELOCATION_INDEX.set(m, index);
  }
  return index;
}

function describePacketSignal(pk: Packet): string {
  if (pk.kind === "fence") return `a FENCE of ${pk.data >>> 0}`;
  if (pk.kind === "atomic") return `an ATOMIC ${pk.op} of ${BigInt.asIntN(64, pk.src)}`;
  return `a ${MNEMONIC.get(pk.kind) ?? pk.kind}`;
}

function shortList(xs: readonly number[]): string {
  if (xs.length === 0) return "no slot";
  const head = xs.slice(0, 8).join(", ");
  return `slots [${head}${xs.length > 8 ? `, ... (${xs.length} in all)` : ""}]`;
}
