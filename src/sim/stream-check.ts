// What a manifest says about each decoded packet stream, checked against it (QueueStreamCheck,
// fed by the executor's one decoding pass; checkQueueStream for a whole stream): relocated
// address dwords, and the completion writes and slots of each queue. The manifest itself has
// passed validateManifest (validate-input.ts).

import { COMPILED_BY_KIND } from "../backend/sdma/bitfield.js";
import {
  decodeStream,
  type DecodedEntry,
  type DecodedStream,
  type StreamProblem,
} from "../backend/sdma/decode.js";
import type { Manifest, ManifestQueue } from "../backend/sdma/manifest.js";
import type { Packet } from "../backend/sdma/packets.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { Bad, hex, PROTOCOL_WRITE, run, slotAt } from "./validate-input.js";

/** Low dwords of the address fields of each packet kind (from the packet table). */
export const ADDR_DWORDS = new Map<string, readonly number[]>(
  Object.values(COMPILED_BY_KIND).map((c) => [
    c.kind,
    c.fields.filter((f) => f.type === "addr").map((f) => f.dw),
  ]),
);

const MNEMONIC = new Map<string, string>(
  Object.values(COMPILED_BY_KIND).map((c) => [c.kind, c.spec.mnemonic]),
);

/**
 * What the manifest says about one queue's packet stream, checked against the decoded stream
 * (the executor's loader feeds it every entry of its one decoding pass, scanStream, then asks
 * finish()): each relocation names the low dword of a packet's address field and the address
 * there is its region's base plus the addend; the packets that write completion slots do it as
 * `completion.protocol` says and signal exactly the queue's `completionSlots`, in that order. A
 * stream the decoder flags (an unknown or truncated packet, reserved bits) is left to the
 * executor, which reports it (DMAC6007) and never verifies it. `manifest` must have passed
 * validateManifest. Nothing is kept per packet but one byte per dword (the address dwords).
 */
export class QueueStreamCheck {
  private readonly isAddr: Uint8Array;
  private readonly signalled: number[] = [];
  /** The first completion write that breaks the protocol: its message. */
  private wrongWrite: string | undefined;
  private flagged = false;
  /** Packets seen, and the index of the first whose offset packetStarts does not give. */
  private packets = 0;
  private wrongStart: readonly [packet: number, dword: number] | undefined;
  // What every packet reads, looked up once.
  private readonly starts: ManifestQueue["packetStarts"];
  private readonly slots: Manifest["memory"]["completionSignals"];
  /** The manifest's completion protocol. */
  readonly protocol: Manifest["completion"]["protocol"];

  constructor(
    private readonly manifest: Manifest,
    private readonly index: number,
    private readonly words: Uint32Array,
  ) {
    this.isAddr = new Uint8Array(words.length);
    this.starts = manifest.queues[index]!.packetStarts;
    this.slots = manifest.memory.completionSignals;
    this.protocol = manifest.completion.protocol;
  }

  /** One decoded entry, in stream order, with the problems the decoder found at it. */
  visit(e: DecodedEntry, problems: readonly StreamProblem[]): void {
    if (problems.length > 0) this.flagged = true;
    if (this.flagged || e.packet.kind === "unknown") return;
    this.packet(e.offset, e.packet);
  }

  /** One decoded packet the decoder found no problem with, at byte offset `offset`. */
  packet(offset: number, pk: Packet): void {
    if (this.flagged) return;
    this.seen(offset / 4, ADDR_DWORDS.get(pk.kind));
    if (pk.kind !== "fence" && pk.kind !== "atomic" && pk.kind !== "sem_mem_incr") return;
    const slot = this.slotAt(pk.addr);
    if (slot === undefined) return;
    const ok =
      this.protocol === "atomic"
        ? pk.kind === "atomic" && pk.op === "add64" && pk.src === 0xffff_ffff_ffff_ffffn
        : pk.kind === "fence" && pk.data >>> 0 === 0;
    this.signal(offset, slot, ok ? undefined : pk);
  }

  /** The packet at `dword`: counted, held to packetStarts, its address dwords (`addrDws`) marked. */
  seen(dword: number, addrDws: readonly number[] | undefined): void {
    const starts = this.starts;
    if (starts !== undefined && this.packets < starts.length && starts[this.packets] !== dword)
      this.wrongStart ??= [this.packets, dword];
    this.packets++;
    if (addrDws !== undefined)
      for (let j = 0; j < addrDws.length; j++) this.isAddr[dword + addrDws[j]!] = ADDRESS;
  }

