// `dmac postmortem DIR SNAPSHOT`: where each queue of a hung run stopped and what it waits for.
// Pure: takes the manifest, the queues' packet streams (dwords) and a snapshot
// (forensics/snapshot.ts) and returns one entry per queue:
// - the last completed step: the queue's breadcrumb value (the snapshot's, or the breadcrumb
//   word's value among its words), with that step's statement and source line (manifest
//   `breadcrumbs[].steps`, `sourceMap.stmts`);
// - where it stopped: the packet at the snapshot's read pointer, or else the first POLL_REGMEM
//   after the breadcrumb FENCE of that step (the packet a queue can block at) whose condition the
//   snapshot's word values do not meet;
// - what that poll waits on: the word (a progress word and the queue that FENCEs it, the queue's
//   own barrier, a user signal raised by outside code or a notify, the host's trigger), the
//   compare, and the value the snapshot read.

import { decodeStream } from "../backend/sdma/decode.js";
import type { Manifest, ManifestSyncWord } from "../backend/sdma/manifest.js";
import type { PacketPollFunc } from "../backend/sdma/packets.js";
import type { Snapshot } from "./snapshot.js";
import { holds } from "../sim/semantics.js";
import { pollFuncOfName, type PollFunc } from "../target/poll.js";

export interface Waiting {
  readonly address: number;
  /** What the word is, e.g. "sync12 (progress gpu1.sdma2 -> gpu0.sdma14)", "signal ready@0". */
  readonly word: string;
  readonly func: string;
  readonly value: number;
  readonly mask: number;
  /** The word's value in the snapshot, or null when it was not read. */
  readonly current: number | null;
  /** Who should write it: a queue name, "host" (trigger), "outside code", or "unknown". */
  readonly writer: string;
  /** Byte offset of the poll in the queue's stream. */
  readonly offset: number;
}

export interface QueueReport {
  readonly queue: string;
  readonly gpu: number;
  readonly engine: number;
  /** done: every step completed; stuck: it waits (or stopped); unknown: nothing to go on. */
  readonly state: "done" | "stuck" | "unknown";
  /** Last completed step (breadcrumb value), null without breadcrumbs. */
  readonly lastStep: number | null;
  readonly steps: number | null;
  /** The statement of the last completed step: 1-based line and column, or null. */
  readonly line: number | null;
  readonly col: number | null;
  /** The line of the step it stopped in (lastStep + 1), or null. */
  readonly nextLine: number | null;
  readonly waiting: Waiting | null;
}

/** The report (the `--format json` document's fields: schemas/postmortem.schema.json). */
export interface Postmortem {
  readonly source: string;
  readonly reason: Snapshot["reason"];
  readonly queues: readonly QueueReport[];
}

/** A packet's poll function as the executor names it ("reserved7": no function, never holds). */
const funcText = (f: PacketPollFunc): PollFunc | "reserved7" =>
  f === "reserved7" ? f : pollFuncOfName(f);

/** Whether the poll is satisfied by `x`: the executor's own test (sim/semantics.ts). */
function satisfied(func: PacketPollFunc, x: number, v: number): boolean {
  const f = funcText(func);
  return f !== "reserved7" && holds(f, x, v);
}

/** What the word at `address` is and who writes it. */
function describeWord(m: Manifest, address: number): { word: string; writer: string } {
  const sw = m.memory.syncWords.find((w) => w.address === address);
  if (sw) return describeSync(sw);
  const sig = m.memory.signals.find((s) => s.address === address);
  if (sig) return { word: `signal ${sig.name}@${sig.gpu}`, writer: "outside code or a notify" };
  if (m.trigger && m.trigger.address === address)
    return { word: "the prelaunch trigger", writer: "host" };
  return { word: "an unknown word", writer: "unknown" };
}

function describeSync(w: ManifestSyncWord): { word: string; writer: string } {
  if (w.kind === "progress")
    return { word: `sync${w.id} (progress ${w.producer} -> ${w.consumer})`, writer: w.producer };
  return { word: `sync${w.id} (${w.kind} of ${w.queue})`, writer: w.queue };
}

