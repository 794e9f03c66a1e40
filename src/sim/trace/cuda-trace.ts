// The Chrome trace (`dmac sim --trace`) of a run on a CUDA target: the command program's streams
// in the executor's recorded timeline (its host spans and command spans: execute.ts Timeline),
// in the layout chrome-trace.ts gives SDMA runs:
//   processes  the host, then one per GPU (`GPU g`);
//   threads    the host's calls (`host`), one per stream (`stream s (gpuG.streamS)`);
//   host       each stream call (cat `host`, `call gpu0.stream1 #0`) from the host's previous
//              call's return to its own (none with prelaunch: every call precedes the clock);
//   X slices   each command from when its stream reached it to when it was done (cat `wait` for
//              a wait, `engine` for the others, as SDMA commands; named `copy gpu0->gpu1 8192 B`,
//              `batch of 3 copies`, `wait trigger >= 1`, `write completion0 = 1`): a copy
//              includes its wait for the copy engine and its start-up, a wait the time until
//              its word held the value.
// Every slice's args name its stream and command index. Times are microseconds.

import type { CudaCmd, CudaCopy, CudaLoc, CudaProgram } from "../../backend/cuda/program.js";
import { StreamedData } from "../../util/streamed-data.js";
import type { ChromeEvent } from "../chrome-trace.js";
import type { Span, Timeline } from "../execute.js";

type Slice = Extract<ChromeEvent, { ph: "X" }>;

/** The trace of a CUDA run of `p` whose timeline was recorded (the queues are its streams). */
export function cudaTraceJson(p: CudaProgram, timeline: Timeline): StreamedData {
  const events: ChromeEvent[] = [];
  for (let g = 0; g < p.gpus; g++) {
    events.push({ name: "process_name", ph: "M", pid: g, tid: 0, args: { name: `GPU ${g}` } });
    events.push({ name: "process_sort_index", ph: "M", pid: g, tid: 0, args: { sort_index: g } });
  }
  const host = p.gpus;
  events.push({ name: "process_name", ph: "M", pid: host, tid: 0, args: { name: "host" } });
  events.push({ name: "process_sort_index", ph: "M", pid: host, tid: 0, args: { sort_index: -1 } });
  events.push({ name: "thread_name", ph: "M", pid: host, tid: 0, args: { name: "host" } });
  const slices: Slice[] = [];
  for (const h of timeline.host) slices.push({ ...slice(h), cat: "host", pid: host, tid: 0 });
  for (const st of p.streams) {
    const args = { name: `stream ${st.stream} (gpu${st.gpu}.stream${st.stream})` };
    const tid = st.stream + 1;
    events.push({ name: "thread_name", ph: "M", pid: st.gpu, tid, args });
    const sort = { sort_index: st.stream };
    events.push({ name: "thread_sort_index", ph: "M", pid: st.gpu, tid, args: sort });
  }
  for (const span of timeline.spans) {
    const st = p.streams[span.queue];
    const at = Number(span.args["at"]);
    const cmd = st?.commands[at];
    if (!st || !cmd) continue;
    const args = { stream: `gpu${st.gpu}.stream${st.stream}`, command: at };
    slices.push({
      ...slice({ ...span, name: commandName(p, cmd), args }),
      cat: cmd.op === "wait" ? "wait" : "engine",
      pid: st.gpu,
      tid: st.stream + 1,
    });
  }
  // Time order (stable), as chrome-trace.ts writes its slices.
  slices.sort((a, b) => a.ts - b.ts);
  const text = JSON.stringify({ traceEvents: [...events, ...slices], displayTimeUnit: "ns" });
  return new StreamedData((write) => write(Buffer.from(text + "\n")));
}

/** A span as a slice (its category and place to be added). */
function slice(s: Span): Omit<Slice, "cat" | "pid" | "tid"> {
  return { name: s.name, ph: "X", ts: s.start, dur: s.end - s.start, args: s.args };
}

/** A slice's name: `copy gpu0->gpu1 64 KiB`, `batch of 3 copies`, `wait trigger >= 1`. */
function commandName(p: CudaProgram, c: CudaCmd): string {
  switch (c.op) {
    case "copy":
      return `copy ${copyName(c)}`;
    case "batch":
      return `batch of ${c.copies.length} copies`;
    case "wait":
      return `wait ${p.words[c.word]?.name ?? c.word} ${c.cmp === "geq" ? ">=" : "=="} ${c.value}`;
    case "write":
      return `write ${p.words[c.word]?.name ?? c.word} = ${c.value}`;
    case "timestamp":
      return `timestamp ${c.slot}`;
  }
}

const place = (l: CudaLoc): string => (l.place === "host" ? "host" : `gpu${l.place}`);
const copyName = (c: CudaCopy): string => `${place(c.src)}->${place(c.dst)} ${c.bytes} B`;
