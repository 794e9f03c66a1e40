// The full-SM check in results files (runner --sm-check; src/backend/cuda/sm-check.ts): a results
// document with `smCheck` objects is valid against its schema, `dmac measure` prints each run's
// verdict and a summary line, and its JSON document carries both. The runs here are two of the
// 2x H200 results with made-up checks: one clean, one whose copies waited for the kernel.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resultsProblem } from "../../../../src/backend/cuda/measure.js";
import { validateDocument } from "../../../../src/schemas.js";
import { dmac } from "../../../helpers/cli.js";

const DIR = "bench/hardware/2026-11-24-h200x2";

function check(withKernelUs: number, occupied: number, withoutKernelUs: number) {
  return {
    iterations: 10,
    limitMs: 500,
    threadsPerBlock: 1024,
    sms: [132, 132],
    blocksPerSm: [2, 2],
    allResident: true,
    completedWhileOccupied: occupied,
    onCopyEngines: occupied === 10,
    withKernelUs,
    withoutKernelUs,
    kernelUs: 60,
    kernelTimedOut: 0,
    verified: true,
    wrongBytes: 0,
    hung: false,
    timesUs: Array(10).fill(withKernelUs),
    kernelTimesUs: Array(10).fill(60),
  };
}

function resultsFile(): string {
  const doc = JSON.parse(readFileSync(`${DIR}/results.json`, "utf8"));
  const [a, b] = doc.runs;
  doc.runs = [
    { ...a, smCheck: check(a.medianUs * 1.05, 10, a.medianUs) },
    { ...b, smCheck: check(498_000, 0, b.medianUs) },
  ];
  const path = join(mkdtempSync(join(tmpdir(), "dmac-sm-")), "sm-check.json");
  writeFileSync(path, JSON.stringify(doc));
  return path;
}

const peer = (path: string, ...more: string[]) =>
  dmac(
    "measure",
    path,
    "--target",
    `${DIR}/target.json`,
    "--variants",
    "runtime/cuda/variants-peer.tsv",
    ...more,
  );

describe("the full-SM check", () => {
  it("a results document with checks is valid; a malformed check is refused", () => {
    const doc = JSON.parse(readFileSync(resultsFile(), "utf8"));
    expect(validateDocument("cuda-results", doc)).toEqual([]);
    expect(resultsProblem(doc)).toBeUndefined();
    doc.runs[1].smCheck = { onCopyEngines: "yes" };
    expect(resultsProblem(doc)).toMatch(/runs\[1\]\.smCheck lacks/);
  });

  it("dmac measure prints each run's verdict and one summary line", async () => {
    const r = await peer(resultsFile());
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /^all_gather_pcpy\s+pcpy\s+1024 .*full-SM kernel: 10\.17 µs, copy engines$/m,
    );
    expect(r.out).toMatch(
      /^all_gather_pcpy\s+pcpy\s+16384 .*waited for the kernel 10\/10: SMs\?$/m,
    );
    expect(r.out).toMatch(
      /^full-SM check: 1 of 2 runs completed while a kernel held every SM \(copy engines\); copy time with the kernel \/ without: median [\d.]+x \(1\.05-[\d.]+x\); not clean \(the driver may have used SMs\): all_gather_pcpy\/pcpy\/16384$/m,
    );
  });

  it("--format json carries the checks and the summary, valid against measure.schema.json", async () => {
    const r = await peer(resultsFile(), "--format", "json");
    const doc = JSON.parse(r.out);
    expect(validateDocument("measure", doc)).toEqual([]);
    expect(doc.smCheck).toMatchObject({ runs: 2, onCopyEngines: 1 });
    expect(doc.runs[0].smCheck.onCopyEngines).toBe(true);
    expect(doc.runs[1].smCheck.completedWhileOccupied).toBe(0);
  });

  it("results without checks print no such line", async () => {
    const r = await peer(`${DIR}/results.json`);
    expect(r.out).not.toMatch(/full-SM/);
  });
});
