// `dmac calibrate` recovers perturbed timing constants: synthetic measurements are generated
// with the executor from a known target (small schedules, times and one speedup), three of its
// constants are perturbed and marked fittable, and the fit must find them again. Also the
// search on its own, the error measure, and the fitted target file.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";
import { minimise } from "../../../src/util/pattern-search.js";
import { fittedTarget, formatJson, roundSignificant } from "../../../src/calibrate/fit.js";
import { parseTarget } from "../../../src/target/target.js";

const FIXTURES = fileURLToPath(new URL("./fixtures/", import.meta.url));
const MI300X = fileURLToPath(new URL("../../../targets/mi300x.json", import.meta.url));

type TargetJson = { timing: Record<string, { value: number; source: string; fit?: unknown }> };

/** The shipped target without its `fit` marks (each test marks what it fits). */
function loadTarget(): TargetJson {
  const t = JSON.parse(readFileSync(MI300X, "utf8")) as TargetJson;
  for (const e of Object.values(t.timing)) delete e.fit;
  return t;
}

/** The rows of the synthetic measurements: [id, file, spec]. */
const ROWS: readonly (readonly [string, string, string])[] = [
  ["one_1k", "one_copy.dmac", "O0,chunk=1KiB"],
  ["one_1m", "one_copy.dmac", "O0,chunk=1MiB"],
  ["one_pl", "one_copy.dmac", "O0,prelaunch,chunk=1KiB"],
  ["fan_1k", "fan_out.dmac", "O0,chunk=1KiB"],
  ["fan_b2b", "fan_out.dmac", "O0,engines=single,completion=per-op,chunk=64KiB"],
  ["fan_b2b_q", "fan_out.dmac", "O0,engines=single,completion=per-queue,chunk=1KiB"],
];

const FITTED = ["doorbellLatencyUs", "copyStartupUs", "hostSignalLatencyUs"] as const;
const PERTURB = [1.6, 0.55, 1.35];

