// Queue programs: what each SDMA queue (one per GPU and engine) does, in order, on SYMBOLIC
// locations. Lowering (queues/lower.ts) builds one from an IrModule; optimisation passes rewrite
// it (build a new program, never mutate a shared one); layout gives every location an address;
// the SDMA emitter and the trace emitter turn commands into packets / trace entries.
//
// Ordering semantics every producer and consumer of a QueueProgram relies on (see docs/runtime.md):
// - A queue runs its commands in order, but the engine may OVERLAP consecutive data commands
//   (copy, bcast, swap, fill): a data command is not guaranteed to see the writes of the data
//   command before it. (sdma-gfx942.md 2.7: ROCr uses FENCE because copies may overlap.)
// - `signal` with how "fence" (FENCE packet), `signal` with how "add" (ATOMIC), and `completion`
//   take effect only after every earlier command of the queue has completed.
// - `poll` blocks the queue until its condition holds; nothing after it starts before that.
// So "FENCE word := k; POLL word == k" is a full barrier, and "data; FENCE x := n" publishes that
// the data is complete. Sync words and completion signals are written only by the commands here.
//
// Every command lists the IR op ids it implements or serves (its op list), for source maps: a
// data command lists the ops whose bytes it moves; a poll or signal lists the op it orders.
// Commands that share one list (by handle, not by contents) make one source-map entry.
//
// Representation (docs/architecture.md, "Queue programs"): PACKED. A queue's commands are one
// CmdTable, a structure of typed arrays (kind, mode, a number, a second number, up to three
// locations, an op-list handle), not one object per command: at 10^6 operations the objects were
// a third of the compile in garbage collection. Locations are numbers: a buffer location is
// (rank, buffer id, byte offset) in one of three operand slots; a word location is a space, an
// id and a rank. Op lists live in one Int32Array per program (OpLists), [length, op, op, ...]
// at a handle. Read a table with its accessors (`kind(i)`, `bytes(i)`, `srcOff(i)`, ...), build
// one with CmdBuilder; queues/readable.ts converts to and from plain objects for tests.

import { COMPARE_OPS } from "../ir/ir.js";
import type { CompareOp } from "../frontend/ast.js";

/** Command kinds, by code (the `kind` column). The first four are data commands. */
export const CMD = {
  copy: 0,
  bcast: 1,
  swap: 2,
  fill: 3,
  poll: 4,
  signal: 5,
  completion: 6,
  timestamp: 7,
} as const;
export type CmdCode = (typeof CMD)[keyof typeof CMD];
export type QCmdKind = keyof typeof CMD;
/** Kind names by code. */
export const CMD_NAMES: readonly QCmdKind[] = [
  "copy",
  "bcast",
  "swap",
  "fill",
  "poll",
  "signal",
  "completion",
  "timestamp",
];

export function isDataKind(k: number): boolean {
  return k <= CMD.fill;
}

/** Where a poll or signal points (the `mode` column's space bits). */
export const SPACE = { signal: 0, sync: 1, trigger: 2 } as const;
export type WordSpace = keyof typeof SPACE;
export const SPACE_NAMES: readonly WordSpace[] = ["signal", "sync", "trigger"];

/** dep: cross-queue happens-before; wait: a `when`; barrier: same-queue ordering; trigger: prelaunch. */
export type PollReason = "dep" | "wait" | "barrier" | "trigger";
export const POLL_WHY: readonly PollReason[] = ["dep", "wait", "barrier", "trigger"];
/** dep: progress counter for a consumer queue; notify: a user `notify`; barrier: same-queue. */
export type SignalReason = "dep" | "notify" | "barrier" | "breadcrumb";
export const SIGNAL_WHY: readonly SignalReason[] = ["dep", "notify", "barrier", "breadcrumb"];
/** fence: writes the value (FENCE); add: adds it atomically (ATOMIC ADD_RTN_32). */
export type SignalHow = "fence" | "add";
export const SIGNAL_HOW: readonly SignalHow[] = ["fence", "add"];
/** Compare functions of a poll, by index (the IR's COMPARE_OPS order). */
export const FUNC: Readonly<Record<CompareOp, number>> = Object.fromEntries(
  COMPARE_OPS.map((c, i) => [c, i]),
) as Record<CompareOp, number>;
export const FUNC_GE = FUNC[">="];
export const FUNC_EQ = FUNC["=="];
export const MASK_ALL = 0xffffffff;

