// The executor's units alone (exec-state.ts, engine.ts, host.ts, transfers.ts, words.ts,
// checks.ts), each driven on a state built by createExecState, without the event loop; and the
// checks (checker.ts) on their own state, told what happened.

import { describe, expect, it } from "vitest";
import { dataOperand, overlapping } from "../../../src/sim/checks.js";
import {
  checkData,
  checkLanded,
  checkPoll,
  checkSignal,
  createCheckState,
} from "../../../src/sim/checker.js";
import { doorbell, fetch, pollCheck } from "../../../src/sim/engine.js";
import {
  checkMemory,
  createExecState,
  EV_FLOW_START,
  EV_POLL_CHECK,
  EV_STEP,
  EV_WORD_WRITE,
  QState,
  SET,
  type ExecState,
} from "../../../src/sim/exec-state.js";
import { completionScan, submit, watchCompletions } from "../../../src/sim/host.js";
import { packProgram, type SimCmd } from "../../../src/sim/program.js";
import { REGION_CODE } from "../../../src/sim/regions.js";
import { route } from "../../../src/sim/transfers.js";
import { applyWrite, pendingWrite, read32, waiters, wordAt } from "../../../src/sim/words.js";
import type { FlowLoad } from "../../../src/sim/flows.js";
import { bufAddr, model, program, slotAddr, syncAddr } from "./node.js";

const T = model.timing;
const cp = (src: number, dst: number, bytes: number): SimCmd => ({ kind: "copy", src, dst, bytes });
const done = (k: number): SimCmd => ({ kind: "atomic", addr: slotAddr(k), width: 64, add: -1 });

function state(queues: { gpu: number; engine: number; cmds: SimCmd[] }[], slots = 0): ExecState {
  return createExecState(packProgram(program(4096, queues, slots)), model, {});
}

/** The events on the heap, earliest first: [time, kind, arg]. */
function drain(x: ExecState): [number, number, number][] {
  const out: [number, number, number][] = [];
  while (x.heap.pop()) out.push([x.heap.lastTime, x.heap.lastKind, x.heap.lastArg]);
  return out;
}

