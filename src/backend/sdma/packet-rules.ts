// The alignment rules the reference gives per packet kind (sdma-gfx942.md 2; packets.ts's header
// lists them), checked on a packet's field values as the packet table's writer takes them
// (bitfield.ts `write`, in `read`'s slots): the emitter checks every packet it builds, by the
// million, without a packet object. They are not encoding constraints: the emitter reports them
// as diagnostics, the executor refuses to run packets that break them.

import { DIAGNOSTICS } from "../../diagnostics/codes.js";
import { COMPILED_BY_KIND, slotValues } from "./bitfield.js";
import {
  ATOMIC_OP,
  hexAddr,
  PACKET_NAME,
  PACKETS,
  type Packet,
  type PacketKind,
} from "./packets.js";

/** A broken rule, with the catalogue code and message arguments the emitter reports it with. */
export type PacketRuleViolation =
  | { readonly code: "DMAC4001"; readonly args: readonly [string, string] }
  | { readonly code: "DMAC4002"; readonly args: readonly [string] }
  | { readonly code: "DMAC4003"; readonly args: readonly [string] }
  | { readonly code: "DMAC4004"; readonly args: readonly [string, string] }
  | { readonly code: "DMAC4007"; readonly args: readonly [string, string, number] };

/** The slot of field `name` of `kind` (bitfield.ts `read`'s layout). */
const slot = (kind: PacketKind, name: string): number => {
  const k = COMPILED_BY_KIND[kind].slots.get(name);
  if (k === undefined) throw new Error(`${kind} has no field ${name}`);
  return k;
};
const BCAST_DST1 = slot("copy_broadcast", "dst1");
const BCAST_DST2 = slot("copy_broadcast", "dst2");
const SWAP_A = slot("copy_swap", "a");
const SWAP_B = slot("copy_swap", "b");
const ATOMIC_OP_SLOT = slot("atomic", "op");
/** The address each alignment rule is about, and the bytes it needs (atomic: by its op). */
const ALIGNED: Partial<Record<PacketKind, { readonly at: number; readonly bytes: number }>> = {
  timestamp_get: { at: slot("timestamp_get", "addr"), bytes: 32 },
  timestamp_get_global: { at: slot("timestamp_get_global", "addr"), bytes: 32 },
  poll_mem: { at: slot("poll_mem", "addr"), bytes: 4 },
  fence: { at: slot("fence", "addr"), bytes: 4 },
  atomic: { at: slot("atomic", "addr"), bytes: 4 },
  sem_mem_incr: { at: slot("sem_mem_incr", "addr"), bytes: 8 },
  indirect_buffer: { at: slot("indirect_buffer", "base"), bytes: 32 },
};

const NONE: readonly PacketRuleViolation[] = Object.freeze([]);
/** The bytes an ATOMIC's address must be aligned to, by op number: its 64-bit ops 8. */
const ATOMIC_BYTES = Int32Array.from(ATOMIC_OP.names, (op) => (op.endsWith("64") ? 8 : 4));

/** Is address `a` a multiple of `n` (a power of two below 2^32)? `a % n` without `%`, which is
 * a call into C for an address above 2^31 (the emitter asks once per FENCE and ATOMIC). */
function aligned(a: number, n: number): boolean {
  const low = a - Math.floor(a / 2 ** 32) * 2 ** 32;
  return low >>> 0 === low && (low & (n - 1)) === 0;
}

/** A kind's rules over its packet's field values (NONE, shared, when it follows them). */
export type Rules = (v: ArrayLike<number>) => readonly PacketRuleViolation[];

/** The rules of `kind`, undefined when it has none (the emitter looks them up once per kind,
 * not per packet). */
export function rulesOf(kind: PacketKind): Rules | undefined {
  if (kind === "copy_broadcast")
    return (v) => {
      const [d1, d2] = [v[BCAST_DST1]!, v[BCAST_DST2]!];
      return d1 % 32 === d2 % 32 ? NONE : [{ code: "DMAC4001", args: [hexAddr(d1), hexAddr(d2)] }];
    };
  if (kind === "copy_swap")
    return (v) => {
      const out: PacketRuleViolation[] = [];
      for (const a of [v[SWAP_A]!, v[SWAP_B]!])
        if (a % 64 !== 0) out.push({ code: "DMAC4002", args: [hexAddr(a)] });
      return out.length > 0 ? out : NONE;
    };
  const rule = ALIGNED[kind];
  if (rule === undefined) return undefined;
  const { at } = rule;
  return (v) => {
    const a = v[at]!;
    // (The atomic's op by number first: the emitter asks once per completion packet.)
    const bytes = kind === "atomic" ? (ATOMIC_BYTES[v[ATOMIC_OP_SLOT]!] ?? rule.bytes) : rule.bytes;
    if (aligned(a, bytes)) return NONE;
    const op = kind === "atomic" ? (ATOMIC_OP.names[v[ATOMIC_OP_SLOT]!] ?? "") : "";
    if (kind === "timestamp_get" || kind === "timestamp_get_global")
      return [{ code: "DMAC4003", args: [hexAddr(a)] }];
    const what = op ? `${PACKET_NAME[kind]} ${op}` : PACKET_NAME[kind];
    return [
      bytes === 4
        ? { code: "DMAC4004", args: [what, hexAddr(a)] }
        : { code: "DMAC4007", args: [what, hexAddr(a), bytes] },
    ];
  };
}

/** The rules of every kind, by kind (a kind without rules breaks none). */
const RULES = new Map<PacketKind, Rules>(
  PACKETS.map((s) => [s.kind, rulesOf(s.kind) ?? (() => NONE)]),
);

/** The rules packet object `p` breaks (empty when it follows them all). */
export function packetRuleViolations(p: Packet): readonly PacketRuleViolation[] {
  return RULES.get(p.kind)!(slotValues(COMPILED_BY_KIND[p.kind], p));
}

/** The rule violations of `p` as messages (empty when it follows every rule). */
export function checkPacketRules(p: Packet): string[] {
  return packetRuleViolations(p).map((v) => {
    const message = DIAGNOSTICS[v.code].message as (...a: readonly (string | number)[]) => string;
    return `${v.code}: ${message(...v.args)}`;
  });
}