describe("dmac calibrate recovers perturbed constants", () => {
  const dir = mkdtempSync(join(tmpdir(), "dmac-calibrate-fit-"));

  it("fits three constants back to the values that produced the measurements", async () => {
    // The true target: the shipped constants, with a fine host poll so that times move
    // smoothly with the signal latency (the host sees a completion on its poll grid).
    const truth = loadTarget();
    truth.timing["hostPollIntervalUs"]!.value = 0.001;
    const truePath = join(dir, "true.json");
    writeFileSync(truePath, JSON.stringify(truth, null, 2));
    const times: number[] = [];
    for (const [, file, spec] of ROWS) {
      const args = ["sim", join(FIXTURES, file), "--target", truePath, "--json"];
      for (const item of spec.split(",")) {
        if (item === "O0") args.push("-O0");
        else if (item === "prelaunch") args.push("--prelaunch");
        else if (item.startsWith("engines=")) args.push("--engines", item.slice(8));
        else if (item.startsWith("completion=")) args.push("--completion", item.slice(11));
        else args.push("-D", item);
      }
      const r = await runCli(args);
      expect(r.code, r.err).toBe(0);
      times.push((JSON.parse(r.out) as { totalUs: number }).totalUs);
    }
    // Times for every row but the last, which is given as a speedup over the first.
    const csv = [
      "# synthetic measurements from true.json",
      "id,file,spec,time_us,speedup,baseline",
      ...ROWS.map(([id, file, spec], i) =>
        i < ROWS.length - 1
          ? `${id},${join(FIXTURES, file)},"${spec}",${times[i]},,`
          : `${id},${join(FIXTURES, file)},"${spec}",,${times[0]! / times[i]!},one_1k`,
      ),
    ].join("\n");
    const csvPath = join(dir, "measured.csv");
    writeFileSync(csvPath, csv + "\n");

    // The perturbed target, with the three constants marked fittable (0.25x .. 4x of the truth).
    const start = structuredClone(truth);
    FITTED.forEach((name, i) => {
      const v = truth.timing[name]!.value;
      start.timing[name]!.value = roundSignificant(v * PERTURB[i]!);
      start.timing[name]!.fit = { min: v / 4, max: v * 4 };
    });
    const startPath = join(dir, "start.json");
    writeFileSync(startPath, JSON.stringify(start, null, 2));
    const outPath = join(dir, "fitted.json");
    const r = await runCli(["calibrate", csvPath, "--target", startPath, "-o", outPath]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const fitted = JSON.parse(readFileSync(outPath, "utf8")) as TargetJson;
    for (const name of FITTED)
      expect(fitted.timing[name]!.value / truth.timing[name]!.value, name).toBeCloseTo(1, 2);
    // Nothing else changed, and the fitted file is a valid target that says where it came from.
    for (const [name, entry] of Object.entries(start.timing))
      if (!(FITTED as readonly string[]).includes(name)) expect(fitted.timing[name]).toEqual(entry);
    expect(() => parseTarget(fitted, "fitted.json")).not.toThrow();
    expect(fitted.timing["copyStartupUs"]!.source).toMatch(
      /^fit: dmac calibrate .*measured\.csv --target .*start\.json \(6 rows; .*\): [\d.]+ -> [\d.]+; before that: joint fit of the copy phase/,
    );
    // The report: every row, and the summary before and after.
    for (const [id] of ROWS) expect(r.out).toMatch(new RegExp(`^${id}\\s`, "m"));
    expect(r.out).toMatch(/^6 measured rows \(5 times, 1 speedups\), 0 baseline-only rows/m);
    const after = /after: {2}median ([\d.]+)%, max ([\d.]+)%/.exec(r.out);
    expect(Number(after![2])).toBeLessThan(1);
    expect(r.out).toMatch(/^ {2}copyStartupUs\s+[\d.]+ -> [\d.]+\s+\[/m);

    // --no-fit compares only; the fitted target predicts the measurements.
    const check = await runCli(["calibrate", csvPath, "--target", outPath, "--no-fit"]);
    expect(check.code).toBe(0);
    expect(check.out).not.toMatch(/fitted/);
    const before = /before: median ([\d.]+)%, max ([\d.]+)%/.exec(check.out);
    expect(Number(before![2])).toBeLessThan(1);
  });
});

describe("the search and the fitted file", () => {
  it("minimises a bounded function deterministically and stays in the box", () => {
    const f = (x: readonly number[]): number =>
      (x[0]! - 1) ** 2 + 10 * (x[1]! + 0.5) ** 2 + Math.abs(x[2]! - 3);
    const run = () => minimise(f, [0, 0, 0], [-2, -2, -2], [2, 2, 2], { maxEvals: 2000 });
    const r = run();
    expect(r.converged).toBe(true);
    expect(r.x[0]).toBeCloseTo(1, 3);
    expect(r.x[1]).toBeCloseTo(-0.5, 3);
    expect(r.x[2]).toBe(2); // the bound
    expect(r.f0).toBe(f([0, 0, 0]));
    expect(run()).toEqual(r);
    // A coordinate with no effect is recognised and left alone.
    const flat = minimise((x) => (x[0]! - 1) ** 2, [0, 0.5], [-2, -2], [2, 2], { maxEvals: 500 });
    expect(flat.flat).toEqual([false, true]);
    expect(flat.x[1]).toBe(0.5);
    // The evaluation budget is a hard limit.
    let calls = 0;
    const capped = minimise((x) => (calls++, f(x)), [0, 0, 0], [-2, -2, -2], [2, 2, 2], {
      maxEvals: 7,
    });
    expect(calls).toBe(7);
    expect(capped.evals).toBe(7);
    expect(capped.converged).toBe(false);
  });

  it("writes the target as prettier would, with fitted sources that do not nest", () => {
    const text = readFileSync(MI300X, "utf8");
    const json = JSON.parse(text) as Record<string, unknown>;
    // Same layout (a number like 1.0 is written as 1).
    expect(formatJson(json)).toBe(text.replace(/(\d)\.0(,?\n)/g, "$1$2"));
    const target = parseTarget(json, "mi300x.json");
    const once = fittedTarget(target, { copyStartupUs: 1.5 }, "dmac calibrate a.csv");
    const timing = once["timing"] as TargetJson["timing"];
    const old = (json["timing"] as TargetJson["timing"])["copyStartupUs"]!;
    expect(timing["copyStartupUs"]!.value).toBe(1.5);
    expect(timing["copyStartupUs"]!.source).toBe(
      `fit: dmac calibrate a.csv: ${old.value} -> 1.5; before that: ${old.source}`,
    );
    const twice = fittedTarget(
      parseTarget(once, "once.json"),
      { copyStartupUs: 2 },
      "dmac calibrate b.csv",
    );
    expect((twice["timing"] as TargetJson["timing"])["copyStartupUs"]!.source).toBe(
      `fit: dmac calibrate b.csv: 1.5 -> 2; before that: ${old.source}`,
    );
  });

  it("validates fit bounds when a target is loaded", () => {
    const bad = (fit: unknown, value = 2): string => {
      const t = loadTarget();
      t.timing["copyStartupUs"] = { value, source: "x", fit };
      try {
        parseTarget(t, "t.json");
        return "ok";
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(bad({ min: 1, max: 4 })).toBe("ok");
    expect(bad({ min: 0, max: 4 })).toMatch(
      /'timing\.copyStartupUs\.fit' 'min' must be a positive/,
    );
    expect(bad({ min: 3, max: 2 })).toMatch(/'max' must be a number no smaller than 'min'/);
    expect(bad({ min: 3, max: 4 })).toMatch(/bounds \[3, 4\] must contain the value \(2\)/);
    expect(bad({ min: 1, max: 4, step: 1 })).toMatch(/unknown key 'step'/);
    expect(bad([1, 4])).toMatch(/must be an object/);
  });
});