// The `mode` column: bits 0-2 the poll's compare (FUNC) or the signal's how (0 fence, 1 add),
// bits 3-4 why (POLL_WHY / SIGNAL_WHY index), bits 5-6 the word space (SPACE).
const modeOf = (fn: number, why: number, space: number): number => fn | (why << 3) | (space << 5);

/**
 * The op lists of one program: Int32Array `data` holding [n, op_1 .. op_n] at each handle.
 * Handle 0 is the empty list. Immutable; ListsBuilder appends.
 */
export class OpLists {
  constructor(
    readonly data: Int32Array,
    readonly length: number,
  ) {}
  count(h: number): number {
    return this.data[h]!;
  }
  /** The ops of list h (a view: valid while the program lives; do not modify). */
  of(h: number): Int32Array {
    return this.data.subarray(h + 1, h + 1 + this.data[h]!);
  }
  static readonly EMPTY = new OpLists(new Int32Array(1), 1);
}

export const EMPTY_LIST = 0;

/** Appends op lists to a copy of an existing pool (whose handles stay valid). */
export class ListsBuilder {
  private data: Int32Array;
  private len: number;
  constructor(base: OpLists = OpLists.EMPTY, expected = 0) {
    this.data = new Int32Array(Math.max(16, base.length + expected));
    this.data.set(base.data.subarray(0, base.length));
    this.len = base.length;
  }
  private room(n: number): void {
    if (this.len + n <= this.data.length) return;
    const grown = new Int32Array(Math.max(2 * this.data.length, this.len + n));
    grown.set(this.data.subarray(0, this.len));
    this.data = grown;
  }
  /** A new list holding `ops` (a fresh handle, even for equal contents). */
  add(ops: ArrayLike<number>): number {
    if (ops.length === 0) return EMPTY_LIST;
    this.room(ops.length + 1);
    const h = this.len;
    this.data[h] = ops.length;
    for (let k = 0; k < ops.length; k++) this.data[h + 1 + k] = ops[k]!;
    this.len += ops.length + 1;
    return h;
  }
  /** A new list of one op. */
  one(op: number): number {
    this.room(2);
    const h = this.len;
    this.data[h] = 1;
    this.data[h + 1] = op;
    this.len += 2;
    return h;
  }
  /** Starts a list whose ops follow with push(); returns its handle. */
  open(): number {
    this.room(1);
    const h = this.len;
    this.data[h] = 0;
    this.len++;
    return h;
  }
  /** Appends an op to the list opened last (no other list may be started in between). */
  push(h: number, op: number): void {
    this.room(1);
    this.data[this.len++] = op;
    this.data[h]!++;
  }
  done(): OpLists {
    return new OpLists(this.data, this.len);
  }
}

/** The columns of a command table (one queue). */
export interface Columns {
  kind: Uint8Array;
  mode: Uint8Array;
  /** bytes (data) | value (poll, signal) | slot (completion, timestamp). */
  num: Float64Array;
  /** fill: the byte value; poll: the mask. */
  aux: Float64Array;
  /** Slot s: buffer id (data) or word id (poll/signal slot 0: sync word or user signal). */
  id0: Int32Array;
  id1: Int32Array;
  id2: Int32Array;
  /** Slot s: the rank of a buffer or signal location. */
  rk0: Int16Array;
  rk1: Int16Array;
  rk2: Int16Array;
  /** Slot s: byte offset in the buffer. */
  off0: Float64Array;
  off1: Float64Array;
  off2: Float64Array;
  /** Op-list handle (into the program's OpLists). */
  ops: Int32Array;
}

const COLUMN_NAMES: readonly (keyof Columns)[] = [
  "kind",
  "mode",
  "num",
  "aux",
  "id0",
  "id1",
  "id2",
  "rk0",
  "rk1",
  "rk2",
  "off0",
  "off1",
  "off2",
  "ops",
];
/** Bytes per command over all columns. */
const BYTES_PER_COMMAND = 2 * 1 + 5 * 8 + 4 * 4 + 3 * 2;

