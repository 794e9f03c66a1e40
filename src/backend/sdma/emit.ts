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
import { pollFuncName } from "../../target/poll.js";
import {
  CMD,
  queueName,
  SPACE,
  type CmdTable,
  type QueueProgram,
} from "../../queues/queue-program.js";
import { COMPILED_BY_KIND } from "./bitfield.js";
import { encodeInto } from "./encode.js";
import { PackedRowsBuilder, type PackedRows } from "./packed-rows.js";
import { hexAddr, packetRuleViolations, type Packet, type PacketKind } from "./packets.js";
import { completionAddr, regionOf, timestampAddr, type Layout } from "./layout.js";

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
  readonly completionSlots: readonly number[];
}

/** ROCr BuildPollCommand: interval 4 (x16 clocks), retry forever. */
const POLL_INTERVAL = 4;
const POLL_RETRY_FOREVER = 0xfff;
const MINUS_ONE_64 = 0xffff_ffff_ffff_ffffn;

/** Address fields (name, dword) of each packet kind, from the packet table. */
const ADDR_FIELDS = new Map<PacketKind, readonly { name: string; dw: number }[]>(
  Object.values(COMPILED_BY_KIND).map((c) => [
    c.kind,
    c.fields.filter((f) => f.type === "addr").map((f) => ({ name: f.name, dw: f.dw })),
  ]),
);

/**
 * The address fields toPacket fills, in the order it records their values (ADDRS): checked
 * against the table when this module loads, so a table change cannot shift a relocation.
 */
const ADDR_ORDER: Partial<Record<PacketKind, readonly string[]>> = {
  copy_linear: ["src", "dst"],
  copy_broadcast: ["src", "dst1", "dst2"],
  copy_swap: ["a", "b"],
  constant_fill: ["dst"],
  poll_mem: ["addr"],
  fence: ["addr"],
  atomic: ["addr"],
  timestamp_get_global: ["addr"],
};
/** Packet kinds with rules packetRuleViolations checks (the others never violate one). */
const HAS_RULES = new Set<PacketKind>([
  "copy_broadcast",
  "copy_swap",
  "timestamp_get_global",
  "poll_mem",
  "fence",
  "atomic",
]);
/**
 * What emission needs of each kind it builds (those of ADDR_ORDER): its length in dwords, the
 * dwords of its address fields, whether it has rules. One lookup per command, not one per table.
 */
interface KindInfo {
  readonly length: number;
  readonly addrDw: Int32Array;
  readonly hasRules: boolean;
}
const KIND_INFO = new Map<PacketKind, KindInfo>();
for (const [kind, names] of Object.entries(ADDR_ORDER) as [PacketKind, readonly string[]][]) {
  const fields = ADDR_FIELDS.get(kind) ?? [];
  if (fields.map((f) => f.name).join() !== names.join())
    throw new InternalError(`emit: address fields of ${kind} are not ${names.join(", ")}`);
  const length = COMPILED_BY_KIND[kind].fixedLength;
  if (length < 0) throw new InternalError(`emit: ${kind} is a variable-length packet`);
  KIND_INFO.set(kind, {
    length,
    addrDw: Int32Array.from(fields, (f) => f.dw),
    hasRules: HAS_RULES.has(kind),
  });
}
const kindInfo = (kind: PacketKind): KindInfo => {
  const info = KIND_INFO.get(kind);
  if (!info) throw new InternalError(`emit: no packet of kind ${kind} is built`);
  return info;
};

/** The largest human value of a uint field of the table (bytes of a copy, of a fill, ...). */
function fieldMax(kind: PacketKind, field: string): { max: number; bits: number } {
  const f = COMPILED_BY_KIND[kind].fields.find((x) => x.name === field);
  if (!f) throw new InternalError(`packet ${kind} has no field ${field}`);
  return { max: f.mask + f.bias, bits: f.width };
}

