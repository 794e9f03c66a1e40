// Layout: a concrete address for every symbolic location of a QueueProgram.
//
// Memory is a set of disjoint windows ("regions"), so every address belongs to exactly one
// region and a runtime can rebase a region by adding a constant (see the relocation table):
// - region "gpu<G>" (device memory of GPU G) at deviceBase + G * deviceWindow:
//     buffer instances on G, by buffer id, each 4 KiB aligned (bufferAlign);
//     then, 4 KiB aligned, user signal words on G (by signal id), then compiler sync words on G
//     (by id), each in its own 64-byte slot (syncAlign) so that each can be polled independently;
// - region "host" (host-visible pinned memory every GPU can reach) at hostBase:
//     the prelaunch trigger word (a 64-byte slot, only when the program has a trigger), then the
//     sync words that live in host memory (conservative sync, breadcrumbs; 64-byte slots), then the
//     64-bit completion signals (64-byte slots, by slot number), then timestamp slots (32 bytes),
//     then the buffers declared `on host`, by buffer id, each 4 KiB aligned.
// Completion and timestamp addresses are computed from the slot number (no per-slot storage), so
// a million completion signals cost nothing here.
//
// The defaults (device windows of 256 GiB from 0x7000_0000_0000, host window of 1 TiB at
// 0x6f00_0000_0000) keep every address below 2^47 (user-mode canonical) for up to 64 GPUs.

import { HOST, HOST_REGION_RANK, type IrModule } from "../../ir/ir.js";
import { syncWordInHost, type QueueProgram } from "../../queues/queue-program.js";
import { diag, type Diagnostic } from "../../diagnostics/diagnostic.js";
import type { SourceFile } from "../../source/source-file.js";
import { InternalError } from "../../util/internal-error.js";

export interface LayoutConfig {
  readonly deviceBase: number;
  /** Size of each GPU's window; GPU G's window starts at deviceBase + G * deviceWindow. */
  readonly deviceWindow: number;
  readonly hostBase: number;
  readonly hostWindow: number;
  readonly bufferAlign: number;
  readonly syncAlign: number;
  readonly completionAlign: number;
  readonly timestampAlign: number;
}

export const DEFAULT_LAYOUT: LayoutConfig = {
  deviceBase: 0x7000_0000_0000,
  deviceWindow: 0x40_0000_0000, // 256 GiB: more than an MI300X's 192 GB of HBM
  hostBase: 0x6f00_0000_0000,
  hostWindow: 0x100_0000_0000,
  bufferAlign: 4096,
  syncAlign: 64,
  completionAlign: 64,
  timestampAlign: 32,
};

export interface LayoutRegion {
  readonly name: string;
  readonly kind: "device" | "host";
  readonly gpu: number | null;
  readonly base: number;
  /** Bytes used from base, rounded up to bufferAlign. */
  readonly size: number;
}

export interface Layout {
  readonly config: LayoutConfig;
  readonly ranks: number;
  /** gpu0 .. gpu<ranks-1>, then host (index = ranks). */
  readonly regions: readonly LayoutRegion[];
  /** [buffer * ranks + rank]: address of that instance, NaN where the buffer does not exist. */
  readonly bufferAddr: Float64Array;
  /** [signal * ranks + rank]: address of that user signal word, NaN where it does not exist. */
  readonly signalAddr: Float64Array;
  /** [sync word id]: address. */
  readonly syncAddr: Float64Array;
  readonly triggerAddr: number | null;
  readonly completionBase: number;
  readonly timestampBase: number;
}

export const HOST_REGION = (l: Layout): number => l.ranks;

export function completionAddr(l: Layout, slot: number): number {
  return l.completionBase + slot * l.config.completionAlign;
}

export function timestampAddr(l: Layout, slot: number): number {
  return l.timestampBase + slot * l.config.timestampAlign;
}

/** The region index holding `addr` (regions are disjoint windows). */
export function regionOf(l: Layout, addr: number): number {
  const c = l.config;
  if (addr >= c.hostBase && addr < c.hostBase + c.hostWindow) return l.ranks;
  const g = Math.floor((addr - c.deviceBase) / c.deviceWindow);
  if (g < 0 || g >= l.ranks)
    throw new InternalError(`address 0x${addr.toString(16)} is in no region`);
  return g;
}

/**
 * Relocation triples from [dword, address, -] to [dword, region, addend] (the manifest's
 * relocations), for rel[0 .. count). One loop of its own, where regionOf is inlined: called per
 * address from the emitter's loop, each address (above 2^31) was boxed for the call.
 */
export function relocate(l: Layout, rel: Float64Array, count: number): void {
  for (let k = 0; k < count; k += 3) {
    const a = rel[k + 1]!;
    const region = regionOf(l, a);
    rel[k + 1] = region;
    rel[k + 2] = a - l.regions[region]!.base;
  }
}

const alignUp = (x: number, a: number): number => Math.ceil(x / a) * a;

/**
 * DMAC4008 for a GPU whose buffers alone (aligned as layoutProgram places them) overflow its
 * window, or nothing. Cheap (one pass over the buffers) and needs no queue program, so the
 * pipeline runs it before lowering: otherwise a schedule with petabyte buffers is first split
 * into millions of copy packets (seconds of work) only for the layout to reject it.
 */
