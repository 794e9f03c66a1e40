// A manifest and its packet streams as the executor's PackedProgram: the memory map (named
// regions and word regions), every packet a command row written straight from its words
// (stream-rows.ts, over the back end's packet table; anything irregular through its decoded
// packet object), the completion slots and the source map's rows (run.ts calls it).

import { scanStream } from "../backend/sdma/decode.js";
import type { Manifest, ManifestMemory } from "../backend/sdma/manifest.js";
import { POLL_RETRY_FOREVER, type Packet } from "../backend/sdma/packets.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { checkBreadcrumbs } from "./breadcrumb-check.js";
import { assertNever } from "../util/assert-never.js";
import { hex } from "./memory.js";
import { QueueStreamCheck } from "./stream-check.js";
import {
  POLL_FUNC_ROW,
  rowsOfCleanStream,
  UNMODELLED_FLAGS,
  UNMODELLED_SWAPS,
} from "./stream-rows.js";
import { pollFuncOfName } from "../target/poll.js";
import { PackedRows } from "../backend/sdma/packed-rows.js";
import { WordRegionsBuilder, type WordRegions } from "./regions.js";
import { syncWordColumns } from "./sync-words.js";
import {
  ATOMIC,
  COPY,
  CommandWriter,
  completionColumns,
  FENCE,
  NOP,
  POLL,
  unpackProgram,
  type Completions,
  type ListProgram,
  type PackedProgram,
  type PackedQueue,
  type SimCmd,
  type SimRegion,
} from "./program.js";

/**
 * A manifest's or trace's memory map: buffers, user signals and the trigger as objects; sync words,
 * completion slots and timestamp slots as columns (regions.ts: there may be one per packet, half a
 * million sync words and a million slots on the forward program), named when a report asks.
 */
export function regionsOf(
  mem: ManifestMemory,
  trigger: { address: number } | null,
  initial: number,
): {
  regions: SimRegion[];
  wordRegions: WordRegions;
  bufferSizes: number[];
  bufferNames: string[];
} {
  const regions: SimRegion[] = [];
  const bufferSizes: number[] = [];
  const bufferNames: string[] = [];
  for (const b of mem.buffers) {
    regions.push({
      kind: "buffer",
      name: b.name,
      gpu: b.gpu,
      addr: b.address,
      bytes: b.size,
      buffer: b.id,
      ...(b.host ? { host: true } : {}),
    });
    bufferSizes[b.id] = b.size;
    bufferNames[b.id] = b.name;
  }
  for (let i = 0; i < bufferSizes.length; i++) {
    bufferSizes[i] ??= 1;
    bufferNames[i] ??= `buffer${i}`;
  }
  for (const s of mem.signals)
    regions.push({
      kind: "signal",
      name: `${s.name}@${s.gpu}`,
      gpu: s.gpu,
      addr: s.address,
      bytes: 4,
    });
  if (trigger)
    regions.push({ kind: "trigger", name: "trigger", gpu: null, addr: trigger.address, bytes: 4 });
  const sync = syncWordColumns(mem.syncWords);
  const cs = mem.completionSignals;
  const ts = mem.timestampSlots;
  const tsBytes = Math.max(8, Math.min(ts.stride, 32));
  const words = new WordRegionsBuilder(sync.count + cs.count + ts.count);
  for (let k = 0; k < sync.count; k++) words.add("sync", sync.address(k), 4, sync.gpu(k));
  for (let k = 0; k < cs.count; k++)
    words.add("completion", cs.base + k * cs.stride, 8, null, initial);
  for (let k = 0; k < ts.count; k++) words.add("timestamp", ts.base + k * ts.stride, tsBytes, null);
  const wordRegions = words.finish((k) => {
    if (k >= sync.count + cs.count) return `timestamp[${k - sync.count - cs.count}]`;
    if (k >= sync.count) return `completion[${k - sync.count}]`;
    return sync.name(k);
  });
  return { regions, wordRegions, bufferSizes, bufferNames };
}

/**
 * Writes packet pk into row i as simCmdOfPacket reads it. The packets a program has by the
 * million (linear copies, FENCEs, memory polls, ATOMIC adds) go straight into the columns: a
 * SimCmd in between, read back by kind name, was a third of building the program. Anything else,
 * or any of these with a field the executor does not model, goes through simCmdOfPacket.
 */