/**
 * Every column for n commands as views of one ArrayBuffer (one allocation, not 14), widest
 * first so each view is aligned. Written out (no loop over names): the object literal gives
 * every Columns value one hidden class, so column reads stay monomorphic.
 */
function allocColumns(n: number): Columns {
  const b = new ArrayBuffer(n * BYTES_PER_COMMAND);
  return {
    num: new Float64Array(b, 0, n),
    aux: new Float64Array(b, 8 * n, n),
    off0: new Float64Array(b, 16 * n, n),
    off1: new Float64Array(b, 24 * n, n),
    off2: new Float64Array(b, 32 * n, n),
    id0: new Int32Array(b, 40 * n, n),
    id1: new Int32Array(b, 44 * n, n),
    id2: new Int32Array(b, 48 * n, n),
    ops: new Int32Array(b, 52 * n, n),
    rk0: new Int16Array(b, 56 * n, n),
    rk1: new Int16Array(b, 58 * n, n),
    rk2: new Int16Array(b, 60 * n, n),
    kind: new Uint8Array(b, 62 * n, n),
    mode: new Uint8Array(b, 63 * n, n),
  };
}

/** The first n commands of `c`: views (shared memory) or, with copy, fresh columns. */
function firstColumns(c: Columns, n: number, copy: boolean): Columns {
  if (copy) {
    const g = allocColumns(n);
    for (const k of COLUMN_NAMES) (g[k] as Float64Array).set((c[k] as Float64Array).subarray(0, n));
    return g;
  }
  return {
    num: c.num.subarray(0, n),
    aux: c.aux.subarray(0, n),
    off0: c.off0.subarray(0, n),
    off1: c.off1.subarray(0, n),
    off2: c.off2.subarray(0, n),
    id0: c.id0.subarray(0, n),
    id1: c.id1.subarray(0, n),
    id2: c.id2.subarray(0, n),
    ops: c.ops.subarray(0, n),
    rk0: c.rk0.subarray(0, n),
    rk1: c.rk1.subarray(0, n),
    rk2: c.rk2.subarray(0, n),
    kind: c.kind.subarray(0, n),
    mode: c.mode.subarray(0, n),
  };
}

/**
 * The commands of one queue, packed. Operand slots: 0 = src (copy, bcast) / a (swap) / the word
 * (poll, signal); 1 = dst (copy, bcast, fill) / b (swap); 2 = dst2 (bcast).
 */
export class CmdTable {
  /** The columns: read through the accessors, except in a loop over every command of a big
   * program that runs mostly before V8 has compiled it (emission's), where an accessor costs a
   * call per read (docs/performance.md, "The 65,536-copy compile"). Written only by the builder
   * that made the table (CmdBuilder.over, conservative sync's in-place rewrite). */
  constructor(
    readonly length: number,
    readonly c: Readonly<Columns>,
  ) {}
  kind(i: number): CmdCode {
    return this.c.kind[i]! as CmdCode;
  }
  kindName(i: number): QCmdKind {
    return CMD_NAMES[this.c.kind[i]!]!;
  }
  isData(i: number): boolean {
    return this.c.kind[i]! <= CMD.fill;
  }
  /** Data commands: bytes moved or filled. */
  bytes(i: number): number {
    return this.c.num[i]!;
  }
  /** Poll: the compare value; signal: the value written or added; fill: the byte. */
  value(i: number): number {
    return this.c.kind[i] === CMD.fill ? this.c.aux[i]! : this.c.num[i]!;
  }
  /** Completion, timestamp: the slot. */
  slot(i: number): number {
    return this.c.num[i]!;
  }
  /** Poll: the mask. */
  mask(i: number): number {
    return this.c.aux[i]!;
  }
  /** Poll: the compare (index into COMPARE_OPS, see FUNC). */
  funcCode(i: number): number {
    return this.c.mode[i]! & 7;
  }
  func(i: number): CompareOp {
    return COMPARE_OPS[this.c.mode[i]! & 7]!;
  }
  /** Signal: fence (0) or add (1). */
  how(i: number): SignalHow {
    return SIGNAL_HOW[this.c.mode[i]! & 7]!;
  }
  isFence(i: number): boolean {
    return (this.c.mode[i]! & 7) === 0;
  }
  why(i: number): PollReason | SignalReason {
    return (this.c.kind[i] === CMD.poll ? POLL_WHY : SIGNAL_WHY)[(this.c.mode[i]! >> 3) & 3]!;
  }
  /** Poll, signal: the space of the word (SPACE). */
  space(i: number): number {
    return this.c.mode[i]! >> 5;
  }
  /** Poll/signal on a sync word: which one (else -1). */
  syncWord(i: number): number {
    const k = this.c.kind[i];
    return (k === CMD.poll || k === CMD.signal) && this.c.mode[i]! >> 5 === SPACE.sync
      ? this.c.id0[i]!
      : -1;
  }
  /** Poll/signal on a user signal: the signal id and its rank. */
  signalId(i: number): number {
    return this.c.id0[i]!;
  }
  signalRank(i: number): number {
    return this.c.rk0[i]!;
  }
  // Buffer locations by slot (see the class comment).
  rank(i: number, slot: 0 | 1 | 2): number {
    return (slot === 0 ? this.c.rk0 : slot === 1 ? this.c.rk1 : this.c.rk2)[i]!;
  }
  buffer(i: number, slot: 0 | 1 | 2): number {
    return (slot === 0 ? this.c.id0 : slot === 1 ? this.c.id1 : this.c.id2)[i]!;
  }
  offset(i: number, slot: 0 | 1 | 2): number {
    return (slot === 0 ? this.c.off0 : slot === 1 ? this.c.off1 : this.c.off2)[i]!;
  }
  /** The op-list handle (equal handles: one shared list). */
  opsHandle(i: number): number {
    return this.c.ops[i]!;
  }
}

