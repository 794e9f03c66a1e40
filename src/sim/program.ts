// The executor's input, independent of where it came from: SDMA packet streams + manifest
// (run.ts reads them with the back end's one packet table) or a command trace. A
// program is a node's memory map and the commands of every queue, with absolute addresses, in
// one of two forms with the same meaning:
// - ListProgram: one SimCmd object per command (tests, hand-built programs, the calibration);
// - PackedProgram: every command a row of typed arrays (Commands), no object per command; what
//   simulate() builds from packet words or a trace, and what execute() runs (packProgram turns a
//   ListProgram into one).
//
// Command semantics (docs/runtime.md, queues/queue-program.ts): a queue runs its commands in
// order; consecutive data commands (copy, bcast, swap, fill) may overlap, so they are not
// ordered with each other; fence, atomic and timestamp act after every earlier command of the
// queue completed; poll blocks the queue until its condition holds.

import { POLL_FUNC_CODES, pollFuncCode, type PollFunc } from "../target/poll.js";
import type { WordRegions } from "./regions.js";
import type { IrModule } from "../ir/ir.js";

export type { PollFunc };

export type SimCmd =
  | { readonly kind: "copy"; readonly src: number; readonly dst: number; readonly bytes: number }
  | {
      readonly kind: "bcast";
      readonly src: number;
      readonly dst: number;
      readonly dst2: number;
      readonly bytes: number;
    }
  | { readonly kind: "swap"; readonly a: number; readonly b: number; readonly bytes: number }
  | { readonly kind: "fill"; readonly dst: number; readonly bytes: number; readonly value: number }
  /**
   * (*addr & mask) func value, 32-bit unsigned; re-checked every `interval` x 16 SDMA clocks, at
   * most `retries` times after the first check (undefined: forever, the packet's 0xFFF). A poll
   * that exhausts its retries fails (DMAC6014).
   */
  | {
      readonly kind: "poll";
      readonly addr: number;
      readonly func: PollFunc;
      readonly value: number;
      readonly mask: number;
      readonly interval: number;
      readonly retries?: number | undefined;
    }
  | { readonly kind: "fence"; readonly addr: number; readonly value: number }
  | {
      readonly kind: "atomic";
      readonly addr: number;
      readonly width: 32 | 64;
      readonly add: number;
    }
  | { readonly kind: "timestamp"; readonly addr: number }
  | { readonly kind: "nop" }
  /** A packet the executor cannot run (DMAC6007); running into it stops the queue. */
  | { readonly kind: "bad"; readonly detail: string };

export type SimCmdKind = SimCmd["kind"];

/** One command with its position: byte offset in the stream (packets) or index (trace). */
export interface SimEntry {
  readonly cmd: SimCmd;
  readonly at: number;
  /** Packets in the stream it stands for (1 per packet; used for throughput figures). */
  readonly packets: number;
  /**
   * The IR ops this command implements or orders (the manifest's source map, a trace's `ops`);
   * undefined when unknown. The schedule-meaning checks (semantics.ts) use them.
   */
  readonly ops?: readonly number[] | undefined;
}

export interface SimQueue {
  readonly name: string;
  readonly gpu: number;
  readonly engine: number;
  readonly entries: readonly SimEntry[];
  /** "byte" when `at` is a byte offset into a packet stream, "index" for a trace. */
  readonly position: "byte" | "index";
  /** The queue's own ring, when known (DMAC6009 checks writes into it). */
  readonly ring?: { readonly addr: number; readonly bytes: number } | undefined;
}

export type RegionKind =
  "buffer" | "signal" | "sync" | "completion" | "timestamp" | "trigger" | "ring";

/** One mapped range of the node's unified address space. */
export interface SimRegion {
  readonly kind: RegionKind;
  readonly name: string;
  /** The GPU whose memory it is; null = host memory. */
  readonly gpu: number | null;
  readonly addr: number;
  readonly bytes: number;
  /** buffer: buffer id (dense 0..n-1 across all buffer names). */
  readonly buffer?: number | undefined;
  /**
   * buffer: pinned host memory (`on host`); `gpu` is then its regions' placeholder rank, which
   * keeps the per-(gpu, buffer) access and provenance tables as they are. Copies to or from it
   * load the driving GPU's PCIe link instead of xGMI or HBM (transfers.ts).
   */
  readonly host?: boolean | undefined;
  /** Initial value of a word region (completion signals start at 1). */
  readonly initial?: number | undefined;
}

