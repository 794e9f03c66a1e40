// Names for the addresses of a compiled program, from its manifest's memory section (the same
// section at compile time: manifest.ts manifestMemory). Annotated listings print an address as
//   buf@3+0x40       buffer `buf` on GPU 3, byte 0x40 of it (no `+0x0` at its start)
//   staging@host     buffer `staging` in host memory (as the source writes it)
//   ready@2          the user signal word `ready` of GPU 2
//   sync5            compiler sync word 5 (the listing's header says whose it is)
//   completion[6]    host completion slot 6 (`+0x4`: its high dword)
//   timestamp[2]     timestamp slot 2
//   trigger          the prelaunch trigger word
// The same names as the simulator's reports (src/sim/run.ts memory regions). An address in none
// of them has no name: the listing prints it in hex and says so where a packet must name a word.

import type { ManifestMemory, SlotArray } from "./manifest.js";

export type SymbolKind = "buffer" | "signal" | "sync" | "completion" | "timestamp" | "trigger";

export interface AddressSymbol {
  readonly kind: SymbolKind;
  /** The name without the offset: `buf@3`, `ready@2`, `sync5`, `completion[6]`, `trigger`. */
  readonly base: string;
  /** Bytes from the start of the named thing. */
  readonly offset: number;
  /** Bytes the named thing holds from its start (a word: 4, a completion slot: 8). */
  readonly size: number;
}

/** `base` or `base+0xN`: how a listing prints a resolved address. */
export function symbolText(s: AddressSymbol): string {
  return s.offset === 0 ? s.base : `${s.base}+0x${s.offset.toString(16)}`;
}

/** A buffer instance's name: `buf@3`, or `staging@host` (a host buffer's `gpu` is a placeholder). */
export function bufferName(b: ManifestMemory["buffers"][number]): string {
  return `${b.name}@${b.host === true ? "host" : b.gpu}`;
}

/** Completion slots are 64-bit, timestamp values too (a slot may be larger: its stride). */
const SLOT_BYTES = 8;

/** Sorted, disjoint ranges (buffers, signal and sync words, the trigger) and the slot arrays. */
export class AddressSymbols {
  private readonly starts: Float64Array;
  private readonly ends: Float64Array;
  private readonly entries: readonly { readonly kind: SymbolKind; readonly base: string }[];

  constructor(memory: ManifestMemory, trigger: { readonly address: number } | null) {
    const ranges: { start: number; end: number; kind: SymbolKind; base: string }[] = [];
    for (const b of memory.buffers)
      ranges.push({
        start: b.address,
        end: b.address + b.size,
        kind: "buffer",
        base: bufferName(b),
      });
    for (const s of memory.signals)
      ranges.push({
        start: s.address,
        end: s.address + 4,
        kind: "signal",
        base: `${s.name}@${s.gpu}`,
      });
    for (const w of memory.syncWords)
      ranges.push({ start: w.address, end: w.address + 4, kind: "sync", base: `sync${w.id}` });
    if (trigger)
      ranges.push({
        start: trigger.address,
        end: trigger.address + 4,
        kind: "trigger",
        base: "trigger",
      });
    ranges.sort((a, b) => a.start - b.start);
    this.starts = Float64Array.from(ranges, (r) => r.start);
    this.ends = Float64Array.from(ranges, (r) => r.end);
    this.entries = ranges.map((r) => ({ kind: r.kind, base: r.base }));
    this.completion = memory.completionSignals;
    this.timestamps = memory.timestampSlots;
  }

  private readonly completion: SlotArray;
  private readonly timestamps: SlotArray;

  /** The name of `addr`, or undefined where the program names nothing there. */
  resolve(addr: number): AddressSymbol | undefined {
    const slot =
      slotOf(this.completion, addr, "completion") ?? slotOf(this.timestamps, addr, "timestamp");
    if (slot) return slot;
    // The last range starting at or below addr (ranges are disjoint: validateManifest and the
    // layout both guarantee it).
    let lo = 0;
    let hi = this.starts.length - 1;
    if (hi < 0 || addr < this.starts[0]!) return undefined;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= addr) lo = mid;
      else hi = mid - 1;
    }
    if (addr >= this.ends[lo]!) return undefined;
    const e = this.entries[lo]!;
    const start = this.starts[lo]!;
    return { kind: e.kind, base: e.base, offset: addr - start, size: this.ends[lo]! - start };
  }
}

function slotOf(
  slots: SlotArray,
  addr: number,
  kind: "completion" | "timestamp",
): AddressSymbol | undefined {
  const off = addr - slots.base;
  if (off < 0 || off >= slots.count * slots.stride) return undefined;
  const k = Math.floor(off / slots.stride);
  const within = off - k * slots.stride;
  if (within >= SLOT_BYTES) return undefined;
  return { kind, base: `${kind}[${k}]`, offset: within, size: SLOT_BYTES };
}