function writePacket(w: CommandWriter, i: number, pk: Packet): void {
  switch (pk.kind) {
    case "copy_linear":
      if (unsupportedFields(pk) !== undefined) break;
      w.kind[i] = COPY;
      w.a[i] = pk.src;
      w.b[i] = pk.dst;
      w.bytes[i] = pk.bytes;
      return;
    case "fence":
      if (unsupportedFields(pk) !== undefined) break;
      w.kind[i] = FENCE;
      w.a[i] = pk.addr;
      w.value[i] = pk.data;
      return;
    case "poll_mem": {
      const func = POLL_FUNC_ROW.get(pk.func);
      if (func === undefined || unsupportedFields(pk) !== undefined) break;
      w.kind[i] = POLL;
      w.a[i] = pk.addr;
      w.b[i] = pk.mask;
      w.c[i] = pk.retryCount === POLL_RETRY_FOREVER ? -1 : pk.retryCount;
      w.bytes[i] = pk.interval;
      w.value[i] = pk.value;
      w.aux[i] = func;
      return;
    }
    case "atomic": {
      if (unsupportedFields(pk) !== undefined) break;
      const width = pk.op === "add64" ? 64 : pk.op === "add32" ? 32 : 0;
      if (width === 0) break;
      w.kind[i] = ATOMIC;
      w.a[i] = pk.addr;
      // (-1, the completion signal's add, without BigInt arithmetic.)
      w.value[i] = pk.src === ALL_ONES ? -1 : Number(BigInt.asIntN(width, pk.src));
      w.aux[i] = width;
      return;
    }
  }
  w.cmd(i, simCmdOfPacket(pk));
}

const ALL_ONES = 0xffff_ffff_ffff_ffffn;

/** ROCr's HDP flush (sdma-gfx942.md 2.10): a register poll the firmware recognises, verbatim. */
function isRocrHdpFlush(pk: Extract<Packet, { kind: "poll_reg" }>): boolean {
  return (
    pk.hdpFlush !== true &&
    pk.func === "always" &&
    pk.reg === 0 &&
    pk.reqReg === 0x80000000 &&
    pk.value === 0 &&
    pk.mask === 0 &&
    pk.interval === 0 &&
    pk.retryCount === 0
  );
}

/**
 * Fields the reference says to write as 0 (endian swap, encrypt, TMZ) or whose effect the
 * executor cannot model (a FENCE to a physical address, an ATOMIC loop, HDP flush on a memory
 * poll), set in this packet: the hardware's reading is undocumented, so it is not run (DMAC6007).
 */
function unsupportedFields(pk: Packet): string[] | undefined {
  const r = pk as unknown as Readonly<Record<string, unknown>>;
  // (The fast path: dmac's packets have none of these, so one look at each.)
  if (
    !r["encrypt"] &&
    !r["tmz"] &&
    !r["gpa"] &&
    !r["loop"] &&
    !r["hdpFlush"] &&
    !r["srcSw"] &&
    !r["dstSw"] &&
    !r["dst1Sw"] &&
    !r["dst2Sw"] &&
    !r["sw"]
  )
    return undefined;
  const out: string[] = [];
  for (const f of UNMODELLED_FLAGS) if (r[f] === true) out.push(`${f} = 1`);
  for (const f of UNMODELLED_SWAPS)
    if (typeof r[f] === "number" && r[f] !== 0) out.push(`${f} = ${r[f] as number}`);
  return out;
}