export interface Queue {
  readonly gpu: number;
  readonly engine: number;
  readonly cmds: CmdTable;
}

/**
 * A compiler-allocated 32-bit word in the memory of GPU `gpu` (initial value 0).
 * - progress: raised (FENCE, increasing values) by queue `producer`, polled (>=) by `consumer`;
 *   lives on the consumer's GPU so the poll reads local memory.
 * - barrier: a queue's own word for same-queue ordering (FENCE k, then POLL == k).
 * Queues are named by index into QueueProgram.queues.
 */
export type SyncWord =
  | {
      readonly kind: "progress";
      readonly gpu: number;
      readonly producer: number;
      readonly consumer: number;
    }
  | { readonly kind: "barrier"; readonly gpu: number; readonly queue: number }
  /** `--breadcrumbs`: queue `queue` FENCEs its step number here after each command group. */
  | { readonly kind: "breadcrumb"; readonly gpu: number; readonly queue: number };

export interface QueueProgram {
  readonly ranks: number;
  /** Non-empty queues sorted by (gpu, engine), at most one per pair. */
  readonly queues: readonly Queue[];
  readonly syncWords: readonly SyncWord[];
  /** How completion commands signal the host. */
  readonly completion: CompletionProtocol;
  /** Completion slots 0 .. completionSlots-1; each is signalled by exactly one command. */
  readonly completionSlots: number;
  readonly timestampSlots: number;
  /** Prelaunch: queues poll the trigger word until it is >= value. null: no trigger (-O0). */
  readonly trigger: { readonly value: number } | null;
  /** The op lists every queue's commands refer to. */
  readonly lists: OpLists;
  /** Conservative forms (queues/sync-forms.ts) and where sync words live; absent: aggressive. */
  readonly sync?: SyncForms | undefined;
}

/**
 * How a program synchronises: conservative (every poll `==` on a word that cannot pass the
 * awaited value) or aggressive (`>=` on progress counters), and whether compiler sync words live
 * in host memory (AMD's placement) or in the consumer GPU's memory.
 */
export interface SyncForms {
  readonly mode: "conservative" | "aggressive";
  readonly words: "host" | "gpu";
}

/** A program's sync forms (aggressive, GPU words when it records none). */
export function syncForms(p: QueueProgram): SyncForms {
  return p.sync ?? AGGRESSIVE;
}
const AGGRESSIVE: SyncForms = { mode: "aggressive", words: "gpu" };

