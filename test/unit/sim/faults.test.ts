import { describe, expect, it } from "vitest";
import { simulate } from "../../../src/sim/run.js";
import { execute } from "../../../src/sim/execute.js";
import {
  bufAddr,
  copy,
  done,
  fence,
  manifestFor,
  model,
  poll,
  program,
  slotAddr,
  syncAddr,
  target,
} from "./node.js";

const KiB = 1024;
const codes = (r: { diagnostics: readonly { code: string }[] }): string[] =>
  r.diagnostics.map((d) => d.code);

describe("executor checks on hand-made faulty streams", () => {
  it("a correct two-queue stream runs clean", () => {
    const { manifest, streams } = manifestFor(
      8 * KiB,
      [
        { gpu: 0, engine: 14, packets: [copy(bufAddr(0), bufAddr(1), 4 * KiB), done(0)] },
        {
          gpu: 1,
          engine: 14,
          packets: [copy(bufAddr(1, 4 * KiB), bufAddr(0, 4 * KiB), 4 * KiB), done(1)],
        },
      ],
      { slots: 2 },
    );
    const r = simulate({ manifest, streams }, { target });
    expect(codes(r)).toEqual([]);
    expect(r.postcondition).toBe("unchecked");
    expect(r.stats.totalUs).toBeGreaterThan(0);
  });

  it("reports a copy writing past a buffer (DMAC6002) and does not perform it", () => {
    const { manifest, streams } = manifestFor(
      8 * KiB,
      [{ gpu: 0, engine: 14, packets: [copy(bufAddr(0), bufAddr(1, 6 * KiB), 4 * KiB), done(0)] }],
      { slots: 1 },
    );
    const r = simulate({ manifest, streams }, { target });
    expect(codes(r)).toEqual(["DMAC6002"]);
    expect(r.diagnostics[0]!.message).toContain("gpu0.sdma14 +0x0");
    expect(r.diagnostics[0]!.message).toContain("2048 bytes past the end of buffer buf@1");
    expect(r.stats.peerBytes).toBe(0);
  });

  it("reports two unordered writes to one range (DMAC6003)", () => {
    const { manifest, streams } = manifestFor(
      8 * KiB,
      [
        { gpu: 0, engine: 14, packets: [copy(bufAddr(0), bufAddr(2), 4 * KiB), done(0)] },
        { gpu: 1, engine: 2, packets: [copy(bufAddr(1), bufAddr(2, 2 * KiB), 4 * KiB), done(1)] },
      ],
      { slots: 2 },
    );
    const r = simulate({ manifest, streams }, { target });
    expect(codes(r)).toEqual(["DMAC6003"]);
    expect(r.diagnostics[0]!.message).toMatch(/buf@2\[2048 \.\. 4096\)/);
    expect(r.diagnostics[0]!.message).toContain("gpu0.sdma14");
    expect(r.diagnostics[0]!.message).toContain("gpu1.sdma2");
  });

  it("accepts the same two writes when a fence/poll chain orders them", () => {
    const { manifest, streams } = manifestFor(
      8 * KiB,
      [
        {
          gpu: 0,
          engine: 14,
          packets: [copy(bufAddr(0), bufAddr(2), 4 * KiB), fence(syncAddr(1, 0), 1), done(0)],
        },
        {
          gpu: 1,
          engine: 2,
          packets: [
            poll(syncAddr(1, 0), 1),
            copy(bufAddr(1), bufAddr(2, 2 * KiB), 4 * KiB),
            done(1),
          ],
        },
      ],
      { slots: 2, syncWords: 1 },
    );
    const r = simulate({ manifest, streams }, { target });
    expect(codes(r)).toEqual([]);
  });

  it("treats consecutive data packets of one queue as unordered (they may overlap)", () => {
    const { manifest, streams } = manifestFor(
      8 * KiB,
      [
        {
          gpu: 0,
          engine: 14,
          packets: [
            copy(bufAddr(0), bufAddr(1), 4 * KiB),
            copy(bufAddr(0, 4 * KiB), bufAddr(1), 4 * KiB),
            done(0),
          ],
        },
      ],
      { slots: 1 },
    );
    expect(codes(simulate({ manifest, streams }, { target }))).toEqual(["DMAC6003"]);
  });

  it("reports a poll on a word nobody writes as a deadlock (DMAC6004), naming queue and word", () => {
    const { manifest, streams } = manifestFor(
      8 * KiB,
      [
        {
          gpu: 1,
          engine: 2,
          packets: [poll(syncAddr(1, 0), 1), copy(bufAddr(1), bufAddr(2), 4 * KiB), done(0)],
        },
      ],
      { slots: 1, syncWords: 1 },
    );
    const r = simulate({ manifest, streams }, { target });
    expect(codes(r)).toEqual(["DMAC6004"]);
    expect(r.diagnostics[0]!.message).toContain("gpu1.sdma2 +0x0 waits for sync100");
    expect(r.diagnostics[0]!.message).toContain(">= 1 but it is 0");
    expect(r.verified).toBe(false);
  });

  it("reports a missing completion (DMAC6005)", () => {
    const { manifest, streams } = manifestFor(
      8 * KiB,
      [{ gpu: 0, engine: 14, packets: [copy(bufAddr(0), bufAddr(1), 4 * KiB), done(0)] }],
      { slots: 2 },
    );
    const r = simulate({ manifest, streams }, { target });
    expect(codes(r)).toEqual(["DMAC6005"]);
    expect(r.diagnostics[0]!.message).toContain(`completion signal 0x${slotAddr(1).toString(16)}`);
  });

  it("reports a malformed packet (DMAC6007) and the queue that did not drain (DMAC6005)", () => {
    const { manifest, streams } = manifestFor(
      8 * KiB,
      [{ gpu: 0, engine: 14, packets: [done(0)] }],
      { slots: 1 },
    );
    const bad = new Uint32Array([0x000000ff, ...streams.get("gpu0.sdma14.bin")!]);
    streams.set("gpu0.sdma14.bin", bad);
    (manifest.queues[0] as { dwords: number }).dwords = bad.length; // the manifest stays consistent
    const r = simulate({ manifest, streams }, { target });
    expect(codes(r)).toEqual(["DMAC6007", "DMAC6005"]);
    expect(r.diagnostics[0]!.message).toContain("+0x0");
  });

  it("reports a misaligned swap (DMAC6006)", () => {
    const { manifest, streams } = manifestFor(
      8 * KiB,
      [
        {
          gpu: 0,
          engine: 14,
          packets: [
            { kind: "copy_swap", bytes: 64, a: bufAddr(0, 64), b: bufAddr(1, 64) },
            done(0),
          ],
        },
      ],
      { slots: 1 },
    );
    expect(codes(simulate({ manifest, streams }, { target }))).toEqual([]);
    const p = program(8 * KiB, [
      {
        gpu: 0,
        engine: 14,
        cmds: [{ kind: "swap", a: bufAddr(0, 4), b: bufAddr(1, 4), bytes: 64 }],
      },
    ]);
    expect(codes(execute(p, { model }))).toEqual(["DMAC6006"]);
  });

  it("reports a poll on an unmapped word (DMAC6010)", () => {
    const { manifest, streams } = manifestFor(
      8 * KiB,
      [{ gpu: 0, engine: 14, packets: [poll(0x5000, 1), done(0)] }],
      { slots: 1 },
    );
    const r = simulate({ manifest, streams }, { target });
    expect(codes(r)).toEqual(["DMAC6010", "DMAC6005"]);
  });

  it("reports a write into a queue's own ring (DMAC6009)", () => {
    const base = program(8 * KiB, [
      { gpu: 0, engine: 14, cmds: [{ kind: "copy", src: bufAddr(0), dst: bufAddr(1), bytes: 64 }] },
    ]);
    const p = {
      ...base,
      queues: [{ ...base.queues[0]!, ring: { addr: bufAddr(1), bytes: 4096 } }],
    };
    expect(codes(execute(p, { model }))).toEqual(["DMAC6009"]);
  });

  it("stops a spinning schedule with the watchdog (DMAC6008)", () => {
    const p = {
      ...program(8 * KiB, [
        {
          gpu: 0,
          engine: 14,
          cmds: [
            {
              kind: "poll" as const,
              addr: syncAddr(0, 0),
              func: ">=" as const,
              value: 1000,
              mask: 0xffffffff,
              interval: 4,
            },
          ],
        },
      ]),
    };
    const ext = {
      ...p,
      regions: [
        ...p.regions,
        { kind: "signal" as const, name: "flag@0", gpu: 0, addr: 0x9000, bytes: 4 },
      ],
      externalSignals: [0x9000],
    };
    const q = {
      ...ext,
      queues: [
        {
          ...ext.queues[0]!,
          entries: [
            {
              cmd: {
                kind: "poll" as const,
                addr: 0x9000,
                func: ">=" as const,
                value: 1000,
                mask: 0xffffffff,
                interval: 4,
              },
              at: 0,
              packets: 1,
            },
          ],
        },
      ],
    };
    const r = execute(q, { model, signalPeriodUs: 10, maxSimTimeUs: 500 });
    expect(codes(r)).toEqual(["DMAC6008"]);
    const ok = execute(q, { model, signalPeriodUs: 10 });
    expect(codes(ok)).toEqual([]);
    expect(ok.stats.totalUs).toBeGreaterThanOrEqual(10_000);
  });
});