/** The executor's reading of one decoded packet (the packet table did the bit work). */
export function simCmdOfPacket(pk: Packet): SimCmd {
  if (pk.kind !== "poll_reg") {
    const bad = unsupportedFields(pk);
    if (bad !== undefined && bad.length > 0)
      return {
        kind: "bad",
        detail: `${pk.kind.toUpperCase()} with ${bad.join(", ")}: the reference says to write 0 there, and the executor does not model it`,
      };
  }
  switch (pk.kind) {
    case "nop":
    case "timestamp_set":
    case "trap": // raises an interrupt; no memory effect the executor models
      return { kind: "nop" };
    case "copy_linear":
      return { kind: "copy", src: pk.src, dst: pk.dst, bytes: pk.bytes };
    case "copy_broadcast":
      return { kind: "bcast", src: pk.src, dst: pk.dst1, dst2: pk.dst2, bytes: pk.bytes };
    case "copy_swap":
      return { kind: "swap", a: pk.a, b: pk.b, bytes: pk.bytes };
    case "constant_fill":
      if (pk.fillSize !== "byte" && pk.fillSize !== "dword")
        return { kind: "bad", detail: `CONSTANT_FILL with undocumented fill size ${pk.fillSize}` };
      if (pk.fillSize === "dword" && ((pk.data >>> 0) & 0xff) * 0x01010101 !== pk.data >>> 0)
        return {
          kind: "bad",
          detail:
            "CONSTANT_FILL of a dword pattern whose bytes differ (the executor models byte fills)",
        };
      return { kind: "fill", dst: pk.dst, bytes: pk.bytes, value: pk.data & 0xff };
    case "fence":
      return { kind: "fence", addr: pk.addr, value: pk.data };
    case "poll_mem":
      if (pk.func === "reserved7")
        return { kind: "bad", detail: "POLL_REGMEM with the reserved compare function 7" };
      return {
        kind: "poll",
        addr: pk.addr,
        func: pollFuncOfName(pk.func),
        value: pk.value,
        mask: pk.mask,
        interval: pk.interval,
        retries: pk.retryCount === POLL_RETRY_FOREVER ? undefined : pk.retryCount,
      };
    case "poll_reg":
      // ROCr's HDP flush is a register poll the firmware recognises; it has no effect the
      // executor models. Any other register poll waits on a register the executor does not have.
      if (isRocrHdpFlush(pk)) return { kind: "nop" };
      return {
        kind: "bad",
        detail: `POLL_REGMEM on register ${hex(pk.reg)}${pk.hdpFlush === true ? " with HDP flush" : ""}: register polls are not allowed in a user queue (only ROCr's HDP-flush form is accepted, as a no-op)`,
      };
    case "atomic":
      if (pk.op === "add64")
        return { kind: "atomic", addr: pk.addr, width: 64, add: Number(BigInt.asIntN(64, pk.src)) };
      if (pk.op === "add32")
        return { kind: "atomic", addr: pk.addr, width: 32, add: Number(BigInt.asIntN(32, pk.src)) };
      return {
        kind: "bad",
        detail: `ATOMIC ${pk.op} is not modelled by the executor (only add32/add64)`,
      };
    case "sem_mem_incr":
      return { kind: "atomic", addr: pk.addr, width: 64, add: 1 };
    case "timestamp_get":
    case "timestamp_get_global":
      return { kind: "timestamp", addr: pk.addr };
    case "write_linear":
      return {
        kind: "bad",
        detail: "WRITE_UNTILED is not modelled by the executor (dmac never emits it)",
      };
    case "cond_exe":
      return { kind: "bad", detail: "COND_EXE is not modelled by the executor" };
    case "indirect_buffer":
      return {
        kind: "bad",
        detail: "INDIRECT_BUFFER is not allowed in a user queue run by the executor",
      };
    default:
      return assertNever(pk, "packet");
  }
}

/** The completion signals the host waits for, with the queue that signals each (for reports). */
export function completionsOf(
  mem: ManifestMemory,
  queues: readonly PackedQueue[],
  cmds: CommandWriter,
  done: number,
): Completions {
  const cs = mem.completionSignals;
  const out = completionColumns(cs.count);
  // Slot k's owner: the last queue with a FENCE/ATOMIC on slot k's 8-byte word (by index, not
  // a map keyed by address: there may be one slot per packet).
  for (let q = 0; q < queues.length; q++)
    ownSlots(q, queues[q]!.first, queues[q]!.count, cmds, cs, out.queue);
  out.done.fill(done);
  for (let k = 0; k < cs.count; k++) out.addr[k] = cs.base + k * cs.stride;
  return out;
}

/**
 * Queue q as the owner of the slots its FENCEs and ATOMICs write. (A function of its own: the
 * loop over queues, first run before V8 kept feedback for completionsOf, threw away the code it
 * compiled while in this loop.)
 */
function ownSlots(
  q: number,
  first: number,
  count: number,
  cmds: CommandWriter,
  cs: ManifestMemory["completionSignals"],
  owner: Int32Array,
): void {
  for (let i = first; i < first + count; i++)
    if (cmds.kind[i] === FENCE || cmds.kind[i] === ATOMIC) {
      // (The 8-byte word by a division by 8, exact on a double, not `%`: a million of them.)
      const word = Math.floor(cmds.a[i]! / 8) * 8;
      const k = (word - cs.base) / cs.stride;
      if (Number.isInteger(k) && k >= 0 && k < cs.count) owner[k] = q;
    }
}

export function externalSignalsOf(regions: readonly SimRegion[], cmds: CommandWriter): number[] {
  const signals = regions.filter((r) => r.kind === "signal");
  if (signals.length === 0) return [];
  const addrs = new Set(signals.map((r) => r.addr));
  const written = new Set<number>();
  for (let i = 0; i < cmds.n; i++)
    if ((cmds.kind[i] === FENCE || cmds.kind[i] === ATOMIC) && addrs.has(cmds.a[i]!))
      written.add(cmds.a[i]!);
  return signals.filter((r) => !written.has(r.addr)).map((r) => r.addr);
}