/** Whether sync word w lives in host memory (breadcrumbs always: the host reads them in a hang). */
export function syncWordInHost(p: QueueProgram, w: number): boolean {
  return p.syncWords[w]!.kind === "breadcrumb" || syncForms(p).words === "host";
}

export type CompletionProtocol = "atomic" | "fence";

export function queueName(q: { readonly gpu: number; readonly engine: number }): string {
  return `gpu${q.gpu}.sdma${q.engine}`;
}

/** Commands in all queues. */
export function commandCount(p: QueueProgram): number {
  let n = 0;
  for (const q of p.queues) n += q.cmds.length;
  return n;
}

/** The ops of command i of a table (a view). */
export function opsOf(p: QueueProgram, t: CmdTable, i: number): Int32Array {
  return p.lists.of(t.opsHandle(i));
}

/**
 * Appends commands to one queue's table. Each method adds one command and returns its index;
 * `take` copies a command of another table verbatim (its op-list handle too: the builder's
 * program must use a pool that extends the source's), and the setters rewrite the last one.
 */
export class CmdBuilder {
  private c: Columns;
  private n = 0;
  constructor(expected = 16) {
    this.c = allocColumns(Math.max(4, expected));
  }
  /**
   * A builder that writes over t's own columns, for a rewrite that reads t's rows in order and
   * writes at most one row per row read (row j is written only once row j was read): the owner's
   * last rewrite of a program it drops (conservative sync at the end of compile) copies nothing.
   * t must not be read afterwards.
   */
  static over(t: CmdTable): CmdBuilder {
    const b = new CmdBuilder(0);
    b.c = t.c;
    b.clear = true;
    return b;
  }
  /** Rows hold old values (a builder `over` a table): a new row clears what it does not set.
   * Fresh columns are zero already (and a page never written is never faulted in). */
  private clear = false;
  get length(): number {
    return this.n;
  }
  private next(kind: number, mode: number, num: number, aux: number, ops: number): number {
    if (this.n === this.c.kind.length) this.grow(2 * this.n);
    const i = this.n++;
    const c = this.c;
    c.kind[i] = kind;
    c.mode[i] = mode;
    c.num[i] = num;
    c.aux[i] = aux;
    c.ops[i] = ops;
    if (this.clear) {
      c.id0[i] = c.id1[i] = c.id2[i] = 0;
      c.rk0[i] = c.rk1[i] = c.rk2[i] = 0;
      c.off0[i] = c.off1[i] = c.off2[i] = 0;
    }
    return i;
  }
  private grow(size: number): void {
    const g = allocColumns(size);
    for (const k of COLUMN_NAMES)
      (g[k] as Float64Array).set((this.c[k] as Float64Array).subarray(0, this.n));
    this.c = g;
  }
  private loc(i: number, slot: 0 | 1 | 2, rank: number, buffer: number, offset: number): void {
    const c = this.c;
    if (slot === 0) {
      c.rk0[i] = rank;
      c.id0[i] = buffer;
      c.off0[i] = offset;
    } else if (slot === 1) {
      c.rk1[i] = rank;
      c.id1[i] = buffer;
      c.off1[i] = offset;
    } else {
      c.rk2[i] = rank;
      c.id2[i] = buffer;
      c.off2[i] = offset;
    }
  }
  /** copy `bytes` from (srcRank, srcBuf, srcOff) to (dstRank, dstBuf, dstOff). */
  copy(
    sr: number,
    sb: number,
    so: number,
    dr: number,
    db: number,
    dOff: number,
    bytes: number,
    ops: number,
  ): number {
    const i = this.next(CMD.copy, 0, bytes, 0, ops);
    this.loc(i, 0, sr, sb, so);
    this.loc(i, 1, dr, db, dOff);
    return i;
  }
  /** One read of src written to dst and dst2 (COPY_LINEAR broadcast). */
  bcast(
    sr: number,
    sb: number,
    so: number,
    dr: number,
    db: number,
    dOff: number,
    d2r: number,
    d2b: number,
    d2Off: number,
    bytes: number,
    ops: number,
  ): number {
    const i = this.copy(sr, sb, so, dr, db, dOff, bytes, ops);
    this.c.kind[i] = CMD.bcast;
    this.loc(i, 2, d2r, d2b, d2Off);
    return i;
  }
  /** Exchanges `bytes` at a and b (COPY_SWAP). */
  swap(
    ar: number,
    ab: number,
    ao: number,
    br: number,
    bb: number,
    bo: number,
    bytes: number,
    ops: number,
  ): number {
    const i = this.copy(ar, ab, ao, br, bb, bo, bytes, ops);
    this.c.kind[i] = CMD.swap;
    return i;
  }
  /** Sets `bytes` at dst to the byte `value` (CONSTANT_FILL). */
  fill(dr: number, db: number, dOff: number, bytes: number, value: number, ops: number): number {
    const i = this.next(CMD.fill, 0, bytes, value, ops);
    this.loc(i, 1, dr, db, dOff);
    return i;
  }
  /** Blocks until (*word & mask) func value; func: FUNC index; word: sync word or signal id. */
  poll(
    space: number,
    word: number,
    rank: number,
    func: number,
    value: number,
    mask: number,
    why: PollReason,
    ops: number,
  ): number {
    const i = this.next(CMD.poll, modeOf(func, POLL_WHY.indexOf(why), space), value, mask, ops);
    this.c.id0[i] = word;
    this.c.rk0[i] = rank;
    return i;
  }
  /** Raises a word after every earlier command: FENCE (how fence) or ATOMIC add. */
  signal(
    space: number,
    word: number,
    rank: number,
    how: SignalHow,
    value: number,
    why: SignalReason,
    ops: number,
  ): number {
    const i = this.next(
      CMD.signal,
      modeOf(how === "fence" ? 0 : 1, SIGNAL_WHY.indexOf(why), space),
      value,
      0,
      ops,
    );
    this.c.id0[i] = word;
    this.c.rk0[i] = rank;
    return i;
  }
  /** Signals host completion slot `slot` after every earlier command of the queue. */
  completion(slot: number, ops: number): number {
    return this.next(CMD.completion, 0, slot, 0, ops);
  }
  /** Writes the global timestamp into timestamp slot `slot`. */
  timestamp(slot: number, ops: number): number {
    return this.next(CMD.timestamp, 0, slot, 0, ops);
  }
  /** Command i of `t`, verbatim. */
  take(t: CmdTable, i: number): number {
    if (this.n === this.c.kind.length) this.grow(2 * this.n);
    const j = this.n++;
    const c = this.c;
    const s = t.c;
    c.kind[j] = s.kind[i]!;
    c.mode[j] = s.mode[i]!;
    c.num[j] = s.num[i]!;
    c.aux[j] = s.aux[i]!;
    c.id0[j] = s.id0[i]!;
    c.id1[j] = s.id1[i]!;
    c.id2[j] = s.id2[i]!;
    c.rk0[j] = s.rk0[i]!;
    c.rk1[j] = s.rk1[i]!;
    c.rk2[j] = s.rk2[i]!;
    c.off0[j] = s.off0[i]!;
    c.off1[j] = s.off1[i]!;
    c.off2[j] = s.off2[i]!;
    c.ops[j] = s.ops[i]!;
    return j;
  }
  /** Rewrites command i's value (poll, signal) or byte (fill). */
  setValue(i: number, v: number): void {
    if (this.c.kind[i] === CMD.fill) this.c.aux[i] = v;
    else this.c.num[i] = v;
  }
  /** Rewrites command i's word id (poll/signal slot 0). */
  setWord(i: number, w: number): void {
    this.c.id0[i] = w;
  }
  /** Rewrites poll i's mask. */
  setMask(i: number, mask: number): void {
    this.c.aux[i] = mask;
  }
  /** Rewrites poll i's compare (a FUNC index). */
  setFunc(i: number, func: number): void {
    this.c.mode[i] = (this.c.mode[i]! & ~7) | func;
  }
  setOps(i: number, handle: number): void {
    this.c.ops[i] = handle;
  }
  /** The table. Its columns are views of the builder's (a copy only when over a quarter of
   * the room is unused): every typed-array allocation is external memory, which makes V8 run
   * full collections of a large heap (docs/performance.md). */
  done(): CmdTable {
    const room = this.c.kind.length;
    if (this.n !== room) this.c = firstColumns(this.c, this.n, room - this.n > room / 4);
    return new CmdTable(this.n, this.c);
  }
}

