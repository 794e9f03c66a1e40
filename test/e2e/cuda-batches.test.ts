// Batches on a CUDA target (docs/cuda.md, "The timing model"; docs/optimisations.md, "-O2: the
// plan"): a batch's engine start-up costs batchStartUs more than the same copies one by one, and
// -O2 emits one call per copy where that is predicted faster by more than the plan's tie margin.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { dmac } from "../helpers/cli.js";

const scratch = mkdtempSync(join(tmpdir(), "dmac-cuda-batches-"));
const schedules = fileURLToPath(
  new URL("../../bench/hardware/2026-11-27-h200x4/schedules/", import.meta.url),
);

/** A 4-GPU copy of targets/h200.json, without batchStartUs when `batchStart` is false. */
function h200x4(batchStart: boolean): string {
  const path = fileURLToPath(new URL("../../targets/h200.json", import.meta.url));
  const json = JSON.parse(readFileSync(path, "utf8")) as { timing: Record<string, unknown> };
  if (!batchStart) delete json.timing["batchStartUs"];
  const out = join(scratch, `h200x4-${batchStart}.json`);
  writeFileSync(out, JSON.stringify({ ...json, gpus: 4 }));
  return out;
}

/** program.txt's command kinds and program.json's predictedUs. */
async function compile(
  file: string,
  target: string,
  ...args: string[]
): Promise<{ batches: number; copies: number; us: number; out: string }> {
  const out = mkdtempSync(join(scratch, "c-"));
  const c = await dmac("compile", join(schedules, file), "--target", target, "-o", out, ...args);
  expect(c.code, c.err).toBe(0);
  const text = readFileSync(join(out, "program.txt"), "utf8");
  const count = (kind: string): number => text.split("\n").filter((l) => l.startsWith(kind)).length;
  const us = (
    JSON.parse(readFileSync(join(out, "program.json"), "utf8")) as { predictedUs: number }
  ).predictedUs;
  return { batches: count("batch "), copies: count("copy "), us, out: c.out };
}

describe("batches on a CUDA target", () => {
  const T = h200x4(true);

  it("charge batchStartUs once per batch: a prelaunched batch of 3 against 3 copies", async () => {
    const one = await compile(
      "all_gather_b2b_rot.dmac",
      T,
      "-O0",
      "--completion",
      "per-queue",
      "--prelaunch",
      "-D",
      "chunk=1KiB",
    );
    const batch = await compile(
      "all_gather_b2b_rot.dmac",
      T,
      "-O1",
      "--prelaunch",
      "-D",
      "chunk=1KiB",
    );
    expect(one.batches).toBe(0);
    expect(batch.batches).toBe(4);
    expect(batch.us - one.us).toBeCloseTo(0.63, 2);
  });

  it("-O2 emits one call per copy at 1 KiB and batches at 64 MiB per peer", async () => {
    const small = await compile("all_gather_pcpy.dmac", T, "-O2", "-D", "chunk=1KiB");
    expect(small).toMatchObject({ batches: 0, copies: 12 });
    expect(small.out).toMatch(/; one call per copy, predicted faster than batches \(/);
    const large = await compile("all_gather_pcpy.dmac", T, "-O2", "-D", "chunk=64MiB");
    expect(large).toMatchObject({ batches: 4, copies: 0 });
    expect(large.out).not.toMatch(/one call per copy/);
  });

  it("-O2 keeps the batches where the target gives no batchStartUs", async () => {
    const small = await compile("all_gather_pcpy.dmac", h200x4(false), "-O2", "-D", "chunk=1KiB");
    expect(small.batches).toBe(4);
  });

  it("dmac sim runs the program -O2 emits, at program.json's time", async () => {
    const small = await compile("all_gather_pcpy.dmac", T, "-O2", "-D", "chunk=1KiB");
    const r = await dmac(
      "sim",
      join(schedules, "all_gather_pcpy.dmac"),
      "--target",
      T,
      "-O2",
      "-D",
      "chunk=1KiB",
      "--format",
      "json",
    );
    expect(r.code, r.err).toBe(0);
    const s = JSON.parse(r.out) as { verified: boolean; totalUs: number };
    expect(s.verified).toBe(true);
    expect(s.totalUs).toBeCloseTo(small.us, 2); // program.json rounds to 1 ns
  });
});
