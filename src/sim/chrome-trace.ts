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

import type { IrModule } from "../ir/ir.js";
import type { Span, Timeline } from "./execute.js";
import { ATOMIC, BCAST, FENCE, FILL, isDataKind, SWAP, TIMESTAMP } from "./program.js";
import type { PackedProgram } from "./program.js";
import { addressBook, type AddressBook } from "./trace/addresses.js";
import { packetName } from "./trace/names.js";
import { HOST_WRITER, PRODUCER_WRITER, type Wait, type WordWrite } from "./trace/recorder.js";
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

/** Order at one timestamp: slices and the rest, then flow starts, then flow ends. */
const RANK: Readonly<Record<ChromeEvent["ph"], number>> = { M: 0, X: 0, i: 0, C: 0, s: 1, f: 2 };

export function chromeTrace(
  p: PackedProgram,
  r: { readonly timeline: Timeline | undefined },
  opts: ChromeTraceOptions = {},
): ChromeTrace {
  const tl = r.timeline;
  const b = new TraceBuilder(p, opts.module);
  if (tl) {
    const end = opts.endUs ?? lastTime(tl);
    for (const s of tl.spans) b.command(s);
    b.hostWork(tl.host);
    for (const w of tl.sync.writes) b.write(w);
    tl.sync.waits.forEach((w) => b.wait(w, end, tl.sync.writes));
    b.completionPolling();
    for (const i of tl.instants) b.hostInstant(i.name, i.t);
    for (const c of tl.counters) b.counter(c.link, c.t, c.GBps);
  }
  return { traceEvents: b.finish(), displayTimeUnit: "ns" };
}

function lastTime(tl: Timeline): number {
  let t = 0;
  for (const s of tl.spans) t = Math.max(t, s.end);
  for (const s of tl.host) t = Math.max(t, s.end);
  for (const w of tl.sync.writes) t = Math.max(t, w.landed);
  for (const i of tl.instants) t = Math.max(t, i.t);
  return t;
}

class TraceBuilder {
  private readonly timed: { ev: ChromeEvent; ts: number; rank: number }[] = [];
  /** The slice of each command row, and of each producer write (by write index). */
  private readonly rowSlice = new Map<number, SliceEvent>();
  private readonly producerSlice = new Map<number, SliceEvent>();
  private readonly hostSlices: SliceEvent[] = [];
  /** The host's completion-slot reads, held back to follow their parent slice. */
  private readonly hostWaits: SliceEvent[] = [];
  /** The host's completion-slot reads, held back to follow their parent slice. */ /** Producer track per word, and when each was last raised. */
  private readonly producerTid = new Map<string, number>();
  private readonly lastRaise = new Map<string, number>();
  private readonly addr: AddressBook;
  private readonly place: (q: number, row: number) => SourcePlace | undefined;
  private readonly instance: (row: number) => string;
  private readonly host: number;
  private nextWrite = 0;
  private nextFlow = 1;

  constructor(
    private readonly p: PackedProgram,
    module: IrModule | undefined,
  ) {
    this.addr = addressBook(p);
    this.place = sourceLocator(p, module);
    this.instance = instanceLocator(p, module);
    this.host = p.gpus;
  }

  private push(ev: ChromeEvent & { ts: number }): void {
    this.timed.push({ ev, ts: ev.ts, rank: RANK[ev.ph] });
  }

  /** queue, packet offset, packet, source place: the args every command and poll slice has. */
  private where(q: number, row: number): Args {
    const queue = this.p.queues[q]!;
    const at = this.p.cmds.at[row]!;
    const place = this.place(q, row);
    const instance = this.instance(row);
    return {
      queue: queue.name,
      ...(queue.position === "byte" ? { dword: at / 4 } : { command: at }),
      packet: packetName(this.p.cmds.kind[row]!),
      ...(place ? { source: place.where } : {}),
      ...(place?.text !== undefined ? { statement: place.text } : {}),
      ...(instance !== "" ? { instance } : {}),
    };
  }

