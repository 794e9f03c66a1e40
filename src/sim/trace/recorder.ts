// What a Perfetto trace needs to explain waiting, recorded while the executor runs: when each
// POLL_REGMEM began and stopped waiting, every write to a polled word (who issued it, when it
// landed, the value after it), and which of those writes released each poll. The host's scan of
// its completion slots is recorded the same way (a wait per slot).
//
// The executor calls these hooks only under `if (x.timeline)`, i.e. when a trace was asked for:
// a run without one pays a branch per poll and per word write, nothing else. Nothing here changes
// what the run does; the hooks only read the state they are given.
//
// Which write released a wait: the poll is satisfied when its check reads a value meeting the
// condition. Walking the word's writes back from the last one, the release is the earliest write
// after which the condition held continuously up to the check (for a counter raised by several
// ATOMICs, the one that reached the threshold, not a later one). If the condition already held on
// the word's initial value, no write released it (`release` -1).
// releaseOf finds it without the walk (release-search.ts), so a long run costs no more per wait.

import type { ExecState } from "../exec-state.js";
import type { Span } from "../execute.js";
import { POLL_FUNC_CODES, type PollFunc } from "../program.js";
import { holds } from "../../target/poll.js";
import { WriteSuffix } from "./release-search.js";

/** Writers that are not queues. */
export const HOST_WRITER = -1;
export const PRODUCER_WRITER = -2;

/** One write that landed on a word (signal, sync, completion slot, trigger). */
export interface WordWrite {
  /** The word, as reports name it (`ready@0`, `completion[3]`, `sync2 (...)`). */
  readonly word: string;
  /** The GPU whose memory holds it; -1 for host memory. */
  readonly wordGpu: number;
  /** Queue index of the FENCE/ATOMIC, or HOST_WRITER (trigger store), PRODUCER_WRITER. */
  readonly writer: number;
  /** Command row of the writing packet (-1 for the host and the producer). */
  readonly row: number;
  /** When it left its writer (the packet or the host store was done). */
  readonly issued: number;
  readonly landed: number;
  /** The word's whole value after the write. */
  readonly value: number;
}

/** One wait: a POLL_REGMEM of a queue, or the host reading one completion slot. */
export interface Wait {
  /** Queue index, or HOST_WRITER for the host's completion scan. */
  readonly queue: number;
  /** Command row of the POLL_REGMEM (-1 for the host). */
  readonly row: number;
  readonly word: string;
  /** The condition, as `>= 3` (masks other than all ones shown as `& 0xff >= 3`). */
  readonly condition: string;
  /** When the engine took the poll packet (the host started reading the slot). */
  readonly start: number;
  /** The first check of the word. */
  readonly firstCheck: number;
  /** When a check saw the condition hold; NaN if none did (deadlock, retries ran out). */
  end: number;
  /** Index into `writes` of the write that released it; -1 if none (initial value, or never). */
  release: number;
}

export interface SyncRecording {
  readonly writes: WordWrite[];
  readonly waits: Wait[];
  /** Per word (region index): its writes' indices, in landing order. */
  readonly writesOf: Map<number, number[]>;
  /** Per write in flight (its PendingWrites row): writer, row, issue time. */
  readonly inFlight: Map<number, readonly [writer: number, row: number, issued: number]>;
  /** Per queue: the index of its wait in progress, or -1. */
  readonly open: Map<number, number>;
  /** Per word and view of its value (`word:half:mask`): its writes' values for releaseOf. */
  readonly suffixes: Map<string, WriteSuffix>;
}

export function newSyncRecording(): SyncRecording {
  return {
    writes: [],
    waits: [],
    writesOf: new Map(),
    inFlight: new Map(),
    open: new Map(),
    suffixes: new Map(),
  };
}

/** A write was issued (it lands later): `pending` is its PendingWrites row. */
export function recordIssue(
  s: SyncRecording,
  pending: number,
  writer: number,
  row: number,
  issued: number,
): void {
  s.inFlight.set(pending, [writer, row, issued]);
}

