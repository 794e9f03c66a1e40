// Structural verifier for queue programs, run in tests after lowering and after every pass.
// A violation is a dmac bug, so it throws InternalError naming the queue and command.
//
// Invariants checked:
// - queues sorted by (gpu, engine), unique, non-empty; engines and ranks in range;
// - every IR data op is implemented by data commands of a compatible kind on exactly one queue,
//   moving exactly its length (split commands list one op; merged commands list several, each
//   whole); sizes positive; fill values are bytes; poll/signal values and masks fit 32 bits;
// - every completion slot 0..completionSlots-1 is signalled exactly once;
// - sync words: a progress word is raised only by its producer queue with FENCE values that
//   strictly increase, and polled only by its consumer queue; a barrier word is used only by its
//   own queue, its FENCE values strictly increase;
// - liveness: running every queue abstractly (user signals and the trigger taken as satisfied),
//   every poll on a sync word is eventually satisfied: no deadlock.

import { OP_KINDS, type IrModule } from "../ir/ir.js";
import { InternalError } from "../util/internal-error.js";
import { assertNever } from "../util/assert-never.js";
import { queueName, type QCmd, type QueueProgram } from "./queue-program.js";
import { foldCompare as compare } from "../check/types.js";

const COMPATIBLE: Record<string, readonly string[]> = {
  copy: ["copy", "bcast"],
  bcast: ["bcast"],
  swap: ["swap"],
  fill: ["fill"],
};

function isU32(v: number): boolean {
  return Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
}

/** `a FUNC b` of a POLL_REGMEM (the one definition lives with the constant folder). */
export { compare };

