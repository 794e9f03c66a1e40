// A CUDA command program (backend/cuda/program.ts, program.json) as the executor's
// PackedProgram, so that `dmac sim` checks and times exactly what the CUDA back end emits:
//   stream (gpu, s)          -> queue `gpu<g>.stream<s>` (engine s), in the program's order
//   copy                     -> COPY, aux 1 (the stream runs it after everything before it)
//   batch of k copies        -> k COPY rows, the first aux 1, the others aux 0 (a batch's copies
//                               are not ordered with each other); one command: packets 1, 0, ...
//   wait-value (geq | eq)    -> POLL (>= | ==) of the word, mask all, forever
//   write-value              -> FENCE of the word
//   timestamp                -> TIMESTAMP into its slot
// A row's position (`at`) is its command's index in the stream, as program.json counts them.
// Memory: each buffer instance in its GPU's range (a host buffer at its placeholder rank,
// ir.ts HOST_REGION_RANK), every word in host memory, zero at the start (docs/cuda.md).

import type { CudaOps, CudaProgram, Place } from "../backend/cuda/program.js";
import { HOST_REGION_RANK, type IrModule } from "../ir/ir.js";
import {
  COPY,
  CommandWriter,
  completionColumns,
  FENCE,
  POLL,
  STREAM_ORDERED,
  TIMESTAMP,
  type Meaning,
  type PackedProgram,
  type PackedQueue,
  type SimRegion,
} from "./program.js";
import { pollFuncCode } from "../target/poll.js";

/** Where each GPU's buffers start (GPU g at (g + 1) x this), host buffers and words after. */
const GPU_SPAN = 2 ** 40;
const ALIGN = 4096;
/** A word's bytes (completion words are 8, as the SDMA slots; the others use the low dword). */
const WORD_BYTES = 8;

/** The executor's program of `p`; with `ops` (buildCudaProgram's), each row's IR ops. */
export function packedFromCuda(p: CudaProgram, ops?: CudaOps): PackedProgram {
  const regions: SimRegion[] = [];
  const bufferSizes: number[] = [];
  const bufferNames: string[] = [];
  const bufferAt = new Map<string, number>();
  const next = new Float64Array(p.gpus + 1).fill(0);
  const base = (g: number): number => (g + 1) * GPU_SPAN;
  for (const b of p.buffers) {
    const g = b.place === "host" ? p.gpus : b.place;
    const addr = base(g) + next[g]!;
    next[g]! += Math.ceil(b.size / ALIGN) * ALIGN;
    bufferAt.set(key(b.id, b.place), addr);
    const host = b.place === "host";
    regions.push({
      kind: "buffer",
      name: b.name,
      gpu: host ? HOST_REGION_RANK : (b.place as number),
      addr,
      bytes: b.size,
      buffer: b.id,
      ...(host ? { host: true } : {}),
    });
    bufferSizes[b.id] = b.size;
    bufferNames[b.id] = b.name;
  }
  for (let i = 0; i < bufferSizes.length; i++) {
    bufferSizes[i] ??= 1;
    bufferNames[i] ??= `buffer${i}`;
  }
  const words = base(p.gpus) + Math.ceil(next[p.gpus]! / ALIGN) * ALIGN;
  const wordAddr = (w: number): number => words + w * WORD_BYTES;
  for (const w of p.words)
    regions.push({
      kind: w.kind,
      name: w.name,
      gpu: null,
      addr: wordAddr(w.id),
      bytes: w.kind === "completion" ? 8 : 4,
    });
  const slots = wordAddr(p.words.length);
  const slotAddr = (s: number): number => slots + s * WORD_BYTES;
  const stamped = new Set<number>();
  const loc = (l: { buffer: number; place: Place; offset: number }): number =>
    bufferAt.get(key(l.buffer, l.place))! + l.offset;
  let total = 0;
  for (const s of p.streams)
    for (const c of s.commands) total += c.op === "batch" ? c.copies.length : 1;
  const w = new CommandWriter(total);
  const queues: PackedQueue[] = p.streams.map((s, si) => {
    const first = w.n;
    const rowOps = ops?.[si];
    const row = (kind: number, at: number): number => {
      const i = w.row(kind, at);
      const o = rowOps?.[i - first];
      if (o) w.addOps(i, o);
      return i;
    };
    s.commands.forEach((c, at) => {
      switch (c.op) {
        case "copy":
        case "batch": {
          const copies = c.op === "copy" ? [c] : c.copies;
          copies.forEach((copy, k) => {
            const i = row(COPY, at);
            w.a[i] = loc(copy.src);
            w.b[i] = loc(copy.dst);
            w.bytes[i] = copy.bytes;
            w.aux[i] = k === 0 ? STREAM_ORDERED : 0;
            w.packets[i] = k === 0 ? 1 : 0;
          });
          return;
        }
        case "wait": {
          const i = row(POLL, at);
          w.a[i] = wordAddr(c.word);
          w.b[i] = 0xffffffff;
          w.c[i] = -1;
          w.value[i] = c.value;
          w.aux[i] = pollFuncCode(c.cmp === "geq" ? ">=" : "==");
          return;
        }
        case "write": {
          const i = row(FENCE, at);
          w.a[i] = wordAddr(c.word);
          w.value[i] = c.value;
          return;
        }
        case "timestamp": {
          const i = row(TIMESTAMP, at);
          w.a[i] = slotAddr(c.slot);
          stamped.add(c.slot);
          return;
        }
      }
    });
    return {
      name: `gpu${s.gpu}.stream${s.stream}`,
      gpu: s.gpu,
      engine: s.stream,
      position: "index",
      first,
      count: w.n - first,
    };
  });
  for (const slot of [...stamped].sort((a, b) => a - b))
    regions.push({
      kind: "timestamp",
      name: `timestamp[${slot}]`,
      gpu: null,
      addr: slotAddr(slot),
      bytes: 8,
    });
  const cmds = w.finish();
  return {
    gpus: p.gpus,
    queues,
    regions,
    bufferSizes,
    bufferNames,
    completions: completionsOf(p, queues, cmds.kind, cmds.a, wordAddr),
    trigger: p.trigger && { addr: wordAddr(p.trigger.word), value: p.trigger.value },
    externalSignals: p.external.map((e) => wordAddr(e.word)),
    cmds,
  };
}

