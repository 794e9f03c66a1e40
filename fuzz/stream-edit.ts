// Packet-level editing of a compiled output that keeps its manifest consistent, as a careful
// adversary would: after dropping, duplicating, moving or changing packets, the manifest's
// `dwords`, relocations (every address field that lies in a region, with its addend), source map
// (one entry per packet, with the ops of the packet it came from) and `completionSlots` (the
// slots each stream signals, in stream order) are rebuilt from the edited streams, so the input
// validator (src/sim/validate-input.ts) has nothing to object to and only the executor's own
// checks stand between the edit and a "verified". Used by the adversarial tests
// (test/adversarial/executor-semantics.test.ts) and the `executor` fuzz target.
//
// Only types come from src/ (fuzz/api.ts explains why); the decoder is passed in.

import type { Manifest } from "../src/backend/sdma/manifest.js";
import type { DmacApi } from "./api.js";

/** One packet of a stream, with what the manifest says about it. */
export interface EditPacket {
  /** The packet's dwords (edit freely; unsigned 32-bit values). */
  words: number[];
  /** Decoded kind when exploded ("unknown" for an undecodable dword). */
  readonly kind: string;
  /** The IR ops its source-map entry names (undefined: none), and that entry's statement. */
  ops: readonly number[] | undefined;
  stmt: number;
}

export type EditQueues = Map<string, EditPacket[]>;

/** Low dwords of each packet kind's address fields (sdma-gfx942.md section 2, packets.ts). */
const ADDR_DWORDS: Readonly<Record<string, readonly number[]>> = {
  copy_linear: [3, 5],
  copy_broadcast: [3, 5, 7],
  copy_swap: [3, 5],
  constant_fill: [1],
  write_linear: [1],
  fence: [1],
  sem_mem_incr: [1],
  poll_mem: [1],
  cond_exe: [1],
  atomic: [1],
  timestamp_get: [1],
  timestamp_get_global: [1],
  indirect_buffer: [1],
};

/** Every queue's stream as a list of packets (by manifest queue name). */
export function explode(
  api: Pick<DmacApi, "decodeStream">,
  manifest: Manifest,
  streams: ReadonlyMap<string, Uint32Array>,
): EditQueues {
  const out: EditQueues = new Map();
  for (const q of manifest.queues) {
    const words = streams.get(q.file) ?? new Uint32Array(0);
    const rows = [...(manifest.sourceMap.queues.find((s) => s.queue === q.name)?.entries ?? [])]
      .map((e) => ({ at: e[0]!, stmt: e[1] ?? 0, ops: e.slice(2) }))
      .sort((a, b) => a.at - b.at);
    let r = -1;
    const packets: EditPacket[] = [];
    for (const d of api.decodeStream(words).packets) {
      while (r + 1 < rows.length && rows[r + 1]!.at <= d.offset) r++;
      packets.push({
        words: Array.from(words.subarray(d.offset / 4, d.offset / 4 + d.words)),
        kind: d.packet.kind,
        ops: r >= 0 ? rows[r]!.ops : undefined,
        stmt: r >= 0 ? rows[r]!.stmt : 0,
      });
    }
    out.set(q.name, packets);
  }
  return out;
}

/**
 * The manifest and streams of edited queues, with `dwords`, packet starts, relocations, source
 * map and completion slots rebuilt from the packets. Queues keep their manifest order and files.
 */
export function assemble(
  api: Pick<DmacApi, "decodeStream">,
  manifest: Manifest,
  queues: EditQueues,
): { manifest: Manifest; streams: Map<string, Uint32Array> } {
  const regions = manifest.memory.regions;
  const cs = manifest.memory.completionSignals;
  const streams = new Map<string, Uint32Array>();
  const relocations: { queue: string; entries: number[] }[] = [];
  const sourceQueues: { queue: string; entries: number[][] }[] = [];
  const newQueues = manifest.queues.map((q) => {
    const packets = queues.get(q.name) ?? [];
    const words = Uint32Array.from(packets.flatMap((pk) => pk.words.map((w) => w >>> 0)));
    streams.set(q.file, words);
    const entries: number[] = [];
    const rows: number[][] = [];
    const slots: number[] = [];
    const starts: number[] = [];
    let at = 0;
    for (const pk of packets) {
      rows.push([at * 4, pk.stmt, ...(pk.ops ?? [])]);
      at += pk.words.length;
    }
    // Relocations and slots from the decoded edited stream (an edit may change a packet's kind).
    for (const d of api.decodeStream(words).packets) {
      const base = d.offset / 4;
      starts.push(base);
      for (const dw of ADDR_DWORDS[d.packet.kind] ?? []) {
        if (dw + 1 >= d.words) continue;
        const addr = words[base + dw]! + words[base + dw + 1]! * 2 ** 32;
        const r = regions.findIndex((g) => addr >= g.base && addr < g.base + g.size);
        if (r >= 0) entries.push(base + dw, r, addr - regions[r]!.base);
      }
      const pk = d.packet as { kind: string; addr?: number };
      if ((pk.kind === "atomic" || pk.kind === "fence") && typeof pk.addr === "number") {
        const off = pk.addr - cs.base;
        if (off >= 0 && off % cs.stride === 0 && off / cs.stride < cs.count)
          slots.push(off / cs.stride);
      }
    }
    relocations.push({ queue: q.name, entries });
    sourceQueues.push({ queue: q.name, entries: rows });
    return { ...q, dwords: words.length, packetStarts: starts, completionSlots: slots };
  });
  return {
    manifest: {
      ...manifest,
      queues: newQueues,
      relocations,
      sourceMap: { ...manifest.sourceMap, queues: sourceQueues },
    },
    streams,
  };
}

