// A compact, stable text form of a QueueProgram, for --dump-after and docs/optimisations.md.
// One header line, the sync words, then per queue one command per line:
//
//   queues ranks 8, 56 queues, 3 sync words, 56 completion slots (atomic), trigger >= 1
//   word 0 progress gpu1 q3->q9
//   gpu0.sdma2:
//     poll trigger >= 1
//     poll w0 >= 2                     (sync word; barrier polls show `==`)
//     copy buf@0[0 +: 8192] -> buf@1[0 +: 8192]        ops 0,1
//     bcast buf@0[0 +: 8192] -> buf@1[0 +: 8192], buf@2[0 +: 8192]
//     signal w1 := 3 | signal done@2 += 1
//     completion #4
//
// Buffers and signals print by their IR names when the module is given, else as b<id>/s<id>.

import type { IrModule } from "../ir/ir.js";
import {
  queueName,
  type BufferLoc,
  type QCmd,
  type QueueProgram,
  type WordLoc,
} from "../queues/queue-program.js";
import { assertNever } from "../util/assert-never.js";

export function printQueues(p: QueueProgram, m?: IrModule, opts: { ops?: boolean } = {}): string {
  const buf = (l: BufferLoc): string =>
    `${m?.buffers[l.buffer]?.name ?? `b${l.buffer}`}@${l.rank}[${l.offset}`;
  const region = (l: BufferLoc, bytes: number): string => `${buf(l)} +: ${bytes}]`;
  const word = (w: WordLoc): string => {
    switch (w.space) {
      case "sync":
        return `w${w.word}`;
      case "signal":
        return `${m?.signals[w.signal]?.name ?? `s${w.signal}`}@${w.rank}`;
      case "trigger":
        return "trigger";
      default:
        return assertNever(w, "word");
    }
  };
  const ops = (c: QCmd): string => (opts.ops && c.ops.length > 0 ? `  ops ${c.ops.join(",")}` : "");
  const cmd = (c: QCmd): string => {
    switch (c.kind) {
      case "copy":
        return `copy ${region(c.src, c.bytes)} -> ${region(c.dst, c.bytes)}`;
      case "bcast":
        return `bcast ${region(c.src, c.bytes)} -> ${region(c.dst, c.bytes)}, ${region(c.dst2, c.bytes)}`;
      case "swap":
        return `swap ${region(c.a, c.bytes)} <-> ${region(c.b, c.bytes)}`;
      case "fill":
        return `fill ${region(c.dst, c.bytes)} with ${c.value}`;
      case "poll": {
        const mask = c.mask === 0xffffffff ? "" : ` mask 0x${c.mask.toString(16)}`;
        return `poll ${word(c.at)} ${c.func} ${c.value}${mask}`;
      }
      case "signal":
        return `signal ${word(c.at)} ${c.how === "fence" ? ":=" : "+="} ${c.value}`;
      case "completion":
        return `completion #${c.slot}`;
      case "timestamp":
        return `timestamp #${c.slot}`;
      default:
        return assertNever(c, "queue command");
    }
  };
  const lines: string[] = [];
  const trig = p.trigger ? `, trigger >= ${p.trigger.value}` : "";
  lines.push(
    `queues ranks ${p.ranks}, ${p.queues.length} queues, ${p.syncWords.length} sync words, ${p.completionSlots} completion slots (${p.completion})${trig}`,
  );
  p.syncWords.forEach((w, i) => {
    if (w.kind === "progress")
      lines.push(`word ${i} progress gpu${w.gpu} q${w.producer}->q${w.consumer}`);
    else lines.push(`word ${i} barrier gpu${w.gpu} q${w.queue}`);
  });
  p.queues.forEach((q, qi) => {
    lines.push(`q${qi} ${queueName(q)}:`);
    for (const c of q.cmds) lines.push(`  ${cmd(c)}${ops(c)}`);
  });
  return lines.join("\n") + "\n";
}
