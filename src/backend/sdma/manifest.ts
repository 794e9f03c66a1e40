// The manifest (DIR/manifest.json, schema version 1): everything a runtime or the executor needs
// to load the packet streams of one compiled schedule: the memory to map (regions, buffers,
// signals, sync words, host completion signals, timestamp slots) with their addresses, one entry
// per queue with its packet file, the completion protocol, the prelaunch trigger, relocations and
// a source map. docs/manifest.md documents every field; bump `version` on incompatible changes.
//
// Addresses are plain JSON numbers (all below 2^53). Key order is the order written here.

import type { SignalEncoding } from "../../frontend/ast.js";
import { HOST, type IrModule } from "../../ir/ir.js";
import type { QueueProgram } from "../../queues/queue-program.js";
import { CMD, queueName } from "../../queues/queue-program.js";
import type { SourceFile } from "../../source/source-file.js";
import { lineCol } from "../../source/source-file.js";
import { VERSION } from "../../version.js";
import type { Layout } from "./layout.js";
import type { EmittedQueue } from "./emit.js";
import { TextSink } from "./disasm.js";
import { PackedRows, PackedRowsBuilder } from "./packed-rows.js";
import type { OpBindings } from "../../ir/instances.js";
import { SyncWordRows, syncWordRows, writeSyncWordRows } from "./sync-word-rows.js";
import { writeSidecarTo, type SidecarField } from "./manifest-sidecar.js";
import { StreamedData } from "../../util/streamed-data.js";

export interface Manifest {
  readonly version: 1;
  readonly kind: "dmac-manifest";
  /** dmac version that wrote it. */
  readonly dmac: string;
  readonly target: string;
  /**
   * The target description file given to `dmac compile --target`, relative to the manifest's
   * directory, or null without one. Written by `dmac compile -o` (absent in older manifests and
   * in outputs built in memory): when present, `sourceMap.file` is relative to the manifest's
   * directory too.
   */
  readonly targetFile?: string | null;
  /** A built-in --target the compile used instead of the source's own (docs/manifest.md). */
  readonly targetBuiltin?: string;
  readonly ranks: number;
  readonly schedule: string;
  /** Schedule parameters with their values, in declaration order. */
  readonly params: readonly ManifestParam[];
  readonly completion: ManifestCompletion;
  /** Prelaunch trigger (null at -O0): the host writes `value` to `address` to release every queue. */
  readonly trigger: { readonly address: number; readonly value: number } | null;
  /**
   * Present with conservative sync (absent: aggressive forms, sync words in GPU memory):
   * every poll is `==` on a word that cannot pass its value; `words` says where sync words live.
   */
  readonly sync?: {
    readonly mode: "conservative" | "aggressive";
    readonly words: "host" | "gpu";
  };
  /** `--breadcrumbs`: per queue its breadcrumb word and the statement of each step (1-based). */
  readonly breadcrumbs?: readonly ManifestBreadcrumbs[];
  readonly queues: readonly ManifestQueue[];
  readonly memory: ManifestMemory;
  readonly relocations: readonly ManifestRelocations[];
  readonly sourceMap: ManifestSourceMap;
}

export interface ManifestBreadcrumbs {
  readonly queue: string;
  /** The sync word (memory.syncWords id) the queue FENCEs its step numbers into. */
  readonly word: number;
  readonly address: number;
  /** steps[k - 1]: the IR statement (sourceMap.stmts index) of step k, -1 for none (trigger). */
  readonly steps: readonly number[];
}

export interface ManifestParam {
  readonly name: string;
  readonly type: "int" | "bytes" | "bool";
  readonly value: number | boolean;
}

export interface ManifestCompletion {
  /** "atomic": ATOMIC ADD64 of -1; "fence": FENCE of 0 into the low dword. */
  readonly protocol: "atomic" | "fence";
  /** Every completion signal is 64-bit, starts at `initial` and is done when it equals `done`. */
  readonly width: 64;
  readonly initial: 1;
  readonly done: 0;
}