/** The list form of packedFromManifest's program (tests and tools that edit commands). */
export function programFromManifest(
  manifest: Manifest,
  streams: ReadonlyMap<string, Uint32Array>,
  file?: string,
): { program: ListProgram } | { error: Diagnostic } {
  const r = packedFromManifest(manifest, streams, file);
  return "error" in r ? r : { program: unpackProgram(r.program) };
}

/**
 * The executor's program, straight from the packet words: one decoding pass per stream (the
 * back end's packet table, scanStream) writes each packet's command into the rows of a
 * CommandWriter and feeds the manifest's consistency check (QueueStreamCheck); no list of
 * decoded packets or command objects outlives its packet. Each row's IR ops point into one
 * shared copy of the source map's op lists.
 */
export function packedFromManifest(
  manifest: Manifest,
  streams: ReadonlyMap<string, Uint32Array>,
  file?: string,
): { program: PackedProgram } | { error: Diagnostic } {
  const { regions, wordRegions, bufferSizes, bufferNames } = regionsOf(
    manifest.memory,
    manifest.trigger,
    manifest.completion.initial,
  );
  // Rows for every packet up front (the manifest's packet starts, at most one per dword: only a
  // capacity; the writer grows past it): each doubling of the nine columns is ~100 MB of
  // ArrayBuffers on the forward program, and every 64 MB of them costs a full collection.
  let rows = 0;
  for (const mq of manifest.queues) {
    const dwords = streams.get(mq.file)?.length ?? 0;
    rows += mq.packetStarts !== undefined ? Math.min(mq.packetStarts.length, dwords) : dwords / 4;
  }
  const rowsOf = sourceRowsByQueue(manifest.sourceMap);
  let ops = 0; // (each source-map row: its offset, its statement, then its ops)
  for (const r of rowsOf.values()) ops += r.starts[r.length]! - 2 * r.length;
  const w = new CommandWriter(Math.ceil(rows), ops);
  const queues: PackedQueue[] = [];
  for (const [index, mq] of manifest.queues.entries()) {
    const words = streams.get(mq.file);
    if (!words)
      return {
        error: diag("DMAC5001", undefined, [
          mq.file,
          "the manifest names this packet stream but it was not given",
        ]),
      };
    const first = w.n;
    const firstOp = w.nOps;
    let check = new QueueStreamCheck(manifest, index, words);
    let opsAt = new SourceMapCursor(rowsOf.get(mq.name), w);
    const clean = rowsOfCleanStream(words, w, check, opsAt, slowRow);
    // Anything irregular: the stream again, every problem described (scanStream).
    if (!clean) {
      w.truncate(first, firstOp);
      check = new QueueStreamCheck(manifest, index, words);
      opsAt = new SourceMapCursor(rowsOf.get(mq.name), w);
      scanStream(words, (d, here) => {
        check.visit(d, here);
        // Every decoder problem at a packet's offset, joined: an undecodable dword, a truncated
        // packet, and also a decodable packet with reserved bits set, an undefined enum value or an
        // address above 2^53 (DMAC4103/4104). The hardware's reading of such a packet is not
        // documented, so the executor reports it (DMAC6007) instead of running it as if they were 0.
        if (d.packet.kind === "unknown" || here.length > 0) {
          const problem = here.length > 0 ? here.map((p) => p.detail).join("; ") : undefined;
          w.bad(
            d.offset,
            problem ?? `undecodable dword ${hex(d.packet.kind === "unknown" ? d.packet.word : 0)}`,
          );
          return;
        }
        const i = w.row(NOP, d.offset);
        writePacket(w, i, d.packet);
        opsAt.at(i, d.offset);
      });
    }
    // What the manifest says about this stream (relocations, completion writes) must hold.
    const inconsistent = check.finish(file);
    if (inconsistent) return { error: inconsistent };
    queues.push({
      name: mq.name,
      gpu: mq.gpu,
      engine: mq.engine,
      position: "byte",
      first,
      count: w.n - first,
    });
  }
  const crumbs = checkBreadcrumbs(manifest, queues, w, rowsOf);
  if (crumbs)
    return {
      error: diag("DMAC6011", undefined, [file ?? "manifest.json", crumbs.path, crumbs.detail]),
    };
  return {
    program: {
      gpus: manifest.ranks,
      queues,
      regions,
      wordRegions,
      bufferSizes,
      bufferNames,
      completions: completionsOf(manifest.memory, queues, w, manifest.completion.done),
      trigger: manifest.trigger && {
        addr: manifest.trigger.address,
        value: manifest.trigger.value,
      },
      externalSignals: externalSignalsOf(regions, w),
      locate: locator(manifest.sourceMap, rowsOf, queues),
      cmds: w.finish(),
    },
  };
}

