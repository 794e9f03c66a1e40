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
  CMD,
  queueName,
  SPACE,
  type CmdTable,
  type QueueProgram,
} from "../queues/queue-program.js";
import { assertNever } from "../util/assert-never.js";

export function printQueues(p: QueueProgram, m?: IrModule, opts: { ops?: boolean } = {}): string {
  const region = (c: CmdTable, i: number, slot: 0 | 1 | 2): string => {
    const b = c.buffer(i, slot);
    return `${m?.buffers[b]?.name ?? `b${b}`}@${c.rank(i, slot)}[${c.offset(i, slot)} +: ${c.bytes(i)}]`;
  };
  const word = (c: CmdTable, i: number): string => {
    const space = c.space(i);
    if (space === SPACE.sync) return `w${c.signalId(i)}`;
    if (space === SPACE.signal) {
      const s = c.signalId(i);
      return `${m?.signals[s]?.name ?? `s${s}`}@${c.signalRank(i)}`;
    }
    return "trigger";
  };
  const ops = (c: CmdTable, i: number): string => {
    const list = p.lists.of(c.opsHandle(i));
    return opts.ops && list.length > 0 ? `  ops ${Array.from(list).join(",")}` : "";
  };
  const cmd = (c: CmdTable, i: number): string => {
    const k = c.kind(i);
    switch (k) {
      case CMD.copy:
        return `copy ${region(c, i, 0)} -> ${region(c, i, 1)}`;
      case CMD.bcast:
        return `bcast ${region(c, i, 0)} -> ${region(c, i, 1)}, ${region(c, i, 2)}`;
      case CMD.swap:
        return `swap ${region(c, i, 0)} <-> ${region(c, i, 1)}`;
      case CMD.fill:
        return `fill ${region(c, i, 1)} with ${c.value(i)}`;
      case CMD.poll: {
        const mask = c.mask(i) === 0xffffffff ? "" : ` mask 0x${c.mask(i).toString(16)}`;
        return `poll ${word(c, i)} ${c.func(i)} ${c.value(i)}${mask}`;
      }
      case CMD.signal:
        return `signal ${word(c, i)} ${c.isFence(i) ? ":=" : "+="} ${c.value(i)}`;
      case CMD.completion:
        return `completion #${c.slot(i)}`;
      case CMD.timestamp:
        return `timestamp #${c.slot(i)}`;
      default:
        return assertNever(k, "queue command");
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
    for (let i = 0; i < q.cmds.length; i++) lines.push(`  ${cmd(q.cmds, i)}${ops(q.cmds, i)}`);
  });
  return lines.join("\n") + "\n";
}