export function verifyQueueProgram(p: QueueProgram, m: IrModule, engines = 16): void {
  const fail = (where: string, msg: string): never => {
    throw new InternalError(`queue program: ${where}: ${msg}`);
  };
  const t = m.ops;
  const opQueue = new Int32Array(t.count).fill(-1);
  const opBytes = new Float64Array(t.count);
  const slotSeen = new Uint8Array(p.completionSlots);
  const lastFence = new Float64Array(p.syncWords.length).fill(-1);

  p.queues.forEach((q, qi) => {
    const name = queueName(q);
    if (q.cmds.length === 0) fail(name, "empty queue");
    if (q.gpu < 0 || q.gpu >= p.ranks || q.engine < 0 || q.engine >= engines)
      fail(name, "gpu or engine out of range");
    const prev = p.queues[qi - 1];
    if (prev && (prev.gpu > q.gpu || (prev.gpu === q.gpu && prev.engine >= q.engine)))
      fail(name, "queues not sorted/unique");
    q.cmds.forEach((c, ci) => {
      const at = `${name} cmd ${ci} (${c.kind})`;
      switch (c.kind) {
        case "copy":
        case "bcast":
        case "swap":
        case "fill": {
          if (!(Number.isInteger(c.bytes) && c.bytes > 0)) fail(at, `bad size ${c.bytes}`);
          if (c.kind === "fill" && !(Number.isInteger(c.value) && c.value >= 0 && c.value <= 255))
            fail(at, "fill value not a byte");
          if (c.ops.length === 0) fail(at, "data command implements no op");
          let total = 0;
          for (const op of c.ops) {
            if (op < 0 || op >= t.count) fail(at, `op ${op} out of range`);
            const kind =
              Object.keys(OP_KINDS).find(
                (k) => OP_KINDS[k as keyof typeof OP_KINDS].code === t.kind[op],
              ) ?? "?";
            if (!COMPATIBLE[kind]?.includes(c.kind))
              fail(at, `implements op ${op} of kind ${kind}`);
            if (opQueue[op]! >= 0 && opQueue[op] !== qi)
              fail(at, `op ${op} also runs on another queue`);
            opQueue[op] = qi;
            total += t.len[op]!;
          }
          if (c.ops.length === 1) opBytes[c.ops[0]!]! += c.bytes;
          else if (c.kind === "bcast" && c.ops.length === 2) {
            // A fused broadcast (passes/bcast-fusion.ts): each copy op is one destination.
            for (const op of c.ops) {
              if (t.kind[op] !== OP_KINDS.copy.code) fail(at, `fuses op ${op} that is not a copy`);
              opBytes[op]! += c.bytes;
            }
          } else {
            if (total !== c.bytes) fail(at, `moves ${c.bytes} bytes for ops totalling ${total}`);
            for (const op of c.ops) opBytes[op]! += t.len[op]!;
          }
          break;
        }
        case "poll":
          if (!isU32(c.value) || !isU32(c.mask)) fail(at, "value or mask outside 32 bits");
          if (c.at.space === "sync") {
            const w = p.syncWords[c.at.word] ?? fail(at, `no sync word ${c.at.word}`);
            if (w.kind === "progress" && w.consumer !== qi)
              fail(at, `polls progress word ${c.at.word} of another consumer`);
            if (w.kind === "barrier" && w.queue !== qi)
              fail(at, `polls barrier word of another queue`);
          }
          break;
        case "signal":
          if (!isU32(c.value)) fail(at, "value outside 32 bits");
          if (c.at.space === "sync") {
            const w = p.syncWords[c.at.word] ?? fail(at, `no sync word ${c.at.word}`);
            const owner = w.kind === "progress" ? w.producer : w.queue;
            if (owner !== qi) fail(at, `raises sync word ${c.at.word} it does not own`);
            if (c.how !== "fence") fail(at, "sync words are raised with FENCE");
            if (c.value <= lastFence[c.at.word]!)
              fail(at, `sync word ${c.at.word} value ${c.value} does not increase`);
            lastFence[c.at.word] = c.value;
          }
          break;
        case "completion":
          if (c.slot < 0 || c.slot >= p.completionSlots) fail(at, `slot ${c.slot} out of range`);
          if (slotSeen[c.slot]) fail(at, `slot ${c.slot} signalled twice`);
          slotSeen[c.slot] = 1;
          break;
        case "timestamp":
          if (c.slot < 0 || c.slot >= p.timestampSlots)
            fail(at, `timestamp slot ${c.slot} out of range`);
          break;
        default:
          assertNever(c, "queue command");
      }
    });
  });
  for (let op = 0; op < t.count; op++) {
    const k = t.kind[op]!;
    const data =
      k === OP_KINDS.copy.code ||
      k === OP_KINDS.bcast.code ||
      k === OP_KINDS.swap.code ||
      k === OP_KINDS.fill.code;
    if (!data) continue;
    if (opQueue[op]! < 0) fail(`op ${op}`, "is not implemented by any command");
    if (opBytes[op] !== t.len[op])
      fail(`op ${op}`, `commands move ${opBytes[op]} of its ${t.len[op]} bytes`);
  }
  slotSeen.forEach((s, slot) => {
    if (!s) fail(`completion slot ${slot}`, "never signalled");
  });
  checkLiveness(p, fail);
}

/** Runs the queues abstractly until none can progress; every queue must finish. */
function checkLiveness(p: QueueProgram, fail: (where: string, msg: string) => never): void {
  const value = new Float64Array(p.syncWords.length);
  const pc = new Int32Array(p.queues.length);
  let progress = true;
  while (progress) {
    progress = false;
    p.queues.forEach((q, qi) => {
      let i = pc[qi]!;
      for (; i < q.cmds.length; i++) {
        const c: QCmd = q.cmds[i]!;
        if (c.kind === "poll" && c.at.space === "sync") {
          if (!compare((value[c.at.word]! & c.mask) >>> 0, c.func, c.value)) break;
        } else if (c.kind === "signal" && c.at.space === "sync") {
          value[c.at.word] = c.how === "fence" ? c.value : value[c.at.word]! + c.value;
        }
      }
      if (i !== pc[qi]) progress = true;
      pc[qi] = i;
    });
  }
  p.queues.forEach((q, qi) => {
    if (pc[qi]! < q.cmds.length) {
      const c = q.cmds[pc[qi]!]!;
      fail(
        `${queueName(q)} cmd ${pc[qi]}`,
        `deadlock: ${c.kind} on sync word ${c.kind === "poll" && c.at.space === "sync" ? c.at.word : "?"} is never satisfied`,
      );
    }
  });
}
