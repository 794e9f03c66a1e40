// The executor's checks on each access as a data command starts: operands resolve to a buffer
// instance (bounds, DMAC6002), writes stay out of every known ring (DMAC6009), a packet's ranges
// do not overlap (DMAC6012), alignment (DMAC6006). These decide whether the command runs, so
// they are the event loop's; races (DMAC6003) and the schedule's meaning are checker.ts's.

import { describeRegion, hex, regionOf, resolve } from "./memory.js";
import { cmdName, HINTS, report, whereCmd, type ExecState } from "./exec-state.js";

/**
 * Resolves operand `k` of the data command (row e) queue q is starting to a buffer instance
 * (into running[q]); reports and returns false when invalid.
 */
export function dataOperand(
  x: ExecState,
  q: number,
  e: number,
  addr: number,
  bytes: number,
  role: string,
  writes: boolean,
  k: number,
): boolean {
  const mem = x.mem;
  const i = regionOf(mem, addr, bytes, x.hints[q * HINTS + k]!);
  if (i >= 0 && mem.bufferOf[i]! >= 0 && (!writes || x.rings.length === 0)) {
    // The common case, without touching the region object.
    x.hints[q * HINTS + k] = i;
    const run = x.running[q]!;
    run.gpu[k] = x.regionGpu[i]!;
    run.buffer[k] = mem.bufferOf[i]!;
    run.offset[k] = addr - mem.starts[i]!;
    return true;
  }
  const region = i < 0 ? undefined : mem.region(i);
  if (region === undefined) {
    const r = resolve(mem, addr, bytes);
    const error = "error" in r ? r.error : "?";
    report(x, "DMAC6002", [whereCmd(x, q, e), `${cmdName(x, e)} ${role} ${error}; not executed`]);
    return false;
  }
  if (region.kind !== "buffer" || region.buffer === undefined || region.gpu === null) {
    report(x, "DMAC6002", [
      whereCmd(x, q, e),
      `${cmdName(x, e)} ${role} [${hex(addr)}, +${bytes}) is in ${describeRegion(region)}, not a buffer; not executed`,
    ]);
    return false;
  }
  if (writes && ringHit(x, addr, bytes, q, e)) return false;
  x.hints[q * HINTS + k] = i;
  const run = x.running[q]!;
  run.gpu[k] = region.gpu;
  run.buffer[k] = region.buffer;
  run.offset[k] = addr - region.addr;
  return true;
}

/** Reports (DMAC6009) and returns true if [addr, +bytes) lies in a queue's ring. */
export function ringHit(x: ExecState, addr: number, bytes: number, q: number, e: number): boolean {
  for (const queue of x.rings) {
    const ring = queue.ring!;
    if (addr < ring.addr + ring.bytes && ring.addr < addr + bytes) {
      report(x, "DMAC6009", [
        whereCmd(x, q, e),
        `${cmdName(x, e)} writes [${hex(addr)}, +${bytes}) inside the ring of ${queue.name}; not executed`,
      ]);
      return true;
    }
  }
  return false;
}

export function misaligned(x: ExecState, q: number, e: number, detail: string): void {
  report(x, "DMAC6006", [whereCmd(x, q, e), `${detail}; not executed`]);
}

/** Reports (DMAC6012) operands j and k of queue q's data command if their bytes overlap. */
export function overlapping(
  x: ExecState,
  q: number,
  e: number,
  j: number,
  k: number,
  what: string,
): boolean {
  const bytes = x.C.bytes[e]!;
  const run = x.running[q]!;
  if (run.gpu[j] !== run.gpu[k] || run.buffer[j] !== run.buffer[k]) return false;
  const a = run.offset[j]!;
  const b = run.offset[k]!;
  if (a + bytes <= b || b + bytes <= a) return false;
  const buffer = run.buffer[j]!;
  const name = `${x.p.bufferNames[buffer] ?? `buffer ${buffer}`}@${run.gpu[j]!}`;
  report(
    x,
    "DMAC6012",
    [
      whereCmd(x, q, e),
      `${cmdName(x, e)} ${what} overlap: ${name}[${a} +: ${bytes}] and ${name}[${b} +: ${bytes}]; not executed`,
    ],
    "the engine's result is undefined when a packet's ranges overlap; split the transfer so they are disjoint",
  );
  return true;
}