/** The write of PendingWrites row `pending` landed on word region `word` (now applied). */
export function recordLanding(x: ExecState, s: SyncRecording, pending: number, word: number): void {
  const q = x.pending.queue[pending]!;
  const issue = s.inFlight.get(pending);
  s.inFlight.delete(pending);
  const writer = issue?.[0] ?? (q < x.Q ? q : q === x.HOST ? HOST_WRITER : PRODUCER_WRITER);
  const list = s.writesOf.get(word);
  const index = s.writes.length;
  if (list) list.push(index);
  else s.writesOf.set(word, [index]);
  s.writes.push({
    word: x.mem.region(word).name,
    wordGpu: x.regionGpu[word]!,
    writer,
    row: issue?.[1] ?? -1,
    issued: issue?.[2] ?? x.now,
    landed: x.now,
    value: x.mem.words.value[word]!,
  });
}

/** Queue q's engine took POLL_REGMEM row e at `start`; it first checks at `firstCheck`. */
export function recordPollStart(
  x: ExecState,
  s: SyncRecording,
  q: number,
  e: number,
  word: number,
  firstCheck: number,
): void {
  const C = x.C;
  const mask = C.b[e]! >>> 0;
  const op = POLL_FUNC_CODES[C.aux[e]!]!;
  const cond = `${op} ${C.value[e]! >>> 0}`;
  s.open.set(q, s.waits.length);
  s.waits.push({
    queue: q,
    row: e,
    word: x.mem.region(word).name,
    condition: mask === 0xffffffff ? cond : `& 0x${mask.toString(16)} ${cond}`,
    start: x.now,
    firstCheck,
    end: NaN,
    release: -1,
  });
}

/** Queue q's poll (row e) on word region `word` (dword `half`) saw its condition hold now. */
export function recordPollSatisfied(
  x: ExecState,
  s: SyncRecording,
  q: number,
  e: number,
  word: number,
  half: number,
): void {
  const k = s.open.get(q);
  if (k === undefined) return;
  s.open.delete(q);
  const C = x.C;
  const func = POLL_FUNC_CODES[C.aux[e]!]!;
  const mask = C.b[e]!;
  const ref = C.value[e]! >>> 0;
  const wait = s.waits[k]!;
  wait.end = x.now;
  const view = (v: number): number => masked(v, half, mask);
  const initialOk = holds(func, view(initialOf(x, word)), ref);
  wait.release = releaseOf(s, word, `${word}:${half}:${mask}`, view, initialOk, func, ref);
}

/** The host read completion slot `word` from `start` until `end`, waiting for `done`. */
export function recordHostSlot(
  x: ExecState,
  s: SyncRecording,
  word: number,
  done: number,
  start: number,
  end: number,
): void {
  s.waits.push({
    queue: HOST_WRITER,
    row: -1,
    word: x.mem.region(word).name,
    condition: `== ${done}`,
    start,
    firstCheck: start,
    end,
    release: releaseOf(s, word, `${word}:host`, (v) => v, initialOf(x, word) === done, "==", done),
  });
}

/** The host rang queue q's doorbell (commands up to `upTo` submitted), done at `end`. */
export function doorbellSpan(x: ExecState, q: number, upTo: number, end: number): Span {
  const name = x.p.queues[q]!.name;
  return {
    queue: -1,
    name: `doorbell ${name}`,
    start: end - x.T.hostDoorbellUs,
    end,
    args: { upTo },
  };
}

const initialOf = (x: ExecState, word: number): number => x.mem.initial[word]!;

/** The 32-bit dword `half` (0 or 4) of a word's value, masked: what a poll compares. */
function masked(value: number, half: number, mask: number): number {
  const raw = half === 4 ? Math.floor(value / 4294967296) >>> 0 : (value % 4294967296) >>> 0;
  return (raw & mask) >>> 0;
}

/**
 * The earliest of the word's writes after which `func ref` held on every (viewed) value up to
 * the last write (see the header); -1 when there is none or when the initial value already met
 * it. In O(log n) a wait (release-search.ts), each write taken into each view once.
 */
function releaseOf(
  s: SyncRecording,
  word: number,
  key: string,
  view: (value: number) => number,
  initialOk: boolean,
  func: PollFunc,
  ref: number,
): number {
  const list = s.writesOf.get(word) ?? [];
  let suffix = s.suffixes.get(key);
  if (!suffix) s.suffixes.set(key, (suffix = new WriteSuffix(view)));
  while (suffix.size < list.length) suffix.add(s.writes[list[suffix.size]!]!.value);
  const from = suffix.earliest(func, ref);
  return from === list.length || (from === 0 && initialOk) ? -1 : list[from]!;
}
