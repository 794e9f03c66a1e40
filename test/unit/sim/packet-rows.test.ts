// packedFromManifest writes the packets a program has by the million (linear copies, FENCEs,
// memory polls, ATOMIC adds) straight into the rows, not through a SimCmd: every row must be
// the command simCmdOfPacket reads from the same packet, for every variant of those kinds and for
// the kinds that still go through simCmdOfPacket.

import { describe, expect, it } from "vitest";
import { decodeStream } from "../../../src/backend/sdma/decode.js";
import type { Packet } from "../../../src/backend/sdma/packets.js";
import { cmdAt } from "../../../src/sim/program.js";
import { packedFromManifest, simCmdOfPacket } from "../../../src/sim/from-manifest.js";
import { bufAddr, copy, manifestFor, syncAddr } from "./node.js";

const KiB = 1024;
const sync = syncAddr(1, 0);
// (No completion slots in this manifest: the writes are not checked against a protocol.)
const word64 = bufAddr(3, 64);

const PACKETS: Packet[] = [
  copy(bufAddr(0), bufAddr(1), 4 * KiB),
  { kind: "copy_linear", bytes: 64, src: bufAddr(0), dst: bufAddr(2), tmz: true },
  { kind: "copy_linear", bytes: 64, src: bufAddr(0), dst: bufAddr(2), dstSw: 1 },
  { kind: "fence", addr: sync, data: 7 },
  { kind: "fence", addr: sync, data: 0xffff_ffff },
  { kind: "fence", addr: sync, data: 1, gpa: true },
  ...(["always", "lt", "le", "eq", "ne", "ge", "gt"] as const).map((func): Packet => ({
    kind: "poll_mem",
    addr: sync,
    value: 3,
    mask: 0xff,
    func,
    interval: 4,
    retryCount: 0xfff,
  })),
  { kind: "poll_mem", addr: sync, value: 1, mask: 1, func: "eq", interval: 9, retryCount: 5 },
  {
    kind: "poll_mem",
    addr: sync,
    value: 1,
    mask: 1,
    func: "eq",
    interval: 9,
    retryCount: 5,
    hdpFlush: true,
  },
  { kind: "atomic", op: "add64", addr: word64, src: 0xffff_ffff_ffff_ffffn },
  { kind: "atomic", op: "add64", addr: word64, src: 5n },
  { kind: "atomic", op: "add64", addr: word64, src: 0x8000_0000_0000_0000n },
  { kind: "atomic", op: "add32", addr: sync, src: 1n },
  { kind: "atomic", op: "add32", addr: sync, src: 0xffff_ffffn },
  { kind: "atomic", op: "add32", addr: sync, src: 0xffff_ffff_ffff_ffffn },
  { kind: "atomic", op: "swap32", addr: sync, src: 1n },
  { kind: "atomic", op: "add64", addr: word64, src: 1n, loop: true },
  { kind: "sem_mem_incr", addr: word64 },
  { kind: "nop", dwords: 1 },
];

describe("packet rows", () => {
  it("are simCmdOfPacket's reading of each packet", () => {
    const { manifest, streams } = manifestFor(8 * KiB, [{ gpu: 0, engine: 2, packets: PACKETS }], {
      syncWords: 1,
    });
    const decoded = decodeStream(streams.get("gpu0.sdma2.bin")!);
    expect(decoded.problems).toEqual([]);
    expect(decoded.packets).toHaveLength(PACKETS.length);
    const built = packedFromManifest(manifest, streams);
    if ("error" in built) throw new Error(built.error.message);
    const { cmds } = built.program;
    expect(cmds.n).toBe(PACKETS.length);
    decoded.packets.forEach((d, i) => {
      expect(cmds.at[i]).toBe(d.offset);
      expect(cmdAt(cmds, i)).toEqual(simCmdOfPacket(d.packet as Packet));
    });
  });
});
