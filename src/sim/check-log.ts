// The checks of a large run on another thread (checker.ts): the event loop writes each CheckSink
// call as a record into a ring of doubles in shared memory (CheckLog), and the other thread
// replays the records in order into the same check functions (LogReader). Neither waits for
// the other except when the ring is full or empty, so on two cores the checks cost the event loop
// only the writing of its records.
//
// A finding cannot be formatted there: it names queue positions (with their source lines, which
// only this thread's program can say). So the other thread sends each finding as its code and
// arguments, with each position as a token (whereToken), and the number of the record that found
// it; this thread puts the positions in and merges the findings with its own in record order
// (execute.ts), which is the order the inline checks would have reported them in.
//
// Records (doubles): DATA q cmd n (gpu buffer offset)*n | SIGNAL q cmd region row | TRIGGER row |
// PRODUCE row | LANDED row region queue add operand | POLL q region raw | EVENTS_DONE |
// END completed mainErrors.

import {
  checkData,
  checkEventsDone,
  checkLanded,
  checkPoll,
  checkProduce,
  checkSignal,
  checkTrigger,
  type CheckResult,
  type CheckSink,
  type CheckState,
} from "./checker.js";
import {
  LOG_HEADER_WORDS,
  LOG_READ,
  LOG_READER_WAITS,
  LOG_STOPPED,
  LOG_WRITER_WAITS,
  LOG_WRITTEN,
  stopLog,
} from "../util/shared-layouts.js";

const DATA = 1;
const SIGNAL = 2;
const TRIGGER = 3;
const PRODUCE = 4;
const LANDED = 5;
const POLL = 6;
const EVENTS_DONE = 7;
const END = 8;

/** Ring size in doubles (16 MiB): a power of two, far below 2^30 (positions wrap at 2^30). */
export const RING_DOUBLES = 1 << 21;
const MASK = RING_DOUBLES - 1;
/**
 * Where the writer first looks at the reader's position and publishes its own (CheckLog.roomUpTo,
 * publishAt): after a few hundred records.
 */
const FIRST_LOOK = 1 << 12;
const WRAP = (1 << 30) - 1;
/** Positions are published (and consumed positions returned) every this many doubles. */
const BATCH = 1 << 13;
/**
 * A reader waiting for records is woken every this many doubles (and at the end, and when the
 * writer waits for room): each wake is a context switch, which cost the reader more than the
 * records it then had to replay when it woke at every batch (~600 on the 262,144-copy all-to-all).
 */
const WAKE = 1 << 16;
/** The reader replays at most this many doubles between returning its position. */
const CHUNK = 1 << 16;

// The header's words (an Int32Array): util/shared-layouts.ts, LOG_*.
/** The header's length in 32-bit words. */
export const HEADER_INTS = LOG_HEADER_WORDS;

/** The shared memory of one log (sent to the other thread). */
export interface LogMemory {
  readonly ring: SharedArrayBuffer;
  readonly header: SharedArrayBuffer;
}

export function newLogMemory(): LogMemory {
  return {
    ring: new SharedArrayBuffer(RING_DOUBLES * 8),
    header: new SharedArrayBuffer(HEADER_INTS * 4),
  };
}

/** A queue position as a token (the other thread cannot format it); see placeTokens. */
export const whereToken = (q: number, at: number): string => `\u0000${q},${at}\u0000`;

const TOKEN = /\u0000(\d+),([^\u0000]+)\u0000/g;

/** `text` with every position token replaced by `where(q, at)`. */
export function placeTokens(text: string, where: (q: number, at: number) => string): string {
  return text.includes("\u0000")
    ? text.replace(TOKEN, (_, q: string, at: string) => where(Number(q), Number(at)))
    : text;
}

/**
 * The event loop's side: each call is a record in the ring. `finish` writes END and waits for
 * the other thread's findings (`result`: blocks until they come, or throws its error). With
 * `drain` (a reader in this same thread: check-replay.ts), a full ring is drained by it instead
 * of waited on; `gone` says that the reading thread has ended without a word (no more room will
 * come: records are dropped, and `result` says what happened).
 */
export class CheckLog implements CheckSink {
  calls = 0;
  private readonly ring: Float64Array;
  private readonly header: Int32Array;
  /** Doubles written, and where the last wake-up was (absolute). */
  private w = 0;
  private woken = 0;
  /**
   * Where the room last seen ends (absolute): the reader's position then, plus the ring; and
   * where the next batch is published. Both come first early (FIRST_LOOK), not when the ring
   * first fills or a batch is full: V8 compiles a slow path into the event loop only if it has run
   * by then, and else threw the loop's compiled code away when it first ran (the ring's first
   * fill came a fifth of the way into the 262,144-copy all-to-all).
   */
  private roomUpTo = FIRST_LOOK;
  private publishAt = FIRST_LOOK;

