// Will a compile of N operations fit in this Node process's heap? Checked after instantiation,
// before the phases whose memory grows with the op count (dependency inference, lowering, the
// passes, emission), so that a schedule too large for the heap is a diagnostic (DMAC4011), not
// "JavaScript heap out of memory".
//
// The figures are peak resident memory per operation of `dmac compile`, measured on the 10^6- and
// 4x10^6-op bench programs (docs/performance.md, "Current figures"): 650-740 B/op at -O0,
// ~850 at -O1, 900-1,000 at -O2, rounded up. Resident memory includes what lies outside the V8
// heap (the packet streams, the manifest text), so comparing it with the heap limit errs on the
// safe side.

import { getHeapStatistics } from "node:v8";

/** Peak bytes per operation of a compile at each -O level (see above). */
export const COMPILE_BYTES_PER_OP: readonly number[] = [800, 900, 1_000];

/** The share of the heap limit a compile may plan to use (the rest: Node, the front end, slack). */
const USABLE_SHARE = 0.9;

/** The V8 heap limit of this process (`--max-old-space-size` or Node's default for the machine). */
export function heapLimitBytes(): number {
  return getHeapStatistics().heap_size_limit;
}

/** Bytes a compile of `ops` operations needs beyond what the heap allows, or 0 when it fits. */
export function heapShortfall(ops: number, bytesPerOp: number, limit = heapLimitBytes()): number {
  const need = ops * bytesPerOp;
  return need > limit * USABLE_SHARE ? need : 0;
}
