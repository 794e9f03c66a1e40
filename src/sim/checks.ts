// The executor's checks on each access as a data command starts: operands resolve to a buffer
// instance (bounds, DMAC6002), writes stay out of every known ring (DMAC6009), a packet's ranges
// do not overlap (DMAC6012), alignment (DMAC6006). These decide whether the command runs, so
// they are the event loop's; races (DMAC6003) and the schedule's meaning are checker.ts's.

import { describeRegion, hex, regionOf, resolve } from "./memory.js";
import { cmdName, HINTS, report, whereCmd, type ExecState } from "./exec-state.js";
import { PCIE_ENGINE, XGMI_ENGINE } from "./part-rules.js";
import { FILL, POLL_FUNC_CODES } from "./program.js";

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

/**
 * Reports (DMAC6030) and returns true if queue q's data command (row e, of `kind`) moves more
 * bytes in one packet than the part takes (part-rules.ts).
 */
export function oversized(
  x: ExecState,
  q: number,
  e: number,
  kind: number,
  bytes: number,
): boolean {
  const part = x.model.part;
  const fill = kind === FILL;
  const limit = fill ? part.maxFillBytes : part.maxCopyBytes;
  if (bytes <= limit) return false;
  report(x, "DMAC6030", [
    whereCmd(x, q, e),
    `${cmdName(x, e)} of ${bytes} bytes, but target ${part.name} takes at most ${limit} in one packet (limits.${fill ? "maxFillBytes" : "maxCopyBytes"}; compile splits there); not executed`,
  ]);
  return true;
}

/**
 * Reports (DMAC6030) and returns true if queue q's engine cannot drive its data command (row e),
 * whose operands are resolved (running[q]): memory of another GPU needs an xGMI engine, host
 * memory a PCIe engine (DMAC3005's rule, part-rules.ts).
 */
export function wrongEngine(x: ExecState, q: number, e: number): boolean {
  const part = x.model.part;
  const queue = x.p.queues[q]!;
  const kind = part.engineKind[queue.engine] ?? 0;
  const run = x.running[q]!;
  let peer = -1;
  let host = false;
  for (let k = 0; k < run.n; k++)
    if (x.bufferHost[run.buffer[k]!] === 1) host = true;
    else if (run.gpu[k] !== queue.gpu) peer = run.gpu[k]!;
  const why =
    peer >= 0 && kind !== XGMI_ENGINE
      ? `moves bytes of GPU ${peer}, but engine ${queue.engine} is ${kind === PCIE_ENGINE ? "a host<->GPU (PCIe) engine" : "not an xGMI engine"} of target ${part.name} (xGMI engines: ${part.xgmi.join(", ") || "none known"})`
      : host && part.hasPcie && kind !== PCIE_ENGINE
        ? `moves bytes of host memory, but engine ${queue.engine} is not a host<->GPU (PCIe) engine of target ${part.name} (${part.pcie.join(", ")})`
        : undefined;
  if (why === undefined) return false;
  report(x, "DMAC6030", [whereCmd(x, q, e), `${cmdName(x, e)} ${why}; not executed`]);
  return true;
}

/**
 * Reports (DMAC6030) and returns true if queue q's poll (row e) uses a compare function the part
 * does not run (DMAC4203's rule, part-rules.ts).
 */
export function unsupportedPoll(x: ExecState, q: number, e: number): boolean {
  const part = x.model.part;
  const code = x.C.aux[e]!;
  if (part.pollFunction[code] === 1) return false;
  report(x, "DMAC6030", [
    whereCmd(x, q, e),
    `POLL_REGMEM compares with ${POLL_FUNC_CODES[code]}, which target ${part.name} does not run (pollFunctions: ${part.pollFunctions.join(", ") || "none"}); the queue stops here`,
  ]);
  return true;
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