  constructor(
    memory: LogMemory,
    private readonly result: (completed: boolean, mainErrors: boolean) => CheckResult,
    private readonly reader: {
      readonly drain?: (() => void) | undefined;
      readonly gone?: (() => boolean) | undefined;
    } = {},
  ) {
    this.ring = new Float64Array(memory.ring);
    this.header = new Int32Array(memory.header);
  }

  data(
    q: number,
    cmd: number,
    n: number,
    gpu: Int32Array,
    buffer: Int32Array,
    offset: Float64Array,
  ): void {
    const at = this.room(4 + 3 * n);
    const d = this.ring;
    const M = MASK;
    d[at & M] = DATA;
    d[(at + 1) & M] = q;
    d[(at + 2) & M] = cmd;
    d[(at + 3) & M] = n;
    for (let k = 0; k < n; k++) {
      d[(at + 4 + 3 * k) & M] = gpu[k]!;
      d[(at + 5 + 3 * k) & M] = buffer[k]!;
      d[(at + 6 + 3 * k) & M] = offset[k]!;
    }
    this.done(at + 4 + 3 * n);
  }

  signal(q: number, cmd: number, region: number, row: number): void {
    this.put(SIGNAL, q, cmd, region, row);
  }

  trigger(row: number): void {
    this.put(TRIGGER, row, 0, 0, 0);
  }

  produce(row: number): void {
    this.put(PRODUCE, row, 0, 0, 0);
  }

  landed(row: number, region: number, queue: number, add: boolean, operand: number): void {
    this.put(LANDED, row, region, queue, add ? 1 : 0, operand);
  }

  poll(q: number, region: number, raw: number): void {
    this.put(POLL, q, region, raw, 0);
  }

  eventsDone(): void {
    this.put(EVENTS_DONE, 0, 0, 0, 0);
    // (Published and the reader woken now: it replays the rest while this thread ends the run,
    // ~10 ms of the 262,144-copy all-to-all, instead of after END.)
    this.publish();
  }

  finish(completed: boolean, mainErrors: boolean): CheckResult {
    this.put(END, completed ? 1 : 0, mainErrors ? 1 : 0, 0, 0);
    this.publish();
    return this.result(completed, mainErrors);
  }

  /**
   * A record of a kind and four fields, or five when `f` is given (LANDED): unused fields are
   * written, never read.
   */
  private put(kind: number, a: number, b: number, c: number, e: number, f?: number): void {
    const n = f === undefined ? 5 : 6;
    const at = this.room(n);
    const d = this.ring;
    const M = MASK;
    d[at & M] = kind;
    d[(at + 1) & M] = a;
    d[(at + 2) & M] = b;
    d[(at + 3) & M] = c;
    d[(at + 4) & M] = e;
    if (f !== undefined) d[(at + 5) & M] = f;
    this.done(at + n);
  }

  /** The position of a record of `n` doubles, once the ring has room for it. */
  private room(n: number): number {
    if (this.w + n > this.roomUpTo) this.waitForRoom(n);
    return this.w;
  }

  private done(end: number): void {
    this.w = end;
    this.calls++;
    if (end >= this.publishAt) this.publish(end - this.woken >= WAKE);
  }

  /** Publishes the position; `wake`: and wakes a reader waiting for it. */
  private publish(wake = true): void {
    this.publishAt = this.w + BATCH;
    Atomics.store(this.header, LOG_WRITTEN, this.w & WRAP);
    if (!wake || Atomics.load(this.header, LOG_READER_WAITS) === 0) return;
    this.woken = this.w;
    Atomics.notify(this.header, LOG_WRITTEN);
  }

  private waitForRoom(n: number): void {
    this.publish();
    this.reader.drain?.();
    for (;;) {
      const r = Atomics.load(this.header, LOG_READ);
      this.roomUpTo = this.w - ((this.w - r) & WRAP) + RING_DOUBLES;
      if (this.w + n <= this.roomUpTo) return;
      // The reader stopped (an exception there) or its thread ended: finish's wait says which.
      if (Atomics.load(this.header, LOG_STOPPED) !== 0 || this.reader.gone?.() === true) {
        this.roomUpTo = this.w + RING_DOUBLES; // (records are dropped from here on)
        return;
      }
      Atomics.store(this.header, LOG_WRITER_WAITS, 1);
      Atomics.wait(this.header, LOG_READ, r, 100);
      Atomics.store(this.header, LOG_WRITER_WAITS, 0);
    }
  }
}

/** END's fields: how the run ended, as the event loop saw it. */
export interface LogEnd {
  readonly completed: boolean;
  readonly mainErrors: boolean;
}

/**
 * The reading side: replays the records into the checks on `s`, in order. While record k is
 * replayed, s.call is k (its findings are numbered by it).
 */