export interface ManifestQueue {
  /** "gpu3.sdma14": the name used by relocations and the source map. */
  readonly name: string;
  readonly gpu: number;
  readonly engine: number;
  /** The packet stream, little-endian dwords, relative to the manifest's directory. */
  readonly file: string;
  readonly dwords: number;
  /**
   * The dword offset of every packet of the stream, in order (a loader pads the ring end so that
   * no packet straddles it: docs/runtime.md). Absent in manifests written before it was added.
   */
  readonly packetStarts?: readonly number[];
  /** Completion slots this queue signals, in stream order. */
  readonly completionSlots: readonly number[];
}

export interface ManifestRegion {
  /** "gpu0" .. "gpuN-1" (device memory of one GPU) or "host" (host-visible pinned memory). */
  readonly name: string;
  readonly kind: "device" | "host";
  /** The GPU whose memory it is; null for host memory. */
  readonly gpu: number | null;
  readonly base: number;
  /** Bytes used (allocation end, 4 KiB aligned) from base. */
  readonly size: number;
}

export interface ManifestMemory {
  /** Index in this list is the region number used by relocations. */
  readonly regions: readonly ManifestRegion[];
  /** One entry per buffer instance, sorted by (buffer id, gpu). Initial contents: the runtime's. */
  readonly buffers: readonly {
    readonly name: string;
    readonly id: number;
    readonly gpu: number;
    readonly address: number;
    readonly size: number;
    /** Pinned host memory (`buffer NAME: SIZE on host`); `gpu` is then a placeholder (0). */
    readonly host?: true;
  }[];
  /** User signal words (32-bit, initial value 0 unless the host sets them). */
  readonly signals: readonly {
    readonly name: string;
    readonly id: number;
    readonly gpu: number;
    readonly address: number;
    /**
     * What outside code stores to raise it to k: k (count) or 2^k - 1 (thermometer). Always
     * written; manifests written before it lack it (a count).
     */
    readonly encoding?: SignalEncoding;
  }[];
  /** Compiler sync words (32-bit, must be 0 before the queues start). */
  readonly syncWords: readonly ManifestSyncWord[];
  /**
   * Host completion signals (64-bit each, set to completion.initial before submission): slot k
   * is at base + k * stride, k < count. Which queue signals which slot: ManifestQueue.completionSlots.
   */
  readonly completionSignals: SlotArray;
  /** Slots receiving 64-bit TIMESTAMP values: slot k at base + k * stride (stride >= 32). */
  readonly timestampSlots: SlotArray;
}

export interface SlotArray {
  readonly base: number;
  readonly stride: number;
  readonly count: number;
}

/** `gpu` null: the word lives in host memory (conservative sync, breadcrumbs). */
export type ManifestSyncWord =
  | {
      readonly id: number;
      readonly kind: "progress";
      readonly gpu: number | null;
      readonly address: number;
      readonly producer: string;
      readonly consumer: string;
    }
  | {
      readonly id: number;
      readonly kind: "barrier" | "breadcrumb";
      readonly gpu: number | null;
      readonly address: number;
      readonly queue: string;
    };

/**
 * Every 64-bit address in a queue's stream: `entries` is a flat list of triples
 * [dword, region, addend]: dwords `dword` (low half) and `dword + 1` (high half) of the stream hold
 * regions[region].base + addend. A runtime that maps a region elsewhere rewrites those dwords.
 * (Swap and timestamp packets keep their low reserved bits 0, which rebasing by multiples of
 * 4 KiB preserves.)
 */
export interface ManifestRelocations {
  readonly queue: string;
  readonly entries: readonly number[];
}

