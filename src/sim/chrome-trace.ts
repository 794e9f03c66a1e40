// Chrome trace-event format (the JSON object form, which Perfetto UI and chrome://tracing load) of
// one executor run, laid out to show where the time went and who waited for whom (docs/traces.md):
//   processes  one per GPU (`GPU g`) and one for the host, host first;
//   threads    one per queue (`engine e (gpuG.sdmaE)`), the host's own track, and one track per
//              external signal the modelled producer raises;
//   X slices   commands (cat `engine`, named by packet: `COPY_LINEAR gpu0->gpu1`); waits (cat
//              `wait`: a poll from the engine taking its packet to the check that saw the
//              condition hold, and the host's read of each completion slot); host work (cat
//              `host`: trigger store, submits, doorbells, completion polling); producer raises;
//   flows      `s` -> `f` (cat `flow`) from the slice that issued the write releasing a wait to
//              that wait (trace/recorder.ts says which write that is);
//   instants   each word write landing, on the process whose memory holds the word;
//   counters   the load of each xGMI link, per direction, and of each GPU's host link (PCIe),
//              upload and download (GB/s).
// Every command and wait slice's args name its queue, packet offset (`dword`; `command` for a
// trace input), packet, source `file:line:col` and statement, and the loop instance(s) its packet
// implements (`instance`: `s=1 k=0..3`). Times are microseconds.
//
// Flows are the format's v1 `s`/`f` events, not v2's `bind_id` on the slices: one write may
// release several waits (the trigger store releases every queue's first poll; a counter several
// pollers), and v2 gives a slice a single flow id. Perfetto binds `s` to the slice open on its
// track at its timestamp and `f` with `bp: "e"` to the enclosing slice, so each endpoint is put
// strictly inside its slice (the source's middle; the wait's middle or later, never before its
// source), and events are written in time order with slices before flow events at a tie.
//
// A big run's trace is longer than a string can be: chromeTraceJson produces the text as it is
// written, each event rendered only then, in the order trace/event-order.ts puts references in.

import type { IrModule } from "../ir/ir.js";
import { StreamedData } from "../util/streamed-data.js";
import type { CounterSample, Span, Timeline } from "./execute.js";
import { ATOMIC, BCAST, FENCE, FILL, isDataKind, SWAP, TIMESTAMP } from "./program.js";
import type { PackedProgram } from "./program.js";
import { addressBook, type AddressBook } from "./trace/addresses.js";
import { EventOrder } from "./trace/event-order.js";
import { packetName } from "./trace/names.js";
import {
  HOST_WRITER,
  newSyncRecording,
  PRODUCER_WRITER,
  type Wait,
  type WordWrite,
} from "./trace/recorder.js";
import { instanceLocator, rowAt, sourceLocator, type SourcePlace } from "./trace/source.js";

type Args = Record<string, string | number>;

export type ChromeEvent =
  | {
      name: string;
      cat: string;
      ph: "X";
      ts: number;
      dur: number;
      pid: number;
      tid: number;
      args: Args;
    }
  | {
      name: string;
      cat: string;
      ph: "i";
      ts: number;
      pid: number;
      tid: number;
      s: "t" | "p" | "g";
      args?: Args;
    }
  | { name: string; cat: string; ph: "C"; ts: number; pid: number; args: Record<string, number> }
  | {
      name: string;
      cat: string;
      ph: "s" | "f";
      id: number;
      ts: number;
      pid: number;
      tid: number;
      bp?: "e";
    }
  | {
      name: "process_name" | "thread_name";
      ph: "M";
      pid: number;
      tid: number;
      args: { name: string };
    }
  | {
      name: "process_sort_index" | "thread_sort_index";
      ph: "M";
      pid: number;
      tid: number;
      args: { sort_index: number };
    };

type SliceEvent = Extract<ChromeEvent, { ph: "X" }>;
/** Where a slice is: enough to put a flow's end inside it. */
type SlicePlace = Pick<SliceEvent, "ts" | "dur" | "pid" | "tid">;

