// The readable form of a queue program: one plain object per command, with nested location
// objects and op arrays. This was the program representation before it was packed
// (queue-program.ts); it stays as the form tests write programs in and inspect them through, and
// as the JSON shape whose text the optimiser goldens hash. toReadable and fromReadable convert
// both ways; commands that share one op-list handle share one array (and back), so source-map
// grouping survives the round trip.

import type { CompareOp } from "../frontend/ast.js";
import {
  CMD,
  CmdBuilder,
  FUNC,
  ListsBuilder,
  SPACE,
  type CmdTable,
  type CompletionProtocol,
  type PollReason,
  type QueueProgram,
  type SignalReason,
  type SyncForms,
  type SyncWord,
} from "./queue-program.js";
import { assertNever } from "../util/assert-never.js";
import { InternalError } from "../util/internal-error.js";

/** A byte in a buffer instance: buffer id `buffer` (IrModule.buffers) on rank `rank`. */
export interface BufferLoc {
  readonly space: "buffer";
  readonly rank: number;
  readonly buffer: number;
  readonly offset: number;
}
/** A user signal word (IrModule.signals[signal]) on rank `rank`, 32 bits. */
export interface SignalLoc {
  readonly space: "signal";
  readonly signal: number;
  readonly rank: number;
}
/** A compiler-allocated 32-bit sync word (QueueProgram.syncWords[word]). */
export interface SyncLoc {
  readonly space: "sync";
  readonly word: number;
}
/** The prelaunch trigger word in host-visible memory (QueueProgram.trigger). */
export interface TriggerLoc {
  readonly space: "trigger";
}
export type WordLoc = SignalLoc | SyncLoc | TriggerLoc;

type Ops = readonly number[];
export type QCmd =
  | {
      readonly kind: "copy";
      readonly src: BufferLoc;
      readonly dst: BufferLoc;
      readonly bytes: number;
      readonly ops: Ops;
    }
  | {
      readonly kind: "bcast";
      readonly src: BufferLoc;
      readonly dst: BufferLoc;
      readonly dst2: BufferLoc;
      readonly bytes: number;
      readonly ops: Ops;
    }
  | {
      readonly kind: "swap";
      readonly a: BufferLoc;
      readonly b: BufferLoc;
      readonly bytes: number;
      readonly ops: Ops;
    }
  | {
      readonly kind: "fill";
      readonly dst: BufferLoc;
      readonly bytes: number;
      readonly value: number;
      readonly ops: Ops;
    }
  | {
      readonly kind: "poll";
      readonly at: WordLoc;
      readonly func: CompareOp;
      readonly value: number;
      readonly mask: number;
      readonly why: PollReason;
      readonly ops: Ops;
    }
  | {
      readonly kind: "signal";
      readonly at: WordLoc;
      readonly how: "fence" | "add";
      readonly value: number;
      readonly why: SignalReason;
      readonly ops: Ops;
    }
  | { readonly kind: "completion"; readonly slot: number; readonly ops: Ops }
  | { readonly kind: "timestamp"; readonly slot: number; readonly ops: Ops };

export interface ReadableQueue {
  readonly gpu: number;
  readonly engine: number;
  readonly cmds: readonly QCmd[];
}

export interface ReadableProgram {
  readonly ranks: number;
  readonly queues: readonly ReadableQueue[];
  readonly syncWords: readonly SyncWord[];
  readonly completion: CompletionProtocol;
  readonly completionSlots: number;
  readonly timestampSlots: number;
  readonly trigger: { readonly value: number } | null;
  /** Conservative sync forms (queues/sync-forms.ts); absent: aggressive. */
  readonly sync?: SyncForms | undefined;
}