/** The kind of the packet toPacket builds for command i (used to size the buffers up front). */
function packetKindOf(c: CmdTable, i: number, completion: QueueProgram["completion"]): PacketKind {
  const k = c.kind(i);
  switch (k) {
    case CMD.copy:
      return "copy_linear";
    case CMD.bcast:
      return "copy_broadcast";
    case CMD.swap:
      return "copy_swap";
    case CMD.fill:
      return "constant_fill";
    case CMD.poll:
      return "poll_mem";
    case CMD.signal:
      return c.isFence(i) ? "fence" : "atomic";
    case CMD.completion:
      return completion === "atomic" ? "atomic" : "fence";
    case CMD.timestamp:
      return "timestamp_get_global";
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
  let failed = false;
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
    if (d.severity === "error") failed = true;
  };

  // The address of buffer location `slot` of command i.
  const buf = (c: CmdTable, i: number, slot: 0 | 1 | 2): number => {
    const buffer = c.buffer(i, slot);
    const rank = c.rank(i, slot);
    const base = layout.bufferAddr[buffer * R + rank];
    if (base === undefined || Number.isNaN(base)) {
      throw new InternalError(`buffer ${buffer} has no instance on rank ${rank}`);
    }
    return base + c.offset(i, slot);
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

  // The addresses of the packet toPacket built last, in ADDR_ORDER (no lookups by field name).
  const addrOf = new Float64Array(3);
  const at1 = (a: number): number => (addrOf[0] = a);
  const toPacket = (c: CmdTable, i: number, ops: number): Packet | undefined => {
    const k = c.kind(i);
    switch (k) {
      case CMD.copy: {
        const bytes = c.bytes(i);
        return fits("COPY_LINEAR count", bytes, limits.copy, ops)
          ? {
              kind: "copy_linear",
              bytes,
              src: (addrOf[0] = buf(c, i, 0)),
              dst: (addrOf[1] = buf(c, i, 1)),
            }
          : undefined;
      }
      case CMD.bcast: {
        const bytes = c.bytes(i);
        return fits("COPY_LINEAR_BROADCAST count", bytes, limits.bcast, ops)
          ? {
              kind: "copy_broadcast",
              bytes,
              src: (addrOf[0] = buf(c, i, 0)),
              dst1: (addrOf[1] = buf(c, i, 1)),
              dst2: (addrOf[2] = buf(c, i, 2)),
            }
          : undefined;
      }
      case CMD.swap: {
        const bytes = c.bytes(i);
        return fits("COPY_SWAP count", bytes, limits.swap, ops)
          ? {
              kind: "copy_swap",
              bytes,
              a: (addrOf[0] = buf(c, i, 0)),
              b: (addrOf[1] = buf(c, i, 1)),
            }
          : undefined;
      }
      case CMD.fill: {
        const bytes = c.bytes(i);
        const value = c.value(i);
        if (!fits("CONST_FILL count", bytes, limits.fill, ops)) return undefined;
        const dst = at1(buf(c, i, 1));
        const dword = dst % 4 === 0 && bytes % 4 === 0;
        return {
          kind: "constant_fill",
          fillSize: dword ? "dword" : "byte",
          dst,
          data: dword ? (value * 0x01010101) >>> 0 : value,
          bytes,
        };
      }
      case CMD.poll: {
        const value = c.value(i);
        const mask = c.mask(i);
        if (!u32("POLL_REGMEM value", value, ops) || !u32("POLL_REGMEM mask", mask, ops))
          return undefined;
        return {
          kind: "poll_mem",
          addr: at1(word(c, i)),
          func: pollFuncName(c.func(i)),
          value,
          mask,
          interval: POLL_INTERVAL,
          retryCount: POLL_RETRY_FOREVER,
        };
      }
      case CMD.signal: {
        const value = c.value(i);
        const fence = c.isFence(i);
        if (!u32(fence ? "FENCE data" : "ATOMIC operand", value, ops)) return undefined;
        return fence
          ? { kind: "fence", addr: at1(word(c, i)), data: value }
          : { kind: "atomic", op: "add32", addr: at1(word(c, i)), src: BigInt(value) };
      }
      case CMD.completion: {
        const addr = at1(completionAddr(layout, c.slot(i)));
        return p.completion === "atomic"
          ? { kind: "atomic", op: "add64", addr, src: MINUS_ONE_64 }
          : { kind: "fence", addr, data: 0 };
      }
      case CMD.timestamp:
        return { kind: "timestamp_get_global", addr: at1(timestampAddr(layout, c.slot(i))) };
      default:
        return assertNever(k, "queue command");
    }
  };

  // Each queue is encoded straight into its dword buffer as its commands are visited: a
  // Packet object lives only while its command is encoded (at 10^6 operations, keeping 3M packets
  // until the end was a large share of the heap and of garbage-collection time).
  const queues: EmittedQueue[] = [];
  for (const q of p.queues) {
    const name = queueName(q);
    // Exactly sized from the commands' packet kinds: every typed-array allocation counts as
    // external memory, which makes V8 run full collections of the (large) heap; regrowth and
    // trimming copies doubled those (docs/performance.md). Commands that fail to encode only
    // leave the buffers partly used.
    let dwords = 0;
    let addrs = 0;
    let rows = 0;
    let rowValues = 0;
    const c = q.cmds;
    const listData = p.lists.data;
    let prevOps = -1;
    for (let i = 0; i < c.length; i++) {
      const h = c.opsHandle(i);
      if (h !== prevOps && listData[h]! > 0) {
        prevOps = h;
        rows++;
        rowValues += 2 + listData[h]!;
      }
      const info = kindInfo(packetKindOf(c, i, p.completion));
      dwords += info.length;
      addrs += info.addrDw.length;
    }
    let words = new Uint32Array(dwords);
    let packetCount = 0;
    const starts = new Float64Array(c.length); // at most one packet per command
    let relocations = new Float64Array(3 * addrs);
    let nReloc = 0;
    const sourceMap = new PackedRowsBuilder(rows, rowValues);
    const completionSlots: number[] = [];
    let dword = 0;
    let lastOps = -1;
    for (let i = 0; i < c.length; i++) {
      const h = c.opsHandle(i);
      const pk = toPacket(c, i, h);
      if (!pk) continue;
      const info = kindInfo(pk.kind);
      if (info.hasRules) for (const v of packetRuleViolations(pk)) report(v.code, h, v.args);
      const nOps = listData[h]!;
      if (h !== lastOps && nOps > 0) {
        lastOps = h;
        // Packed rows, not one array per entry: this runs once per operation (10^6 times for
        // the big benchmark), and the entries live until the manifest is written. The ops are
        // read from the list table in place (no subarray object per command).
        sourceMap.startRow();
        sourceMap.value(dword * 4);
        sourceMap.value(m.ops.stmt[listData[h + 1]!]!);
        for (let k = 1; k <= nOps; k++) sourceMap.value(listData[h + k]!);
      }
      if (c.kind(i) === CMD.completion) completionSlots.push(c.slot(i));
      const dws = info.addrDw;
      for (let f = 0; f < dws.length; f++) {
        const a = addrOf[f]!;
        const region = regionOf(layout, a);
        if (nReloc + 3 > relocations.length) {
          const grown = new Float64Array(Math.max(2 * relocations.length, nReloc + 3));
          grown.set(relocations);
          relocations = grown;
        }
        relocations[nReloc++] = dword + dws[f]!;
        relocations[nReloc++] = region;
        relocations[nReloc++] = a - layout.regions[region]!.base;
      }
      // (packetKindOf sized the buffers: were it ever to disagree with toPacket, they grow.)
      const length = info.length;
      if (!failed) {
        if (dword + length > words.length) {
          const grown = new Uint32Array(Math.max(2 * words.length, dword + length));
          grown.set(words.subarray(0, dword));
          words = grown;
        }
        encodeInto(pk, words, dword);
      }
      starts[packetCount++] = dword;
      dword += length;
    }
    if (dword * 4 > maxStream) {
      diagnostics.push(
        diag("DMAC4006", undefined, [name, `${dword * 4} bytes`, `${maxStream} bytes`]),
      );
    }
    queues.push({
      name,
      gpu: q.gpu,
      engine: q.engine,
      packetCount,
      packetStarts: packetCount === starts.length ? starts : starts.slice(0, packetCount),
      words: failed ? new Uint32Array(0) : dword === words.length ? words : words.slice(0, dword),
      relocations: nReloc === relocations.length ? relocations : relocations.slice(0, nReloc),
      sourceMap: sourceMap.done(),
      completionSlots,
    });
  }
  if (diagnostics.some((d) => d.severity === "error")) return { queues: [], diagnostics };
  return { queues, diagnostics };
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