export interface ChromeTrace {
  traceEvents: ChromeEvent[];
  displayTimeUnit: "ns" | "ms";
}

export interface ChromeTraceOptions {
  /** The IR (with its source file): statements in the slices' args. */
  readonly module?: IrModule | undefined;
  /** When the run ended (waits never satisfied end there); default the last recorded time. */
  readonly endUs?: number | undefined;
}

/** Host tracks: the host's own, then one per word the producer raises. */
const HOST_TID = 0;
const PRODUCER_TID = 1;

/** What an ordered event refers to (trace/event-order.ts): the record its index picks. */
const COMMAND = 0; // timeline span
const HOST = 1; // host span, in start order
const RAISE = 2; // word write (a producer's)
const WRITE = 3; // word write
const WAIT = 4; // wait
const FLOW_START = 5; // flow (in the order of the waits they release)
const FLOW_END = 6; // flow
const POLLING = 7; // the host's completion polling (one)
const INSTANT = 8; // timeline instant
const COUNTER = 9; // counter sample

/** Order at one timestamp: slices and the rest, then flow starts, then flow ends. */
const rank = (kind: number): number => (kind === FLOW_START ? 1 : kind === FLOW_END ? 2 : 0);

/** The trace as one document (tests, small runs); chromeTraceJson streams the same text. */
export function chromeTrace(
  p: PackedProgram,
  r: { readonly timeline: Timeline | undefined },
  opts: ChromeTraceOptions = {},
): ChromeTrace {
  const traceEvents: ChromeEvent[] = [];
  forEachEvent(p, r, opts, (ev) => void traceEvents.push(ev));
  return { traceEvents, displayTimeUnit: "ns" };
}

/** How many events are stringified at once. */
const BATCH = 1000;

/** The buffer each chunk is encoded into: reused, so no event's text outlives its write. */
const CHUNK_BYTES = 1 << 20;

/**
 * `JSON.stringify(chromeTrace(...)) + "\n"`, produced in chunks of a MiB as it is written: the
 * text of a big run (a 4096-piece ring: 3.8M events, 855 MB) is longer than a string can be, and
 * the event objects alone would take gigabytes. Events are rendered a thousand at a time,
 * encoded into the chunk and dropped.
 */
export function chromeTraceJson(
  p: PackedProgram,
  r: { readonly timeline: Timeline | undefined },
  opts: ChromeTraceOptions = {},
): StreamedData {
  return new StreamedData((write) => {
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    let at = 0;
    const put = (text: string): void => {
      // (UTF-8 takes at most 3 bytes per UTF-16 unit.)
      if (at + 3 * text.length > CHUNK_BYTES) {
        write(chunk.subarray(0, at));
        at = 0;
      }
      if (3 * text.length > CHUNK_BYTES) write(Buffer.from(text));
      else at += chunk.write(text, at);
    };
    // Events are stringified a batch at a time (one call per thousand: a third faster).
    let batch: ChromeEvent[] = [];
    let sep = '{"traceEvents":[';
    const flush = (): void => {
      if (batch.length === 0) return;
      put(sep + JSON.stringify(batch).slice(1, -1));
      sep = ",";
      batch = [];
    };
    forEachEvent(p, r, opts, (ev) => {
      if (batch.push(ev) === BATCH) flush();
    });
    flush();
    put(`${sep === "," ? "" : sep}],"displayTimeUnit":"ns"}\n`);
    write(chunk.subarray(0, at));
  });
}

/** Visits the metadata, then every timed event in time order (stable; see rank). */
function forEachEvent(
  p: PackedProgram,
  r: { readonly timeline: Timeline | undefined },
  opts: ChromeTraceOptions,
  visit: (ev: ChromeEvent) => void,
): void {
  const tl = r.timeline;
  const b = new TraceBuilder(p, tl, opts.module, tl ? (opts.endUs ?? lastTime(tl)) : 0);
  if (tl) b.index();
  for (const ev of b.metadata()) visit(ev);
  b.order.forEach(rank, (kind, index, ts) => visit(b.render(kind, index, ts)));
}