export interface ManifestSourceMap {
  /**
   * The source file: relative to the manifest's directory when the manifest has `targetFile`
   * (written by `dmac compile -o`), else as given to the compiler.
   */
  readonly file: string;
  /**
   * Source statements: index = IR stmt index; 1-based line and column of the statement start,
   * and the loop variables around it, outermost first (absent outside loops).
   */
  readonly stmts: readonly {
    readonly line: number;
    readonly col: number;
    readonly vars?: readonly string[];
  }[];
  /**
   * Per IR op, [stmt, value, value, ...]: the statement it comes from and the values of that
   * statement's `vars` in the instance it is (the loop instance a packet implements: listings
   * print it, ir/instances.ts). Absent in manifests written before it was added.
   */
  readonly ops?: readonly (readonly number[])[];
  /**
   * Per queue, entries [byteOffset, stmt, op, op, ...]: the packets from byteOffset up to the next
   * entry implement (or order) those IR ops, the first of which comes from statement `stmt`.
   */
  readonly queues: readonly {
    readonly queue: string;
    readonly entries: readonly (readonly number[])[];
  }[];
}

// ---- Builder ---------------------------------------------------------------------------------

/** The memory section shared by the manifest and the trace. */
export function manifestMemory(m: IrModule, p: QueueProgram, layout: Layout): ManifestMemory {
  return { ...packedMemory(m, p, layout), syncWords: syncWordRows(p, layout).toArray() };
}

/** The memory section with the sync words as rows (what compile writes: sync-word-rows.ts). */
export type PackedMemory = Omit<ManifestMemory, "syncWords"> & { readonly syncWords: SyncWordRows };

function packedMemory(m: IrModule, p: QueueProgram, layout: Layout): PackedMemory {
  const R = layout.ranks;
  const buffers: ManifestMemory["buffers"][number][] = [];
  for (const b of m.buffers) {
    for (let g = 0; g < R; g++) {
      const address = layout.bufferAddr[b.id * R + g]!;
      if (Number.isNaN(address)) continue;
      // A host buffer's one instance sits at its regions' placeholder rank (ir.ts HOST).
      if (b.rank === HOST)
        buffers.push({ name: b.name, id: b.id, gpu: g, address, size: b.size, host: true });
      else buffers.push({ name: b.name, id: b.id, gpu: g, address, size: b.size });
    }
  }
  const signals: ManifestMemory["signals"][number][] = [];
  for (const s of m.signals) {
    for (let g = 0; g < R; g++) {
      const address = layout.signalAddr[s.id * R + g]!;
      if (!Number.isNaN(address))
        signals.push({ name: s.name, id: s.id, gpu: g, address, encoding: s.encoding });
    }
  }
  const completionSignals: SlotArray = {
    base: layout.completionBase,
    stride: layout.config.completionAlign,
    count: p.completionSlots,
  };
  const timestampSlots: SlotArray = {
    base: layout.timestampBase,
    stride: layout.config.timestampAlign,
    count: p.timestampSlots,
  };
  return {
    regions: layout.regions.map((r) => ({
      name: r.name,
      kind: r.kind,
      gpu: r.gpu,
      base: r.base,
      size: r.size,
    })),
    buffers,
    signals,
    syncWords: syncWordRows(p, layout),
    completionSignals,
    timestampSlots,
  };
}

export const COMPLETION_SECTION = (p: QueueProgram): ManifestCompletion => ({
  protocol: p.completion,
  width: 64,
  initial: 1,
  done: 0,
});

/**
 * The manifest as buildOutputs writes it: the relocations and source-map entries stay in the
 * emitter's typed arrays (Float64Array, PackedRows: ~12M numbers and 10^6 rows at 10^6
 * operations), which formatJsonBytes writes as the arrays of the Manifest type, with
 * the same text. In-process consumers take buildManifest's plain Manifest.
 */