/** Whether two programs are the same (what comparing their readable JSON meant): O(size). */
export function programsEqual(a: QueueProgram, b: QueueProgram): boolean {
  if (a === b) return true;
  if (
    a.ranks !== b.ranks ||
    a.completion !== b.completion ||
    a.completionSlots !== b.completionSlots ||
    a.timestampSlots !== b.timestampSlots ||
    (a.trigger?.value ?? null) !== (b.trigger?.value ?? null) ||
    a.queues.length !== b.queues.length ||
    a.syncWords.length !== b.syncWords.length ||
    syncForms(a).mode !== syncForms(b).mode ||
    syncForms(a).words !== syncForms(b).words
  )
    return false;
  for (let w = 0; w < a.syncWords.length; w++) {
    const x = a.syncWords[w]!;
    const y = b.syncWords[w]!;
    if (x.kind !== y.kind || x.gpu !== y.gpu) return false;
    if (x.kind === "progress" && y.kind === "progress") {
      if (x.producer !== y.producer || x.consumer !== y.consumer) return false;
    } else if (x.kind !== "progress" && y.kind !== "progress" && x.queue !== y.queue) return false;
  }
  for (let q = 0; q < a.queues.length; q++) {
    const x = a.queues[q]!;
    const y = b.queues[q]!;
    if (x.gpu !== y.gpu || x.engine !== y.engine || x.cmds.length !== y.cmds.length) return false;
    for (const k of COLUMN_NAMES) {
      if (k === "ops") continue;
      const u = x.cmds.c[k];
      const v = y.cmds.c[k];
      for (let i = 0; i < x.cmds.length; i++) if (u[i] !== v[i]) return false;
    }
    for (let i = 0; i < x.cmds.length; i++) {
      const ha = x.cmds.c.ops[i]!;
      const hb = y.cmds.c.ops[i]!;
      const n = a.lists.data[ha]!;
      if (n !== b.lists.data[hb]) return false;
      for (let k = 1; k <= n; k++) if (a.lists.data[ha + k] !== b.lists.data[hb + k]) return false;
    }
  }
  return true;
}