function lastTime(tl: Timeline): number {
  let t = 0;
  for (const s of tl.spans) t = Math.max(t, s.end);
  for (const s of tl.host) t = Math.max(t, s.end);
  for (const w of tl.sync.writes) t = Math.max(t, w.landed);
  for (const i of tl.instants) t = Math.max(t, i.t);
  return t;
}

/**
 * Two passes over the timeline: index() puts a reference to every event in order (and works out
 * what rendering needs from other records: which slice issued each release, the flows' ids and
 * source tracks); render() makes the event of one reference, when it is written.
 */
class TraceBuilder {
  readonly order: EventOrder;
  private readonly tl: Timeline;
  /** The command span (timeline index) of each command row; -1 for none. */
  private readonly rowSpan: Int32Array;
  /** The host's spans, parents before the children they hold. */
  private hostSpans: readonly Span[] = [];
  /** Each producer write's previous raise of its word (NaN for other writes). */
  private raiseFrom = new Float64Array(0);
  /** Producer track per word. */
  private readonly producerTid = new Map<string, number>();
  /** Per flow: its wait, and the track of the slice it starts in. */
  private readonly flowWait: number[] = [];
  private readonly flowFrom: { pid: number; tid: number }[] = [];
  /** The host's completion-slot reads (wait indices), under their parent slice. */
  private readonly hostWaits: number[] = [];
  private readonly addr: AddressBook;
  private readonly place: (q: number, row: number) => SourcePlace | undefined;
  private readonly instance: (row: number) => string;
  private readonly host: number;

  constructor(
    private readonly p: PackedProgram,
    tl: Timeline | undefined,
    module: IrModule | undefined,
    private readonly endUs: number,
  ) {
    this.tl = tl ?? { spans: [], instants: [], counters: [], host: [], sync: newSyncRecording() };
    const { spans, host, sync, instants, counters } = this.tl;
    // Each write may be a raise too; each wait brings at most a flow (two events).
    const most = spans.length + host.length + 2 * sync.writes.length + 3 * sync.waits.length;
    this.order = new EventOrder(most + 1 + instants.length + counters.length);
    this.rowSpan = new Int32Array(p.cmds.kind.length).fill(-1);
    this.addr = addressBook(p);
    this.place = sourceLocator(p, module);
    this.instance = instanceLocator(p, module);
    this.host = p.gpus;
  }

  /** Every event's reference, in the order the trace lists events at equal times. */
  index(): void {
    const tl = this.tl;
    tl.spans.forEach((s, k) => this.indexCommand(s, k));
    this.hostSpans = [...tl.host].sort((x, y) => x.start - y.start || y.end - x.end);
    this.hostSpans.forEach((s, k) => this.order.push(HOST, k, s.start));
    this.raiseFrom = new Float64Array(tl.sync.writes.length).fill(NaN);
    const lastRaise = new Map<string, number>();
    tl.sync.writes.forEach((w, k) => {
      if (w.writer === PRODUCER_WRITER) {
        // The producer works towards each raise from its previous one (all at once: no time).
        const from = lastRaise.get(w.word) ?? 0;
        lastRaise.set(w.word, w.landed);
        if (!this.producerTid.has(w.word))
          this.producerTid.set(w.word, PRODUCER_TID + this.producerTid.size);
        this.raiseFrom[k] = from;
        this.order.push(RAISE, k, from);
      }
      this.order.push(WRITE, k, w.landed);
    });
    tl.sync.waits.forEach((w, k) => this.indexWait(w, k));
    if (this.hostWaits.length > 0) {
      // The reads follow their parent at equal times (flows into them were pushed already).
      this.order.push(POLLING, 0, tl.sync.waits[this.hostWaits[0]!]!.start);
      for (const k of this.hostWaits) this.order.push(WAIT, k, tl.sync.waits[k]!.start);
    }
    tl.instants.forEach((i, k) => this.order.push(INSTANT, k, i.t));
    tl.counters.forEach((c, k) => this.order.push(COUNTER, k, c.t));
  }

