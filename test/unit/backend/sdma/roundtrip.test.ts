import { describe, expect, it } from "vitest";
import { COMPILED_BY_KIND, slotValues } from "../../../../src/backend/sdma/bitfield.js";
import { decodePacketAt, decodeStream } from "../../../../src/backend/sdma/decode.js";
import {
  encodePacket,
  encodePackets,
  valueOutsideField,
  validatePacket,
} from "../../../../src/backend/sdma/encode.js";
import { InternalError } from "../../../../src/util/internal-error.js";
import { disassemble } from "../../../../src/backend/sdma/disasm.js";
import { packetDwords, type Packet } from "../../../../src/backend/sdma/packets.js";
import { KINDS, prng, randomPacket } from "./random-packets.js";

describe("decode(encode(p)) == p", () => {
  for (const kind of KINDS) {
    it(`${kind}: 300 random in-range packets`, () => {
      const rand = prng(0x5eed + kind.length * 7919);
      for (let n = 0; n < 300; n++) {
        const p = randomPacket(rand, kind);
        expect(validatePacket(p)).toEqual([]);
        const words = encodePacket(p);
        expect(words.length).toBe(packetDwords(p));
        for (const w of words) expect(w >>> 0).toBe(w);
        const r = decodePacketAt(words, 0);
        expect(r.ok).toBe(true);
        if (!r.ok) continue;
        expect(r.words).toBe(words.length);
        expect(r.suspicious).toBe(false);
        expect(r.packet).toEqual(p);
      }
    });
  }
});

// The emitter's path: field values in `read`'s slots, written by the table's `write`.
describe("write(slotValues(p)) == encode(p), and read gives the values back", () => {
  for (const kind of KINDS.filter((k) => COMPILED_BY_KIND[k].fixedLength >= 0)) {
    it(`${kind}: 300 random in-range packets`, () => {
      const c = COMPILED_BY_KIND[kind];
      const rand = prng(0xc0de + kind.length * 7919);
      for (let n = 0; n < 300; n++) {
        const p = randomPacket(rand, kind);
        const values = slotValues(c, p);
        const out = new Uint32Array(c.fixedLength + 1).fill(0xffffffff);
        expect(c.write(values, out, 1)).toBe(true);
        expect([...out.subarray(1)]).toEqual(encodePacket(p));
        const back = new Float64Array(c.slotCount);
        c.read(out, 1, back);
        expect([...back]).toEqual([...values]);
      }
    });
  }
  it("writerOf writes the named fields, and the others at their defaults", () => {
    const c = COMPILED_BY_KIND.copy_linear;
    const p = { kind: "copy_linear", bytes: 4096, src: 0x1000, dst: 0x2_0000_0040 } as const;
    const v = slotValues(c, { ...p, tmz: true, srcSw: 2 });
    const out = new Uint32Array(c.fixedLength);
    expect(c.writerOf(["bytes", "src", "dst"])(v, out, 0)).toBe(true);
    expect([...out]).toEqual(encodePacket(p));
    expect(() => c.writerOf(["bytes", "nope"])).toThrow(InternalError);
  });
  it("refuses a value outside its field, as validatePacket does", () => {
    const bad = (kind: keyof typeof COMPILED_BY_KIND, field: string, value: number): boolean => {
      const c = COMPILED_BY_KIND[kind];
      const v = c.defaults.slice();
      v[c.slots.get(field)!] = value;
      return c.write(v, new Uint32Array(c.fixedLength), 0);
    };
    expect(bad("copy_linear", "bytes", 1)).toBe(true);
    expect(bad("copy_linear", "bytes", 0)).toBe(false); // bias 1
    expect(bad("copy_linear", "bytes", 2 ** 30 + 1)).toBe(false);
    expect(bad("copy_linear", "bytes", 1.5)).toBe(false);
    expect(bad("copy_linear", "src", 2 ** 53)).toBe(false);
    expect(bad("copy_linear", "src", -4)).toBe(false);
    expect(bad("copy_linear", "src", NaN)).toBe(false);
    expect(bad("copy_swap", "a", 0x1020)).toBe(false); // bits 5:0 reserved
    expect(bad("copy_swap", "a", 0x1040)).toBe(true);
    expect(bad("fence", "data", 2 ** 32)).toBe(false);
    expect(bad("fence", "data", 2 ** 32 - 1)).toBe(true);
    expect(bad("fence", "gcc", 2)).toBe(false);
    expect(bad("atomic", "src", -1)).toBe(false);
    const nan = new Float64Array(9).fill(NaN);
    expect(COMPILED_BY_KIND.fence.write(nan, new Uint32Array(8), 0)).toBe(false);
    expect(valueOutsideField(COMPILED_BY_KIND.fence, nan)).toBeInstanceOf(InternalError);
    expect(() => COMPILED_BY_KIND.nop.write(new Float64Array(1), new Uint32Array(4), 0)).toThrow(
      InternalError,
    );
  });
});

describe("encode(decode(w)) == w", () => {
  it("for streams of random packets, with no problems reported", () => {
    const rand = prng(42);
    for (let s = 0; s < 50; s++) {
      const ps: Packet[] = [];
      const n = 1 + Math.floor(rand() * 40);
      for (let k = 0; k < n; k++)
        ps.push(randomPacket(rand, KINDS[Math.floor(rand() * KINDS.length)]!));
      const words = encodePackets(ps);
      const { packets, problems } = decodeStream(words);
      expect(problems).toEqual([]);
      expect(packets.map((e) => e.packet)).toEqual(ps);
      const again = encodePackets(packets.map((e) => e.packet as Packet));
      expect(again).toEqual(words);
      // offsets are cumulative byte offsets
      let off = 0;
      for (const e of packets) {
        expect(e.offset).toBe(off);
        off += e.words * 4;
      }
    }
  });
});

describe("fuzz: random dwords never throw", () => {
  it("10k random streams decode and disassemble", () => {
    const rand = prng(7);
    // Mostly small opcodes so that real packets (and their reserved bits) come up often.
    const word = (): number => {
      const r = rand();
      if (r < 0.5) return ((Math.floor(rand() * 0x10000) << 16) | Math.floor(rand() * 16)) >>> 0;
      if (r < 0.6) return 0;
      return Math.floor(rand() * 4294967296) >>> 0;
    };
    let problems = 0;
    for (let s = 0; s < 10_000; s++) {
      const len = Math.floor(rand() * 24);
      const words = new Uint32Array(len);
      for (let i = 0; i < len; i++) words[i] = word();
      const d = decodeStream(words);
      problems += d.problems.length;
      // every dword is covered exactly once
      expect(d.packets.reduce((a, e) => a + e.words, 0)).toBe(len);
      if (s % 10 === 0) disassemble(words);
    }
    expect(problems).toBeGreaterThan(0);
  });
});