/**
 * Each queue's source-map rows as one PackedRows: the sidecar's as they are, a JSON manifest's
 * copied (one pass). Later entries for a queue name replace earlier ones.
 */
function sourceRowsByQueue(sm: Manifest["sourceMap"]): Map<string, PackedRows> {
  const out = new Map<string, PackedRows>();
  for (const q of sm.queues) {
    const e: unknown = q.entries;
    if (e instanceof PackedRows) out.set(q.queue, e);
    else if (Array.isArray(e)) out.set(q.queue, packRows(e as readonly (readonly number[])[]));
  }
  return out;
}

function packRows(rows: readonly (readonly number[])[]): PackedRows {
  let total = 0;
  for (const r of rows) total += r.length;
  const data = new Float64Array(total);
  const starts = new Uint32Array(rows.length + 1);
  let n = 0;
  rows.forEach((r, k) => {
    for (let j = 0; j < r.length; j++) data[n++] = r[j]!;
    starts[k + 1] = n;
  });
  return new PackedRows(data, starts);
}

/**
 * The statement (`file:line:col`) of the packet at a byte offset of queue q: the last source-map
 * row at or before it. Reads the packed rows (typed arrays), so the program holds no parsed
 * rows (a million arrays on the forward program) for the collector to mark all through the run.
 */
function locator(
  sm: Manifest["sourceMap"],
  rowsOf: ReadonlyMap<string, PackedRows>,
  queues: readonly PackedQueue[],
): (q: number, at: number) => string | undefined {
  const { stmts, file } = sm;
  return (q, at) => {
    const rows = rowsOf.get(queues[q]!.name);
    if (!rows) return undefined;
    const { data, starts } = rows;
    let best = -1;
    for (let k = 0; k < rows.length; k++) if (data[starts[k]!]! <= at) best = k;
    const pos = best < 0 ? undefined : stmts[data[starts[best]! + 1]!];
    return pos ? `${file}:${pos.line}:${pos.col}` : undefined;
  };
}

/** A packet the fast reading leaves to its object: checked, then written into row i. */
function slowRow(
  w: CommandWriter,
  check: QueueStreamCheck,
  i: number,
  offset: number,
  packet: Packet,
): void {
  check.packet(offset, packet);
  writePacket(w, i, packet);
}

/**
 * Sets the IR ops of the packet at a byte offset (row i), from a queue's source-map rows
 * (`[byteOffset, stmt, op, ...]`: the packets from byteOffset to the next row implement those
 * ops; each row's ops are copied once into the writer's shared list). Offsets must be asked in
 * increasing order; rows are taken in order of their offsets (a hand-edited map need not be
 * sorted; equal offsets keep their order). A class, not a closure per queue: the stream reader
 * calls `at` for every packet, and a call site that met one closure per queue was compiled
 * again for each new one (V8 checks the function it inlined, and each queue's is another).
 */
export class SourceMapCursor {
  private readonly data: PackedRows["data"];
  private readonly starts: PackedRows["starts"];
  private readonly n: number;
  private readonly order: number[] | undefined;
  private k = -1;
  private lo = -1;
  private hi = -1;

  constructor(
    rows: PackedRows | undefined,
    private readonly w: CommandWriter,
  ) {
    this.data = rows?.data ?? new Float64Array(0);
    this.starts = rows?.starts ?? new Uint32Array(1);
    this.n = rows?.length ?? 0;
    const { data, starts, n } = this;
    const offsetOf = (r: number): number => data[starts[r]!]!;
    let sorted = true;
    for (let k = 1; k < n && sorted; k++) sorted = offsetOf(k - 1) <= offsetOf(k);
    this.order = sorted
      ? undefined
      : Array.from({ length: n }, (_, r) => r).sort((a, b) => offsetOf(a) - offsetOf(b));
  }

  at(i: number, offset: number): void {
    const { data, starts, n, order } = this;
    while (this.k + 1 < n && data[starts[order ? order[this.k + 1]! : this.k + 1]!]! <= offset) {
      this.k++;
      this.lo = -1;
    }
    if (this.k < 0) return;
    if (this.lo < 0) {
      const r = order ? order[this.k]! : this.k;
      this.lo = this.w.nOps;
      for (let j = starts[r]! + 2; j < starts[r + 1]!; j++) this.w.pushOp(data[j]!);
      this.hi = this.w.nOps;
    }
    this.w.setOps(i, this.lo, this.hi);
  }
}