export class LogReader {
  private readonly d: Float64Array;
  private readonly header: Int32Array;
  private readonly scratch: Operands = {
    gpu: new Int32Array(3),
    buffer: new Int32Array(3),
    offset: new Float64Array(3),
  };
  /** Doubles read (absolute). */
  private r = 0;
  private end: LogEnd | undefined;

  constructor(
    memory: LogMemory,
    private readonly s: CheckState,
  ) {
    this.d = new Float64Array(memory.ring);
    this.header = new Int32Array(memory.header);
  }

  /** Replays until END, waiting for the writer (on another thread) as needed. */
  toEnd(): LogEnd {
    try {
      for (;;) {
        const w = this.published();
        if (((w - this.r) & WRAP) === 0) {
          // (Announced first: a writer that publishes after this store sees it and wakes us; one
          // that published before it changed LOG_WRITTEN, and the wait returns at once.)
          Atomics.store(this.header, LOG_READER_WAITS, 1);
          Atomics.wait(this.header, LOG_WRITTEN, w);
          Atomics.store(this.header, LOG_READER_WAITS, 0);
        } else if (this.replay(w)) return this.end!;
      }
    } finally {
      stopLog(this.header.buffer as SharedArrayBuffer);
    }
  }

  /** Replays what was published, without waiting; END's fields once it came. */
  available(): LogEnd | undefined {
    for (;;) {
      const w = this.published();
      if (((w - this.r) & WRAP) === 0 || this.replay(w)) return this.end;
    }
  }

  /** The writer's published position; this reader's position goes back first (for room). */
  private published(): number {
    Atomics.store(this.header, LOG_READ, this.r & WRAP);
    if (Atomics.load(this.header, LOG_WRITER_WAITS) !== 0) Atomics.notify(this.header, LOG_READ);
    return Atomics.load(this.header, LOG_WRITTEN);
  }

  /** Replays a chunk of what was published up to w (so room goes back as it is made); END? */
  private replay(w: number): boolean {
    const r = this.r;
    const next = replayBatch(this.d, this.s, r, r + Math.min((w - r) & WRAP, CHUNK), this.scratch);
    if (next >= 0) {
      this.r = next;
      return false;
    }
    const at = -next - 1;
    this.end = {
      completed: this.d[(at + 1) & MASK] === 1,
      mainErrors: this.d[(at + 2) & MASK] === 1,
    };
    return true;
  }
}

interface Operands {
  readonly gpu: Int32Array;
  readonly buffer: Int32Array;
  readonly offset: Float64Array;
}

/**
 * Replays the records in [r, end) (whole records: a batch is published at a record's end);
 * returns `end`, or -1 - (END's position) when END came.
 */
function replayBatch(d: Float64Array, s: CheckState, r: number, end: number, o: Operands): number {
  const M = MASK;
  while (r < end) {
    s.call++;
    const kind = d[r & M]! | 0;
    switch (kind) {
      case DATA: {
        const n = d[(r + 3) & M]! | 0;
        for (let k = 0; k < n; k++) {
          o.gpu[k] = d[(r + 4 + 3 * k) & M]!;
          o.buffer[k] = d[(r + 5 + 3 * k) & M]!;
          o.offset[k] = d[(r + 6 + 3 * k) & M]!;
        }
        checkData(s, d[(r + 1) & M]! | 0, d[(r + 2) & M]! | 0, n, o.gpu, o.buffer, o.offset);
        r += 4 + 3 * n;
        break;
      }
      case SIGNAL:
        checkSignal(
          s,
          d[(r + 1) & M]! | 0,
          d[(r + 2) & M]! | 0,
          d[(r + 3) & M]! | 0,
          d[(r + 4) & M]! | 0,
        );
        r += 5;
        break;
      case TRIGGER:
        checkTrigger(s, d[(r + 1) & M]! | 0);
        r += 5;
        break;
      case PRODUCE:
        checkProduce(s, d[(r + 1) & M]! | 0);
        r += 5;
        break;
      case LANDED:
        checkLanded(
          s,
          d[(r + 1) & M]! | 0,
          d[(r + 2) & M]! | 0,
          d[(r + 3) & M]! | 0,
          d[(r + 4) & M] === 1,
          d[(r + 5) & M]!,
        );
        r += 6;
        break;
      case POLL:
        checkPoll(s, d[(r + 1) & M]! | 0, d[(r + 2) & M]! | 0, d[(r + 3) & M]!);
        r += 5;
        break;
      case EVENTS_DONE:
        checkEventsDone(s);
        r += 5;
        break;
      case END:
        return -1 - r;
      default:
        throw new Error(`check log: record kind ${kind} at ${r}`);
    }
  }
  return r;
}
