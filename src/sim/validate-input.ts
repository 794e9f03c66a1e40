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
// file is present, and with the IR given (the module recompiled from the source, whose final
// state the run is checked against) the memory map declares exactly the module's buffer
// instances with the module's sizes on the module's number of GPUs.
// Checks stop at the first problem: a corrupt file usually has one, and the path says where.

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
}

/** Shared by both forms: header fields, completion, trigger, memory. */
class Checker {
  readonly areas: Area[] = [];
  /** Declared buffer instances by id * MAX_RANKS + gpu. */
  readonly buffers = new Map<number, BufferEntry>();
  ranks = 0;

  header(d: Obj, kind: string): void {
    if (d["kind"] !== kind)
      throw new Bad("$.kind", `expected "${kind}", found ${kindOf(d["kind"])}`);
    if (d["version"] !== 1)
      throw new Bad("$.version", `this dmac reads schema version 1, found ${kindOf(d["version"])}`);
    str(d["dmac"], "$.dmac");
    str(d["target"], "$.target");
    str(d["schedule"], "$.schedule");
    this.ranks = int(d["ranks"], "$.ranks", 1, MAX_RANKS + 1);
    const c = obj(d["completion"], "$.completion");
    oneOf(c["protocol"], "$.completion.protocol", ["atomic", "fence"]);
    oneOf(c["width"], "$.completion.width", [64]);
    oneOf(c["initial"], "$.completion.initial", [1]);
    oneOf(c["done"], "$.completion.done", [0]);
    if (d["trigger"] !== null) {
      const t = obj(d["trigger"], "$.trigger");
      this.area(addr(t["address"], "$.trigger.address"), 4, "$.trigger");
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

  area(start: number, bytes: number, path: string): void {
    range(start, bytes, path);
    if (bytes > 0) this.areas.push({ start, end: start + bytes, path });
  }

  /** `slots`: the bound on completion and timestamp slot counts. */
  memory(m: Obj, slots: number): void {
    const regions = arr(m["regions"], "$.memory.regions", MAX_RANKS + 16);
    regions.forEach((v, i) => {
      const p = `$.memory.regions[${i}]`;
      const r = obj(v, p);
      str(r["name"], `${p}.name`);
      oneOf(r["kind"], `${p}.kind`, ["device", "host"]);
      if (r["gpu"] !== null) this.gpu(r["gpu"], `${p}.gpu`);
      range(addr(r["base"], `${p}.base`), addr(r["size"], `${p}.size`), p);
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
      this.area(addr(b["address"], `${p}.address`), size, p);
    });
    arr(m["signals"], "$.memory.signals").forEach((v, i) => {
      const p = `$.memory.signals[${i}]`;
      const s = obj(v, p);
      str(s["name"], `${p}.name`);
      int(s["id"], `${p}.id`, 0, ADDR_LIMIT);
      this.gpu(s["gpu"], `${p}.gpu`);
      this.word(s["address"], `${p}.address`, p);
    });
    arr(m["syncWords"], "$.memory.syncWords").forEach((v, i) => {
      const p = `$.memory.syncWords[${i}]`;
      const w = obj(v, p);
      int(w["id"], `${p}.id`, 0, ADDR_LIMIT);
      const kind = oneOf(w["kind"], `${p}.kind`, ["progress", "barrier"]);
      this.gpu(w["gpu"], `${p}.gpu`);
      this.word(w["address"], `${p}.address`, p);
      if (kind === "progress") {
        str(w["producer"], `${p}.producer`);
        str(w["consumer"], `${p}.consumer`);
      } else str(w["queue"], `${p}.queue`);
    });
    this.slots(m["completionSignals"], "$.memory.completionSignals", 8, slots);
    this.slots(m["timestampSlots"], "$.memory.timestampSlots", 8, slots);
  }

  word(v: unknown, path: string, areaPath: string): void {
    const a = addr(v, path);
    if (a % 4 !== 0) throw new Bad(path, `${a} is not 4-byte aligned`);
    this.area(a, 4, areaPath);
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
    this.area(base, count * stride, path);
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
    if (this.buffers.size === instances) return;
    const known = new Set(m.buffers.map((b) => b.id));
    for (const [key, e] of this.buffers) {
      const id = Math.floor(key / MAX_RANKS);
      const g = key % MAX_RANKS;
      const b = known.has(id) ? m.buffers.find((x) => x.id === id) : undefined;
      if (b === undefined || (b.rank !== -1 && b.rank !== g))
        throw new Bad(e.path, `buffer ${id} on GPU ${g} is not in the schedule`);
    }
  }

  /** Every declared area is disjoint from the others (the executor's memory map assumes it). */
  disjoint(): void {
    const a = [...this.areas].sort((x, y) => x.start - y.start);
    for (let i = 1; i < a.length; i++)
      if (a[i]!.start < a[i - 1]!.end) throw new Bad(a[i]!.path, `overlaps ${a[i - 1]!.path}`);
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
    queues.forEach((v, i) => {
      const p = `$.queues[${i}]`;
      const q = c.queue(v, p);
      const f = queueFile(q["file"], `${p}.file`);
      if (files.has(f)) throw new Bad(`${p}.file`, `a second queue reads ${f}`);
      files.add(f);
      const dwords = int(q["dwords"], `${p}.dwords`, 0, ADDR_LIMIT);
      const given = opts.streams?.get(f);
      if (opts.streams && !given) throw new Bad(`${p}.file`, `the packet stream ${f} is missing`);
      units += given ? given.length : dwords;
      arr(q["completionSlots"], `${p}.completionSlots`).forEach((s, k) =>
        int(s, `${p}.completionSlots[${k}]`, 0, ADDR_LIMIT),
      );
    });
    const mem = obj(d["memory"], "$.memory");
    c.memory(mem, slotLimit(units, opts.fileBytes));
    const count = (mem["completionSignals"] as Obj)["count"] as number;
    queues.forEach((v, i) =>
      ((v as Obj)["completionSlots"] as number[]).forEach((s, k) => {
        if (s >= count)
          throw new Bad(`$.queues[${i}].completionSlots[${k}]`, `slot ${s} of ${count}`);
      }),
    );
    c.disjoint();
    if (opts.module) c.matches(opts.module);
    arr(d["relocations"], "$.relocations").forEach((v, i) => {
      const r = obj(v, `$.relocations[${i}]`);
      str(r["queue"], `$.relocations[${i}].queue`);
      arr(r["entries"], `$.relocations[${i}].entries`);
    });
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
      arr(q["entries"], `${p}.entries`).forEach((e, k) => {
        const row = arr(e, `${p}.entries[${k}]`);
        if (row.length < 2) throw new Bad(`${p}.entries[${k}]`, "expected [byteOffset, stmt, ...]");
        row.forEach((x, j) => int(x, `${p}.entries[${k}][${j}]`, 0, ADDR_LIMIT));
      });
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
    c.memory(obj(d["memory"], "$.memory"), slotLimit(units, opts.fileBytes));
    c.disjoint();
    if (opts.module) c.matches(opts.module);
  });
}
