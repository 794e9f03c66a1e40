// The predictor for CUDA command programs: a small list scheduler over the streams with the
// target's constants (cuda-target.ts CUDA_TIMING; docs/cuda.md has the model). It is separate
// from the SDMA executor on purpose: the hardware it stands for is a driver and three copy
// engines, not packet rings, and its constants are fitted from runner measurements.
//
// - Host: one thread makes the stream calls, stream after stream in program order, each costing
//   hostCallUs (+ hostBatchItemUs per copy of a batch). A call's command may start launchUs after
//   the call returns. With a trigger (prelaunch) every call happens before the clock starts, and
//   the clock starts at the host's trigger store.
// - Streams run their commands one after another. A copy occupies its GPU's copy engine for its
//   direction (host-to-device, device-to-host, peer) for copyStartUs + bytes / bandwidth; a batch
//   for copyStartUs + (n - 1) x batchItemUs + its bytes / bandwidth.
// - A write-value lands flagUs after the stream reaches it; a wait-value passes waitReleaseUs
//   after its word holds the value (trigger and external signals: stored at time 0).
// - The run ends when the last completion word lands (the host spin-polls them).

import type { CudaTarget } from "../../target/cuda-target.js";
import type { CudaCmd, CudaCopy, CudaProgram, Place } from "./program.js";

export interface Prediction {
  readonly ok: true;
  readonly timeUs: number;
}
export type PredictResult = Prediction | { readonly ok: false; readonly why: string };

type Dir = "h2d" | "d2h" | "peer";

function dirOf(c: CudaCopy): { dir: Dir; gpu: number } {
  const gpu = (p: Place): number => (p === "host" ? -1 : p);
  if (c.src.place === "host") return { dir: "h2d", gpu: gpu(c.dst.place) };
  if (c.dst.place === "host") return { dir: "d2h", gpu: gpu(c.src.place) };
  return { dir: "peer", gpu: gpu(c.src.place) };
}

function rate(t: CudaTarget, dir: Dir): number {
  const gbps = dir === "h2d" ? t.hostLink.h2dGBps : dir === "d2h" ? t.hostLink.d2hGBps : t.peerGBps;
  return gbps * 1e3; // bytes per microsecond
}

function hostCost(t: CudaTarget, c: CudaCmd): number {
  return t.timing.hostCallUs + (c.op === "batch" ? c.copies.length * t.timing.hostBatchItemUs : 0);
}

export function predictCuda(p: CudaProgram, t: CudaTarget): PredictResult {
  const T = t.timing;
  const S = p.streams.length;
  // Host submission: when each command may start (launchUs after its call returns).
  const ready: Float64Array[] = [];
  let host = 0;
  for (const s of p.streams) {
    const r = new Float64Array(s.commands.length);
    s.commands.forEach((c, i) => {
      host += hostCost(t, c);
      r[i] = p.trigger ? 0 : host + T.launchUs;
    });
    ready.push(r);
  }
  const wordAt = new Float64Array(p.words.length).fill(Infinity);
  const wordValue = new Float64Array(p.words.length);
  if (p.trigger) {
    wordAt[p.trigger.word] = 0;
    wordValue[p.trigger.word] = p.trigger.value;
  }
  for (const e of p.external) {
    wordAt[e.word] = 0;
    wordValue[e.word] = e.value;
  }
  const engineFree = new Map<string, number>();
  const pc = new Int32Array(S);
  const streamAt = new Float64Array(S);
  let end = 0;
  for (;;) {
    let best = -1;
    let bestStart = Infinity;
    for (let s = 0; s < S; s++) {
      const cmds = p.streams[s]!.commands;
      if (pc[s]! >= cmds.length) continue;
      const c = cmds[pc[s]!]!;
      let start = Math.max(streamAt[s]!, ready[s]![pc[s]!]!);
      if (c.op === "wait") {
        const ok = c.cmp === "geq" ? wordValue[c.word]! >= c.value : wordValue[c.word] === c.value;
        if (!ok) continue;
        start = Math.max(start, wordAt[c.word]! + T.waitReleaseUs);
      }
      if (start < bestStart) {
        bestStart = start;
        best = s;
      }
    }
    if (best < 0) break;
    const c = p.streams[best]!.commands[pc[best]!]!;
    streamAt[best] = runCommand(c, bestStart, t, engineFree, wordAt, wordValue);
    if (c.op === "write" && p.completions.some((x) => x.word === c.word))
      end = Math.max(end, streamAt[best]!);
    pc[best]!++;
  }
  for (let s = 0; s < S; s++)
    if (pc[s]! < p.streams[s]!.commands.length)
      return {
        ok: false,
        why: `stream gpu${p.streams[s]!.gpu}.${p.streams[s]!.stream} never passes command ${pc[s]}`,
      };
  return { ok: true, timeUs: end };
}

/** Runs command c from `start`; returns when the stream may go on. */
function runCommand(
  c: CudaCmd,
  start: number,
  t: CudaTarget,
  engineFree: Map<string, number>,
  wordAt: Float64Array,
  wordValue: Float64Array,
): number {
  const T = t.timing;
  switch (c.op) {
    case "copy":
    case "batch": {
      const copies = c.op === "copy" ? [c] : c.copies;
      const { dir, gpu } = dirOf(copies[0]!);
      const key = `${gpu}.${dir}`;
      const at = Math.max(start, engineFree.get(key) ?? 0);
      let time = T.copyStartUs + (copies.length - 1) * T.batchItemUs;
      for (const x of copies) time += x.bytes / rate(t, dirOf(x).dir);
      engineFree.set(key, at + time);
      return at + time;
    }
    case "write": {
      const landed = start + T.flagUs;
      wordAt[c.word] = landed;
      wordValue[c.word] = c.value;
      return landed;
    }
    case "wait":
    case "timestamp":
      return start;
  }
}