describe("engine: the queue state machine", () => {
  it("Idle -> Busy on a doorbell; a data command schedules its flow after packet + startup", () => {
    const x = state([{ gpu: 0, engine: 14, cmds: [cp(bufAddr(0), bufAddr(1), 64)] }]);
    expect(x.runs[0]!.state).toBe(QState.Idle);
    expect(doorbell(x, 0, 1)).toBe(true); // it woke: the event loop makes it fetch
    expect(x.runs[0]!.state).toBe(QState.Busy);
    expect(doorbell(x, 0, 1)).toBe(false); // busy: a doorbell only submits
    fetch(x, 0);
    expect(drain(x)).toEqual([[T.enginePacketUs + T.copyStartupUs, EV_FLOW_START, 0]]);
    expect(x.running[0]!.n).toBe(2);
    expect([...x.running[0]!.gpu.subarray(0, 2)]).toEqual([0, 1]);
  });

  it("past what was submitted the engine goes Idle; at the end, Done", () => {
    const x = state([{ gpu: 0, engine: 14, cmds: [{ kind: "nop" }, { kind: "nop" }] }]);
    x.runs[0]!.submitted = 1;
    fetch(x, 0); // the nop: next command at once
    expect(drain(x)).toEqual([[0, EV_STEP, 0]]);
    fetch(x, 0);
    expect(x.runs[0]!.state).toBe(QState.Idle);
    x.runs[0]!.submitted = 2;
    fetch(x, 0);
    fetch(x, 0);
    expect(x.runs[0]!.state).toBe(QState.Done);
    expect(x.runs[0]!.packets).toBe(2);
  });

  it("a bad packet faults the queue (DMAC6007)", () => {
    const x = state([{ gpu: 0, engine: 14, cmds: [{ kind: "bad", detail: "no" }] }]);
    if (doorbell(x, 0, 1)) fetch(x, 0);
    expect(x.runs[0]!.state).toBe(QState.Faulted);
    expect(x.diagnostics.map((d) => d.code)).toEqual(["DMAC6007"]);
  });

  it("a poll checks after its packet, waits on its word, and is satisfied once it holds", () => {
    const poll: SimCmd = {
      kind: "poll",
      addr: syncAddr(0, 0),
      func: ">=",
      value: 1,
      mask: 0xffffffff,
      interval: 4,
    };
    const x = state([{ gpu: 0, engine: 14, cmds: [poll] }]);
    if (doorbell(x, 0, 1)) fetch(x, 0);
    expect(x.runs[0]!.state).toBe(QState.Polling);
    expect(drain(x)).toEqual([[T.enginePacketUs, EV_POLL_CHECK, 0]]);
    x.now = T.enginePacketUs;
    pollCheck(x, 0);
    expect(waiters(x, wordAt(x, syncAddr(0, 0)))).toEqual([0]);
    // The word is raised: the waiting poll is woken at its next grid point and finishes.
    const w = wordAt(x, syncAddr(0, 0));
    x.now = 1;
    applyWrite(x, pendingWrite(x, w, 0, SET, 1, 32, x.HOST));
    const [[t, kind]] = drain(x) as [[number, number, number]];
    expect(kind).toBe(EV_POLL_CHECK);
    expect(t).toBeGreaterThanOrEqual(1);
    x.now = t;
    pollCheck(x, 0);
    expect(x.runs[0]!.pc).toBe(1);
    expect(drain(x)).toEqual([[t, EV_STEP, 0]]);
  });

  it("writes in flight take rows 0, 1, 2 ... as a growing table would, a landed one's first", () => {
    // (The table is made with free rows up front: exec-state.ts pendingRows.)
    const x = state([{ gpu: 0, engine: 14, cmds: [{ kind: "nop" }] }]);
    const w = wordAt(x, syncAddr(0, 0));
    const rows = Array.from({ length: 70 }, () => pendingWrite(x, w, 0, SET, 1, 32, x.HOST));
    expect(rows).toEqual(Array.from({ length: 70 }, (_, k) => k));
    applyWrite(x, 5);
    x.pending.free.push(5); // (as the event loop does after a write lands)
    expect(pendingWrite(x, w, 0, SET, 2, 32, x.HOST)).toBe(5);
    expect(pendingWrite(x, w, 0, SET, 2, 32, x.HOST)).toBe(70);
  });

  it("a signal write lands a latency after its packet; the queue goes on meanwhile", () => {
    const x = state([{ gpu: 0, engine: 14, cmds: [done(0)] }], 1);
    if (doorbell(x, 0, 1)) fetch(x, 0);
    const ev = drain(x);
    expect(ev).toEqual([
      [T.enginePacketUs, EV_STEP, 0],
      [T.enginePacketUs + T.hostSignalLatencyUs, EV_WORD_WRITE, 0],
    ]);
    expect(x.runs[0]!.pc).toBe(1);
  });
});

describe("host", () => {
  it("rings a doorbell after a completion write and at the end of each queue", () => {
    const x = state(
      [
        { gpu: 0, engine: 14, cmds: [cp(bufAddr(0), bufAddr(1), 64), done(0), { kind: "nop" }] },
        { gpu: 1, engine: 14, cmds: [cp(bufAddr(1), bufAddr(2), 64)] },
      ],
      1,
    );
    const { hostSubmitUs, doorbells } = submit(x);
    expect(Array.from(doorbells.queue)).toEqual([0, 0, 1]);
    expect(Array.from(doorbells.upTo)).toEqual([2, 3, 1]);
    expect(hostSubmitUs).toBeCloseTo(4 * T.hostPacketUs + 3 * T.hostDoorbellUs, 9);
    expect(doorbells.time.at(-1)).toBeCloseTo(hostSubmitUs + T.doorbellLatencyUs, 9);
  });

  it("the completion scan pays a read per slot and waits for slots landing late", () => {
    const x = state([{ gpu: 0, engine: 14, cmds: [done(0), done(1)] }], 2);
    watchCompletions(x);
    expect(completionScan(x, 10)).toBeCloseTo(10 + 2 * T.hostSlotReadUs, 9);
  });
});