/** A deep copy of the queues (edits on it leave the original alone). */
export function cloneQueues(qs: EditQueues): EditQueues {
  return new Map(
    [...qs].map(([name, pks]) => [name, pks.map((pk) => ({ ...pk, words: [...pk.words] }))]),
  );
}

// ---- structured mutations (the executor fuzz target) ----------------------------------------

/** What mutatePackets did, for failure reports. */
export type PacketEdit = string;

const ADDR_OF = (pk: EditPacket): readonly number[] => ADDR_DWORDS[pk.kind] ?? [];

/**
 * 1-3 packet-level edits of a compiled output: drop, duplicate, move (within a queue or to
 * another), flip a bit or overwrite a dword of one packet, point an address field at another
 * packet's address, give a packet another packet's ops (a source-map edit), insert a NOP or
 * ROCr's HDP flush. The caller reassembles the manifest (assemble) so that it stays consistent.
 */
export function mutatePackets(
  rng: {
    int(n: number): number;
    range(lo: number, hi: number): number;
    chance(p: number): boolean;
    pick<T>(items: readonly T[]): T;
    u32(): number;
  },
  qs: EditQueues,
): PacketEdit[] {
  const names = [...qs.keys()].filter((k) => qs.get(k)!.length > 0);
  const done: PacketEdit[] = [];
  if (names.length === 0) return done;
  const somePacket = (): [string, number] => {
    const q = rng.pick(names);
    return [q, rng.int(qs.get(q)!.length)];
  };
  for (let k = rng.range(1, 3); k > 0; k--) {
    const [q, i] = somePacket();
    const pks = qs.get(q)!;
    if (pks.length === 0) continue;
    const pk = pks[i]!;
    switch (rng.int(10)) {
      case 0:
        pks.splice(i, 1);
        done.push(`drop ${q}#${i} ${pk.kind}`);
        break;
      case 1: {
        const to = rng.chance(0.5) ? i + 1 : rng.int(pks.length + 1);
        pks.splice(to, 0, { ...pk, words: [...pk.words] });
        done.push(`duplicate ${q}#${i} ${pk.kind} to #${to}`);
        break;
      }
      case 2: {
        pks.splice(i, 1);
        const to = rng.chance(0.5) ? Math.max(0, i - 1) : rng.int(pks.length + 1);
        pks.splice(to, 0, pk);
        done.push(`move ${q}#${i} ${pk.kind} to #${to}`);
        break;
      }
      case 3: {
        const other = rng.pick(names);
        pks.splice(i, 1);
        const dst = qs.get(other)!;
        const to = rng.int(dst.length + 1);
        dst.splice(to, 0, pk);
        done.push(`move ${q}#${i} ${pk.kind} to ${other}#${to}`);
        break;
      }
      case 4:
      case 5: {
        const dw = rng.int(pk.words.length);
        const bit = rng.int(32);
        pk.words[dw] = (pk.words[dw]! ^ (1 << bit)) >>> 0;
        done.push(`flip ${q}#${i} ${pk.kind} DW${dw} bit ${bit}`);
        break;
      }
      case 6: {
        const dw = rng.int(pk.words.length);
        const v = rng.pick([0, 1, 2, 0xffffffff, 0xfff, 64, 4096, rng.u32()]);
        pk.words[dw] = v >>> 0;
        done.push(`set ${q}#${i} ${pk.kind} DW${dw} = 0x${(v >>> 0).toString(16)}`);
        break;
      }
      case 7: {
        // Point an address field at the address another packet uses.
        const mine = ADDR_OF(pk);
        const [q2, j] = somePacket();
        const src = qs.get(q2)![j]!;
        const theirs = ADDR_OF(src);
        if (mine.length === 0 || theirs.length === 0) break;
        const a = rng.pick(mine);
        const b = rng.pick(theirs);
        pk.words[a] = src.words[b]!;
        pk.words[a + 1] = src.words[b + 1]!;
        done.push(`retarget ${q}#${i} ${pk.kind} DW${a} to ${q2}#${j} DW${b}`);
        break;
      }
      case 8: {
        const [q2, j] = somePacket();
        pk.ops = qs.get(q2)![j]!.ops;
        done.push(`source map: ${q}#${i} gets the ops of ${q2}#${j}`);
        break;
      }
      default: {
        const hdp = rng.chance(0.5);
        pks.splice(i, 0, {
          words: hdp ? [8, 0, 0x80000000, 0, 0, 0] : [0],
          kind: hdp ? "poll_reg" : "nop",
          ops: pk.ops,
          stmt: pk.stmt,
        });
        done.push(`insert ${hdp ? "ROCr's HDP flush" : "a NOP"} at ${q}#${i}`);
      }
    }
  }
  return done;
}