export type PackedManifest = Omit<Manifest, "relocations" | "sourceMap" | "queues" | "memory"> & {
  readonly memory: PackedMemory;
  readonly queues: readonly (Omit<ManifestQueue, "packetStarts" | "completionSlots"> & {
    readonly packetStarts: Float64Array;
    readonly completionSlots: Float64Array;
  })[];
  readonly relocations: readonly { readonly queue: string; readonly entries: Float64Array }[];
  readonly sourceMap: Omit<ManifestSourceMap, "queues" | "ops"> & {
    readonly ops: PackedRows;
    readonly queues: readonly { readonly queue: string; readonly entries: PackedRows }[];
  };
};

/** The manifest of emitted streams, as plain JSON-shaped data. */
export function buildManifest(
  m: IrModule,
  p: QueueProgram,
  layout: Layout,
  emitted: readonly EmittedQueue[],
  file: SourceFile,
  targetName: string,
  paths?: RecordedPaths,
): Manifest {
  const packed = buildPackedManifest(m, p, layout, emitted, file, targetName, paths);
  return {
    ...packed,
    memory: { ...packed.memory, syncWords: packed.memory.syncWords.toArray() },
    queues: packed.queues.map((q) => ({
      ...q,
      packetStarts: Array.from(q.packetStarts),
      completionSlots: Array.from(q.completionSlots),
    })),
    relocations: packed.relocations.map((r) => ({
      queue: r.queue,
      entries: Array.from(r.entries),
    })),
    sourceMap: {
      ...packed.sourceMap,
      ops: [...packed.sourceMap.ops],
      queues: packed.sourceMap.queues.map((q) => ({ queue: q.queue, entries: [...q.entries] })),
    },
  };
}

/**
 * Where an output records its source and target file: both relative to the output's directory
 * (`dmac compile -o DIR`), so that `dmac sim DIR` finds them from any working directory.
 */
export interface RecordedPaths {
  readonly source: string;
  /** The --target file, or null when the compile used the source's own target. */
  readonly targetFile: string | null;
  /** A built-in --target (`--target mi300x`), which the source's `target` line does not say. */
  readonly targetBuiltin?: string | undefined;
}

/** buildManifest without unpacking the typed arrays (what buildOutputs formats and writes). */
export function buildPackedManifest(
  m: IrModule,
  p: QueueProgram,
  layout: Layout,
  emitted: readonly EmittedQueue[],
  file: SourceFile,
  targetName: string,
  paths?: RecordedPaths,
): PackedManifest {
  return {
    version: 1,
    kind: "dmac-manifest",
    dmac: VERSION,
    target: targetName,
    ...(paths ? { targetFile: paths.targetFile } : {}),
    ...(paths?.targetBuiltin !== undefined ? { targetBuiltin: paths.targetBuiltin } : {}),
    ranks: m.ranks,
    schedule: m.schedule,
    params: m.params.map((x) => ({ name: x.name, type: x.type, value: x.value })),
    completion: COMPLETION_SECTION(p),
    trigger:
      p.trigger && layout.triggerAddr !== null
        ? { address: layout.triggerAddr, value: p.trigger.value }
        : null,
    ...(p.sync
      ? {
          sync: { mode: p.sync.mode, words: p.sync.words },
        }
      : {}),
    ...(p.syncWords.some((w) => w.kind === "breadcrumb")
      ? { breadcrumbs: manifestBreadcrumbs(m, p, layout) }
      : {}),
    queues: emitted.map((q) => ({
      name: q.name,
      gpu: q.gpu,
      engine: q.engine,
      file: `${q.name}.bin`,
      dwords: q.words.length,
      packetStarts: q.packetStarts,
      completionSlots: q.completionSlots,
    })),
    memory: packedMemory(m, p, layout),
    relocations: emitted.map((q) => ({ queue: q.name, entries: q.relocations })),
    sourceMap: {
      file: paths ? paths.source : file.name,
      stmts: sourceStmts(m, file),
      ops: opInstances(m),
      queues: emitted.map((q) => ({ queue: q.name, entries: q.sourceMap })),
    },
  };
}

