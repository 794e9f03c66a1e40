// The executor's side of hang forensics: when a run ends in a deadlock or at its watchdog, a
// snapshot (forensics/snapshot.ts) of what a host could read on hardware: each queue's read
// pointer (the byte offset of the packet it is stuck at; null once drained or for a trace) and
// the value of every signal, sync and trigger word (breadcrumbs are sync words, so postmortem
// reads them from `words`). Built once at the end of the run, off the hot path.

import type { Snapshot, SnapshotQueue, SnapshotWord } from "../forensics/snapshot.js";
import { Q_DONE, type ExecState } from "./exec-state.js";
import { REGION_CODE } from "./regions.js";

/** Region codes of the words a host could read (regions.ts). */
const SNAPSHOT_KINDS = new Set([REGION_CODE.signal, REGION_CODE.sync, REGION_CODE.trigger]);

export function snapshotOf(x: ExecState, reason: Snapshot["reason"]): Snapshot {
  const queues: SnapshotQueue[] = x.p.queues.map((q, qi) => {
    const r = x.runs[qi]!;
    const live = r.state !== Q_DONE && r.pc < q.count && q.position === "byte";
    return { queue: q.name, breadcrumb: null, rptr: live ? x.C.at[q.first + r.pc]! : null };
  });
  const words: SnapshotWord[] = [];
  for (let i = 0; i < x.mem.starts.length; i++) {
    if (!SNAPSHOT_KINDS.has(x.mem.kind[i]!)) continue;
    words.push({ address: x.mem.starts[i]!, value: (x.mem.words.value[i]! % 4294967296) >>> 0 });
  }
  return { version: 1, kind: "dmac-snapshot", reason, timeUs: x.now, queues, words };
}
