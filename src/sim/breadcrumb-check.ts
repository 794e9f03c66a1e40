// A manifest's `breadcrumbs` (`--breadcrumbs`, src/forensics/breadcrumbs.ts, docs/runtime.md
// section 7) held to its streams. `dmac postmortem` reads a hung node's breadcrumb word k as
// "steps 1..k of this queue completed, step k+1 is where it stopped", and names step k's statement
// from `steps[k - 1]`; that reading is right only if each queue FENCEs 1, 2, 3, ... into its own
// word, each FENCE right after the packets of its step's command group (the FENCE carries the
// group's ops: one source-map entry), and nothing else writes the word. A FENCE moved to the front
// of its queue, step values shifted, breadcrumbs removed or a queue writing another's word all ran
// to "verified" while postmortem would misreport the hang; each is now DMAC6011 here.

import type { Manifest } from "../backend/sdma/manifest.js";
import type { PackedRows } from "../backend/sdma/packed-rows.js";
import { ATOMIC, BAD, FENCE, TIMESTAMP, type Commands, type PackedQueue } from "./program.js";
import { syncWordColumns } from "./sync-words.js";

/** What is wrong: the JSON path it concerns and why. */
export interface BreadcrumbProblem {
  readonly path: string;
  readonly detail: string;
}

/** The first breadcrumb of `m` its streams (queues' rows in `c`) contradict, if any. */
export function checkBreadcrumbs(
  m: Manifest,
  queues: readonly PackedQueue[],
  c: Commands,
  rowsOf: ReadonlyMap<string, PackedRows>,
): BreadcrumbProblem | undefined {
  const list = m.breadcrumbs;
  if (list === undefined) return undefined;
  const entries = entriesOf(m, queues);
  if ("path" in entries) return entries;
  for (let q = 0; q < queues.length; q++) {
    const queue = queues[q]!;
    const e = entries.byQueue.get(queue.name)!;
    const p = queueSteps(queue, c, list[e]!, e, entries.byAddress, list, rowsOf.get(queue.name));
    if (p) return p;
  }
  return undefined;
}

/** Entry index by queue name and by word address: one entry per queue, its own word. */
function entriesOf(
  m: Manifest,
  queues: readonly PackedQueue[],
): BreadcrumbProblem | { byQueue: Map<string, number>; byAddress: Map<number, number> } {
  const list = m.breadcrumbs!;
  const sync = syncWordColumns(m.memory.syncWords);
  const names = new Set(queues.map((q) => q.name));
  const byQueue = new Map<string, number>();
  const byAddress = new Map<number, number>();
  for (let i = 0; i < list.length; i++) {
    const b = list[i]!;
    const p = `$.breadcrumbs[${i}]`;
    if (!names.has(b.queue)) return { path: `${p}.queue`, detail: `${b.queue} is not a queue` };
    if (byQueue.has(b.queue))
      return { path: `${p}.queue`, detail: `a second breadcrumb entry for ${b.queue}` };
    if (b.word >= sync.count || sync.address(b.word) !== b.address)
      return { path: `${p}.address`, detail: `is not the address of sync word ${b.word}` };
    if (byAddress.has(b.address))
      return {
        path: `${p}.address`,
        detail: `is also the word of ${list[byAddress.get(b.address)!]!.queue}`,
      };
    const k = b.steps.findIndex((s) => s >= m.sourceMap.stmts.length);
    if (k >= 0)
      return {
        path: `${p}.steps[${k}]`,
        detail: `statement ${b.steps[k]} is not in sourceMap.stmts`,
      };
    byQueue.set(b.queue, i);
    byAddress.set(b.address, i);
  }
  const missing = queues.find((q) => !byQueue.has(q.name));
  if (missing)
    return {
      path: "$.breadcrumbs",
      detail: `no entry for ${missing.name}: with breadcrumbs every queue has its word`,
    };
  return { byQueue, byAddress };
}