/** A 64-bit structural hash of a program (equal programs, equal hashes), 16 hex digits. */
export function programHash(p: QueueProgram): string {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  const f64 = new Float64Array(1);
  const u32 = new Uint32Array(f64.buffer);
  const mix = (x: number): void => {
    a = Math.imul(a ^ x, 0x01000193);
    b = Math.imul(b ^ x, 0x5bd1e995);
    b ^= b >>> 13;
  };
  const num = (v: number): void => {
    if ((v | 0) === v) mix(v | 0);
    else {
      f64[0] = v;
      mix(u32[0]!);
      mix(u32[1]!);
    }
  };
  num(p.ranks);
  mix(p.completion === "atomic" ? 1 : 2);
  num(p.completionSlots);
  num(p.timestampSlots);
  num(p.trigger?.value ?? -1);
  if (p.sync) mix((p.sync.mode === "conservative" ? 4 : 8) | (p.sync.words === "host" ? 1 : 2));
  for (const w of p.syncWords) {
    num(w.gpu);
    if (w.kind === "progress") {
      num(w.producer);
      num(w.consumer);
    } else num(-1 - w.queue);
  }
  for (const q of p.queues) {
    num(q.gpu);
    num(q.engine);
    num(q.cmds.length);
    const c = q.cmds.c;
    for (let i = 0; i < q.cmds.length; i++) {
      mix(c.kind[i]! | (c.mode[i]! << 8));
      num(c.num[i]!);
      num(c.aux[i]!);
      if (c.kind[i]! <= CMD.fill) {
        num(c.off0[i]!);
        num(c.off1[i]!);
        num(c.off2[i]!);
      }
      mix(c.id0[i]! ^ (c.id1[i]! << 10) ^ (c.id2[i]! << 20));
      mix(c.rk0[i]! | (c.rk1[i]! << 10) | (c.rk2[i]! << 20));
      const h = c.ops[i]!;
      const n = p.lists.data[h]!;
      mix(n);
      for (let k = 1; k <= n; k++) mix(p.lists.data[h + k]!);
    }
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}