/** What both forms of a program share: everything but the commands. */
export interface ProgramBase {
  readonly gpus: number;
  readonly regions: readonly SimRegion[];
  /**
   * More regions, as columns: a manifest's or trace's sync words and completion and timestamp
   * slots (regions.ts; there may be one per packet). The address map is both lists together.
   */
  readonly wordRegions?: WordRegions | undefined;
  /** Buffer id -> size in bytes (the same on every GPU holding an instance). */
  readonly bufferSizes: readonly number[];
  readonly bufferNames: readonly string[];
  /** Prelaunch trigger, or null: the host submits every command and rings doorbells. */
  readonly trigger: { readonly addr: number; readonly value: number } | null;
  /** User signals no queue writes: raised by a modelled producer (a host, a compute kernel). */
  readonly externalSignals: readonly number[];
  /** Source location of a queue position, when a source map is known (for reports). */
  readonly locate?: ((queue: number, at: number) => string | undefined) | undefined;
  /**
   * What the streams must mean, when the IR is known (semantics.ts): the executor then checks
   * every notify, `when` guard and completion slot against it, not only the final buffers.
   */
  readonly meaning?: Meaning | undefined;
}

/** A word the host waits on until it equals `done` (a host completion signal), as an object. */
export interface SimCompletion {
  readonly addr: number;
  readonly done: number;
  /** The queue that signals it (reports only); "no queue" when none does. */
  readonly queue: string;
}

/**
 * The host completion signals as columns (there may be one per packet: a million objects and
 * their heap numbers were a tenth of the forward program's heap, marked by every collection).
 * Slot k is the word at addr[k], awaited until it equals done[k], signalled by queue queue[k] of
 * the program (-1: no queue; reports say "no queue").
 */
export interface Completions {
  readonly count: number;
  readonly addr: Float64Array;
  readonly done: Float64Array;
  readonly queue: Int32Array;
}

/** A program with one command list per queue. */
export interface ListProgram extends ProgramBase {
  readonly queues: readonly SimQueue[];
  /** Words the host waits on until they equal `done`, in the order it waits. */
  readonly completions: readonly SimCompletion[];
}

/** A queue of a packed program: its commands are rows first .. first + count - 1 of `cmds`. */
export interface PackedQueue {
  readonly name: string;
  readonly gpu: number;
  readonly engine: number;
  readonly position: "byte" | "index";
  readonly ring?: { readonly addr: number; readonly bytes: number } | undefined;
  readonly first: number;
  readonly count: number;
}

/** A program whose commands are rows of typed arrays (global command id = row). */
export interface PackedProgram extends ProgramBase {
  readonly queues: readonly PackedQueue[];
  readonly cmds: Commands;
  /** Words the host waits on until they equal `done`, in the order it waits. */
  readonly completions: Completions;
}

/** The name of completion slot k's queue, as reports give it. */
export const completionQueueName = (p: PackedProgram, k: number): string =>
  p.queues[p.completions.queue[k]!]?.name ?? "no queue";

/** Empty completion columns of `count` slots (queue -1) for a builder to fill. */
export function completionColumns(count: number): Completions {
  // (In shared memory, as the commands are: the checks' thread reads them uncopied.)
  return {
    count,
    addr: shared(new Float64Array(0), count),
    done: shared(new Float64Array(0), count),
    queue: shared(new Int32Array(0), count).fill(-1),
  };
}

export type SimProgram = ListProgram | PackedProgram;

export function isPacked(p: SimProgram): p is PackedProgram {
  return "cmds" in p;
}

// ---- the packed commands ---------------------------------------------------------------------

/** Command kinds by code (the row's `kind`); the order is the codes'. */
export const CMD_KINDS = [
  "nop",
  "bad",
  "copy",
  "bcast",
  "swap",
  "fill",
  "poll",
  "fence",
  "atomic",
  "timestamp",
] as const satisfies readonly SimCmdKind[];
export const NOP = 0;
export const BAD = 1;
export const COPY = 2;
export const BCAST = 3;
export const SWAP = 4;
export const FILL = 5;
export const POLL = 6;
export const FENCE = 7;
export const ATOMIC = 8;
export const TIMESTAMP = 9;
const CMD_CODE: Readonly<Record<SimCmdKind, number>> = Object.fromEntries(
  CMD_KINDS.map((k, i) => [k, i]),
) as Record<SimCmdKind, number>;

/** Poll functions by code (the row's `aux` of a poll). */
export { POLL_FUNC_CODES };

