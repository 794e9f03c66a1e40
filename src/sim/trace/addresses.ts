// Addresses as the trace names them: `buf@3+0x40` for a buffer byte, `ready@0` for a word, the
// raw address where no region of the memory map holds it; and the GPU whose memory it is.

import type { ProgramBase, SimRegion } from "../program.js";
import { bufferLabel } from "../memory.js";

export interface AddressBook {
  /** `buf@3+0x40`, `ready@0`, `completion[2]`, or `0x...` outside every region. */
  readonly name: (addr: number) => string;
  /** The GPU whose memory holds addr; -1 for host memory or no region. */
  readonly gpu: (addr: number) => number;
}

export function addressBook(p: Pick<ProgramBase, "regions">): AddressBook {
  const regions: SimRegion[] = [...p.regions].sort((a, b) => a.addr - b.addr);
  const regionAt = (addr: number): SimRegion | undefined => {
    let lo = 0;
    let hi = regions.length - 1;
    let found: SimRegion | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (regions[mid]!.addr <= addr) {
        found = regions[mid];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found && addr < found.addr + found.bytes ? found : undefined;
  };
  return {
    name: (addr) => {
      const r = regionAt(addr);
      if (!r) return `0x${addr.toString(16)}`;
      const name = r.kind === "buffer" ? bufferLabel(r) : r.name;
      const off = addr - r.addr;
      return off === 0 ? name : `${name}+0x${off.toString(16)}`;
    },
    gpu: (addr) => regionAt(addr)?.gpu ?? -1,
  };
}
