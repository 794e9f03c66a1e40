// The listing writes field values straight into bytes (disasm.ts writeFields: hex64 for u64 fields
// from the raw halves, int32 digits for small numbers); formatPacket formats the same fields as
// strings. For random packets of every kind the two must agree.

import { describe, expect, it } from "vitest";
import { disassemble, formatPacket } from "../../../../src/backend/sdma/disasm.js";
import { encodePackets } from "../../../../src/backend/sdma/encode.js";
import { KINDS, prng, randomPacket } from "./random-packets.js";

describe("listing fields agree with formatPacket", () => {
  for (const kind of KINDS)
    it(`${kind}: 200 random packets`, () => {
      const rand = prng(0x5eed + kind.length);
      for (let n = 0; n < 200; n++) {
        const p = randomPacket(rand, kind, 4);
        const line = disassemble(encodePackets([p]), { dwordsPerLine: 64 }).trimEnd();
        expect(line.endsWith(`  ${formatPacket(p)}`), `${line}\n${formatPacket(p)}`).toBe(true);
      }
    });
});
