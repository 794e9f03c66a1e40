// External signals (user signals no queue writes): the modelled producer is a counter that only
// grows (src/sim/external-signals.ts). Every comparison a `when` can use verifies; waits a
// monotonic counter cannot all meet end in the deadlock report, never a hang.

import { describe, expect, it } from "vitest";
import { externalTarget } from "../../../src/sim/external-signals.js";
import { simulate } from "../../../src/sim/run.js";
import { compileText } from "./compile-helper.js";

const M = 0xffffffff;

function program(cond: string, inner = ""): string {
  return `target mi300x
schedule ext(c: bytes = 1KiB) {
  buffer buf: c * ranks
  signal flag
  when flag@5 ${cond} {
    copy buf@1[0 +: c] -> buf@2[0 +: c]${inner}
  }
}
`;
}

function run(src: string, signalPeriodUs?: number) {
  // Every compare of a `when`: the aggressive forms (conservative refuses most: DMAC4020).
  const c = compileText("ext.dmac", src, {}, "aggressive");
  return simulate(
    { manifest: c.manifest, streams: c.streams, module: c.module },
    { target: c.target, signalPeriodUs, maxSimTimeUs: 1e6 },
  );
}

describe("externalTarget", () => {
  const t = (...ws: [string, number][]) =>
    externalTarget(ws.map(([func, value]) => ({ func: func as "==", value, mask: M })));
  it("is the smallest value meeting every wait", () => {
    expect(t(["!=", 0])).toBe(1);
    expect(t(["!=", 0], ["!=", 1])).toBe(2);
    expect(t(["==", 7])).toBe(7);
    expect(t([">", 3])).toBe(4);
    expect(t([">=", 3])).toBe(3);
    expect(t(["<", 3])).toBe(0);
    expect(t(["<=", 0])).toBe(0);
    expect(t([">", 2], ["<", 9], ["!=", 3])).toBe(4);
  });
  it("drops upper bounds a growing counter cannot meet with the lower bounds", () => {
    expect(t([">", 0], ["<=", 0])).toBe(1);
    expect(t(["==", 5], ["==", 2])).toBe(5);
  });
  it("searches for masked waits", () => {
    expect(externalTarget([{ func: "==", value: 4, mask: 0x4 }])).toBe(4);
    expect(externalTarget([{ func: "!=", value: 0, mask: 0xff00 }])).toBe(256);
  });
});

describe("schedules waiting on an external signal", () => {
  for (const cond of ["!= 0", "== 3", "< 2", "<= 0", "> 4", ">= 2"]) {
    it(`verifies with when flag ${cond} (raised at time 0)`, () => {
      const r = run(program(cond));
      expect(r.diagnostics.map((d) => `${d.code} ${d.message}`)).toEqual([]);
      expect(r.verified).toBe(true);
    });
    it(`verifies with when flag ${cond} and --signal-period`, () => {
      const r = run(program(cond), 5);
      expect(r.verified).toBe(true);
    });
  }

  it("contradictory waits end in a deadlock report naming queue, word and value", () => {
    // One after the other on one engine, not nested: a nested pair is refused before it runs
    // (DMAC3017). The second poll comes after the first saw the flag above 0.
    for (const period of [undefined, 5]) {
      const r = run(
        program("> 0")
          .replace("-> buf@2[0 +: c]", "-> buf@2[0 +: c] on sdma(2)")
          .replace(
            "\n}\n",
            "\n  when flag@5 <= 0 {\n    copy buf@1[0 +: c] -> buf@3[0 +: c] on sdma(2)\n  }\n}\n",
          ),
        period,
      );
      expect(r.verified).toBe(false);
      expect(r.deadlockOnExternal).toBe(true);
      const d = r.diagnostics.find((x) => x.code === "DMAC6004");
      expect(d?.message).toMatch(
        /gpu\d+\.sdma\d+ \+0x[0-9a-f]+ .*waits for flag@5 \(0x[0-9a-f]+\) <= 0 but it is 1/,
      );
      expect(d?.hint).toMatch(/only grows/);
    }
  });
});
