// Test helpers: a small hand-built node (buffers, sync words, completion slots) and packet
// streams built from Packet lists, encoded with the back end's encoder and run through the
// manifest path (so decoding is the real one).

import { decodeStream } from "../../../src/backend/sdma/decode.js";
import { encodePackets } from "../../../src/backend/sdma/encode.js";
import type { Manifest } from "../../../src/backend/sdma/manifest.js";
import type { Packet } from "../../../src/backend/sdma/packets.js";
import { builtinTarget, type Target } from "../../../src/target/target.js";
import { readMachineModel, type MachineModel } from "../../../src/sim/model.js";
import type { ListProgram, SimCmd, SimQueue } from "../../../src/sim/program.js";
import { ADDR_DWORDS } from "../../../src/sim/stream-check.js";

export const target: Target = builtinTarget("mi300x")!;
const m = readMachineModel(target);
if (!m.ok) throw new Error(m.error);
export const model: MachineModel = m.model;

/** Buffer `buf` (id 0) of `size` bytes on every GPU at 0x1_0000_0000 * (gpu + 1). */
export const bufAddr = (gpu: number, off = 0): number => 0x1_0000_0000 * (gpu + 1) + off;
/** Sync word k on gpu g. */
export const syncAddr = (gpu: number, k: number): number =>
  0x1_0000_0000 * (gpu + 1) + 0x8000_0000 + 4 * k;
export const slotAddr = (k: number): number => 0x7f00_0000_0000 + 64 * k;

export function manifestFor(
  size: number,
  queues: readonly { gpu: number; engine: number; packets: readonly Packet[] }[],
  opts: { syncWords?: number; slots?: number; trigger?: boolean } = {},
): { manifest: Manifest; streams: Map<string, Uint32Array> } {
  const streams = new Map<string, Uint32Array>();
  const slots = opts.slots ?? 0;
  const mq = queues.map((q) => {
    const name = `gpu${q.gpu}.sdma${q.engine}`;
    const words = encodePackets(q.packets);
    streams.set(`${name}.bin`, words);
    // The slots this queue signals, in stream order (what a compiled manifest lists).
    const completionSlots: number[] = [];
    for (const p of q.packets)
      if (p.kind === "atomic" || p.kind === "fence") {
        const k = (p.addr - slotAddr(0)) / 64;
        if (Number.isInteger(k) && k >= 0 && k < slots) completionSlots.push(k);
      }
    return {
      name,
      gpu: q.gpu,
      engine: q.engine,
      file: `${name}.bin`,
      dwords: words.length,
      completionSlots,
    };
  });
  const syncWords = [];
  for (let g = 0; g < 8; g++)
    for (let k = 0; k < (opts.syncWords ?? 0); k++)
      syncWords.push({
        id: g * 100 + k,
        kind: "barrier" as const,
        gpu: g,
        address: syncAddr(g, k),
        queue: "test",
      });
  const manifest = {
    version: 1,
    kind: "dmac-manifest",
    dmac: "test",
    target: "mi300x",
    ranks: 8,
    schedule: "test",
    params: [],
    completion: { protocol: "atomic", width: 64, initial: 1, done: 0 },
    trigger: opts.trigger ? { address: 0x7e00_0000_0000, value: 1 } : null,
    queues: mq,
    memory: {
      // GPU g's memory from 0x1_0000_0000 * (g + 1) (4 GiB each); host memory holds the
      // timestamp slots, the trigger and the completion slots.
      regions: [
        ...Array.from({ length: 8 }, (_, g) => ({
          name: `gpu${g}`,
          kind: "device",
          gpu: g,
          base: bufAddr(g),
          size: 0x1_0000_0000,
        })),
        { name: "host", kind: "host", gpu: null, base: 0x7d00_0000_0000, size: 0x300_0000_0000 },
      ],
      buffers: Array.from({ length: 8 }, (_, g) => ({
        name: "buf",
        id: 0,
        gpu: g,
        address: bufAddr(g),
        size,
      })),
      signals: [],
      syncWords,
      completionSignals: { base: slotAddr(0), stride: 64, count: slots },
      timestampSlots: { base: 0x7d00_0000_0000, stride: 32, count: 0 },
    },
    relocations: [],
    sourceMap: { file: "test.dmac", stmts: [], queues: [] },
  } as unknown as Manifest;
  return { manifest: { ...manifest, relocations: relocationsOf(manifest, streams) }, streams };
}

/** The relocations compile writes: one per address field that lies in a region. */
function relocationsOf(m: Manifest, streams: ReadonlyMap<string, Uint32Array>) {
  const regions = m.memory.regions;
  return m.queues.map((q) => {
    const words = streams.get(q.file)!;
    const entries: number[] = [];
    for (const d of decodeStream(words).packets)
      for (const dw of ADDR_DWORDS.get(d.packet.kind) ?? []) {
        const at = d.offset / 4 + dw;
        const addr = words[at]! + words[at + 1]! * 2 ** 32;
        const r = regions.findIndex((g) => addr >= g.base && addr < g.base + g.size);
        if (r >= 0) entries.push(at, r, addr - regions[r]!.base);
      }
    return { queue: q.name, entries };
  });
}

/** A (list-form) program with buffer `buf` on every GPU and the given queues of commands. */
export function program(
  size: number,
  queues: readonly { gpu: number; engine: number; cmds: readonly SimCmd[] }[],
  slots = 0,
): ListProgram {
  const qs: SimQueue[] = queues.map((q) => ({
    name: `gpu${q.gpu}.sdma${q.engine}`,
    gpu: q.gpu,
    engine: q.engine,
    position: "index",
    entries: q.cmds.map((cmd, i) => ({ cmd, at: i, packets: 1 })),
  }));
  return {
    gpus: 8,
    queues: qs,
    regions: [
      ...Array.from({ length: 8 }, (_, g) => ({
        kind: "buffer" as const,
        name: "buf",
        gpu: g,
        addr: bufAddr(g),
        bytes: size,
        buffer: 0,
      })),
      ...Array.from({ length: 8 * 4 }, (_, i) => ({
        kind: "sync" as const,
        name: `sync${i}`,
        gpu: i >> 2,
        addr: syncAddr(i >> 2, i & 3),
        bytes: 4,
      })),
      ...Array.from({ length: slots }, (_, k) => ({
        kind: "completion" as const,
        name: `completion[${k}]`,
        gpu: null,
        addr: slotAddr(k),
        bytes: 8,
        initial: 1,
      })),
    ],
    bufferSizes: [size],
    bufferNames: ["buf"],
    completions: Array.from({ length: slots }, (_, k) => ({
      addr: slotAddr(k),
      done: 0,
      queue: "?",
    })),
    trigger: null,
    externalSignals: [],
  };
}

export const copy = (src: number, dst: number, bytes: number): Packet => ({
  kind: "copy_linear",
  bytes,
  src,
  dst,
});
export const done = (k: number): Packet => ({
  kind: "atomic",
  op: "add64",
  addr: slotAddr(k),
  src: 0xffffffffffffffffn,
});
export const fence = (addr: number, data: number): Packet => ({ kind: "fence", addr, data });
export const poll = (addr: number, value: number): Packet => ({
  kind: "poll_mem",
  addr,
  value,
  mask: 0xffffffff,
  func: "ge",
  interval: 4,
  retryCount: 0xfff,
});