const key = (buffer: number, place: Place): string => `${buffer}@${place}`;

/** The host's completion words, each with the queue whose write-value sets it. */
function completionsOf(
  p: CudaProgram,
  queues: readonly PackedQueue[],
  kind: Uint8Array,
  a: Float64Array,
  wordAddr: (w: number) => number,
): PackedProgram["completions"] {
  const out = completionColumns(p.completions.length);
  const slot = new Map<number, number>();
  p.completions.forEach((c, k) => {
    out.addr[k] = wordAddr(c.word);
    out.done[k] = c.value;
    slot.set(out.addr[k]!, k);
  });
  queues.forEach((q, qi) => {
    for (let i = q.first; i < q.first + q.count; i++) {
      const k = kind[i] === FENCE ? slot.get(a[i]!) : undefined;
      if (k !== undefined) out.queue[k] = qi;
    }
  });
  return out;
}

/**
 * The schedule's meaning for the meaning checks (semantics.ts) of a converted program: the user
 * signal words with their signal and rank (a word's name is `signal@rank`, program.ts).
 */
export function cudaMeaning(p: CudaProgram, prog: PackedProgram, m: IrModule): Meaning {
  const byName = new Map(m.signals.map((s, i) => [s.name, i]));
  const signals: { addr: number; signal: number; rank: number }[] = [];
  const addrOf = new Map(
    prog.regions.filter((r) => r.kind === "signal").map((r) => [r.name, r.addr]),
  );
  for (const w of p.words) {
    if (w.kind !== "signal") continue;
    const at = w.name.lastIndexOf("@");
    const signal = byName.get(w.name.slice(0, at));
    if (signal === undefined) continue;
    signals.push({ addr: addrOf.get(w.name)!, signal, rank: Number(w.name.slice(at + 1)) });
  }
  return { module: m, signals };
}
