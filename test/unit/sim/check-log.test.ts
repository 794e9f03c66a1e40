// The checks away from the event loop (src/sim/check-log.ts, check-thread.ts), in one process
// (check-replay.ts): the run writes its log, which is replayed over a structured clone of the
// request (what postMessage would deliver) when the ring is full and at the end. The findings, merged back, must be the inline
// run's, in the same order (the CLI sorts its output; the API's list is in event order), with the
// same verdict. The thread itself is covered through the CLI (test/unit/cli/sim-checks-thread.test.ts).

import { describe, expect, it } from "vitest";
import { assemble, cloneQueues, explode, type EditQueues } from "../../../fuzz/stream-edit.js";
import { decodeStream } from "../../../src/backend/sdma/decode.js";
import {
  CheckLog,
  LogReader,
  newLogMemory,
  placeTokens,
  RING_DOUBLES,
  whereToken,
} from "../../../src/sim/check-log.js";
import { checksInProcess } from "../../../src/sim/check-replay.js";
import type { CheckState } from "../../../src/sim/checker.js";
import { simulate, type SimResult } from "../../../src/sim/run.js";
import { example } from "../../helpers/cli.js";
import { compileFile, compileText, type Compiled } from "./compile-helper.js";

const api = { decodeStream };

function both(c: Compiled, qs: EditQueues): { inline: SimResult; log: SimResult } {
  const { manifest, streams } = assemble(api, c.manifest, qs);
  const input = { manifest, streams, module: c.module };
  return {
    inline: simulate(input, { target: c.target }),
    log: simulate(input, { target: c.target, checks: checksInProcess(c.module) }),
  };
}

const shown = (r: SimResult) => ({
  diagnostics: r.diagnostics.map((d) => `${d.code} ${d.message} | ${d.hint ?? ""}`),
  verified: r.verified,
  postcondition: r.postcondition,
  totalUs: r.stats.totalUs,
});

const RING = compileFile(example("ring_all_gather.dmac"));
const PAG = compileFile(example("pipelined_all_gather.dmac"));
const edit = (c: Compiled): EditQueues => cloneQueues(explode(api, c.manifest, c.streams));

/** Every queue's polls removed: nothing orders one queue's work after another's. */
function withoutPolls(qs: EditQueues): EditQueues {
  for (const [name, pks] of qs)
    qs.set(
      name,
      pks.filter((p) => p.kind !== "poll_mem"),
    );
  return qs;
}

describe("the checks replayed from the log: the inline run's findings, in its order", () => {
  it("an unedited output", () => {
    const { inline, log } = both(RING, edit(RING));
    expect(inline.verified).toBe(true);
    expect(shown(log)).toEqual(shown(inline));
  });

  it("every poll removed: races past the limit, the final state, meaning errors", () => {
    const qs = withoutPolls(edit(RING));
    const { inline, log } = both(RING, qs);
    expect(inline.diagnostics.filter((d) => d.code === "DMAC6003").length).toBeGreaterThan(20);
    expect(shown(log)).toEqual(shown(inline));
  });

  it("the event loop's findings among the checks' (an out-of-bounds copy, then races)", () => {
    const qs = withoutPolls(edit(RING));
    const pks = [...qs.values()][3]!;
    const i = pks.map((p) => p.kind).lastIndexOf("copy_linear");
    const words = [...pks[i]!.words];
    words[6] = (words[6]! + 0x1000) >>> 0;
    pks[i] = { ...pks[i]!, words };
    const { inline, log } = both(RING, qs);
    const codes = inline.diagnostics.map((d) => d.code);
    // Interleaved: a race is reported before the loop's DMAC6002, and one after it.
    const oob = codes.indexOf("DMAC6002");
    expect(codes.slice(0, oob)).toContain("DMAC6003");
    expect(codes.slice(oob + 1)).toContain("DMAC6003");
    expect(shown(log)).toEqual(shown(inline));
  });

  it("notify and `when` edits: the schedule-meaning findings", () => {
    const qs = edit(PAG);
    const q = qs.get("gpu7.sdma14")!;
    q.splice(
      q.findIndex((p) => p.kind === "poll_mem"),
      1,
    );
    const dup = q.findIndex((p) => p.words[0] === 0x1e00000a); // a notify's ATOMIC add32
    q.splice(dup, 0, { ...q[dup]!, words: [...q[dup]!.words] });
    const { inline, log } = both(PAG, qs);
    expect(inline.diagnostics.map((d) => d.code)).toContain("DMAC6013");
    expect(shown(log)).toEqual(shown(inline));
  });
});

describe("a log longer than its ring, drained mid-run", () => {
  it("a 480k-packet forward program with a poll removed: the inline findings", async () => {
    const { forwardProgram } = (await import("../../../bench/gen.js")) as {
      forwardProgram: (ops: number) => string;
    };
    const c = compileText("fwd.dmac", forwardProgram(160_000));
    const qs = edit(c);
    const pks = [...qs.values()].find((p) => p.filter((k) => k.kind === "poll_mem").length > 100)!;
    const polls = pks.flatMap((p, i) => (p.kind === "poll_mem" ? [i] : []));
    pks.splice(polls[Math.floor(polls.length * 0.8)]!, 1);
    const { inline, log } = both(c, qs);
    expect(inline.diagnostics.map((d) => d.code)).toContain("DMAC6003");
    expect(shown(log)).toEqual(shown(inline));
  }, 120_000);
});

describe("position tokens", () => {
  it("a token stands for a queue position until it is placed", () => {
    const t = `at ${whereToken(3, 0x1c)} and ${whereToken(0, 7)}`;
    expect(placeTokens(t, (q, at) => `q${q}+${at}`)).toBe("at q3+28 and q0+7");
    expect(placeTokens("no token", () => "x")).toBe("no token");
  });
});

describe("a reader that stops", () => {
  it("a bad record: the replay throws and says it stopped (a writer waiting for room goes on)", () => {
    const memory = newLogMemory();
    new Float64Array(memory.ring)[0] = 99;
    const header = new Int32Array(memory.header);
    header[0] = 5; // (published: one record)
    const s = { call: -1 } as CheckState;
    expect(() => new LogReader(memory, s).toEnd()).toThrow(/record kind 99/);
    expect(header[2]).toBe(1);
  });

  it("a writer whose reader stopped: records past the ring's room are dropped, no wait", () => {
    const memory = newLogMemory();
    new Int32Array(memory.header)[2] = 1;
    const result = { finalState: undefined, prov: undefined, syncTrace: undefined };
    const log = new CheckLog(memory, () => result);
    // Three rings' worth of 5-double records, with nobody reading.
    const n = Math.ceil((3 * RING_DOUBLES) / 5);
    for (let k = 0; k < n; k++) log.poll(0, k, 0);
    expect(log.finish(true, false)).toBe(result);
    expect(log.calls).toBe(n + 1);
  });
});