/** A copy's `aux` where it is ordered after every earlier command of its queue (Commands). */
export const STREAM_ORDERED = 1;

/**
 * Whether row r of a CUDA target's program continues a batch: a copy that is not stream-ordered
 * (from-cuda.ts makes a batch's first copy STREAM_ORDERED and the others 0).
 */
export const continuesBatch = (C: Commands, r: number): boolean =>
  C.kind[r] === COPY && C.aux[r] !== STREAM_ORDERED;

/** Data commands: copy, bcast, swap, fill (codes COPY .. FILL). */
export const isDataKind = (k: number): boolean => k >= COPY && k <= FILL;

/**
 * Every command of a program, one row per command, queue after queue. The operand columns mean,
 * by kind (unused: 0):
 *
 * | kind      | a    | b      | c       | bytes    | value | aux   |
 * |-----------|------|--------|---------|----------|-------|-------|
 * | copy      | src  | dst    |         | bytes    |       | order |
 * | bcast     | src  | dst    | dst2    | bytes    |       |       |
 * | swap      | a    | b      |         | bytes    |       |       |
 * | fill      | dst  |        |         | bytes    | byte  |       |
 * | poll      | addr | mask   | retries | interval | value | func  |
 * | fence     | addr |        |         |          | value |       |
 * | atomic    | addr |        |         |          | add   | width |
 * | timestamp | addr |        |         |          |       |       |
 *
 * A poll's retries are -1 for "forever". A copy's `order` is STREAM_ORDERED where it starts a
 * CUDA stream command (from-cuda.ts): it runs after everything before it on its queue, where an
 * SDMA copy (0) may overlap the data commands before it. A row's IR ops (source map, trace `ops`) are
 * ops[opsLo[i] .. opsHi[i]), shared between the rows of one source-map entry; opsLo = -1: unknown.
 */
export interface Commands {
  readonly n: number;
  readonly kind: Uint8Array;
  readonly aux: Uint8Array;
  readonly at: Float64Array;
  readonly packets: Uint32Array;
  readonly a: Float64Array;
  readonly b: Float64Array;
  readonly c: Float64Array;
  readonly bytes: Float64Array;
  readonly value: Float64Array;
  readonly opsLo: Int32Array;
  readonly opsHi: Int32Array;
  readonly ops: Int32Array;
  /** Why a BAD row cannot run (DMAC6007), by row. */
  readonly detail: ReadonlyMap<number, string>;
}

/**
 * A typed array like `x` of n elements in shared memory: the columns of a large run go to the
 * thread that runs its checks (check-thread.ts) without being copied.
 */
export function shared<T extends Uint8Array | Uint32Array | Int32Array | Float64Array>(
  x: T,
  n: number,
): T {
  const ctor = x.constructor as new (b: SharedArrayBuffer) => T;
  return new ctor(new SharedArrayBuffer(n * x.BYTES_PER_ELEMENT));
}

/** Rows being filled (CommandWriter); finish() trims them into Commands. */
export class CommandWriter {
  n = 0;
  kind = new Uint8Array(0);
  aux = new Uint8Array(0);
  at = new Float64Array(0);
  packets = new Uint32Array(0);
  a = new Float64Array(0);
  b = new Float64Array(0);
  c = new Float64Array(0);
  bytes = new Float64Array(0);
  value = new Float64Array(0);
  opsLo = new Int32Array(0);
  opsHi = new Int32Array(0);
  /** The shared op list: ops[0 .. nOps). */
  ops = new Int32Array(1024);
  nOps = 0;
  readonly detail = new Map<number, string>();

  /**
   * `opsCapacity`: the ops expected, when the caller knows (the list grows past it): a growth
   * first needed after V8 had compiled pushOp into the stream's reading threw that code away.
   */
  constructor(capacity: number, opsCapacity = 0) {
    this.grow(Math.max(16, capacity));
    if (opsCapacity > this.ops.length) this.ops = shared(this.ops, opsCapacity);
  }

  /** A new row (zeroed, ops unknown) of kind `kind` at position `at`; returns its index. */
  row(kind: number, at: number): number {
    if (this.n === this.kind.length) this.grow(this.n * 2);
    const i = this.n++;
    this.kind[i] = kind;
    this.at[i] = at;
    this.packets[i] = 1;
    this.opsLo[i] = -1;
    return i;
  }

  bad(at: number, detail: string): number {
    const i = this.row(BAD, at);
    this.detail.set(i, detail);
    return i;
  }