  /** A command's span from the executor, as an `engine` slice named by its packet. */
  command(s: Span): void {
    const row = rowAt(this.p, s.queue, Number(s.args["at"]));
    if (row < 0) return; // (every span is at a command's position)
    const kind = this.p.cmds.kind[row]!;
    const queue = this.p.queues[s.queue]!;
    const named = this.describe(row, kind);
    const ev: SliceEvent = {
      name: `${packetName(kind)} ${named.name}`,
      cat: "engine",
      ph: "X",
      ts: s.start,
      dur: Math.max(0, s.end - s.start),
      pid: queue.gpu,
      tid: queue.engine + 1,
      args: { ...this.where(s.queue, row), ...named.args },
    };
    this.rowSlice.set(row, ev);
    this.push(ev);
  }

  /** What a command does, for its slice's name and args. */
  private describe(row: number, kind: number): { name: string; args: Args } {
    const C = this.p.cmds;
    const a = this.addr;
    if (isDataKind(kind)) {
      const n = kind === BCAST ? 3 : kind === FILL ? 1 : 2;
      const ends = [C.a[row]!, C.b[row]!, C.c[row]!].slice(0, n);
      const gpus = ends.map((x) => (a.host(x) ? "host" : `gpu${a.gpu(x)}`));
      const name =
        ends.length === 1
          ? gpus[0]!
          : `${gpus[0]!}${kind === SWAP ? "<->" : "->"}${gpus.slice(1).join(",")}`;
      const roles = kind === FILL ? ["dst"] : kind === SWAP ? ["a", "b"] : ["src", "dst", "dst2"];
      const args: Args = { bytes: C.bytes[row]! };
      ends.forEach((x, k) => (args[roles[k]!] = a.name(x)));
      return { name, args };
    }
    const word = a.name(C.a[row]!);
    if (kind === FENCE)
      return { name: `${word} = ${C.value[row]!}`, args: { word, value: C.value[row]! } };
    if (kind === ATOMIC)
      return { name: `${word} += ${C.value[row]!}`, args: { word, add: C.value[row]! } };
    if (kind === TIMESTAMP) return { name: word, args: { slot: word } };
    return { name: word, args: {} };
  }

  /** Host work (trigger store, submits, doorbells): parents before the children they hold. */
  hostWork(spans: readonly Span[]): void {
    const sorted = [...spans].sort((x, y) => x.start - y.start || y.end - x.end);
    for (const s of sorted) {
      const ev: SliceEvent = {
        name: s.name,
        cat: "host",
        ph: "X",
        ts: s.start,
        dur: Math.max(0, s.end - s.start),
        pid: this.host,
        tid: HOST_TID,
        args: { ...s.args },
      };
      this.hostSlices.push(ev);
      this.push(ev);
    }
  }

  /** A word write landing (an instant on the process holding the word); producer raises. */
  write(w: WordWrite): void {
    const index = this.nextWrite++;
    if (w.writer === PRODUCER_WRITER) {
      // The producer works towards each raise from its previous one (all at once: no time).
      const from = this.lastRaise.get(w.word) ?? 0;
      this.lastRaise.set(w.word, w.landed);
      let tid = this.producerTid.get(w.word);
      if (tid === undefined)
        this.producerTid.set(w.word, (tid = PRODUCER_TID + this.producerTid.size));
      const ev: SliceEvent = {
        name: `raise ${w.word} to ${w.value}`,
        cat: "producer",
        ph: "X",
        ts: from,
        dur: w.landed - from,
        pid: this.host,
        tid,
        args: { word: w.word, value: w.value },
      };
      this.producerSlice.set(index, ev);
      this.push(ev);
    }
    this.push({
      name: `${w.word} = ${w.value}`,
      cat: "signal",
      ph: "i",
      ts: w.landed,
      pid: w.wordGpu >= 0 ? w.wordGpu : this.host,
      tid: 0,
      s: "p",
      args: { by: this.writerName(w), issuedUs: w.issued },
    });
  }

  private writerName(w: WordWrite): string {
    if (w.writer === HOST_WRITER) return "host";
    if (w.writer === PRODUCER_WRITER) return "external signal producer";
    const where = this.where(w.writer, w.row);
    const pos = where["dword"] !== undefined ? `dword ${where["dword"]}` : `#${where["command"]}`;
    return `${where["queue"]} ${where["packet"]} at ${pos}${where["source"] ? ` (${where["source"]})` : ""}`;
  }

