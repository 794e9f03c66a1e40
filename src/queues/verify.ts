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
import { CMD, CMD_NAMES, queueName, SPACE, type QueueProgram } from "./queue-program.js";
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
    const c = q.cmds;
    if (c.length === 0) fail(name, "empty queue");
    if (q.gpu < 0 || q.gpu >= p.ranks || q.engine < 0 || q.engine >= engines)
      fail(name, "gpu or engine out of range");
    const prev = p.queues[qi - 1];
    if (prev && (prev.gpu > q.gpu || (prev.gpu === q.gpu && prev.engine >= q.engine)))
      fail(name, "queues not sorted/unique");
    for (let ci = 0; ci < c.length; ci++) {
      const kind = c.kind(ci);
      const kindName = CMD_NAMES[kind]!;
      const at = `${name} cmd ${ci} (${kindName})`;
      const ops = p.lists.of(c.opsHandle(ci));
      switch (kind) {
        case CMD.copy:
        case CMD.bcast:
        case CMD.swap:
        case CMD.fill: {
          const bytes = c.bytes(ci);
          if (!(Number.isInteger(bytes) && bytes > 0)) fail(at, `bad size ${bytes}`);
          const value = c.value(ci);
          if (kind === CMD.fill && !(Number.isInteger(value) && value >= 0 && value <= 255))
            fail(at, "fill value not a byte");
          if (ops.length === 0) fail(at, "data command implements no op");
          let total = 0;
          for (const op of ops) {
            if (op < 0 || op >= t.count) fail(at, `op ${op} out of range`);
            const opKind =
              Object.keys(OP_KINDS).find(
                (k) => OP_KINDS[k as keyof typeof OP_KINDS].code === t.kind[op],
              ) ?? "?";
            if (!COMPATIBLE[opKind]?.includes(kindName))
              fail(at, `implements op ${op} of kind ${opKind}`);
            if (opQueue[op]! >= 0 && opQueue[op] !== qi)
              fail(at, `op ${op} also runs on another queue`);
            opQueue[op] = qi;
            total += t.len[op]!;
          }
          if (ops.length === 1) opBytes[ops[0]!]! += bytes;
          else if (kind === CMD.bcast && ops.length === 2) {
            // A fused broadcast (passes/bcast-fusion.ts): each copy op is one destination.
            for (const op of ops) {
              if (t.kind[op] !== OP_KINDS.copy.code) fail(at, `fuses op ${op} that is not a copy`);
              opBytes[op]! += bytes;
            }
          } else {
            if (total !== bytes) fail(at, `moves ${bytes} bytes for ops totalling ${total}`);
            for (const op of ops) opBytes[op]! += t.len[op]!;
          }
          break;
        }
        case CMD.poll: {
          if (!isU32(c.value(ci)) || !isU32(c.mask(ci))) fail(at, "value or mask outside 32 bits");
          const word = c.syncWord(ci);
          if (word >= 0) {
            const w = p.syncWords[word] ?? fail(at, `no sync word ${word}`);
            if (w.kind === "progress" && w.consumer !== qi)
              fail(at, `polls progress word ${word} of another consumer`);
            if (w.kind === "barrier" && w.queue !== qi)
              fail(at, `polls barrier word of another queue`);
          }
          break;
        }
        case CMD.signal: {
          const value = c.value(ci);
          if (!isU32(value)) fail(at, "value outside 32 bits");
          const word = c.syncWord(ci);
          if (word >= 0) {
            const w = p.syncWords[word] ?? fail(at, `no sync word ${word}`);
            const owner = w.kind === "progress" ? w.producer : w.queue;
            if (owner !== qi) fail(at, `raises sync word ${word} it does not own`);
            if (!c.isFence(ci)) fail(at, "sync words are raised with FENCE");
            if (value <= lastFence[word]!)
              fail(at, `sync word ${word} value ${value} does not increase`);
            lastFence[word] = value;
          }
          break;
        }
        case CMD.completion: {
          const slot = c.slot(ci);
          if (slot < 0 || slot >= p.completionSlots) fail(at, `slot ${slot} out of range`);
          if (slotSeen[slot]) fail(at, `slot ${slot} signalled twice`);
          slotSeen[slot] = 1;
          break;
        }
        case CMD.timestamp: {
          const slot = c.slot(ci);
          if (slot < 0 || slot >= p.timestampSlots) fail(at, `timestamp slot ${slot} out of range`);
          break;
        }
        default:
          assertNever(kind, "queue command");
      }
    }
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
      const c = q.cmds;
      let i = pc[qi]!;
      for (; i < c.length; i++) {
        const w = c.syncWord(i);
        if (w < 0) continue;
        if (c.kind(i) === CMD.poll) {
          if (!compare((value[w]! & c.mask(i)) >>> 0, c.func(i), c.value(i))) break;
        } else value[w] = c.isFence(i) ? c.value(i) : value[w]! + c.value(i);
      }
      if (i !== pc[qi]) progress = true;
      pc[qi] = i;
    });
  }
  p.queues.forEach((q, qi) => {
    const c = q.cmds;
    const i = pc[qi]!;
    if (i < c.length) {
      const w = c.kind(i) === CMD.poll && c.space(i) === SPACE.sync ? c.syncWord(i) : "?";
      fail(
        `${queueName(q)} cmd ${i}`,
        `deadlock: ${c.kindName(i)} on sync word ${w} is never satisfied`,
      );
    }
  });
}