  /** Writes a SimCmd's operands into row i (of its kind). */
  cmd(i: number, c: SimCmd): void {
    this.kind[i] = CMD_CODE[c.kind];
    switch (c.kind) {
      case "copy":
        this.a[i] = c.src;
        this.b[i] = c.dst;
        this.bytes[i] = c.bytes;
        return;
      case "bcast":
        this.a[i] = c.src;
        this.b[i] = c.dst;
        this.c[i] = c.dst2;
        this.bytes[i] = c.bytes;
        return;
      case "swap":
        this.a[i] = c.a;
        this.b[i] = c.b;
        this.bytes[i] = c.bytes;
        return;
      case "fill":
        this.a[i] = c.dst;
        this.bytes[i] = c.bytes;
        this.value[i] = c.value;
        return;
      case "poll":
        this.a[i] = c.addr;
        this.b[i] = c.mask;
        this.c[i] = c.retries ?? -1;
        this.bytes[i] = c.interval;
        this.value[i] = c.value;
        this.aux[i] = pollFuncCode(c.func);
        return;
      case "fence":
        this.a[i] = c.addr;
        this.value[i] = c.value;
        return;
      case "atomic":
        this.a[i] = c.addr;
        this.value[i] = c.add;
        this.aux[i] = c.width;
        return;
      case "timestamp":
        this.a[i] = c.addr;
        return;
      case "nop":
        return;
      case "bad":
        this.detail.set(i, c.detail);
        return;
    }
  }

  /** Row i implements the IR ops ops[lo .. hi) (see Commands). */
  setOps(i: number, lo: number, hi: number): void {
    this.opsLo[i] = lo;
    this.opsHi[i] = hi;
  }

  /** Appends one IR op to the shared list. */
  pushOp(o: number): void {
    if (this.nOps === this.ops.length) {
      const more = shared(this.ops, this.ops.length * 2);
      more.set(this.ops);
      this.ops = more;
    }
    this.ops[this.nOps++] = o;
  }

  /** Row i implements the ops of `list` (appended to the shared list). */
  addOps(i: number, list: readonly number[]): void {
    const lo = this.nOps;
    for (let k = 0; k < list.length; k++) this.pushOp(list[k]!);
    this.setOps(i, lo, this.nOps);
  }

  /** Drops the rows from n on and the ops from nOps on (a stream read again). */
  truncate(n: number, nOps: number): void {
    for (const i of [...this.detail.keys()]) if (i >= n) this.detail.delete(i);
    this.kind.fill(0, n, this.n);
    this.aux.fill(0, n, this.n);
    this.a.fill(0, n, this.n);
    this.b.fill(0, n, this.n);
    this.c.fill(0, n, this.n);
    this.bytes.fill(0, n, this.n);
    this.value.fill(0, n, this.n);
    this.n = n;
    this.nOps = nOps;
  }

  /** The rows written (views of the writer's arrays: nothing is copied). */
  finish(): Commands {
    const n = this.n;
    return {
      n,
      kind: this.kind.subarray(0, n),
      aux: this.aux.subarray(0, n),
      at: this.at.subarray(0, n),
      packets: this.packets.subarray(0, n),
      a: this.a.subarray(0, n),
      b: this.b.subarray(0, n),
      c: this.c.subarray(0, n),
      bytes: this.bytes.subarray(0, n),
      value: this.value.subarray(0, n),
      opsLo: this.opsLo.subarray(0, n),
      opsHi: this.opsHi.subarray(0, n),
      ops: this.ops.subarray(0, this.nOps),
      detail: this.detail,
    };
  }

  private grow(cap: number): void {
    const more = <T extends Uint8Array | Uint32Array | Int32Array | Float64Array>(x: T): T => {
      const y = shared(x, cap);
      y.set(x);
      return y;
    };
    this.kind = more(this.kind);
    this.aux = more(this.aux);
    this.at = more(this.at);
    this.packets = more(this.packets);
    this.a = more(this.a);
    this.b = more(this.b);
    this.c = more(this.c);
    this.bytes = more(this.bytes);
    this.value = more(this.value);
    this.opsLo = more(this.opsLo);
    this.opsHi = more(this.opsHi);
  }
}

