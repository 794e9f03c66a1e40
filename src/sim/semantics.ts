// The schedule's meaning, checked during the run (not only the final buffers, run.ts
// checkFinalState). When the IR is known and every command says which IR ops it implements (the
// manifest's source map, a trace's `ops`), the executor reports as DMAC6013:
//
// - implementation: every data command does what its ops say (its bytes lie inside their
//   regions, with the same source-to-destination shift, or the same fill byte), and at the end
//   every byte of every data op was moved exactly once (a dropped or duplicated packet, a packet
//   that moves other bytes than its source map says);
// - notify: a user signal is written only by ATOMIC add 1, and only if the schedule notifies it
//   (an external signal is raised by its producer alone); it is raised exactly as many times as
//   the schedule has `notify`s of it; and when it reaches k, every command of every data op
//   before the k-th notify in program order that writes the signal's rank happened before
//   (vector clocks: the word's clock, the join of its writes, covers the command's epoch);
// - `when`: a command of an op inside `when FLAG@r CMP V` (data or notify) runs only after a
//   poll of that word saw a value meeting CMP V, on its own queue or on one ordered before it;
// - completion slots: each is written exactly once, by the queue the manifest gives it, and
//   after every command of every op its packet announces; every data op that ran is announced
//   by some slot (else the host cannot tell when it landed).
//
// The checks use happens-before, never timing, so a stream that is right only because of the
// model's latencies is still reported. The same hooks optionally record a sync trace (what every
// data command did and what it was ordered after), which the fuzzers' equivalence oracle reads.

import { wordClockCopy, type Memory } from "./memory.js";
import { REGION_CODE } from "./regions.js";
import {
  keepSlotVc,
  notifiesAtEnd,
  slotsAtEnd,
  wordLanded,
  wordWriteIssued,
} from "./meaning/words.js";
import { coverageAtEnd, dataDone } from "./meaning/implementation.js";
import { observed } from "./meaning/guards.js";
import { createMeaningState, MAX_REPORTS } from "./meaning/state.js";
import {
  BCAST,
  CMD_KINDS,
  COPY,
  FILL,
  opsAt,
  SWAP,
  type Meaning,
  type PackedProgram,
  type SimCmd,
} from "./program.js";

type DataCmd = Extract<SimCmd, { kind: "copy" | "bcast" | "swap" | "fill" }>;

/** One data command as it ran: operands are (gpu, buffer id, offset) triples. */
export interface SyncData {
  readonly queue: number;
  readonly at: number;
  /** The entry's IR ops (as the input says; only the unmutated original's are trustworthy). */
  readonly ops: readonly number[] | undefined;
  readonly kind: DataCmd["kind"];
  readonly operands: readonly (readonly [number, number, number])[];
  readonly bytes: number;
  /** The fill byte (0 for the others). */
  readonly value: number;
  /** Its epoch: the queue's clock value when it ran. */
  readonly clock: number;
  /** Its queue's vector clock when it ran. */
  readonly vc: readonly number[];
}

/** A queue's write to a user signal or a completion slot, when it landed. */
export interface SyncWrite {
  readonly queue: number;
  readonly at: number;
  readonly ops: readonly number[] | undefined;
  readonly addr: number;
  readonly region: "signal" | "completion";
  readonly add: boolean;
  readonly operand: number;
  readonly valueAfter: number;
  /** The word's clock after the write (the join of every write so far). */
  readonly vc: readonly number[];
}

/** A poll of a user signal that was satisfied: the value it saw, and its fresh epoch. */
export interface SyncObservation {
  readonly queue: number;
  readonly addr: number;
  readonly value: number;
  readonly clock: number;
}

export interface SyncTrace {
  readonly data: SyncData[];
  readonly writes: SyncWrite[];
  readonly observations: SyncObservation[];
}

/** What execute.ts calls; see the module comment. */
export interface Semantics {
  /** Whether a satisfied poll of this word region is an observation (gets its own epoch). */
  observes(region: number): boolean;
  observed(q: number, region: number, value: number, clock: number): void;
  /** Queue q's data command `entry` (row `cmd`) moved its bytes (operands resolved). */
  dataDone(
    q: number,
    entry: number,
    cmd: number,
    gpu: Int32Array,
    buffer: Int32Array,
    offset: Float64Array,
    vc: Int32Array,
  ): void;
  /** A FENCE/ATOMIC of queue q to word region `region` was issued (pending-write row `row`). */
  wordWriteIssued(q: number, entry: number, region: number, vc: Int32Array, row: number): void;
  /** The write of row `row` landed (queue >= Q: the host or the producer). */
  wordLanded(row: number, region: number, queue: number, add: boolean, operand: number): void;
  /** Queue q's vector clock (the one its hooks are given) is about to join another clock. */
  joining(q: number): void;
  /** End of the run; `clean`: every queue drained and no error was reported. */
  finish(clean: boolean): void;
  readonly trace: SyncTrace | undefined;
}