/**
 * Queue `queue`'s rows against its entry (index `e`): breadcrumb FENCEs of 1, 2, ... each ending
 * a command group whose rows share its ops and whose statement is the step's, no row after the
 * last, and no write to any breadcrumb word but these.
 */
function queueSteps(
  queue: PackedQueue,
  c: Commands,
  entry: NonNullable<Manifest["breadcrumbs"]>[number],
  e: number,
  byAddress: ReadonlyMap<number, number>,
  list: NonNullable<Manifest["breadcrumbs"]>,
  rows: PackedRows | undefined,
): BreadcrumbProblem | undefined {
  const end = queue.first + queue.count;
  for (let i = queue.first; i < end; i++) if (c.kind[i] === BAD) return undefined; // (DMAC6007)
  const path = `$.breadcrumbs[${e}]`;
  const where = (i: number): string => `${queue.name} +0x${c.at[i]!.toString(16)}`;
  const stmtAt = statementCursor(rows);
  let step = 0;
  let groupStart = queue.first;
  for (let i = queue.first; i < end; i++) {
    const k = c.kind[i]!;
    const owner =
      k === FENCE || k === ATOMIC || k === TIMESTAMP ? byAddress.get(c.a[i]!) : undefined;
    if (owner === undefined) continue;
    if (owner !== e)
      return {
        path: `$.breadcrumbs[${owner}]`,
        detail: `${where(i)} writes the breadcrumb word of ${list[owner]!.queue}`,
      };
    if (k !== FENCE || c.value[i] !== step + 1)
      return {
        path,
        detail: `${where(i)} writes ${k === FENCE ? c.value[i] : "with an ATOMIC or TIMESTAMP"} into the breadcrumb word of ${queue.name}, but step ${step + 1} is next (a FENCE of ${step + 1})`,
      };
    for (let j = groupStart; j < i; j++)
      if (!sameOps(c, j, i))
        return {
          path,
          detail: `${where(j)} is not in the command group of step ${step + 1}, which its breadcrumb FENCE at ${where(i)} ends (another source-map entry): a postmortem would place a hang there in the wrong step`,
        };
    const stmt = stmtAt(c.at[i]!);
    if (step >= entry.steps.length || entry.steps[step] !== stmt)
      return {
        path: `${path}.steps`,
        detail: `step ${step + 1} (the FENCE at ${where(i)}) is statement ${stmt} in the source map, but the list gives ${step < entry.steps.length ? entry.steps[step] : "no such step"}`,
      };
    step++;
    groupStart = i + 1;
  }
  if (groupStart < end)
    return {
      path,
      detail: `${where(groupStart)} comes after the last breadcrumb FENCE of ${queue.name}: no step covers it`,
    };
  if (step !== entry.steps.length)
    return {
      path: `${path}.steps`,
      detail: `${entry.steps.length} steps, but ${queue.name} FENCEs ${step}`,
    };
  return undefined;
}

/** Whether rows i and j name the same IR ops. */
function sameOps(c: Commands, i: number, j: number): boolean {
  const a = c.opsLo[i]!;
  const b = c.opsLo[j]!;
  if (a === b) return c.opsHi[i] === c.opsHi[j];
  const n = c.opsHi[i]! - a;
  if (a < 0 || b < 0 || c.opsHi[j]! - b !== n) return false;
  for (let k = 0; k < n; k++) if (c.ops[a + k] !== c.ops[b + k]) return false;
  return true;
}

/**
 * The statement of the source-map entry holding byte offset `at` (-1: none), for offsets given
 * in increasing order.
 */
function statementCursor(rows: PackedRows | undefined): (at: number) => number {
  const n = rows?.length ?? 0;
  const offset = (r: number): number => rows!.data[rows!.starts[r]!]!;
  const order = Array.from({ length: n }, (_, r) => r).sort((x, y) => offset(x) - offset(y));
  let k = -1;
  return (at) => {
    while (k + 1 < n && offset(order[k + 1]!) <= at) k++;
    return k < 0 ? -1 : rows!.data[rows!.starts[order[k]!]! + 1]!;
  };
}
