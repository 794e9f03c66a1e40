// The bytes of data commands as flows on the node's links and HBM (flows.ts shares bandwidth
// max-min fairly): which resources a transfer loads, starting and ending a queue's flow, and
// keeping each flow's completion event in step with its rate.

import {
  addFlow,
  advance,
  finishTime,
  removeFlow,
  reshare,
  reshareAlone,
  type Flow,
  type FlowLoad,
} from "./flows.js";
import { EV_FLOW_DONE, type ExecState } from "./exec-state.js";

/** The shared FlowLoad of (resource, weight). */
export function loadOf(x: ExecState, resource: number, weight: number): FlowLoad {
  const key = resource * 4 + weight;
  let l = x.loadCache[key];
  if (l === undefined) {
    l = { resource, weight };
    x.loadCache[key] = l;
  }
  return l;
}

function linkLoads(x: ExecState, from: number, to: number, weight: number, out: FlowLoad[]): void {
  if (from === to) out.push(loadOf(x, x.HBM + from, 2 * weight));
  else out.push(loadOf(x, from * x.G + to, weight));
}

/** Resources a transfer src -> dst driven by GPU drv uses (data passes through the driver). */
export function route(
  x: ExecState,
  src: number,
  dst: number,
  drv: number,
  weight: number,
  out: FlowLoad[],
): void {
  if (src === dst || drv === src || drv === dst) linkLoads(x, src, dst, weight, out);
  else {
    linkLoads(x, src, drv, weight, out);
    linkLoads(x, drv, dst, weight, out);
  }
}

/** Queue q's data command (running[q]) starts moving its bytes now. */
export function startFlow(x: ExecState, q: number): void {
  const run = x.running[q]!;
  const r = x.runs[q]!;
  advance(x.flows, x.now);
  const f = r.flow;
  r.flowStartedAt = x.now;
  f.cap = run.cap;
  f.remaining = run.bytes;
  f.rate = 0;
  r.flowActive = true;
  r.flowDue = -1;
  addFlow(x.flows, f);
  rescheduleFlows(x, f, true);
}

/**
 * Queue q's flow-done event: false if it is stale (the flow's rate changed since it was
 * scheduled), else the flow ends now and true.
 */
export function endFlow(x: ExecState, q: number): boolean {
  const r = x.runs[q]!;
  const f = r.flow;
  if (!r.flowActive || r.flowDue !== x.now) return false;
  const run = x.running[q]!;
  advance(x.flows, x.now);
  f.remaining = 0;
  removeFlow(x.flows, f);
  for (const l of f.loads) x.flows.moved[l.resource]! += run.bytes * l.weight;
  r.flowActive = false;
  rescheduleFlows(x, f, false);
  return true;
}

function rescheduleFlow(x: ExecState, f: Flow): void {
  const q = f.id;
  const r = x.runs[q]!;
  if (r.flowDue >= 0 && r.flowVer === f.version) return; // rate unchanged: event still valid
  const due = finishTime(x.flows, f);
  r.flowVer = f.version;
  if (due !== r.flowDue) {
    r.flowDue = due;
    if (due !== Infinity) x.heap.push(due, EV_FLOW_DONE, q);
  }
}

function rescheduleFlows(x: ExecState, changed: Flow, added: boolean): void {
  const flows = x.flows;
  if (reshareAlone(flows, changed, added)) {
    // Only the changed flow's rate can have moved (and only if it was just added).
    if (added) rescheduleFlow(x, changed);
  } else {
    reshare(flows);
    const active = flows.active;
    for (let i = 0; i < active.length; i++) rescheduleFlow(x, active[i]!);
  }
  sampleLinks(x);
}

/** Timeline counters: each xGMI link's and each host link's rate, when it changed. */
function sampleLinks(x: ExecState): void {
  const timeline = x.timeline;
  if (!timeline || x.cuda !== undefined) return; // (a CUDA fabric's resources are others)
  const G = x.G;
  const sample = (r: number, link: string): void => {
    const gbps = x.flows.load[r]! / 1e3;
    if (x.lastSample[r] === gbps) return;
    x.lastSample[r] = gbps;
    timeline.counters.push({ link, t: x.now, GBps: gbps });
  };
  for (let s = 0; s < G; s++)
    for (let d = 0; d < G; d++) if (s !== d) sample(s * G + d, `xgmi gpu${s}->gpu${d}`);
  for (let g = 0; g < G; g++) {
    sample(x.PCIE + 2 * g, `pcie gpu${g} upload`);
    sample(x.PCIE + 2 * g + 1, `pcie gpu${g} download`);
  }
}