/** sourceMap.stmts: each statement's position, and its loop variables when it has any. */
export function sourceStmts(m: IrModule, file: SourceFile): ManifestSourceMap["stmts"] {
  return m.stmts.map((s) => {
    const at = lineCol(file, s.span.start);
    return s.loopVars.length > 0 ? { ...at, vars: [...s.loopVars] } : at;
  });
}

/** sourceMap.ops: per IR op, its statement and loop values (one row each, in op order). */
function opInstances(m: IrModule): PackedRows {
  const { ops, stmts } = m;
  // Loop values per statement; an op without a binding (bind < 0) has none.
  const vars = Int32Array.from(stmts, (s) => s.loopVars.length);
  // Exact sizes, filled in place: a row per op (10^6 at the big benchmark). (Each loop is a
  // function of its own, with nothing after it: lower.ts emitCommands says why.)
  const starts = new Uint32Array(ops.count + 1);
  rowStarts(ops, vars, starts);
  const data = new Float64Array(starts[ops.count]!);
  rowValues(m, starts, data);
  return new PackedRows(data, starts);
}

function rowStarts(ops: IrModule["ops"], vars: Int32Array, starts: Uint32Array): void {
  for (let i = 0; i < ops.count; i++)
    starts[i + 1] = starts[i]! + 1 + (ops.bind[i]! < 0 ? 0 : (vars[ops.stmt[i]!] ?? 0));
}

function rowValues(m: IrModule, starts: Uint32Array, data: Float64Array): void {
  const { ops, bindValues } = m;
  for (let i = 0; i < ops.count; i++) {
    let at = starts[i]!;
    data[at++] = ops.stmt[i]!;
    const bind = ops.bind[i]!;
    for (let k = 0, n = starts[i + 1]! - at; k < n; k++) data[at + k] = bindValues[bind + k]!;
  }
}

/**
 * The loop values a manifest's source map records (ir/instances.ts reads them; none: a manifest
 * from before they were recorded).
 */
export function manifestBindings(sm: ManifestSourceMap): OpBindings | undefined {
  if (!sm.ops) return undefined;
  const rows = packRows(sm.ops);
  const { data, starts } = rows;
  return {
    vars: (stmt) => sm.stmts[stmt]?.vars ?? [],
    // A row without the values of its statement's variables is outside loops (or malformed).
    stmtOf: (op) => {
      if (!(op >= 0 && op < rows.length)) return -1;
      const stmt = data[starts[op]!]!;
      const n = sm.stmts[stmt]?.vars?.length ?? 0;
      return n > 0 && starts[op + 1]! - starts[op]! === n + 1 ? stmt : -1;
    },
    value: (op, k) => data[starts[op]! + 1 + k]!,
  };
}

/** Rows of numbers as PackedRows. */
export function packRows(rows: readonly (readonly number[])[]): PackedRows {
  const b = new PackedRowsBuilder(rows.length);
  for (const row of rows) {
    b.startRow();
    for (const v of row) b.value(v);
  }
  return b.done();
}

/** Each queue's breadcrumb word and the statement of every step (forensics/breadcrumbs.ts). */
function manifestBreadcrumbs(m: IrModule, p: QueueProgram, layout: Layout): ManifestBreadcrumbs[] {
  return p.queues.map((q) => {
    const c = q.cmds;
    let word = -1;
    const steps: number[] = [];
    for (let i = 0; i < c.length; i++) {
      const w = c.kind(i) === CMD.signal ? c.syncWord(i) : -1;
      if (w < 0 || p.syncWords[w]!.kind !== "breadcrumb") continue;
      word = w;
      const ops = p.lists.of(c.opsHandle(i));
      steps.push(ops.length > 0 ? m.ops.stmt[ops[0]!]! : -1);
    }
    return { queue: queueName(q), word, address: layout.syncAddr[word] ?? 0, steps };
  });
}