describe("transfers and checks", () => {
  it("routes a transfer through its driver when the driver is neither end", () => {
    const x = state([{ gpu: 0, engine: 14, cmds: [] }]);
    const direct: FlowLoad[] = [];
    route(x, 0, 1, 0, 1, direct);
    expect(direct.map((l) => l.resource)).toEqual([0 * x.G + 1]);
    const via: FlowLoad[] = [];
    route(x, 1, 2, 0, 1, via);
    expect(via.map((l) => l.resource)).toEqual([1 * x.G + 0, 0 * x.G + 2]);
    const local: FlowLoad[] = [];
    route(x, 3, 3, 3, 1, local);
    expect(local).toEqual([{ resource: x.HBM + 3, weight: 2 }]);
  });

  it("resolves operands to buffer instances and reports overlap and out-of-bounds", () => {
    const x = state([{ gpu: 0, engine: 14, cmds: [cp(bufAddr(0), bufAddr(0, 32), 64)] }]);
    expect(dataOperand(x, 0, 0, bufAddr(0), 64, "source", false, 0)).toBe(true);
    expect(dataOperand(x, 0, 0, bufAddr(0, 32), 64, "destination", true, 1)).toBe(true);
    expect(overlapping(x, 0, 0, 0, 1, "source and destination")).toBe(true);
    expect(dataOperand(x, 0, 0, bufAddr(0, 4090), 64, "source", false, 0)).toBe(false);
    expect(x.diagnostics.map((d) => d.code)).toEqual(["DMAC6012", "DMAC6002"]);
  });

  it("words: a 32-bit SET into the high half keeps the low half", () => {
    const x = state([{ gpu: 0, engine: 14, cmds: [] }], 1);
    const i = x.mem.kind.indexOf(REGION_CODE.completion);
    applyWrite(x, pendingWrite(x, i, 4, SET, 7, 32, x.HOST));
    expect(read32(x, i, 4)).toBe(7);
    expect(read32(x, i, 0)).toBe(1);
  });
});

describe("checker: the checks alone, told what happened (no event loop)", () => {
  // Queue 0 copies buf@0 -> buf@1 and (sometimes) raises a sync word on GPU 1; queue 1 waits for
  // it and copies buf@1 -> buf@2: it reads what queue 0 wrote.
  const W = syncAddr(1, 0);
  const p = packProgram(
    program(4096, [
      {
        gpu: 0,
        engine: 14,
        cmds: [cp(bufAddr(0), bufAddr(1), 64), { kind: "fence", addr: W, value: 1 }],
      },
      {
        gpu: 1,
        engine: 2,
        cmds: [
          { kind: "poll", addr: W, mask: 0xffffffff, value: 1, func: "==", interval: 10 },
          cp(bufAddr(1), bufAddr(2), 64),
        ],
      },
    ]),
  );
  const operands = (...ops: [number, number][]) => ({
    gpu: Int32Array.from(ops.map(([g]) => g)),
    buffer: new Int32Array(ops.length),
    offset: Float64Array.from(ops.map(([, o]) => o)),
  });
  function checks() {
    const { cmdBase, mem } = checkMemory(p);
    const found: string[] = [];
    const s = createCheckState({
      p,
      mem,
      cmdBase,
      maxRaces: 20,
      syncTrace: false,
      report: (code, args) => found.push(`${code} ${args[0]}`),
      where: (q, at) => `q${q}#${at}`,
      finalCheck: undefined,
    });
    return { s, found, word: mem.starts.indexOf(W) };
  }
  const first = operands([0, 0], [1, 0]);
  const second = operands([1, 0], [2, 0]);

  it("a read of bytes another queue wrote, with nothing ordering the two: a race", () => {
    const { s, found } = checks();
    checkData(s, 0, 0, 2, first.gpu, first.buffer, first.offset);
    checkData(s, 1, 3, 2, second.gpu, second.buffer, second.offset);
    expect(found).toEqual([
      "DMAC6003 q1#1 reads buf@1[0 .. 64) while q0#0 writes it, and nothing orders the two",
    ]);
  });

  it("ordered by the fence's landing and the poll that saw it: no race", () => {
    const { s, found, word } = checks();
    checkData(s, 0, 0, 2, first.gpu, first.buffer, first.offset);
    checkSignal(s, 0, 1, word, 0); // the FENCE, in flight as pending row 0
    checkLanded(s, 0, word, 0, false, 1);
    checkPoll(s, 1, word, 1);
    checkData(s, 1, 3, 2, second.gpu, second.buffer, second.offset);
    expect(found).toEqual([]);
  });
});