export interface SemanticsContext {
  readonly p: PackedProgram;
  readonly mem: Memory;
  /** Global command id of queue q's entry i is cmdBase[q] + i. */
  readonly cmdBase: Int32Array;
  readonly report: (where: string, detail: string, hint?: string) => void;
  readonly where: (q: number, at: number) => string;
  /** The meaning to check (undefined: record only). */
  readonly meaning: Meaning | undefined;
  readonly record: boolean;
}

export function createSemantics(ctx: SemanticsContext): Semantics | undefined {
  const { p, mem, meaning } = ctx;
  if (!meaning && !ctx.record) return undefined;
  const Q = p.queues.length;
  const R = mem.starts.length;
  const C = p.cmds;

  // Word regions by index: user signals and completion slots.
  const kinds = mem.kind;
  const SIG = REGION_CODE.signal;
  const SLOT = REGION_CODE.completion;
  const regionAt = (addr: number): number => {
    let lo = 0;
    let hi = R - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const a = mem.starts[mid]!;
      if (a === addr) return mid;
      if (a < addr) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };

  // ---- the sync trace (fuzz oracle) --------------------------------------------------------
  const trace: SyncTrace | undefined = ctx.record
    ? { data: [], writes: [], observations: [] }
    : undefined;
  const rowAt: number[] = [];
  const rowOps: (readonly number[] | undefined)[] = [];

  const checker = meaning ? createChecker(ctx, meaning, regionAt) : undefined;

  return {
    trace,
    observes: (region) => kinds[region] === SIG,
    observed(q, region, value, clock) {
      checker?.observed(q, region, value, clock);
      if (trace) trace.observations.push({ queue: q, addr: mem.starts[region]!, value, clock });
    },
    dataDone(q, entry, cmd, gpu, buffer, offset, vc) {
      checker?.dataDone(q, entry, cmd, gpu, buffer, offset, vc);
      if (trace) {
        const kind = C.kind[cmd]!;
        const n = kind === COPY || kind === SWAP ? 2 : kind === BCAST ? 3 : 1;
        const operands: [number, number, number][] = [];
        for (let k = 0; k < n; k++) operands.push([gpu[k]!, buffer[k]!, offset[k]!]);
        trace.data.push({
          queue: q,
          at: C.at[cmd]!,
          ops: opsAt(C, cmd),
          kind: CMD_KINDS[kind] as DataCmd["kind"],
          operands,
          bytes: C.bytes[cmd]!,
          value: kind === FILL ? C.value[cmd]! & 0xff : 0,
          clock: mem.epochClock[cmd]!,
          vc: Array.from(vc),
        });
      }
    },
    wordWriteIssued(q, entry, region, vc, row) {
      checker?.wordWriteIssued(q, entry, region, vc);
      if (trace) {
        const e = p.queues[q]!.first + entry;
        rowAt[row] = C.at[e]!;
        rowOps[row] = opsAt(C, e);
      }
    },
    wordLanded(row, region, queue, add, operand) {
      checker?.wordLanded(region, queue, add, operand);
      if (trace && queue < Q && (kinds[region] === SIG || kinds[region] === SLOT))
        trace.writes.push({
          queue,
          at: rowAt[row] ?? -1,
          ops: rowOps[row],
          addr: mem.starts[region]!,
          region: kinds[region] === SIG ? "signal" : "completion",
          add,
          operand,
          valueAfter: mem.words.value[region]!,
          vc: Array.from(wordClockCopy(mem.words, region, Q + 2)),
        });
    },
    joining(q) {
      checker?.joining(q);
    },
    finish(clean) {
      checker?.finish(clean);
    },
  };
}

/** The meaning checks: the Semantics hooks, without the pending-write rows only the trace uses. */
type Checker = Pick<Semantics, "observed" | "dataDone" | "finish" | "joining"> & {
  wordWriteIssued(q: number, entry: number, region: number, vc: Int32Array): void;
  wordLanded(region: number, queue: number, add: boolean, operand: number): void;
};

/**
 * The meaning checks, one module per family over one state record (src/sim/meaning/): guards.ts
 * (`when`), implementation.ts (what each data command moved, every byte once), words.ts (user
 * signals and completion slots). The end-of-run checks report in this order.
 */
function createChecker(
  ctx: SemanticsContext,
  meaning: Meaning,
  regionAt: (addr: number) => number,
): Checker {
  const x = createMeaningState(ctx, meaning, regionAt);
  return {
    observed: (q, region, value, clock) => observed(x, q, region, value, clock),
    dataDone: (q, entry, cmd, gpu, buffer, offset, vc) =>
      dataDone(x, q, entry, cmd, gpu, buffer, offset, vc),
    wordWriteIssued: (q, entry, region, vc) => wordWriteIssued(x, q, entry, region, vc),
    wordLanded: (region, queue, add, operand) => wordLanded(x, region, queue, add, operand),
    joining: (q) => keepSlotVc(x, q),
    finish(clean) {
      slotsAtEnd(x, clean);
      if (clean) {
        notifiesAtEnd(x);
        coverageAtEnd(x);
      }
      if (x.reports > MAX_REPORTS)
        ctx.report(
          "end of run",
          `${x.reports - MAX_REPORTS} more schedule-meaning errors not shown`,
        );
    },
  };
}