/** Command i of table t as an object (`ops`: the list's array, shared by handle). */
function cmdOf(t: CmdTable, i: number, ops: Ops): QCmd {
  const loc = (s: 0 | 1 | 2): BufferLoc => ({
    space: "buffer",
    rank: t.rank(i, s),
    buffer: t.buffer(i, s),
    offset: t.offset(i, s),
  });
  const word = (): WordLoc => {
    switch (t.space(i)) {
      case SPACE.signal:
        return { space: "signal", signal: t.signalId(i), rank: t.signalRank(i) };
      case SPACE.sync:
        return { space: "sync", word: t.signalId(i) };
      default:
        return { space: "trigger" };
    }
  };
  const k = t.kind(i);
  switch (k) {
    case CMD.copy:
      return { kind: "copy", src: loc(0), dst: loc(1), bytes: t.bytes(i), ops };
    case CMD.bcast:
      return { kind: "bcast", src: loc(0), dst: loc(1), dst2: loc(2), bytes: t.bytes(i), ops };
    case CMD.swap:
      return { kind: "swap", a: loc(0), b: loc(1), bytes: t.bytes(i), ops };
    case CMD.fill:
      return { kind: "fill", dst: loc(1), bytes: t.bytes(i), value: t.value(i), ops };
    case CMD.poll:
      return {
        kind: "poll",
        at: word(),
        func: t.func(i),
        value: t.value(i),
        mask: t.mask(i),
        why: t.why(i) as PollReason,
        ops,
      };
    case CMD.signal:
      return {
        kind: "signal",
        at: word(),
        how: t.how(i),
        value: t.value(i),
        why: t.why(i) as SignalReason,
        ops,
      };
    case CMD.completion:
      return { kind: "completion", slot: t.slot(i), ops };
    case CMD.timestamp:
      return { kind: "timestamp", slot: t.slot(i), ops };
    default:
      return assertNever(k, "command kind");
  }
}

/** The program as plain objects (key order as the objects were always built). */
export function toReadable(p: QueueProgram): ReadableProgram {
  const arrays = new Map<number, number[]>();
  const list = (h: number): Ops => {
    let a = arrays.get(h);
    if (!a) arrays.set(h, (a = Array.from(p.lists.of(h))));
    return a;
  };
  return {
    ranks: p.ranks,
    queues: p.queues.map((q) => ({
      gpu: q.gpu,
      engine: q.engine,
      cmds: Array.from({ length: q.cmds.length }, (_, i) =>
        cmdOf(q.cmds, i, list(q.cmds.opsHandle(i))),
      ),
    })),
    syncWords: p.syncWords,
    completion: p.completion,
    completionSlots: p.completionSlots,
    timestampSlots: p.timestampSlots,
    trigger: p.trigger,
    ...(p.sync ? { sync: p.sync } : {}),
  };
}

/** The packed program of a readable one (one op list per distinct array). */
export function fromReadable(r: ReadableProgram): QueueProgram {
  const lists = new ListsBuilder();
  const handles = new Map<Ops, number>();
  const h = (ops: Ops): number => {
    let x = handles.get(ops);
    if (x === undefined) handles.set(ops, (x = lists.add(ops)));
    return x;
  };
  const at = (l: BufferLoc): [number, number, number] => [l.rank, l.buffer, l.offset];
  const word = (w: WordLoc): [number, number, number] => {
    switch (w.space) {
      case "signal":
        return [SPACE.signal, w.signal, w.rank];
      case "sync":
        return [SPACE.sync, w.word, 0];
      case "trigger":
        return [SPACE.trigger, 0, 0];
      default:
        return assertNever(w, "word location");
    }
  };
  const queues = r.queues.map((q) => {
    const b = new CmdBuilder(q.cmds.length);
    for (const c of q.cmds) {
      switch (c.kind) {
        case "copy":
          b.copy(...at(c.src), ...at(c.dst), c.bytes, h(c.ops));
          break;
        case "bcast":
          b.bcast(...at(c.src), ...at(c.dst), ...at(c.dst2), c.bytes, h(c.ops));
          break;
        case "swap":
          b.swap(...at(c.a), ...at(c.b), c.bytes, h(c.ops));
          break;
        case "fill":
          b.fill(...at(c.dst), c.bytes, c.value, h(c.ops));
          break;
        case "poll": {
          const [space, id, rank] = word(c.at);
          const fn = FUNC[c.func];
          if (fn === undefined) throw new InternalError(`poll compare ${c.func}`);
          b.poll(space, id, rank, fn, c.value, c.mask, c.why, h(c.ops));
          break;
        }
        case "signal": {
          const [space, id, rank] = word(c.at);
          b.signal(space, id, rank, c.how, c.value, c.why, h(c.ops));
          break;
        }
        case "completion":
          b.completion(c.slot, h(c.ops));
          break;
        case "timestamp":
          b.timestamp(c.slot, h(c.ops));
          break;
        default:
          assertNever(c, "queue command");
      }
    }
    return { gpu: q.gpu, engine: q.engine, cmds: b.done() };
  });
  return {
    ranks: r.ranks,
    queues,
    syncWords: r.syncWords,
    completion: r.completion,
    completionSlots: r.completionSlots,
    timestampSlots: r.timestampSlots,
    trigger: r.trigger,
    lists: lists.done(),
    ...(r.sync ? { sync: r.sync } : {}),
  };
}