export function checkBuffersFit(
  m: IrModule,
  file: SourceFile | undefined,
  c: LayoutConfig = DEFAULT_LAYOUT,
): Diagnostic[] {
  for (let g = 0; g < m.ranks; g++) {
    let size = 0;
    for (const b of m.buffers) {
      if (b.rank !== -1 && b.rank !== g) continue;
      size = Math.ceil(size / c.bufferAlign) * c.bufferAlign + b.size;
      if (size > c.deviceWindow) {
        const span = b.span;
        return [
          diag("DMAC4008", file && span ? { file, span } : undefined, [
            `gpu${g}`,
            `${size} bytes`,
            `${c.deviceWindow} bytes`,
          ]),
        ];
      }
    }
  }
  return [];
}

export function layoutProgram(
  m: IrModule,
  p: QueueProgram,
  file: SourceFile | undefined,
  config: LayoutConfig = DEFAULT_LAYOUT,
): { layout: Layout | undefined; diagnostics: Diagnostic[] } {
  const diagnostics: Diagnostic[] = [];
  const R = m.ranks;
  const c = config;
  for (const [k, a] of [
    ["bufferAlign", c.bufferAlign],
    ["syncAlign", c.syncAlign],
    ["completionAlign", c.completionAlign],
    ["timestampAlign", c.timestampAlign],
  ] as const) {
    if (!(a >= 8 && (a & (a - 1)) === 0))
      throw new InternalError(`layout ${k} ${a} is not a power of two >= 8`);
  }
  const bufferAddr = new Float64Array(m.buffers.length * R).fill(NaN);
  const signalAddr = new Float64Array(m.signals.length * R).fill(NaN);
  const syncAddr = new Float64Array(p.syncWords.length).fill(NaN);
  const next = new Float64Array(R);
  const regions: LayoutRegion[] = [];
  const tooBig = (region: string, size: number, limit: number, span = m.buffers[0]?.span): void => {
    diagnostics.push(
      diag("DMAC4008", file && span ? { file, span } : undefined, [
        region,
        `${size} bytes`,
        `${limit} bytes`,
      ]),
    );
  };

  for (let g = 0; g < R; g++) {
    const base = c.deviceBase + g * c.deviceWindow;
    let at = base;
    for (const b of m.buffers) {
      if (b.rank !== -1 && b.rank !== g) continue;
      at = alignUp(at, c.bufferAlign);
      bufferAddr[b.id * R + g] = at;
      at += b.size;
      if (at - base > c.deviceWindow) {
        tooBig(`gpu${g}`, at - base, c.deviceWindow, b.span);
        return { layout: undefined, diagnostics };
      }
    }
    next[g] = alignUp(at, c.bufferAlign);
  }
  for (const s of m.signals) {
    for (let g = 0; g < R; g++) {
      if (s.rank !== -1 && s.rank !== g) continue;
      signalAddr[s.id * R + g] = next[g]!;
      next[g]! += c.syncAlign;
    }
  }
  p.syncWords.forEach((w, id) => {
    if (syncWordInHost(p, id)) return; // placed in the host window below
    syncAddr[id] = next[w.gpu]!;
    next[w.gpu]! += c.syncAlign;
  });
  for (let g = 0; g < R; g++) {
    const base = c.deviceBase + g * c.deviceWindow;
    const size = alignUp(next[g]! - base, c.bufferAlign);
    if (size > c.deviceWindow) {
      tooBig(`gpu${g}`, size, c.deviceWindow);
      return { layout: undefined, diagnostics };
    }
    regions.push({ name: `gpu${g}`, kind: "device", gpu: g, base, size });
  }

  let host = c.hostBase;
  const triggerAddr = p.trigger ? host : null;
  if (p.trigger) host += c.syncAlign;
  // Conservative sync words and breadcrumbs (host memory, as AMD's code polls), 64 B apart.
  for (let id = 0; id < p.syncWords.length; id++) {
    if (!syncWordInHost(p, id)) continue;
    syncAddr[id] = host;
    host += c.syncAlign;
  }
  const completionBase = alignUp(host, c.completionAlign);
  host = completionBase + p.completionSlots * c.completionAlign;
  const timestampBase = alignUp(host, c.timestampAlign);
  host = timestampBase + p.timestampSlots * c.timestampAlign;
  // Buffers declared `on host` (pinned host memory every GPU can reach), after the words. Their
  // instance is recorded at the placeholder rank of their regions (ir.ts HOST_REGION_RANK).
  for (const b of m.buffers) {
    if (b.rank !== HOST) continue;
    host = alignUp(host, c.bufferAlign);
    bufferAddr[b.id * R + HOST_REGION_RANK] = host;
    host += b.size;
  }
  const hostSize = alignUp(host - c.hostBase, c.bufferAlign);
  if (hostSize > c.hostWindow) {
    tooBig("host", hostSize, c.hostWindow);
    return { layout: undefined, diagnostics };
  }
  regions.push({ name: "host", kind: "host", gpu: null, base: c.hostBase, size: hostSize });
  const layout: Layout = {
    config,
    ranks: R,
    regions,
    bufferAddr,
    signalAddr,
    syncAddr,
    triggerAddr,
    completionBase,
    timestampBase,
  };
  return { layout, diagnostics };
}
