// Addresses as the trace names them: `buf@3+0x40` for a buffer byte, `ready@0` for a word, the
// raw address where no region of the memory map holds it; and the GPU whose memory it is.

import type { ProgramBase } from "../program.js";
import { bufferLabel } from "../memory.js";
import { regionMap } from "../regions.js";

export interface AddressBook {
  /** `buf@3+0x40`, `ready@0`, `completion[2]`, or `0x...` outside every region. */
  readonly name: (addr: number) => string;
  /** The GPU whose memory holds addr (for pinned host memory, the GPU it is mapped for). */
  readonly gpu: (addr: number) => number;
  /** addr is in pinned host memory (a buffer `on host`): named `host`, not its GPU. */
  readonly host: (addr: number) => boolean;
}

export function addressBook(p: Pick<ProgramBase, "regions" | "wordRegions">): AddressBook {
  const map = regionMap(p);
  const regionAt = (addr: number): number => {
    let lo = 0;
    let hi = map.starts.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (map.starts[mid]! <= addr) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found >= 0 && addr < map.ends[found]! ? found : -1;
  };
  return {
    name: (addr) => {
      const i = regionAt(addr);
      if (i < 0) return `0x${addr.toString(16)}`;
      const r = map.region(i);
      const name = r.kind === "buffer" ? bufferLabel(r) : r.name;
      const off = addr - r.addr;
      return off === 0 ? name : `${name}+0x${off.toString(16)}`;
    },
    gpu: (addr) => {
      const i = regionAt(addr);
      return i < 0 ? -1 : map.gpu[i]!;
    },
    host: (addr) => {
      const i = regionAt(addr);
      if (i < 0) return false;
      const r = map.region(i);
      return r.kind === "buffer" && r.host === true;
    },
  };
}