  private indexCommand(s: Span, k: number): void {
    const row = rowAt(this.p, s.queue, Number(s.args["at"]));
    if (row < 0) return; // (every span is at a command's position)
    this.rowSpan[row] = k;
    this.order.push(COMMAND, k, s.start);
  }

  /** A wait and the flow into it from the slice that issued its release. */
  private indexWait(w: Wait, k: number): void {
    if (w.queue === HOST_WRITER) this.hostWaits.push(k);
    else this.order.push(WAIT, k, w.start);
    const source =
      w.release >= 0 ? this.sourceOf(this.tl.sync.writes[w.release]!, w.release) : undefined;
    if (!source) return;
    // Each end strictly inside its slice where it can be.
    const to = this.waitPlace(w);
    const ts = source.ts + source.dur / 2;
    const toTs = Math.min(Math.max(ts, to.ts + to.dur / 2), to.ts + to.dur);
    const f = this.flowWait.length;
    this.flowWait.push(k);
    this.flowFrom.push({ pid: source.pid, tid: source.tid });
    this.order.push(FLOW_START, f, ts);
    this.order.push(FLOW_END, f, toTs);
  }

  /** The slice that issued write w (index k), if the trace has one. */
  private sourceOf(w: WordWrite, k: number): SlicePlace | undefined {
    if (w.writer >= 0) {
      const span = this.rowSpan[w.row]!;
      return span >= 0 ? this.commandPlace(this.tl.spans[span]!) : undefined;
    }
    if (w.writer === PRODUCER_WRITER) return this.raisePlace(w, k);
    // The host: its innermost slice around the issue (the trigger store).
    let best: SlicePlace | undefined;
    for (const s of this.hostSpans) {
      const h = this.hostPlace(s);
      if (h.ts <= w.issued && w.issued <= h.ts + h.dur && (!best || h.dur <= best.dur)) best = h;
    }
    return best;
  }

  private commandPlace(s: Span): SlicePlace {
    const queue = this.p.queues[s.queue]!;
    return {
      ts: s.start,
      dur: Math.max(0, s.end - s.start),
      pid: queue.gpu,
      tid: queue.engine + 1,
    };
  }

  private hostPlace(s: Span): SlicePlace {
    return { ts: s.start, dur: Math.max(0, s.end - s.start), pid: this.host, tid: HOST_TID };
  }

  private raisePlace(w: WordWrite, k: number): SlicePlace {
    const from = this.raiseFrom[k]!;
    return { ts: from, dur: w.landed - from, pid: this.host, tid: this.producerTid.get(w.word)! };
  }

  /** When a wait ended: a wait never satisfied runs to the end of the run. */
  private waitEnd(w: Wait): number {
    return Number.isNaN(w.end) ? Math.max(this.endUs, w.start) : w.end;
  }

  private waitPlace(w: Wait): SlicePlace {
    const end = this.waitEnd(w);
    const queue = w.queue === HOST_WRITER ? undefined : this.p.queues[w.queue]!;
    return {
      ts: w.start,
      dur: end - w.start,
      pid: queue ? queue.gpu : this.host,
      tid: queue ? queue.engine + 1 : HOST_TID,
    };
  }

  /** The event a reference stands for (`ts`: its time, as ordered). */
  render(kind: number, k: number, ts: number): ChromeEvent {
    const tl = this.tl;
    switch (kind) {
      case COMMAND:
        return this.command(tl.spans[k]!);
      case HOST:
        return this.hostSlice(this.hostSpans[k]!);
      case RAISE:
        return this.raise(tl.sync.writes[k]!, k);
      case WRITE:
        return this.write(tl.sync.writes[k]!);
      case WAIT:
        return this.wait(tl.sync.waits[k]!);
      case FLOW_START: {
        const from = this.flowFrom[k]!;
        return {
          name: "release",
          cat: "flow",
          id: k + 1,
          ph: "s",
          ts,
          pid: from.pid,
          tid: from.tid,
        };
      }
      case FLOW_END: {
        const to = this.waitPlace(tl.sync.waits[this.flowWait[k]!]!);
        return {
          name: "release",
          cat: "flow",
          id: k + 1,
          ph: "f",
          bp: "e",
          ts,
          pid: to.pid,
          tid: to.tid,
        };
      }
      case POLLING:
        return this.completionPolling();
      case INSTANT:
        return {
          name: tl.instants[k]!.name,
          cat: "host",
          ph: "i",
          ts,
          pid: this.host,
          tid: HOST_TID,
          s: "p",
        };
      default:
        return this.counter(tl.counters[k]!);
    }
  }

