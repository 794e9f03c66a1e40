// Validation of trace.json before anything runs (validate-input.ts says what is checked and
// why): the schema, then GPUs below `ranks`, and commands that write a completion slot following
// `completion.protocol`.

import type { Trace, TraceAddr, TraceCmd } from "../backend/trace/trace.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { checkExecutorInput } from "../schemas.js";
import {
  Bad,
  bounded,
  Checker,
  PROTOCOL_WRITE,
  run,
  slotAt,
  slotLimit,
  type ValidateOptions,
} from "./validate-input.js";

/** The address fields of each trace command (each names a GPU that must be below `ranks`). */
const TRACE_ADDRESSES: { readonly [Op in TraceCmd["op"]]: readonly string[] } = {
  copy: ["src", "dst"],
  bcast: ["src", "dst", "dst2"],
  swap: ["a", "b"],
  fill: ["dst"],
  poll: ["at"],
  fence: ["at"],
  atomic: ["at"],
  timestamp: ["at"],
};

export function validateTrace(json: unknown, opts: ValidateOptions = {}): Diagnostic | undefined {
  const file = opts.file ?? "trace.json";
  const structural = checkExecutorInput("trace", json, file);
  if (structural) return structural;
  const d = json as Trace;
  return run(file, () => {
    const c = new Checker(d);
    const queues = bounded(d.queues, "$.queues", c.ranks * 256);
    let units = 0;
    queues.forEach((q, i) => {
      const p = `$.queues[${i}]`;
      c.queue(q, p);
      units += q.cmds.length;
      q.cmds.forEach((cmd, k) => {
        for (const name of TRACE_ADDRESSES[cmd.op]) {
          const a = (cmd as unknown as Record<string, TraceAddr>)[name]!;
          if (a.gpu !== null) c.gpu(a.gpu, `${p}.cmds[${k}].${name}.gpu`);
        }
      });
    });
    c.memory(d.memory, slotLimit(units, opts.fileBytes));
    c.disjoint();
    if (opts.module) c.matches(opts.module);
    c.regionsCover();
    completionProtocol(d);
  });
}

/**
 * Completion signals are written the way `completion.protocol` says (a runtime may wait for them
 * either way, but by what the document declares).
 */
function completionProtocol(d: Trace): void {
  const protocol = d.completion.protocol;
  const slots = d.memory.completionSignals;
  d.queues.forEach((q, i) =>
    q.cmds.forEach((cmd, k) => {
      if (cmd.op !== "fence" && cmd.op !== "atomic") return;
      const slot = slotAt(slots, cmd.at.addr);
      if (slot === undefined) return;
      const ok =
        protocol === "atomic"
          ? cmd.op === "atomic" && cmd.width === 64 && cmd.add === -1
          : cmd.op === "fence" && cmd.value === 0;
      if (!ok)
        throw new Bad(
          `$.queues[${i}].cmds[${k}]`,
          `signals completion slot ${slot} with ${describeTraceSignal(cmd)}, but $.completion.protocol is "${protocol}" (${PROTOCOL_WRITE[protocol]})`,
        );
    }),
  );
}

function describeTraceSignal(cmd: Extract<TraceCmd, { op: "fence" | "atomic" }>): string {
  return cmd.op === "fence" ? `a fence of ${cmd.value}` : `an atomic add${cmd.width} of ${cmd.add}`;
}
