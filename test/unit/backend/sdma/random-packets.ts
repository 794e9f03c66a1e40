// Random in-range packets for round-trip tests, driven by a fixed-seed PRNG. The generator reads
// only field widths and types from the table; the values it produces are checked against the
// hand-written expectations in packets.test.ts, so the round trip is not the table testing itself.

import { COMPILED_BY_KIND } from "../../../../src/backend/sdma/bitfield.js";
import { PACKETS, type Packet, type PacketKind } from "../../../../src/backend/sdma/packets.js";

/** The shared fixed-seed PRNG (mulberry32). */
export { mulberry32 as prng } from "../../../helpers/prng.js";

export const KINDS: readonly PacketKind[] = PACKETS.map((s) => s.kind);

/** A random integer in lo..hi (inclusive), biased towards the ends of the range. */
function int(rand: () => number, lo: number, hi: number): number {
  const r = rand();
  if (r < 0.1) return lo;
  if (r < 0.2) return hi;
  return lo + Math.floor(rand() * (hi - lo + 1));
}

function u32(rand: () => number): number {
  return int(rand, 0, 0xffffffff);
}

export function randomPacket(rand: () => number, kind: PacketKind, maxWords = 16): Packet {
  const c = COMPILED_BY_KIND[kind];
  const o: Record<string, unknown> = { kind };
  for (const f of c.fields) {
    if (f.optional && rand() < 0.5) continue;
    let v: unknown;
    switch (f.type) {
      case "uint":
        v = int(rand, f.bias + (f.optional ? 1 : 0), f.mask + f.bias);
        if (kind === "nop") v = int(rand, 1, maxWords); // keep NOP bodies short
        break;
      case "bool":
        v = f.optional ? true : rand() < 0.5;
        break;
      case "enum": {
        // Values the reference defines only: decoding a reserved one is (rightly) a warning.
        const reserved = f.spec.type === "enum" ? f.spec.enum.reserved : [];
        const ok = f.enumNames!.filter(
          (_, raw) => !reserved.includes(raw) && (raw > 0 || !f.optional),
        );
        v = ok[Math.floor(rand() * ok.length)];
        break;
      }
      case "addr": {
        const hi = int(rand, f.optional ? 1 : 0, 0x1fffff);
        const lo = u32(rand) & f.mask;
        v = hi * 4294967296 + (lo >>> 0);
        break;
      }
      case "u64": {
        const x = (BigInt(u32(rand)) << 32n) | BigInt(u32(rand));
        v = f.optional && x === 0n ? 1n : x;
        break;
      }
      case "words":
        v = Array.from({ length: int(rand, 1, maxWords) }, () => u32(rand));
        break;
    }
    o[f.name] = v;
  }
  return o as unknown as Packet;
}
