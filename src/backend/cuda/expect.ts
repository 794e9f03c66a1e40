// What the runner checks after a run: every byte of every buffer instance ends up as the
// reference semantics (ir/interp.ts) says. Buffers start as their own pattern (pattern.ts), so
// only the ranges whose final contents came from elsewhere are listed; every other byte must
// still hold its own initial pattern.

import { HOST, type IrModule } from "../../ir/ir.js";
import { runReference } from "../../ir/interp.js";
import { coalescedRange } from "../../ir/provenance.js";
import { InternalError } from "../../util/internal-error.js";
import type { CudaExpect, Place } from "./program.js";

export function expectedContents(m: IrModule): CudaExpect[] {
  const st = runReference(m);
  const out: CudaExpect[] = [];
  const placeOf = (buffer: number, rank: number): Place =>
    m.buffers[buffer]!.rank === HOST ? "host" : rank;
  for (const b of m.buffers) {
    const ranks =
      b.rank === -1 ? Array.from({ length: m.ranks }, (_, g) => g) : [b.rank === HOST ? 0 : b.rank];
    for (const rank of ranks) {
      for (const s of coalescedRange(st, rank, b.id, 0, b.size, false)) {
        if (s.source.kind === "byte")
          throw new InternalError("a fill survived the CUDA back end's checks (DMAC4040)");
        const src = s.source;
        if (src.rank === rank && src.buffer === b.id && src.offset === s.start) continue;
        out.push({
          at: { buffer: b.id, place: placeOf(b.id, rank), offset: s.start },
          bytes: s.end - s.start,
          from: { buffer: src.buffer, place: placeOf(src.buffer, src.rank), offset: src.offset },
        });
      }
    }
  }
  return out;
}
