// Chrome trace-event format (JSON object form, loads in Perfetto and chrome://tracing) of one
// executor run: one process (pid) per GPU plus one for the host, one thread (tid) per engine;
// "X" complete events for commands, "i" instants for satisfied polls and signal writes, "C"
// counters for the load of every xGMI link (GB/s). Times are microseconds, as the format wants.

import type { ExecResult } from "./execute.js";
import type { SimProgram } from "./program.js";

export type ChromeEvent =
  | {
      name: string;
      cat: string;
      ph: "X";
      ts: number;
      dur: number;
      pid: number;
      tid: number;
      args: Record<string, string | number>;
    }
  | { name: string; cat: string; ph: "i"; ts: number; pid: number; tid: number; s: "t" | "p" | "g" }
  | { name: string; cat: string; ph: "C"; ts: number; pid: number; args: Record<string, number> }
  | {
      name: "process_name" | "thread_name";
      ph: "M";
      pid: number;
      tid: number;
      args: { name: string };
    };

export interface ChromeTrace {
  traceEvents: ChromeEvent[];
  displayTimeUnit: "ns" | "ms";
}

export function chromeTrace(p: SimProgram, r: Pick<ExecResult, "timeline">): ChromeTrace {
  const tl = r.timeline;
  const host = p.gpus;
  const ev: ChromeEvent[] = [];
  for (let g = 0; g < p.gpus; g++)
    ev.push({ name: "process_name", ph: "M", pid: g, tid: 0, args: { name: `gpu${g}` } });
  ev.push({ name: "process_name", ph: "M", pid: host, tid: 0, args: { name: "host" } });
  ev.push({ name: "thread_name", ph: "M", pid: host, tid: 0, args: { name: "host" } });
  p.queues.forEach((q) =>
    ev.push({
      name: "thread_name",
      ph: "M",
      pid: q.gpu,
      tid: q.engine + 1,
      args: { name: `sdma${q.engine}` },
    }),
  );
  if (!tl) return { traceEvents: ev, displayTimeUnit: "ns" };
  const pidOf = (queue: number): number => (queue < 0 ? host : p.queues[queue]!.gpu);
  const tidOf = (queue: number): number => (queue < 0 ? 0 : p.queues[queue]!.engine + 1);
  for (const s of [...tl.host, ...tl.spans])
    ev.push({
      name: s.name,
      cat: s.queue < 0 ? "host" : "engine",
      ph: "X",
      ts: s.start,
      dur: Math.max(0, s.end - s.start),
      pid: pidOf(s.queue),
      tid: tidOf(s.queue),
      args: { ...s.args },
    });
  for (const i of tl.instants)
    ev.push({
      name: i.name,
      cat: i.name.startsWith("poll") ? "poll" : "signal",
      ph: "i",
      ts: i.t,
      pid: pidOf(i.queue),
      tid: tidOf(i.queue),
      s: "t",
    });
  for (const c of tl.counters) {
    const src = Number(/^gpu(\d+)/.exec(c.link)?.[1] ?? 0);
    ev.push({
      name: `xgmi ${c.link}`,
      cat: "link",
      ph: "C",
      ts: c.t,
      pid: src,
      args: { GBps: c.GBps },
    });
  }
  return { traceEvents: ev, displayTimeUnit: "ns" };
}