  /** The completion slot whose word starts at `addr`, if any. */
  slotAt(addr: number): number | undefined {
    return slotAt(this.slots, addr);
  }

  /** A write to completion slot `slot` at `offset`; `wrong`: the packet, when it is not the
   * protocol's write. */
  signal(offset: number, slot: number, wrong?: Packet): void {
    if (wrong !== undefined && this.wrongWrite === undefined)
      this.wrongWrite = `"${this.protocol}", but ${this.manifest.queues[this.index]!.name} ${hex(offset)} signals completion slot ${slot} with ${describePacketSignal(wrong)}, not ${PROTOCOL_WRITE[this.protocol]}`;
    this.signalled.push(slot);
  }

  finish(file = "manifest.json"): Diagnostic | undefined {
    const { manifest, index, words } = this;
    return run(file, () => {
      const q = manifest.queues[index]!;
      if (this.flagged) return;
      const regions = manifest.memory.regions;
      const base = Float64Array.from(regions, (g) => g.base); // (a column, as in relocations())
      const r = relocationIndex(manifest).get(q.name) ?? -1;
      const entries = r >= 0 ? manifest.relocations[r]!.entries : [];
      // (The loop is its own function: optimised once, not once per queue's closure.)
      const bad = firstBadRelocation(entries, this.isAddr, words, base);
      if (bad >= 0) {
        const k = bad;
        const dword = entries[k]!;
        if (this.isAddr[dword] === RELOCATED)
          throw new Bad(
            `$.relocations[${r}].entries[${k}]`,
            `dword ${dword} of ${q.file} is relocated a second time: a runtime would add the region's new base twice`,
          );
        if (this.isAddr[dword] !== ADDRESS) {
          // (The error path: decode again to name the packet the dword is in.)
          const at = decodeStream(words).packets.findLast((e) => e.offset / 4 <= dword);
          throw new Bad(
            `$.relocations[${r}].entries[${k}]`,
            `dword ${dword} of ${q.file} is not the low half of an address (it is dword ${dword - (at ? at.offset / 4 : 0)} of the ${at ? (MNEMONIC.get(at.packet.kind) ?? at.packet.kind) : "stream"} at ${hex(at ? at.offset : 0)}): rebasing it would corrupt the stream`,
          );
        }
        const want = base[entries[k + 1]!]! + entries[k + 2]!;
        const got = words[dword]! + words[dword + 1]! * 2 ** 32;
        throw new Bad(
          `$.relocations[${r}].entries[${k + 2}]`,
          `dword ${dword} of ${q.file} holds ${hex(got)}, not ${regions[entries[k + 1]!]!.name} + ${entries[k + 2]!} = ${hex(want)}`,
        );
      }
      this.everyAddressRelocated(r, q, words);
      if (this.wrongWrite !== undefined) throw new Bad("$.completion.protocol", this.wrongWrite);
      const starts = q.packetStarts;
      if (starts !== undefined && (this.wrongStart !== undefined || starts.length !== this.packets))
        throw new Bad(
          `$.queues[${index}].packetStarts`,
          this.wrongStart !== undefined
            ? `entry ${this.wrongStart[0]} is ${starts[this.wrongStart[0]]}, but packet ${this.wrongStart[0]} of ${q.file} starts at dword ${this.wrongStart[1]}: a loader padding the ring by these offsets would split a packet`
            : `lists ${starts.length} packets, but ${q.file} has ${this.packets}`,
        );
      const listed = q.completionSlots;
      const signalled = this.signalled;
      if (!sameList(signalled, listed))
        throw new Bad(
          `$.queues[${index}].completionSlots`,
          `lists ${shortList(listed)}, but ${q.file} signals ${shortList(signalled)} (in stream order)`,
        );
    });
  }