/**
 * Deterministic, diff-friendly JSON as UTF-8 bytes: objects one key per line in insertion order
 * (builders above fix the order), arrays of scalars on one line, arrays of arrays one inner array
 * per line. Written written into one growing buffer (disasm.ts TextSink) instead
 * of a string: the manifest of a 10^6-operation program is ~120 MB of JSON, mostly ~9M relocation
 * numbers and 10^6 source-map entries; as strings the parts, the joined text and its UTF-8 copy
 * were the largest allocation of the compile (docs/performance.md). `capacity`: expected bytes
 * (a good guess avoids regrowing a big buffer). Tested against a plain string formatter.
 */
export function formatJsonBytes(value: unknown, capacity = 1 << 16): Uint8Array {
  const out = new TextSink(capacity);
  writeJson(out, value);
  return out.bytes();
}

/**
 * formatJsonBytes' text into `out` (a streaming sink writes a big manifest to its file in
 * chunks: it never exists whole in memory). `spans`: where each of its keys' values lies in the
 * whole text (the sidecar's arrays).
 */
export function writeJson(
  out: TextSink,
  value: unknown,
  spans?: Map<object, { start: number; end: number }>,
): void {
  // Indents and `<indent>"key": ` texts by depth, made once: a conservative-sync manifest
  // lists half a million sync-word objects at 10^6 operations, and a fresh indent string per
  // object (concatenated, then hashed as a map key) was most of their cost.
  const indents: string[] = [""];
  const indentOf = (depth: number): string => (indents[depth] ??= "  ".repeat(depth));
  const keyLines: Map<string, string>[] = [];
  const keyLine = (depth: number, k: string): string => {
    const lines = (keyLines[depth] ??= new Map());
    let t = lines.get(k);
    if (t === undefined) lines.set(k, (t = indentOf(depth) + JSON.stringify(k) + ": "));
    return t;
  };
  const write = (v: unknown, depth: number): void => {
    const span =
      spans !== undefined && v !== null && typeof v === "object" ? spans.get(v) : undefined;
    if (span !== undefined) {
      span.start = out.position;
      writeValue(v, depth);
      span.end = out.position;
    } else writeValue(v, depth);
  };
  const writeValue = (v: unknown, depth: number): void => {
    if (v === null || typeof v !== "object") writeScalar(v);
    else if (v instanceof Float64Array) {
      // Relocations (emit.ts); non-finite values cannot occur (they are addresses).
      if (v.length === 0) out.text("[]");
      else out.numberList(v);
    } else if (v instanceof PackedRows) writeRows(v, depth);
    else if (v instanceof SyncWordRows) writeSyncWordRows(out, v, depth);
    else if (Array.isArray(v)) writeArray(v, depth);
    else writeObject(v as Record<string, unknown>, depth);
  };
  // One inner array per line.
  const writeRows = (v: PackedRows, depth: number): void => {
    if (v.length === 0) return out.text("[]");
    out.text("[\n");
    out.numberRows(v.data, v.starts, indentOf(depth + 1));
    out.text(indentOf(depth));
    out.char(0x5d); // ]
  };
  // Scalars on one line (TextSink.numberList writes String(x), which is JSON.stringify(x) for
  // finite x); anything else one element per line.
  const writeArray = (v: readonly unknown[], depth: number): void => {
    if (v.length === 0) out.text("[]");
    // As a Float64Array (a copy): the lists then reach TextSink's number loop as one array type,
    // the relocations' and packet starts', which keeps its element loads monomorphic.
    else if (finiteNumbers(v)) out.numberList(Float64Array.from(v as number[]));
    else if (v.every(isScalar))
      out.text("[" + v.map((x) => JSON.stringify(x) ?? "null").join(", ") + "]");
    else {
      const inner = indentOf(depth + 1);
      out.text("[\n");
      for (let i = 0; i < v.length; i++) {
        out.text(inner);
        write(v[i], depth + 1);
        out.text(i < v.length - 1 ? ",\n" : "\n");
      }
      out.text(indentOf(depth));
      out.char(0x5d); // ]
    }
  };
  // Keys in insertion order, undefined values left out (as JSON.stringify does).
  const writeObject = (o: Record<string, unknown>, depth: number): void => {
    const keys = Object.keys(o);
    let first = true;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const x = o[k];
      if (x === undefined) continue;
      out.text(first ? "{\n" : ",\n");
      first = false;
      out.text(keyLine(depth + 1, k));
      if (x === null || typeof x !== "object") writeScalar(x);
      else write(x, depth + 1);
    }
    if (first) return out.text("{}");
    out.char(0x0a);
    out.text(indentOf(depth));
    out.char(0x7d); // }
  };
  // JSON.stringify of a scalar; short strings (names, kinds: few distinct ones, repeated per
  // object) are quoted once.
  const quoted = new Map<string, string>();
  const writeScalar = (v: unknown): void => {
    if (typeof v === "number" && Number.isFinite(v)) out.decimal(v);
    else if (typeof v === "string" && v.length <= 64) {
      let t = quoted.get(v);
      if (t === undefined) {
        t = JSON.stringify(v);
        if (quoted.size < 4096) quoted.set(v, t);
      }
      out.text(t);
    } else out.text(JSON.stringify(v) ?? "null");
  };
  write(value, 0);
  out.char(0x0a);
}

