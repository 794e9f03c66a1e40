// cli/progress.ts with a fake terminal and a fake clock: silent off a terminal and with --quiet,
// nothing before the delay, at most one line per interval, the line cleared at the end, and the
// executor's and the plan search's callbacks reaching it through `dmac sim`.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { progressLine, startProgress, NO_PROGRESS } from "../../../src/cli/progress.js";
import { example, runCli } from "../../helpers/cli.js";
import { compileForSim } from "../../../src/driver/compile-for-sim.js";
import { simulate } from "../../../src/sim/run.js";
import { forwardProgram } from "../../../bench/gen.js";

function fakeTerminal(isTTY = true) {
  const writes: string[] = [];
  return { writes, streams: { err: (s: string) => void writes.push(s), isTTY } };
}

describe("startProgress", () => {
  it("is silent when stderr is not a terminal, or with --quiet", () => {
    expect(startProgress(fakeTerminal(false).streams)).toBe(NO_PROGRESS);
    expect(startProgress(fakeTerminal().streams, { quiet: true })).toBe(NO_PROGRESS);
  });

  it("draws after the delay, at most once per interval, and clears the line at the end", () => {
    const t = fakeTerminal();
    let now = 0;
    const p = startProgress(t.streams, {
      now: () => now,
      delayMs: 200,
      intervalMs: 100,
      columns: 80,
    });
    for (now = 0; now < 1000; now += 10) p.update("work", now, 1000);
    // 200, 300, ..., 900 ms: 8 lines in 0.8 s, never more than 10 a second.
    expect(t.writes).toHaveLength(8);
    expect(t.writes[0]).toBe(
      "\r\x1b[Kwork".replace("work", progressLine(undefined, "work", 200, 1000, 80)),
    );
    p.end();
    expect(t.writes.at(-1)).toBe("\r\x1b[K");
  });

  it("draws nothing, and clears nothing, for work shorter than the delay", () => {
    const t = fakeTerminal();
    let now = 0;
    const p = startProgress(t.streams, { now: () => now });
    for (now = 0; now < 150; now += 10) p.update("quick");
    p.end();
    expect(t.writes).toEqual([]);
  });
});

describe("progressLine", () => {
  it("a bar with the count when the total is known, the label first", () => {
    expect(progressLine("sweep", "b2b -O1 4 KiB", 6, 24, 80)).toBe(
      "sweep: [######..................] 6/24 b2b -O1 4 KiB",
    );
    expect(progressLine(undefined, "compiling", undefined, undefined, 80)).toBe("compiling");
  });

  it("fits the terminal's width", () => {
    const line = progressLine("sim", "x".repeat(200), 1, 2, 40);
    expect(line.length).toBe(39);
    expect(line.endsWith("…")).toBe(true);
  });
});

describe("the hooks the commands poll", () => {
  it("the executor reports packets done of the total every 65,536 events, and nothing more", () => {
    const c = compileForSim("fwd.dmac", forwardProgram(16_384), {}, {});
    const calls: [number, number][] = [];
    const r = simulate(c.loaded!.input, {
      target: c.loaded!.target,
      onProgress: (done, total) => void calls.push([done, total]),
    });
    expect(r.verified).toBe(true);
    expect(calls.length).toBe(Math.floor((r.stats.events - 1) / 65_536));
    expect(calls.length).toBeGreaterThan(0);
    for (const [, total] of calls) expect(total).toBe(r.stats.packets);
    const dones = calls.map(([d]) => d);
    expect([...dones].sort((a, b) => a - b)).toEqual(dones);
    expect(dones.at(-1)!).toBeLessThanOrEqual(r.stats.packets);
  });

  it("the event watchdog counts the event past it, runs none past it, and reports progress before it", () => {
    // The loop runs in slices between progress points (execute.ts eventSlice): each boundary
    // must give what one loop gave.
    const c = compileForSim("fwd.dmac", forwardProgram(16_384), {}, {});
    const all = simulate(c.loaded!.input, { target: c.loaded!.target }).stats.events;
    expect(all).toBeGreaterThan(2 * 65_536);
    for (const maxEvents of [1, 65_536, 65_537, 131_073, all - 1, all]) {
      const calls: number[] = [];
      const r = simulate(c.loaded!.input, {
        target: c.loaded!.target,
        maxEvents,
        onProgress: (done) => void calls.push(done),
      });
      const stopped = maxEvents < all;
      expect(r.stats.events).toBe(stopped ? maxEvents + 1 : all);
      expect(r.diagnostics.some((d) => d.code === "DMAC6008")).toBe(stopped);
      expect(calls.length).toBe(Math.floor((Math.min(maxEvents, all) - 1) / 65_536));
    }
  });

  it("the -O2 plan search reports each candidate before it runs it", () => {
    const calls: [number, number, string][] = [];
    const c = compileForSim(
      "b.dmac",
      readFileSync(example("broadcast.dmac"), "utf8"),
      {},
      {
        passes: { level: 2, engines: { kind: "affinity" } },
        onPlanProgress: (done, total, label) => void calls.push([done, total, label]),
      },
    );
    const plan = c.loaded!.optimised!.plan!;
    expect(calls.map(([d]) => d)).toEqual(plan.entries.map((_, i) => i));
    expect(calls.map(([, , label]) => label)).toEqual(plan.entries.map((e) => e.label));
    expect(new Set(calls.map(([, t]) => t))).toEqual(new Set([plan.entries.length]));
  });
});

describe("through the commands", () => {
  it("dmac sim on a terminal: the plan search and the executor report, and the line is cleared", async () => {
    // The fake terminal of runCli: stderr isTTY. Drawing needs time to pass, so the delay and
    // interval are the real ones; a run of this size takes long enough only on a slow machine,
    // so what is checked is that whatever was drawn was cleared and stdout is untouched.
    const r = await runCli(["sim", example("broadcast.dmac"), "-O2", "--format", "json"], true);
    expect(r.code, r.err).toBe(0);
    JSON.parse(r.out);
    if (r.err.includes("\r\x1b[Ksim:")) expect(r.err.endsWith("\r\x1b[K")).toBe(true);
  });

  it("--quiet and a non-terminal stderr show none", async () => {
    const quiet = await runCli(
      ["sweep", example("broadcast.dmac"), "--param", "size", "--sizes", "1KiB..4KiB", "-q"],
      true,
    );
    expect(quiet.err).not.toContain("\r");
    const piped = await runCli([
      "sweep",
      example("broadcast.dmac"),
      "--param",
      "size",
      "--sizes",
      "1KiB..4KiB",
    ]);
    expect(piped.err).not.toContain("\r");
  });
});
