import { describe, expect, it } from "vitest";
import { execute } from "../../../src/sim/execute.js";
import type { SimCmd } from "../../../src/sim/program.js";
import { bufAddr, model, program } from "./node.js";

const MiB = 1024 * 1024;
const cp = (src: number, dst: number, bytes: number): SimCmd => ({ kind: "copy", src, dst, bytes });

function copySpans(p: ReturnType<typeof program>) {
  const r = execute(p, { model, record: true });
  expect(r.diagnostics).toEqual([]);
  return r.timeline!.spans.filter((s) => s.name.startsWith("copy"));
}

describe("timing model", () => {
  it("two flows on one link take twice as long as one", () => {
    const bytes = 64 * MiB;
    const one = copySpans(
      program(bytes * 2, [{ gpu: 0, engine: 14, cmds: [cp(bufAddr(0), bufAddr(1), bytes)] }]),
    );
    const two = copySpans(
      program(bytes * 2, [
        { gpu: 0, engine: 14, cmds: [cp(bufAddr(0), bufAddr(1), bytes)] },
        { gpu: 0, engine: 12, cmds: [cp(bufAddr(0, bytes), bufAddr(1, bytes), bytes)] },
      ]),
    );
    const fixed = model.timing.enginePacketUs + model.timing.copyStartupUs;
    const d1 = one[0]!.end - one[0]!.start - fixed;
    const d2 = two.map((s) => s.end - s.start - fixed);
    expect(d1).toBeCloseTo(bytes / (model.links.usableGBps * 1e3), 6);
    // The second queue is doorbelled a few hundred ns later; both finish near 2 x d1.
    for (const d of d2) expect(d / d1).toBeGreaterThan(1.95);
    expect(Math.max(...two.map((s) => s.end)) - Math.min(...two.map((s) => s.start))).toBeCloseTo(
      2 * d1 + fixed,
      0,
    );
  });

  it("flows on different links do not slow each other; a swap loads both directions", () => {
    const bytes = 16 * MiB;
    const a = copySpans(
      program(bytes, [
        { gpu: 0, engine: 14, cmds: [cp(bufAddr(0), bufAddr(1), bytes)] },
        { gpu: 2, engine: 14, cmds: [cp(bufAddr(2), bufAddr(3), bytes)] },
      ]),
    );
    const d = a.map((s) => s.end - s.start);
    expect(d[0]).toBeCloseTo(d[1]!, 6);
    const r = execute(
      program(bytes, [
        { gpu: 0, engine: 14, cmds: [{ kind: "swap", a: bufAddr(0), b: bufAddr(1), bytes }] },
      ]),
      { model },
    );
    expect(r.stats.links.map((l) => [l.src, l.dst, l.bytes])).toEqual([
      [0, 1, bytes],
      [1, 0, bytes],
    ]);
  });

  it("a broadcast reads once and loads the links of both destinations", () => {
    const bytes = 4 * MiB;
    const r = execute(
      program(bytes, [
        {
          gpu: 0,
          engine: 14,
          cmds: [{ kind: "bcast", src: bufAddr(0), dst: bufAddr(1), dst2: bufAddr(2), bytes }],
        },
      ]),
      { model },
    );
    expect(r.diagnostics).toEqual([]);
    expect(r.stats.links.map((l) => [l.src, l.dst, l.bytes])).toEqual([
      [0, 1, bytes],
      [0, 2, bytes],
    ]);
  });

  it("costs the same number of events for 1 KiB and 1 GiB", () => {
    const small = execute(
      program(1024, [{ gpu: 0, engine: 14, cmds: [cp(bufAddr(0), bufAddr(1), 1024)] }]),
      { model },
    );
    const big = execute(
      program(1024 ** 3, [{ gpu: 0, engine: 14, cmds: [cp(bufAddr(0), bufAddr(1), 1024 ** 3)] }]),
      { model },
    );
    expect(big.stats.events).toBe(small.stats.events);
    expect(big.stats.totalUs).toBeGreaterThan(20_000);
  });
});
