// Names the trace gives commands: the packet each executor command kind stands for, by the back
// end's one packet table (backend/sdma/packets.ts), so a slice in Perfetto is named like the line
// of `dmac disasm` it came from. A kind that several packets decode to (ATOMIC or SEM_MEM_INCR,
// the two TIMESTAMP_GETs) is named by the packet dmac emits for it (backend/sdma/emit.ts).

import { PACKET_BY_KIND, type PacketKind } from "../../backend/sdma/packets.js";
import { CMD_KINDS, type SimCmdKind } from "../program.js";

const PACKET_OF: Readonly<Record<SimCmdKind, PacketKind | undefined>> = {
  nop: "nop",
  bad: undefined,
  copy: "copy_linear",
  bcast: "copy_broadcast",
  swap: "copy_swap",
  fill: "constant_fill",
  poll: "poll_mem",
  fence: "fence",
  atomic: "atomic",
  timestamp: "timestamp_get_global",
};

/** The packet name of a command row's kind code (`bad` rows: "packet"). */
export function packetName(kind: number): string {
  const k = PACKET_OF[CMD_KINDS[kind]!];
  return k === undefined ? "packet" : PACKET_BY_KIND[k].mnemonic;
}