/** The command of row i as an object (reports, tests, the list form). */
export function cmdAt(t: Commands, i: number): SimCmd {
  switch (t.kind[i]!) {
    case NOP:
      return { kind: "nop" };
    case BAD:
      return { kind: "bad", detail: t.detail.get(i) ?? "?" };
    case COPY:
      return { kind: "copy", src: t.a[i]!, dst: t.b[i]!, bytes: t.bytes[i]! };
    case BCAST:
      return { kind: "bcast", src: t.a[i]!, dst: t.b[i]!, dst2: t.c[i]!, bytes: t.bytes[i]! };
    case SWAP:
      return { kind: "swap", a: t.a[i]!, b: t.b[i]!, bytes: t.bytes[i]! };
    case FILL:
      return { kind: "fill", dst: t.a[i]!, bytes: t.bytes[i]!, value: t.value[i]! };
    case POLL:
      return {
        kind: "poll",
        addr: t.a[i]!,
        func: POLL_FUNC_CODES[t.aux[i]!]!,
        value: t.value[i]!,
        mask: t.b[i]!,
        interval: t.bytes[i]!,
        retries: t.c[i]! < 0 ? undefined : t.c[i]!,
      };
    case FENCE:
      return { kind: "fence", addr: t.a[i]!, value: t.value[i]! };
    case ATOMIC:
      return { kind: "atomic", addr: t.a[i]!, width: t.aux[i] as 32 | 64, add: t.value[i]! };
    case TIMESTAMP:
      return { kind: "timestamp", addr: t.a[i]! };
    default:
      throw new Error(`command kind ${t.kind[i]}`);
  }
}

/** Row i's IR ops as a list (undefined: unknown). */
export function opsAt(t: Commands, i: number): readonly number[] | undefined {
  const lo = t.opsLo[i]!;
  return lo < 0 ? undefined : Array.from(t.ops.subarray(lo, t.opsHi[i]!));
}

/** The packed form of a list program (the same commands, in the same order). */
export function packProgram(p: SimProgram): PackedProgram {
  if (isPacked(p)) return p;
  let total = 0;
  for (const q of p.queues) total += q.entries.length;
  const w = new CommandWriter(total);
  const queues: PackedQueue[] = p.queues.map((q) => {
    const first = w.n;
    for (const e of q.entries) {
      const i = w.row(NOP, e.at);
      w.cmd(i, e.cmd);
      w.packets[i] = e.packets;
      if (e.ops) w.addOps(i, e.ops);
    }
    return {
      name: q.name,
      gpu: q.gpu,
      engine: q.engine,
      position: q.position,
      ring: q.ring,
      first,
      count: q.entries.length,
    };
  });
  return { ...p, queues, cmds: w.finish(), completions: packCompletions(p) };
}

/** A list program's completions as columns; a queue name no queue has becomes -1. */
function packCompletions(p: ListProgram): Completions {
  const byName = new Map(p.queues.map((q, i) => [q.name, i]));
  const out = completionColumns(p.completions.length);
  p.completions.forEach((c, k) => {
    out.addr[k] = c.addr;
    out.done[k] = c.done;
    out.queue[k] = byName.get(c.queue) ?? -1;
  });
  return out;
}

/** The list form of a packed program (tests and tools that edit commands). */
export function unpackProgram(p: PackedProgram): ListProgram {
  const { cmds, queues, completions, ...base } = p;
  return {
    ...base,
    completions: Array.from({ length: completions.count }, (_, k) => ({
      addr: completions.addr[k]!,
      done: completions.done[k]!,
      queue: completionQueueName(p, k),
    })),
    queues: queues.map((q) => {
      const entries: SimEntry[] = [];
      for (let i = q.first; i < q.first + q.count; i++)
        entries.push({
          cmd: cmdAt(cmds, i),
          at: cmds.at[i]!,
          packets: cmds.packets[i]!,
          ops: opsAt(cmds, i),
        });
      return {
        name: q.name,
        gpu: q.gpu,
        engine: q.engine,
        position: q.position,
        ring: q.ring,
        entries,
      };
    }),
  };
}

/** The schedule's meaning the executor checks the run against (built by run.ts). */
export interface Meaning extends MeaningParts {
  readonly module: IrModule;
}

/** What the meaning adds to the IR from the input itself (what the checks' thread is sent). */
export interface MeaningParts {
  /** User signal words: address -> (signal id, rank). */
  readonly signals: readonly {
    readonly addr: number;
    readonly signal: number;
    readonly rank: number;
  }[];
  /**
   * Queue index that signals each completion slot (the manifest's `completionSlots`), -1 where
   * no queue claims it; undefined when the input does not say (a trace).
   */
  readonly slotOwner?: ArrayLike<number> | undefined;
}