  /** queue, packet offset, packet, source place: the args every command and poll slice has. */
  // (Built by assignment, not spreads: a big trace renders millions; every object less counts.)
  private where(q: number, row: number, args: Args = {}): Args {
    const queue = this.p.queues[q]!;
    const at = this.p.cmds.at[row]!;
    const place = this.place(q, row);
    args["queue"] = queue.name;
    if (queue.position === "byte") args["dword"] = at / 4;
    else args["command"] = at;
    args["packet"] = packetName(this.p.cmds.kind[row]!);
    if (place) args["source"] = place.where;
    if (place?.text !== undefined) args["statement"] = place.text;
    const instance = this.instance(row);
    if (instance !== "") args["instance"] = instance;
    return args;
  }

  /** A command's span from the executor, as an `engine` slice named by its packet. */
  private command(s: Span): SliceEvent {
    const row = rowAt(this.p, s.queue, Number(s.args["at"]));
    const kind = this.p.cmds.kind[row]!;
    const args = this.where(s.queue, row);
    const queue = this.p.queues[s.queue]!;
    return {
      name: `${packetName(kind)} ${this.describe(row, kind, args)}`,
      cat: "engine",
      ph: "X",
      ts: s.start,
      dur: Math.max(0, s.end - s.start),
      pid: queue.gpu,
      tid: queue.engine + 1,
      args,
    };
  }

  /** What a command does: its slice's name, returned, and its args, added to `args`. */
  private describe(row: number, kind: number, args: Args): string {
    const C = this.p.cmds;
    const a = this.addr;
    if (isDataKind(kind)) {
      const n = kind === BCAST ? 3 : kind === FILL ? 1 : 2;
      const ends = [C.a[row]!, C.b[row]!, C.c[row]!].slice(0, n);
      const gpus = ends.map((x) => (a.host(x) ? "host" : `gpu${a.gpu(x)}`));
      const roles = kind === FILL ? ["dst"] : kind === SWAP ? ["a", "b"] : ["src", "dst", "dst2"];
      args["bytes"] = C.bytes[row]!;
      ends.forEach((x, k) => (args[roles[k]!] = a.name(x)));
      return ends.length === 1
        ? gpus[0]!
        : `${gpus[0]!}${kind === SWAP ? "<->" : "->"}${gpus.slice(1).join(",")}`;
    }
    const word = a.name(C.a[row]!);
    const value = C.value[row]!;
    if (kind === FENCE || kind === ATOMIC) {
      args["word"] = word;
      args[kind === FENCE ? "value" : "add"] = value;
      return `${word} ${kind === FENCE ? "=" : "+="} ${value}`;
    }
    if (kind === TIMESTAMP) args["slot"] = word;
    return word;
  }

  /** Host work (trigger store, submits, doorbells, completion polling). */
  private hostSlice(s: Span): SliceEvent {
    return { name: s.name, cat: "host", ph: "X", ...this.hostPlace(s), args: { ...s.args } };
  }

  /** The producer working towards a raise. */
  private raise(w: WordWrite, k: number): SliceEvent {
    const place = this.raisePlace(w, k);
    const args = { word: w.word, value: w.value };
    return { name: `raise ${w.word} to ${w.value}`, cat: "producer", ph: "X", ...place, args };
  }