const isScalar = (v: unknown): boolean => v === null || typeof v !== "object";

function finiteNumbers(v: readonly unknown[]): boolean {
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (typeof x !== "number" || !Number.isFinite(x)) return false;
  }
  return true;
}

/**
 * manifest.json and its sidecar (manifest-sidecar.ts: the relocations, packet starts, completion
 * slots, source-map rows and sync words of every queue in binary, with their spans in the JSON),
 * as streamed outputs. The JSON goes to its file in 512 KiB chunks: at 10^6 operations with
 * conservative sync it is 240 MB, which as one buffer beside the program took the compile's peak
 * past 1 GiB (docs/performance.md); a small chunk is also few pages of fresh memory to fault in
 * (4 MiB chunks cost the 65,536-copy compile ~1,000 more page faults). The sidecar, written
 * after it, uses the spans that writing produced (or formats the JSON once more, unkept, when it
 * is asked for first).
 */
export function manifestOutputs(manifest: PackedManifest): {
  json: StreamedData;
  sidecar: StreamedData;
} {
  // `key`: the JSON value whose span is recorded (for sync words, the list; value: its numbers).
  const sources: {
    field: SidecarField;
    index: number;
    key: object;
    value: ArrayLike<number> | PackedRows;
  }[] = [];
  const source = (field: SidecarField, index: number, value: ArrayLike<number> | PackedRows) =>
    sources.push({ field, index, key: value, value });
  manifest.relocations.forEach((r, i) => source(1, i, r.entries));
  manifest.queues.forEach((q, i) => {
    source(2, i, q.packetStarts);
    source(3, i, q.completionSlots);
  });
  manifest.sourceMap.queues.forEach((q, i) => source(4, i, q.entries));
  const sync = manifest.memory.syncWords;
  sources.push({ field: 5, index: 0, key: sync, value: sync.numbers });
  // (An empty array is two bytes of JSON: no sidecar entry. Each value object appears once.)
  const listed = sources.filter((x) => x.value.length > 0);
  let written: Map<object, { start: number; end: number }> | undefined;
  const json = new StreamedData((write) => {
    const spans = new Map(listed.map((x) => [x.key, { start: -1, end: -1 }]));
    const out = new TextSink(1 << 19, write);
    writeJson(out, manifest, spans);
    out.end();
    written = spans;
  });
  const sidecar = new StreamedData((write) => {
    if (!written) json.writeTo(() => {});
    const spans = written!;
    writeSidecarTo(
      listed.map((x) => ({
        field: x.field,
        index: x.index,
        value: x.value,
        ...spans.get(x.key)!,
      })),
      write,
    );
  });
  return { json, sidecar };
}
