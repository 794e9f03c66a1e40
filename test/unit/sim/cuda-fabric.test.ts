// The fabric in the CUDA timing (src/sim/cuda-fabric.ts, cuda-exec.ts): through NVSwitch, each
// GPU's ingress is one resource, so several GPUs writing into one share its bandwidth. Measured
// on 4x H200 (docs/model.md, "Fabric"): the examples' ascending all-gather took 1036-1039 us at
// 256 MiB per rank, the same copies in rotated order 533-539 us.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileRun } from "../../../src/backend/cuda/measure.js";
import type { CudaProgram } from "../../../src/backend/cuda/program.js";
import { runCuda } from "../../../src/sim/cuda-exec.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { cudaOf } from "../../../src/target/cuda-target.js";
import { builtinTarget, parseTarget, type Target } from "../../../src/target/target.js";
import { example } from "../../helpers/cli.js";

/** targets/h200.json with `gpus` 4, as the 4x H200 measurement compiled for. */
export function h200x4(patch: (nvlink: Record<string, unknown>) => void = () => {}): Target {
  const json = JSON.parse(readFileSync(builtinPathOf("h200"), "utf8")) as Record<string, unknown>;
  json["gpus"] = 4;
  patch(json["nvlink"] as Record<string, unknown>);
  return parseTarget(json, "h200x4.json");
}

function builtinPathOf(name: string): string {
  return new URL(`../../../targets/${name}.json`, import.meta.url).pathname;
}

const ascending = makeSourceFile(
  "all_gather_b2b.dmac",
  readFileSync(example("all_gather_b2b.dmac"), "utf8"),
);

/** The same copies, each rank r sending to r+1, r+2, r+3 (mod 4) in that order. */
const rotated = makeSourceFile(
  "all_gather_rotated.dmac",
  `target h200
schedule all_gather_rotated(chunk: bytes = 8KiB, engine: int = 0) implements all_gather_inplace(buf) {
  buffer buf: chunk * ranks
  for r in ranks, k in 1..ranks {
    copy buf@r[r * chunk +: chunk] -> buf@((r + k) % ranks)[r * chunk +: chunk] on sdma(engine)
  }
}
`,
);

const MiB = 1 << 20;

function compiled(file: ReturnType<typeof makeSourceFile>, words: string, t: Target): CudaProgram {
  const r = compileRun(file, words.split(" "), 256 * MiB, t);
  if (!r.program) throw new Error(r.diagnostics.map((d) => `${d.code} ${d.message}`).join("; "));
  return r.program;
}

function time(p: CudaProgram, t: Target): number {
  const r = runCuda(p, cudaOf(t)!);
  if (!r.ok) throw new Error(r.why);
  return r.timeUs;
}

describe("NVSwitch ingress contention", () => {
  const t = h200x4();
  // 64 MiB chunks: 256 MiB per rank, as measured.
  const words = "-D engine=0 -O0 --completion per-queue --size-define chunk/4";

  it("the ascending all-gather is predicted >= 1.8x slower than the rotated one", () => {
    const asc = time(compiled(ascending, words, t), t);
    const rot = time(compiled(rotated, words, t), t);
    expect(asc / rot).toBeGreaterThanOrEqual(1.8);
    // Measured 533-539 us rotated, 1036-1039 ascending.
    expect(rot).toBeGreaterThan(500);
    expect(rot).toBeLessThan(580);
    expect(asc).toBeGreaterThan(950);
    expect(asc).toBeLessThan(1150);
  });

  it("batched and prelaunched, the order still decides", () => {
    const w = "-D engine=0 -O1 --prelaunch --size-define chunk/4";
    const asc = time(compiled(ascending, w, t), t);
    const rot = time(compiled(rotated, w, t), t);
    expect(asc / rot).toBeGreaterThanOrEqual(1.8);
  });

  it("full-mesh links (one per ordered pair) see no incast", () => {
    const mesh = h200x4((nv) => {
      nv["topology"] = "full-mesh";
    });
    const asc = time(compiled(ascending, words, mesh), mesh);
    const rot = time(compiled(rotated, words, mesh), mesh);
    expect(asc / rot).toBeCloseTo(1, 1);
  });

  it("the -O2 cost model sees it (the builtin h200 has the switch)", () => {
    expect(cudaOf(builtinTarget("h200")!)!.fabric.topology).toBe("switch");
  });
});