  /** A word write landing: an instant on the process holding the word. */
  private write(w: WordWrite): ChromeEvent {
    return {
      name: `${w.word} = ${w.value}`,
      cat: "signal",
      ph: "i",
      ts: w.landed,
      pid: w.wordGpu >= 0 ? w.wordGpu : this.host,
      tid: 0,
      s: "p",
      args: { by: this.writerName(w), issuedUs: w.issued },
    };
  }

  private writerName(w: WordWrite): string {
    if (w.writer === HOST_WRITER) return "host";
    if (w.writer === PRODUCER_WRITER) return "external signal producer";
    const where = this.where(w.writer, w.row);
    const pos = where["dword"] !== undefined ? `dword ${where["dword"]}` : `#${where["command"]}`;
    return `${where["queue"]} ${where["packet"]} at ${pos}${where["source"] ? ` (${where["source"]})` : ""}`;
  }

  /** A wait (cat `wait`): a queue's poll, or the host reading a completion slot. */
  private wait(w: Wait): SliceEvent {
    const satisfied = !Number.isNaN(w.end);
    const place = this.waitPlace(w);
    const release = w.release >= 0 ? this.tl.sync.writes[w.release] : undefined;
    const args = w.queue === HOST_WRITER ? {} : this.where(w.queue, w.row);
    args["word"] = w.word;
    args["condition"] = w.condition;
    args["satisfied"] = satisfied ? "yes" : "never";
    args["waitedUs"] = Math.max(0, this.waitEnd(w) - w.firstCheck);
    args["releasedBy"] = release
      ? this.writerName(release)
      : satisfied
        ? "its initial value"
        : "none";
    if (release) args["releaseLandedUs"] = release.landed;
    return { name: `wait ${w.word} ${w.condition}`, cat: "wait", ph: "X", ...place, args };
  }

  /** The host's completion polling: one parent slice over its slot reads. */
  private completionPolling(): SliceEvent {
    const waits = this.tl.sync.waits;
    const start = waits[this.hostWaits[0]!]!.start;
    const last = this.waitPlace(waits[this.hostWaits[this.hostWaits.length - 1]!]!);
    return {
      name: "completion polling",
      cat: "host",
      ph: "X",
      ts: start,
      dur: last.ts + last.dur - start,
      pid: this.host,
      tid: HOST_TID,
      args: { slots: this.hostWaits.length },
    };
  }

  /** A link's load: `xgmi gpu0->gpu1` on the sending GPU's track, `pcie gpu0 upload` on its GPU's. */
  private counter(c: CounterSample): ChromeEvent {
    const gpu = Number(/gpu(\d+)/.exec(c.link)?.[1] ?? 0);
    return { name: c.link, cat: "link", ph: "C", ts: c.t, pid: gpu, args: { GBps: c.GBps } };
  }

  /** The processes' and threads' names and order. */
  metadata(): ChromeEvent[] {
    const out: ChromeEvent[] = [];
    const named = (
      name: "process_name" | "thread_name",
      pid: number,
      tid: number,
      text: string,
    ): void => void out.push({ name, ph: "M", pid, tid, args: { name: text } });
    const sorted = (
      name: "process_sort_index" | "thread_sort_index",
      pid: number,
      tid: number,
      index: number,
    ): void => void out.push({ name, ph: "M", pid, tid, args: { sort_index: index } });
    named("process_name", this.host, 0, "host");
    sorted("process_sort_index", this.host, 0, -1);
    named("thread_name", this.host, HOST_TID, "host");
    for (const [word, tid] of this.producerTid)
      named("thread_name", this.host, tid, `producer ${word}`);
    for (let g = 0; g < this.p.gpus; g++) {
      named("process_name", g, 0, `GPU ${g}`);
      sorted("process_sort_index", g, 0, g);
    }
    for (const q of this.p.queues) {
      named("thread_name", q.gpu, q.engine + 1, `engine ${q.engine} (${q.name})`);
      sorted("thread_sort_index", q.gpu, q.engine + 1, q.engine);
    }
    return out;
  }
}