export function postmortem(
  m: Manifest,
  streams: ReadonlyMap<string, Uint32Array>,
  snap: Snapshot,
): Postmortem {
  const values = new Map<number, number>();
  for (const w of snap.words) values.set(w.address, w.value >>> 0);
  const queues = m.queues.map((q): QueueReport => {
    const s = snap.queues.find((x) => x.queue === q.name);
    const crumbs = m.breadcrumbs?.find((b) => b.queue === q.name);
    const lastStep = s?.breadcrumb ?? (crumbs ? (values.get(crumbs.address) ?? null) : null);
    const steps = crumbs ? crumbs.steps.length : null;
    const stmt =
      crumbs && lastStep !== null && lastStep > 0 ? crumbs.steps[lastStep - 1] : undefined;
    const at = stmt !== undefined && stmt >= 0 ? m.sourceMap.stmts[stmt] : undefined;
    const nextStmt = crumbs && lastStep !== null ? crumbs.steps[lastStep] : undefined;
    const next = nextStmt !== undefined && nextStmt >= 0 ? m.sourceMap.stmts[nextStmt] : undefined;
    const base = {
      queue: q.name,
      gpu: q.gpu,
      engine: q.engine,
      lastStep,
      steps,
      line: at?.line ?? null,
      col: at?.col ?? null,
      nextLine: next?.line ?? null,
    };
    if (steps !== null && lastStep === steps && (s?.rptr ?? null) === null)
      return { ...base, state: "done", waiting: null };
    const words = streams.get(q.name);
    const waiting = words
      ? blockedPoll(m, words, crumbs?.address, lastStep, s?.rptr ?? null, values)
      : null;
    const known = waiting !== null || s?.rptr != null || lastStep !== null;
    return { ...base, state: known ? "stuck" : "unknown", waiting };
  });
  return {
    source: m.sourceMap.file,
    reason: snap.reason,
    queues,
  };
}

/**
 * The poll the queue is blocked at: the one at `rptr` when given, else the first poll after the
 * breadcrumb FENCE of step `lastStep` (the stream start for step 0 or no breadcrumbs) that the
 * word values do not satisfy (or the first poll there when the value was not read).
 */
function blockedPoll(
  m: Manifest,
  words: Uint32Array,
  crumbAddr: number | undefined,
  lastStep: number | null,
  rptr: number | null,
  values: ReadonlyMap<number, number>,
): Waiting | null {
  const packets = decodeStream(words).packets;
  let from = 0;
  if (rptr !== null) from = packets.findIndex((e) => e.offset >= rptr);
  else if (crumbAddr !== undefined && lastStep !== null && lastStep > 0) {
    let seen = 0;
    from = packets.findIndex(
      (e) => e.packet.kind === "fence" && e.packet.addr === crumbAddr && ++seen === lastStep,
    );
    if (from >= 0) from++;
  }
  if (from < 0) return null;
  for (let k = from; k < packets.length; k++) {
    const e = packets[k]!;
    const p = e.packet;
    if (p.kind !== "poll_mem") {
      if (rptr !== null) return null; // the engine is not at a poll
      continue;
    }
    const current = values.get(p.addr) ?? null;
    if (rptr === null && current !== null && satisfied(p.func, (current & p.mask) >>> 0, p.value))
      continue;
    return {
      address: p.addr,
      ...describeWord(m, p.addr),
      func: funcText(p.func),
      value: p.value,
      mask: p.mask,
      current,
      offset: e.offset,
    };
  }
  return null;
}

const hex = (v: number): string => `0x${v.toString(16)}`;

/** The text report: one block per queue, the stuck ones first. */
export function formatPostmortem(
  r: Postmortem,
  lineText: (line: number) => string | undefined,
): string {
  const out: string[] = [`postmortem of ${r.source} (snapshot: ${r.reason})`];
  const order = [...r.queues].sort(
    (a, b) => Number(a.state !== "stuck") - Number(b.state !== "stuck"),
  );
  for (const q of order) {
    const step =
      q.lastStep === null
        ? "no breadcrumbs"
        : `step ${q.lastStep} of ${q.steps} completed` +
          (q.line !== null ? ` (line ${q.line}: ${lineText(q.line)?.trim() ?? ""})` : "");
    out.push(`${q.queue}: ${q.state}, ${step}`);
    if (q.state === "stuck" && q.nextLine !== null)
      out.push(
        `  stopped in step ${q.lastStep! + 1} (line ${q.nextLine}: ${lineText(q.nextLine)?.trim() ?? ""})`,
      );
    const w = q.waiting;
    if (w)
      out.push(
        `  waits at byte ${hex(w.offset)}: POLL ${w.word} at ${hex(w.address)}` +
          `${w.mask >>> 0 !== 0xffffffff ? ` & ${hex(w.mask >>> 0)}` : ""} ${w.func} ${w.value}` +
          ` (now ${w.current ?? "unknown"}); written by ${w.writer}`,
      );
  }
  return out.join("\n") + "\n";
}