  /**
   * Every address field that points into a region has a relocation (firstBadRelocation marked
   * those it found): a runtime that maps the region elsewhere would leave the others absolute,
   * pointing at memory the schedule never allocated.
   */
  private everyAddressRelocated(r: number, q: ManifestQueue, words: Uint32Array): void {
    const regions = [...this.manifest.memory.regions].sort((x, y) => x.base - y.base);
    const start = Float64Array.from(regions, (g) => g.base);
    const end = Float64Array.from(regions, (g) => g.base + g.size);
    const dword = firstUnrelocated(this.isAddr, words, start, end);
    if (dword < 0) return;
    const addr = words[dword]! + words[dword + 1]! * 2 ** 32;
    const region = regions.find((g) => addr >= g.base && addr < g.base + g.size)!;
    const at = decodeStream(words).packets.findLast((e) => e.offset / 4 <= dword)!;
    throw new Bad(
      r >= 0 ? `$.relocations[${r}].entries` : "$.relocations",
      `dword ${dword} of ${q.file} (dword ${dword - at.offset / 4} of the ${MNEMONIC.get(at.packet.kind) ?? at.packet.kind} at ${hex(at.offset)}) holds ${hex(addr)}, an address in region ${region.name}, but no relocation of ${q.name} names it: a runtime that maps ${region.name} elsewhere would leave it absolute`,
    );
  }
}

/** QueueStreamCheck.isAddr's marks: an address field's low dword, and one a relocation names. */
const ADDRESS = 1;
const RELOCATED = 2;

/**
 * The first address field's low dword (`isAddr`) that no relocation named and whose address lies
 * in a region ([start[i], end[i]), sorted and disjoint); -1 if none.
 */
function firstUnrelocated(
  isAddr: Uint8Array,
  words: Uint32Array,
  start: Float64Array,
  end: Float64Array,
): number {
  for (let d = 0; d < isAddr.length; d++) {
    if (isAddr[d] !== ADDRESS) continue;
    const addr = words[d]! + words[d + 1]! * 2 ** 32;
    let lo = 0;
    let hi = start.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (start[mid]! <= addr) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0 && addr < end[lo - 1]!) return d;
  }
  return -1;
}

/** QueueStreamCheck over a stream decoded whole. */
export function checkQueueStream(
  manifest: Manifest,
  index: number,
  words: Uint32Array,
  decoded: DecodedStream,
  file = "manifest.json",
): Diagnostic | undefined {
  const check = new QueueStreamCheck(manifest, index, words);
  const problems = new Set(decoded.problems.map((p) => p.offset));
  for (const e of decoded.packets)
    check.visit(e, problems.has(e.offset) ? [decoded.problems[0]!] : []);
  return check.finish(file);
}

/**
 * Whether two lists hold the same numbers in the same order. (A loop of its own, not `some` with
 * a callback: a queue's 4,096 completion slots, the callback called for each while cold.)
 */
function sameList(a: readonly number[], b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/**
 * The first relocation triple (its index k in `entries`) whose dword is not the low half of an
 * address field (`isAddr`), is named a second time, or does not hold its region's base + addend;
 * -1 if all hold. Each dword named is marked RELOCATED.
 */
function firstBadRelocation(
  entries: ArrayLike<number>,
  isAddr: Uint8Array,
  words: Uint32Array,
  base: Float64Array,
): number {
  for (let k = 0; k < entries.length; k += 3) {
    const dword = entries[k]!;
    if (isAddr[dword] !== ADDRESS) return k;
    if (words[dword]! + words[dword + 1]! * 2 ** 32 !== base[entries[k + 1]!]! + entries[k + 2]!)
      return k;
    isAddr[dword] = RELOCATED;
  }
  return -1;
}

const RELOCATION_INDEX = new WeakMap<Manifest, ReadonlyMap<string, number>>();

/** Index in `$.relocations` of each queue's list (computed once per manifest). */
function relocationIndex(m: Manifest): ReadonlyMap<string, number> {
  let index = RELOCATION_INDEX.get(m);
  if (!index) {
    index = new Map(m.relocations.map((r, i) => [r.queue, i]));
    RELOCATION_INDEX.set(m, index);
  }
  return index;
}

function describePacketSignal(pk: Packet): string {
  if (pk.kind === "fence") return `a FENCE of ${pk.data >>> 0}`;
  if (pk.kind === "atomic") return `an ATOMIC ${pk.op} of ${BigInt.asIntN(64, pk.src)}`;
  return `a ${MNEMONIC.get(pk.kind) ?? pk.kind}`;
}

function shortList(xs: readonly number[]): string {
  if (xs.length === 0) return "no slot";
  const head = xs.slice(0, 8).join(", ");
  return `slots [${head}${xs.length > 8 ? `, ... (${xs.length} in all)` : ""}]`;
}