  /** A wait (cat `wait`) and the flow into it from the slice that issued its release. */
  wait(w: Wait, endUs: number, writes: readonly WordWrite[]): void {
    const satisfied = !Number.isNaN(w.end);
    const end = satisfied ? w.end : Math.max(endUs, w.start);
    const onHost = w.queue === HOST_WRITER;
    const queue = onHost ? undefined : this.p.queues[w.queue]!;
    const release = w.release >= 0 ? writes[w.release] : undefined;
    const ev: SliceEvent = {
      name: `wait ${w.word} ${w.condition}`,
      cat: "wait",
      ph: "X",
      ts: w.start,
      dur: end - w.start,
      pid: queue ? queue.gpu : this.host,
      tid: queue ? queue.engine + 1 : HOST_TID,
      args: {
        ...(queue ? this.where(w.queue, w.row) : {}),
        word: w.word,
        condition: w.condition,
        satisfied: satisfied ? "yes" : "never",
        waitedUs: Math.max(0, end - w.firstCheck),
        releasedBy: release ? this.writerName(release) : satisfied ? "its initial value" : "none",
        ...(release ? { releaseLandedUs: release.landed } : {}),
      },
    };
    if (onHost) this.hostWaits.push(ev);
    else this.push(ev);
    const source = release && this.sourceOf(release, w.release);
    if (source) this.flow(source, ev);
  }

  /** The host's completion polling: one parent slice over its slot reads. */
  completionPolling(): void {
    const reads = this.hostWaits;
    if (reads.length === 0) return;
    const start = reads[0]!.ts;
    const last = reads[reads.length - 1]!;
    this.push({
      name: "completion polling",
      cat: "host",
      ph: "X",
      ts: start,
      dur: last.ts + last.dur - start,
      pid: this.host,
      tid: HOST_TID,
      args: { slots: reads.length },
    });
    // Flows into the reads were pushed already; the reads follow their parent at equal times.
    for (const ev of reads) this.push(ev);
  }

  /** The slice that issued write w (index k), if the trace has one. */
  private sourceOf(w: WordWrite, k: number): SliceEvent | undefined {
    if (w.writer >= 0) return this.rowSlice.get(w.row);
    if (w.writer === PRODUCER_WRITER) return this.producerSlice.get(k);
    // The host: its innermost slice around the issue (the trigger store).
    let best: SliceEvent | undefined;
    for (const s of this.hostSlices)
      if (s.ts <= w.issued && w.issued <= s.ts + s.dur && (!best || s.dur <= best.dur)) best = s;
    return best;
  }

  /** A flow from `from` to the wait `to`, each end strictly inside its slice where it can be. */
  private flow(from: SliceEvent, to: SliceEvent): void {
    const id = this.nextFlow++;
    const ts = from.ts + from.dur / 2;
    const toTs = Math.min(Math.max(ts, to.ts + to.dur / 2), to.ts + to.dur);
    const common = { name: "release", cat: "flow", id };
    this.push({ ...common, ph: "s", ts, pid: from.pid, tid: from.tid });
    this.push({ ...common, ph: "f", bp: "e", ts: toTs, pid: to.pid, tid: to.tid });
  }

  hostInstant(name: string, t: number): void {
    this.push({ name, cat: "host", ph: "i", ts: t, pid: this.host, tid: HOST_TID, s: "p" });
  }

  /** A link's load: `xgmi gpu0->gpu1` on the sending GPU's track, `pcie gpu0 upload` on its GPU's. */
  counter(link: string, t: number, GBps: number): void {
    const gpu = Number(/gpu(\d+)/.exec(link)?.[1] ?? 0);
    this.push({ name: link, cat: "link", ph: "C", ts: t, pid: gpu, args: { GBps } });
  }

  /** Metadata first, then every timed event in time order (stable; see RANK). */
  finish(): ChromeEvent[] {
    const timed = this.timed
      .map((t, seq) => ({ ...t, seq }))
      .sort((x, y) => x.ts - y.ts || x.rank - y.rank || x.seq - y.seq);
    return [...this.metadata(), ...timed.map((t) => t.ev)];
  }

  private metadata(): ChromeEvent[] {
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
