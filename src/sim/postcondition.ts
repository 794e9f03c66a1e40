// The postcondition: the final provenance of every buffer byte must equal what the reference
// semantics (ir/interp.ts) gives, which covers every collective's and every `ensure`'s
// expectation at once; each difference is reported with the writer of its bytes. run.ts and the
// helper thread's checks (check-replay.ts, session/helper-work.ts) call it.

import { referenceRun } from "../ir/interp.js";
import type { IrModule } from "../ir/ir.js";
import {
  coalesce,
  firstDifference,
  readRange,
  type ProvenanceState,
  type Source,
} from "../ir/provenance.js";
import { assertNever } from "../util/assert-never.js";
import { hex } from "./memory.js";
import type { PackedProgram } from "./program.js";

function describeSource(m: IrModule, s: Source, len: number): string {
  switch (s.kind) {
    case "initial":
      return `${m.buffers[s.buffer]?.name ?? `buffer${s.buffer}`}@${s.rank}[${s.offset} .. ${s.offset + len})`;
    case "byte":
      return `the byte ${hex(s.value)}`;
    default:
      return assertNever(s, "source");
  }
}

/**
 * Compares the executor's final provenance of every buffer instance with the reference
 * semantics' final state; reports the first differing range of each buffer instance (DMAC6001).
 */
/**
 * The final state against the reference run: DMAC6001's argument for each buffer instance that
 * differs (execute.ts reports them). `where` names a queue position (exec-state.ts where; on
 * another thread a token stands in for it, check-log.ts).
 */
export function finalStateProblems(
  m: IrModule,
  got: ProvenanceState,
  p: PackedProgram,
  where: (q: number, at: number) => string = (q, at) => positionOf(p, q, at),
  want: ProvenanceState = referenceRun(m),
): string[] {
  const out: string[] = [];
  for (const b of m.buffers) {
    for (let rank = 0; rank < m.ranks; rank++) {
      if (b.rank !== -1 && b.rank !== rank) continue;
      // The common case, the states agree: found without making a segment. Otherwise the
      // coalesced segments of both sides name the first differing range.
      if (firstDifference(want, got, rank, b.id, b.size) < 0) continue;
      const ws = coalesce(readRange(want, rank, b.id, 0, b.size), false);
      const gs = coalesce(readRange(got, rank, b.id, 0, b.size), false);
      // Walk both segment lists in step and find the first byte where the sources differ.
      let i = 0;
      let j = 0;
      let pos = 0;
      while (pos < b.size && i < ws.length && j < gs.length) {
        const w = ws[i]!;
        const g = gs[j]!;
        const end = Math.min(w.end, g.end);
        const wsrc = shiftSource(w.source, pos - w.start);
        const gsrc = shiftSource(g.source, pos - g.start);
        if (!sameSource(wsrc, gsrc)) {
          const len = end - pos;
          const writer =
            g.writer >= 0
              ? ` (last written by ${describeWriter(p, g.writer, where)})`
              : " (never written)";
          out.push(
            `${b.name}@${rank}[${pos} .. ${end}) holds ${describeSource(m, gsrc, len)}${writer}, but the schedule means it to hold ${describeSource(m, wsrc, len)}`,
          );
          break;
        }
        pos = end;
        if (w.end === end) i++;
        if (g.end === end) j++;
      }
    }
  }
  return out;
}

function shiftSource(s: Source, d: number): Source {
  return s.kind === "initial" && d !== 0 ? { ...s, offset: s.offset + d } : s;
}

function sameSource(a: Source, b: Source): boolean {
  if (a.kind === "initial")
    return (
      b.kind === "initial" && a.rank === b.rank && a.buffer === b.buffer && a.offset === b.offset
    );
  return b.kind === "byte" && a.value === b.value;
}

function describeWriter(
  p: PackedProgram,
  cmd: number,
  where: (q: number, at: number) => string,
): string {
  for (let q = 0; q < p.queues.length; q++) {
    const queue = p.queues[q]!;
    if (cmd >= queue.first && cmd < queue.first + queue.count) return where(q, p.cmds.at[cmd]!);
  }
  return `command ${cmd}`;
}

/** A queue position as reports show it (as exec-state.ts where). */
function positionOf(p: PackedProgram, q: number, at: number): string {
  const queue = p.queues[q]!;
  const pos = queue.position === "byte" ? `+0x${at.toString(16)}` : `#${at}`;
  const src = p.locate?.(q, at);
  return `${queue.name} ${pos}${src ? ` (${src})` : ""}`;
}
