// The shipped MI300X target against its calibration set (bench/calibration, issue 12's done-when):
// the model's predicted speedups are within a median 10 % and a maximum 30 % of DMA-Latte's
// measured ones (the one cell the reference flags as noisy, b2b+PL at 512 KiB, measured below
// b2b although prelaunch only removes work, is reported but not held to the maximum), the
// measured best variant is predicted best at >= 90 % of sizes, and targets/mi300x.json is what
// `dmac calibrate` produces: a refit from it finds no better error (within 1 %).

import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";

const CSV = "bench/calibration/mi300x-allgather.csv";
const NOISY = "b2b_pl_512KiB";

interface Row {
  readonly id: string;
  readonly measured: number;
  readonly predicted: number;
}

/** The per-row lines of `dmac calibrate --no-fit`: `id  1.23x  1.20x  -2.4%`. */
function rows(out: string): Row[] {
  const re = /^(\S+)\s+([\d.]+)x\s+([\d.]+)x\s+[-+][\d.]+%/;
  return out
    .split("\n")
    .map((l) => re.exec(l))
    .filter((m) => m !== null)
    .map((m) => ({ id: m[1]!, measured: Number(m[2]), predicted: Number(m[3]) }));
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

describe("targets/mi300x.json on bench/calibration/mi300x-allgather.csv", () => {
  it("predicts the measured speedups: median <= 10 %, max <= 30 %, best variant >= 90 %", async () => {
    const r = await runCli(["calibrate", CSV, "--no-fit"]);
    expect(r.code).toBe(0);
    const all = rows(r.out);
    expect(all.length).toBe(105);
    const err = (x: Row): number => Math.abs(x.predicted / x.measured - 1);
    const held = all.filter((x) => x.id !== NOISY);
    expect(median(all.map(err))).toBeLessThanOrEqual(0.1);
    expect(Math.max(...held.map(err))).toBeLessThanOrEqual(0.3);
    // Per size: the variant with the largest measured speedup (pcpy = 1) is predicted largest.
    const sizes = new Map<string, Row[]>();
    for (const x of all) {
      const size = x.id.slice(x.id.lastIndexOf("_") + 1);
      sizes.set(size, [...(sizes.get(size) ?? []), x]);
    }
    const best = (xs: Row[], k: "measured" | "predicted"): string => {
      const top = xs.reduce((a, b) => (b[k] > a[k] ? b : a));
      return top[k] > 1 ? top.id : "pcpy";
    };
    const agree = [...sizes.values()].filter(
      (xs) => best(xs, "measured") === best(xs, "predicted"),
    );
    expect(sizes.size).toBe(21);
    expect(agree.length / sizes.size).toBeGreaterThanOrEqual(0.9);
  }, 60_000);

  it("is what dmac calibrate produces: a refit finds no better error", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "dmac-refit-")), "fitted.json");
    const r = await runCli([
      "calibrate",
      CSV,
      "--target",
      "targets/mi300x.json",
      "-o",
      out,
      "--max-evals",
      "120",
    ]);
    expect(r.code).toBe(0);
    const m = /\^2: ([\d.]+) -> ([\d.]+)/.exec(r.out);
    expect(m, r.out.slice(-600)).not.toBeNull();
    const [before, after] = [Number(m![1]), Number(m![2])];
    expect(after).toBeGreaterThanOrEqual(before * 0.99);
  }, 120_000);
});
