// SDMA emission: QueueProgram + Layout -> little-endian dword streams (each packet encoded into
// its queue's Uint32Array as its command is read), with the relocation table and source map of
// each stream.
//
// Command -> packets (sdma-gfx942.md 2, ROCr's builders in 4.2):
//   copy        COPY_LINEAR                    bcast  COPY_LINEAR_BROADCAST
//   swap        COPY_SWAP                      fill   CONST_FILL (dword fill when address and
//                                                     size are dword aligned, else byte fill)
//   poll        POLL_REGMEM (memory, func from the compare, interval 4, retry forever)
//   signal      fence: FENCE of the value;  add: ATOMIC add32 of the value
//   completion  atomic protocol: ATOMIC add64 of -1 (ROCr BuildAtomicDecrementCommand);
//               fence protocol: FENCE of 0 into the low dword (the signal starts at 1, so the
//               high dword is already 0: ROCr's one-FENCE case of 4.2 step 9)
//   timestamp   TIMESTAMP GET_GLOBAL
// Hardware rules the user can break (alignment of their offsets, sizes beyond a packet field,
// stream size) are reported as diagnostics located at the op's source statement, at most one per
// (code, statement); other encoding failures are dmac bugs (InternalError from the encoder).

import { diag, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { DiagnosticCode } from "../../diagnostics/codes.js";
import { describeBinding, type IrModule } from "../../ir/ir.js";
import type { SourceFile } from "../../source/source-file.js";
import { assertNever } from "../../util/assert-never.js";
import { InternalError } from "../../util/internal-error.js";
import { POLL_FUNC_NAMES, pollFuncName } from "../../target/poll.js";
import {
  CMD,
  CMD_NAMES,
  queueName,
  SPACE,
  type CmdCode,
  type CmdTable,
  type Queue,
  type QueueProgram,
} from "../../queues/queue-program.js";
import { COMPILED_BY_KIND, type CompiledPacket } from "./bitfield.js";
import { valueOutsideField } from "./encode.js";
import { PackedRowsBuilder, type PackedRows } from "./packed-rows.js";
import { rulesOf, type Rules } from "./packet-rules.js";
import { hexAddr, type PacketKind } from "./packets.js";
import { completionAddr, relocate, timestampAddr, type Layout } from "./layout.js";

export interface EmitOptions {
  /** DMAC4006 when one queue's stream exceeds this many bytes. */
  readonly maxStreamBytes?: number | undefined;
}

export const DEFAULT_MAX_STREAM_BYTES = 256 * 1024 * 1024;

export interface EmittedQueue {
  readonly name: string;
  readonly gpu: number;
  readonly engine: number;
  /** Packets in the stream (they are encoded as they are built; decode `words` to see them). */
  readonly packetCount: number;
  /** The dword offset of each packet (the manifest's packetStarts), recorded as it is encoded. */
  readonly packetStarts: Float64Array;
  readonly words: Uint32Array;
  /** Flat triples [dword, region, addend] (see ManifestRelocations); a typed array, so the
   * ~12M numbers of a 10^6-operation program live outside the garbage-collected heap. */
  readonly relocations: Float64Array;
  /** Entries [byteOffset, stmt, ...ops] (see ManifestSourceMap), packed flat. */
  readonly sourceMap: PackedRows;
  /** The completion slots it signals, in stream order (a typed array, sized up front: an array
   * grown by push per queue left the compiled command loop on a new array map). */
  readonly completionSlots: Float64Array;
}

/** ROCr BuildPollCommand: interval 4 (x16 clocks), retry forever. */
const POLL_INTERVAL = 4;
const POLL_RETRY_FOREVER = 0xfff;

/** The slots (bitfield.ts `read`'s layout, which `write` takes) of the fields `kind` has. */
function fieldSlots<K extends string>(kind: PacketKind, names: readonly K[]): Record<K, number> {
  const c = COMPILED_BY_KIND[kind];
  const out = {} as Record<K, number>;
  for (const name of names) {
    const k = c.slots.get(name);
    if (k === undefined) throw new InternalError(`emit: packet ${kind} has no field ${name}`);
    out[name] = k;
  }
  return out;
}
// The fields each command sets; the packet kinds' other fields keep their defaults.
const COPY = fieldSlots("copy_linear", ["bytes", "src", "dst"]);
const BCAST = fieldSlots("copy_broadcast", ["bytes", "src", "dst1", "dst2"]);
const SWAP = fieldSlots("copy_swap", ["bytes", "a", "b"]);
const FILL = fieldSlots("constant_fill", ["fillSize", "dst", "data", "bytes"]);
const POLL = fieldSlots("poll_mem", ["addr", "func", "value", "mask", "interval", "retryCount"]);
const FENCE = fieldSlots("fence", ["addr", "data"]);
/** (`src` is a u64: its low dword's slot; the high dword's is the next.) */
const ATOMIC = fieldSlots("atomic", ["op", "addr", "src"]);
const TIMESTAMP = fieldSlots("timestamp_get_global", ["addr"]);

/** The packet kinds emission builds, and the fields each one's commands set (the plan's
 * writer writes those only). */
const SET = {
  copy_linear: COPY,
  copy_broadcast: BCAST,
  copy_swap: SWAP,
  constant_fill: FILL,
  poll_mem: POLL,
  fence: FENCE,
  atomic: ATOMIC,
  timestamp_get_global: TIMESTAMP,
} satisfies Partial<Record<PacketKind, Record<string, number>>>;
type Built = keyof typeof SET;

/** The raw value of enum field `field` of `kind` named `name`. */
function enumRaw(kind: PacketKind, field: string, name: string): number {
  const raw = COMPILED_BY_KIND[kind].fields.find((f) => f.name === field)?.enumRaw?.get(name);
  if (raw === undefined) throw new InternalError(`emit: ${kind}.${field} has no value ${name}`);
  return raw;
}
const FILL_DWORD = enumRaw("constant_fill", "fillSize", "dword");
const FILL_BYTE = enumRaw("constant_fill", "fillSize", "byte");
const ADD32 = enumRaw("atomic", "op", "add32");
const ADD64 = enumRaw("atomic", "op", "add64");
const POLL_FUNC_RAW = new Map(
  POLL_FUNC_NAMES.map((name) => [name, enumRaw("poll_mem", "func", name)]),
);

/**
 * A packet kind as emission builds it: its table entry, the field values of the packet being
 * built (one array per kind and emission, reused: the fields a command does not set stay at
 * their defaults), the table's writer of the fields it sets, and its address fields' dwords
 * and slots (for the relocations).
 */
interface Plan {
  readonly c: CompiledPacket;
  readonly v: Float64Array;
  readonly write: CompiledPacket["write"];
  readonly length: number;
  readonly addrDw: Int32Array;
  readonly addrSlot: Int32Array;
  /** Its alignment rules (undefined: it has none). */
  readonly rules: Rules | undefined;
}
function plans(): Record<Built, Plan> {
  const plan = (kind: Built): Plan => {
    const c = COMPILED_BY_KIND[kind];
    if (c.fixedLength < 0) throw new InternalError(`emit: ${kind} is a variable-length packet`);
    const addrs = c.fields.filter((f) => f.type === "addr");
    return {
      c,
      v: c.defaults.slice(),
      write: c.writerOf(Object.keys(SET[kind])),
      length: c.fixedLength,
      addrDw: Int32Array.from(addrs, (f) => f.dw),
      addrSlot: Int32Array.from(addrs, (f) => c.slots.get(f.name)!),
      rules: rulesOf(kind),
    };
  };
  return Object.fromEntries((Object.keys(SET) as Built[]).map((k) => [k, plan(k)])) as Record<
    Built,
    Plan
  >;
}

/** The largest human value of a uint field of the table (bytes of a copy, of a fill, ...). */
function fieldMax(kind: PacketKind, field: string): { max: number; bits: number } {
  const f = COMPILED_BY_KIND[kind].fields.find((x) => x.name === field);
  if (!f) throw new InternalError(`packet ${kind} has no field ${field}`);
  return { max: f.mask + f.bias, bits: f.width };
}

/** The plan of the packet `fill` builds for a command of kind k (`fence`: a signal's FENCE),
 * used to size the buffers up front. */
function planOf(
  plan: Record<Built, Plan>,
  k: CmdCode,
  fence: boolean,
  completion: QueueProgram["completion"],
): Plan {
  switch (k) {
    case CMD.copy:
      return plan.copy_linear;
    case CMD.bcast:
      return plan.copy_broadcast;
    case CMD.swap:
      return plan.copy_swap;
    case CMD.fill:
      return plan.constant_fill;
    case CMD.poll:
      return plan.poll_mem;
    case CMD.signal:
      return fence ? plan.fence : plan.atomic;
    case CMD.completion:
      return completion === "atomic" ? plan.atomic : plan.fence;
    case CMD.timestamp:
      return plan.timestamp_get_global;
    default:
      return assertNever(k, "queue command");
  }
}

export function emitSdma(
  p: QueueProgram,
  m: IrModule,
  layout: Layout,
  file: SourceFile | undefined,
  opts: EmitOptions = {},
): { queues: EmittedQueue[]; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const reported = new Set<string>();
  // Once an error is reported nothing is encoded (the result has no queues), but emission goes
  // on to report the other statements' errors.
  const state = { failed: false };
  const maxStream = opts.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES;
  const R = layout.ranks;
  const limits = {
    copy: fieldMax("copy_linear", "bytes"),
    bcast: fieldMax("copy_broadcast", "bytes"),
    swap: fieldMax("copy_swap", "bytes"),
    fill: fieldMax("constant_fill", "bytes"),
  };

  // `h`: the command's ops handle (its list is looked up only when something is reported).
  const report = (code: DiagnosticCode, h: number, args: readonly (string | number)[]): void => {
    const op = p.lists.count(h) > 0 ? p.lists.data[h + 1] : undefined;
    const stmt = op !== undefined ? m.ops.stmt[op]! : -1;
    const key = `${code}:${stmt}`;
    if (reported.has(key)) return;
    reported.add(key);
    const s = m.stmts[stmt];
    const binding = op !== undefined ? describeBinding(m, stmt, m.ops.bind[op]!) : "";
    const at = file && s ? { file, span: s.span } : undefined;
    const d = diag(
      code as "DMAC4001",
      at,
      args as [string, string],
      binding ? { hint: `first at ${binding}` } : {},
    );
    diagnostics.push(d);
    if (d.severity === "error") state.failed = true;
  };

  // The address of buffer location `slot` of command i. (The columns, not the accessors: this
  // runs two or three times per data command, mostly before V8 has compiled it, where each
  // accessor is a call; queue-program.ts CmdTable.)
  const bufferAddr = layout.bufferAddr;
  const buf = (cc: CmdTable["c"], i: number, slot: 0 | 1 | 2): number => {
    const buffer = slot === 0 ? cc.id0[i]! : slot === 1 ? cc.id1[i]! : cc.id2[i]!;
    const rank = slot === 0 ? cc.rk0[i]! : slot === 1 ? cc.rk1[i]! : cc.rk2[i]!;
    const base = bufferAddr[buffer * R + rank];
    if (base === undefined || Number.isNaN(base)) {
      throw new InternalError(`buffer ${buffer} has no instance on rank ${rank}`);
    }
    return base + (slot === 0 ? cc.off0[i]! : slot === 1 ? cc.off1[i]! : cc.off2[i]!);
  };
  // The address of the word a poll or signal points at.
  const word = (c: CmdTable, i: number): number => {
    const space = c.space(i);
    switch (space) {
      case SPACE.signal: {
        const a = layout.signalAddr[c.signalId(i) * R + c.signalRank(i)];
        if (a === undefined || Number.isNaN(a))
          throw new InternalError(`signal ${c.signalId(i)} not on rank ${c.signalRank(i)}`);
        return a;
      }
      case SPACE.sync: {
        const a = layout.syncAddr[c.signalId(i)];
        if (a === undefined) throw new InternalError(`no sync word ${c.signalId(i)}`);
        return a;
      }
      case SPACE.trigger:
        if (layout.triggerAddr === null)
          throw new InternalError("trigger poll without a trigger word");
        return layout.triggerAddr;
      default:
        throw new InternalError(`word space ${space}`);
    }
  };
  const fits = (
    what: string,
    bytes: number,
    lim: { max: number; bits: number },
    ops: number,
  ): boolean => {
    if (bytes <= lim.max) return true;
    report("DMAC4005", ops, [what, `${bytes} bytes`, lim.bits]);
    return false;
  };
  const u32 = (what: string, v: number, ops: number): boolean => {
    if (Number.isInteger(v) && v >= 0 && v <= 0xffffffff) return true;
    report("DMAC4005", ops, [what, String(v), 32]);
    return false;
  };

  // The packet of command i: its field values into its kind's plan (undefined when a value
  // breaks a hardware limit, which is reported).
  const plan = plans();
  const fill = (c: CmdTable, i: number, ops: number): Plan | undefined => {
    const cc = c.c;
    const k = cc.kind[i]! as CmdCode;
    switch (k) {
      case CMD.copy: {
        const bytes = cc.num[i]!;
        if (!fits("COPY_LINEAR count", bytes, limits.copy, ops)) return undefined;
        const v = plan.copy_linear.v;
        v[COPY.bytes] = bytes;
        v[COPY.src] = buf(cc, i, 0);
        v[COPY.dst] = buf(cc, i, 1);
        return plan.copy_linear;
      }
      case CMD.bcast: {
        const bytes = cc.num[i]!;
        if (!fits("COPY_LINEAR_BROADCAST count", bytes, limits.bcast, ops)) return undefined;
        const v = plan.copy_broadcast.v;
        v[BCAST.bytes] = bytes;
        v[BCAST.src] = buf(cc, i, 0);
        v[BCAST.dst1] = buf(cc, i, 1);
        v[BCAST.dst2] = buf(cc, i, 2);
        return plan.copy_broadcast;
      }
      case CMD.swap: {
        const bytes = cc.num[i]!;
        if (!fits("COPY_SWAP count", bytes, limits.swap, ops)) return undefined;
        const v = plan.copy_swap.v;
        v[SWAP.bytes] = bytes;
        v[SWAP.a] = buf(cc, i, 0);
        v[SWAP.b] = buf(cc, i, 1);
        return plan.copy_swap;
      }
      case CMD.fill: {
        const bytes = cc.num[i]!;
        const value = c.value(i);
        if (!fits("CONST_FILL count", bytes, limits.fill, ops)) return undefined;
        const dst = buf(cc, i, 1);
        const dword = dst % 4 === 0 && bytes % 4 === 0;
        const v = plan.constant_fill.v;
        v[FILL.fillSize] = dword ? FILL_DWORD : FILL_BYTE;
        v[FILL.dst] = dst;
        v[FILL.data] = dword ? (value * 0x01010101) >>> 0 : value;
        v[FILL.bytes] = bytes;
        return plan.constant_fill;
      }
      case CMD.poll: {
        const value = c.value(i);
        const mask = c.mask(i);
        if (!u32("POLL_REGMEM value", value, ops) || !u32("POLL_REGMEM mask", mask, ops))
          return undefined;
        const v = plan.poll_mem.v;
        v[POLL.addr] = word(c, i);
        v[POLL.func] = POLL_FUNC_RAW.get(pollFuncName(c.func(i)))!;
        v[POLL.value] = value;
        v[POLL.mask] = mask;
        v[POLL.interval] = POLL_INTERVAL;
        v[POLL.retryCount] = POLL_RETRY_FOREVER;
        return plan.poll_mem;
      }
      case CMD.signal: {
        const value = c.value(i);
        const fence = c.isFence(i);
        if (!u32(fence ? "FENCE data" : "ATOMIC operand", value, ops)) return undefined;
        return fence ? fenceOf(word(c, i), value) : atomicOf(ADD32, word(c, i), value, 0);
      }
      case CMD.completion: {
        const addr = completionAddr(layout, cc.num[i]!); // (its slot)
        // atomic: ROCr's add64 of -1 (all ones in both dwords); fence: 0 into the low dword.
        return p.completion === "atomic"
          ? atomicOf(ADD64, addr, 0xffffffff, 0xffffffff)
          : fenceOf(addr, 0);
      }
      case CMD.timestamp:
        plan.timestamp_get_global.v[TIMESTAMP.addr] = timestampAddr(layout, c.slot(i));
        return plan.timestamp_get_global;
      default:
        return assertNever(k, "queue command");
    }
  };
  const fenceOf = (addr: number, data: number): Plan => {
    const v = plan.fence.v;
    v[FENCE.addr] = addr;
    v[FENCE.data] = data;
    return plan.fence;
  };
  const atomicOf = (op: number, addr: number, srcLow: number, srcHigh: number): Plan => {
    const v = plan.atomic.v;
    v[ATOMIC.op] = op;
    v[ATOMIC.addr] = addr;
    v[ATOMIC.src] = srcLow;
    v[ATOMIC.src + 1] = srcHigh;
    return plan.atomic;
  };

  // Each queue is encoded straight into its dword buffer as its commands are visited: no
  // packet object, no array per command.
  const sizes = packetSizes(plan, p.completion);
  const e: Emission = { p, m, layout, plan, sizes, fill, report, state };
  const queues: EmittedQueue[] = [];
  for (const q of p.queues) {
    const { queue, dwords } = encodeQueue(e, q);
    if (dwords * 4 > maxStream) {
      diagnostics.push(
        diag("DMAC4006", undefined, [queue.name, `${dwords * 4} bytes`, `${maxStream} bytes`]),
      );
    }
    queues.push(queue);
  }
  if (diagnostics.some((d) => d.severity === "error")) return { queues: [], diagnostics };
  return { queues, diagnostics };
}

/** What encoding one queue needs of the whole emission. */
interface Emission {
  readonly p: QueueProgram;
  readonly m: IrModule;
  readonly layout: Layout;
  readonly plan: Record<Built, Plan>;
  readonly sizes: Sizes;
  /** The packet of command i into its kind's plan (undefined: a limit broken, reported). */
  readonly fill: (c: CmdTable, i: number, ops: number) => Plan | undefined;
  /** A diagnostic at the statement of ops handle h (once per code and statement). */
  readonly report: (code: DiagnosticCode, h: number, args: readonly (string | number)[]) => void;
  /** `failed`: an error was reported; nothing is encoded then, but the reports go on. */
  readonly state: { failed: boolean };
}

const COMPLETION = CMD.completion;

/**
 * Dwords and address fields of a command's packet by (kind, fence bit), at 2 * kind + fence:
 * queueSizes' loop reads two small tables, so a kind that first comes late in a queue (its
 * completion) is no new path through optimised code (it was a deoptimisation per queue). Made
 * once per emission: made per queue, code before the loop that its compiled form had no
 * feedback for sent every queue's loop back to the interpreter.
 */
function packetSizes(plan: Record<Built, Plan>, completion: QueueProgram["completion"]): Sizes {
  const dwordsOf = new Int32Array(2 * CMD_NAMES.length);
  const addrsOf = new Int32Array(2 * CMD_NAMES.length);
  for (let k = 0; k < CMD_NAMES.length; k++)
    for (let fence = 0; fence < 2; fence++) {
      const pl = planOf(plan, k as CmdCode, fence === 1, completion);
      dwordsOf[2 * k + fence] = pl.length;
      addrsOf[2 * k + fence] = pl.addrDw.length;
    }
  return { dwordsOf, addrsOf };
}
interface Sizes {
  readonly dwordsOf: Int32Array;
  readonly addrsOf: Int32Array;
}

/**
 * The sizes of queue c's outputs, from its commands' packet kinds, so that its typed arrays are
 * allocated exactly: every typed-array allocation counts as external memory, which makes V8 run
 * full collections of the (large) heap; regrowth and trimming copies doubled those
 * (docs/performance.md). Commands that fail to encode only leave the buffers partly used.
 */
function queueSizes(e: Emission, c: CmdTable): QueueSizes {
  // (The result is made before the loop and the counts stored as they change: see
  // encodeCommands. A result made after it sent every queue's count back to the interpreter.)
  const size: QueueSizes = { dwords: 0, addrs: 0, rows: 0, rowValues: 0, completions: 0 };
  const { dwordsOf, addrsOf } = e.sizes;
  const listData = e.p.lists.data;
  let prevOps = -1;
  for (let i = 0; i < c.length; i++) {
    const h = c.opsHandle(i);
    if (h !== prevOps && listData[h]! > 0) {
      prevOps = h;
      size.rows++;
      size.rowValues += 2 + listData[h]!;
    }
    const kind = c.kind(i);
    const at = 2 * kind + (c.isFence(i) ? 1 : 0);
    size.dwords += dwordsOf[at]!;
    size.addrs += addrsOf[at]!;
    size.completions += kind === COMPLETION ? 1 : 0;
  }
  return size;
}
interface QueueSizes {
  dwords: number;
  addrs: number;
  rows: number;
  rowValues: number;
  completions: number;
}

/** Queue q's packets, with their relocations, source map and completion slots. */
function encodeQueue(e: Emission, q: Queue): { queue: EmittedQueue; dwords: number } {
  const c = q.cmds;
  const size = queueSizes(e, c);
  const enc: Encoding = {
    words: new Uint32Array(size.dwords),
    starts: new Float64Array(c.length), // at most one packet per command
    relocations: new Float64Array(3 * size.addrs),
    sourceMap: new PackedRowsBuilder(size.rows, size.rowValues),
    completionSlots: new Float64Array(size.completions),
    nCompletions: 0,
    packetCount: 0,
    nReloc: 0,
    dword: 0,
  };
  encodeCommands(e, c, enc);
  const { words, starts, relocations, packetCount, nReloc, dword, completionSlots } = enc;
  relocate(e.layout, relocations, nReloc);
  const queue: EmittedQueue = {
    name: queueName(q),
    gpu: q.gpu,
    engine: q.engine,
    packetCount,
    packetStarts: packetCount === starts.length ? starts : starts.slice(0, packetCount),
    words: e.state.failed
      ? new Uint32Array(0)
      : dword === words.length
        ? words
        : words.slice(0, dword),
    relocations: nReloc === relocations.length ? relocations : relocations.slice(0, nReloc),
    sourceMap: enc.sourceMap.done(),
    completionSlots:
      enc.nCompletions === completionSlots.length
        ? completionSlots
        : completionSlots.slice(0, enc.nCompletions),
  };
  return { queue, dwords: dword };
}

/** A queue's outputs as encodeCommands fills them (the arrays regrow if the sizes were short). */
interface Encoding {
  words: Uint32Array;
  readonly starts: Float64Array;
  /** [dword, address, -] per address field; relocate() then makes the address a region and
   * an addend. */
  relocations: Float64Array;
  readonly sourceMap: PackedRowsBuilder;
  completionSlots: Float64Array;
  nCompletions: number;
  packetCount: number;
  nReloc: number;
  dword: number;
}

/**
 * Encodes commands c into `enc`. Nothing follows the loop, and the counts are stored as they
 * change: V8 compiles this loop while it runs (on-stack replacement), before any code after the
 * loop has run, and code after it would be compiled without type feedback, leaving the
 * compiled loop at its end, once per queue (64 times for a 65,536-copy all-to-all).
 */
function encodeCommands(e: Emission, c: CmdTable, enc: Encoding): void {
  const { m, fill, report } = e;
  const listData = e.p.lists.data;
  const { starts, sourceMap } = enc;
  let words = enc.words;
  let completionSlots = enc.completionSlots;
  let nCompletions = 0;
  let relocations = enc.relocations;
  let packetCount = 0;
  let nReloc = 0;
  let dword = 0;
  let lastOps = -1;
  // (The columns, not the accessors: queue-program.ts CmdTable.)
  const kinds = c.c.kind;
  const opsHandles = c.c.ops;
  const nums = c.c.num;
  const stmtOf = m.ops.stmt;
  for (let i = 0; i < c.length; i++) {
    const h = opsHandles[i]!;
    const pl = fill(c, i, h);
    if (!pl) continue;
    const v = pl.v;
    if (pl.rules) {
      const broken = pl.rules(v);
      for (let k = 0; k < broken.length; k++) report(broken[k]!.code, h, broken[k]!.args);
    }
    const nOps = listData[h]!;
    if (h !== lastOps && nOps > 0) {
      lastOps = h;
      // Packed rows, not one array per entry: this runs once per operation (10^6 times for
      // the big benchmark), and the entries live until the manifest is written. The ops are
      // read from the list table in place (no subarray object per command).
      sourceMap.row(dword * 4, stmtOf[listData[h + 1]!]!, listData, h + 1, nOps);
    }
    if (kinds[i] === COMPLETION) {
      if (nCompletions === completionSlots.length) {
        const grown = new Float64Array(Math.max(2 * nCompletions, 16));
        grown.set(completionSlots);
        enc.completionSlots = completionSlots = grown;
      }
      completionSlots[nCompletions++] = nums[i]!; // (its slot)
      enc.nCompletions = nCompletions;
    }
    // [dword, address, -] now; relocate() makes the address a region and an addend.
    const dws = pl.addrDw;
    for (let f = 0; f < dws.length; f++) {
      if (nReloc + 3 > relocations.length) {
        const grown = new Float64Array(Math.max(2 * relocations.length, nReloc + 3));
        grown.set(relocations);
        enc.relocations = relocations = grown;
      }
      relocations[nReloc] = dword + dws[f]!;
      relocations[nReloc + 1] = v[pl.addrSlot[f]!]!;
      nReloc += 3;
    }
    // (planOf sized the buffers: were it ever to disagree with fill, they grow.)
    const length = pl.length;
    if (!e.state.failed) {
      if (dword + length > words.length) {
        const grown = new Uint32Array(Math.max(2 * words.length, dword + length));
        grown.set(words.subarray(0, dword));
        enc.words = words = grown;
      }
      if (!pl.write(v, words, dword)) throw valueOutsideField(pl.c, v);
    }
    starts[packetCount++] = dword;
    dword += length;
    enc.packetCount = packetCount;
    enc.nReloc = nReloc;
    enc.dword = dword;
  }
}

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Little-endian bytes of a dword stream (independent of the host's byte order). On a
 * little-endian host that is the stream's own memory: a view, not a copy (the caller must not
 * modify `words` afterwards). */
export function streamBytes(words: Uint32Array): Uint8Array {
  if (LITTLE_ENDIAN_HOST) return new Uint8Array(words.buffer, words.byteOffset, words.byteLength);
  const out = new Uint8Array(words.length * 4);
  const view = new DataView(out.buffer);
  for (let i = 0; i < words.length; i++) view.setUint32(i * 4, words[i]!, true);
  return out;
}

export { hexAddr };
