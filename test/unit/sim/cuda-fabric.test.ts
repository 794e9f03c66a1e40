// The fabric in the CUDA timing (src/sim/cuda-fabric.ts, copy-engines.ts): through NVSwitch, each
// GPU's ingress is one resource, so several GPUs writing into one share its bandwidth. Measured
// on 4x H200 (docs/model.md, "Fabric"): the examples' ascending all-gather took 1036-1039 us at
// 256 MiB per rank, the same copies in rotated order 533-539 us.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileRun } from "../../../src/driver/measured-run.js";
import type { CudaProgram } from "../../../src/backend/cuda/program.js";
import { timeCuda } from "../../../src/sim/cuda-time.js";
import { simulate } from "../../../src/sim/run.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { cudaOf } from "../../../src/target/cuda-target.js";
import { builtinTarget, parseTarget, type Target } from "../../../src/target/target.js";

/** targets/h200.json with `gpus` 4, as the 4x H200 measurement compiled for. */
function h200x4(
  patch: (nvlink: Record<string, unknown>, timing: Record<string, unknown>) => void = () => {},
): Target {
  const json = JSON.parse(readFileSync(builtinPathOf("h200"), "utf8")) as Record<string, unknown>;
  json["gpus"] = 4;
  patch(json["nvlink"] as Record<string, unknown>, json["timing"] as Record<string, unknown>);
  return parseTarget(json, "h200x4.json");
}

function builtinPathOf(name: string): string {
  return new URL(`../../../targets/${name}.json`, import.meta.url).pathname;
}

// The DMA-Latte-faithful ascending order (examples/ has the rotated one).
const ascending = makeSourceFile(
  "all_gather_b2b.dmac",
  readFileSync(new URL("../../../bench/calibration/all_gather_b2b.dmac", import.meta.url), "utf8"),
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

function compiled(
  file: ReturnType<typeof makeSourceFile>,
  words: string,
  t: Target,
  bytes = 256 * MiB,
): CudaProgram {
  const r = compileRun(file, words.split(" "), bytes, t);
  if (!r.program) throw new Error(r.diagnostics.map((d) => `${d.code} ${d.message}`).join("; "));
  return r.program;
}

function time(p: CudaProgram, t: Target): number {
  const us = timeCuda(p, cudaOf(t)!);
  if (us === undefined) throw new Error("a stream never finishes");
  return us;
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

  it("one stream per peer does not reach the rotated time: the engine serves one stream at a time", () => {
    // pcpy+pl in rotated order (streams = destination ranks) measured 976 us at 256 MiB, in
    // ascending order 789-1058 (4x H200, 4x H100), between the rotated 533-539 and the ascending
    // 1036-1039: the engine's order among the streams changes (copy-engine-orders.test.ts).
    const pcpyRot = makeSourceFile(
      "all_gather_pcpy_rot.dmac",
      rotated.text.replace(" on sdma(engine)", "").replace(", engine: int = 0", ""),
    );
    const asc = time(compiled(ascending, words, t), t);
    const pcpy = time(compiled(pcpyRot, "-O0 --prelaunch --size-define chunk/4", t), t);
    expect(pcpy / asc).toBeGreaterThan(0.75);
    expect(pcpy / asc).toBeLessThan(0.95);
  });

  it("the -O2 cost model sees it (the builtin h200 has the switch)", () => {
    expect(cudaOf(builtinTarget("h200")!)!.fabric.topology).toBe("switch");
  });
});

describe("the host's submission and a copy's start-up", () => {
  const at = (timing: Record<string, number>): Target =>
    h200x4((_, tm) => {
      for (const [k, v] of Object.entries(timing)) tm[k] = { value: v, source: "test" };
    });
  const KiB = 1024;

  it("hostGpuUs is paid each time the calls move to another GPU", () => {
    const words = "-D engine=0 -O0 --completion per-queue --size-define chunk/4";
    const base = at({ hostGpuUs: 0 });
    const slow = at({ hostGpuUs: 5 });
    const p = compiled(ascending, words, base, KiB);
    // Four streams on four GPUs: the last stream's calls start 4 x 5 us later.
    expect(time(p, slow) - time(p, base)).toBeCloseTo(20, 5);
  });

  it("peerNextUs starts a peer copy the engine had queued behind the same stream's copy", () => {
    const words = "-D engine=0 -O0 --completion per-queue --prelaunch --size-define chunk/4";
    const p = compiled(ascending, words, at({}), KiB);
    // Three copies per stream, prelaunched: the second and third are taken back to back.
    expect(time(p, at({ peerNextUs: 3 })) - time(p, at({ peerNextUs: 1 }))).toBeCloseTo(4, 5);
    // The same in a batch: its second and third copies.
    const batch = compiled(
      ascending,
      "-D engine=0 -O1 --prelaunch --size-define chunk/4",
      at({}),
      KiB,
    );
    expect(time(batch, at({ peerNextUs: 3 })) - time(batch, at({ peerNextUs: 1 }))).toBeCloseTo(
      4,
      5,
    );
  });

  it("peerStartUs starts a peer copy, copyStartUs a host copy; absent, peer = host", () => {
    const json = JSON.parse(readFileSync(builtinPathOf("h100"), "utf8"));
    delete json.timing.peerStartUs; // absent: a peer copy starts as a host copy
    const t = cudaOf(parseTarget(json, "h100"))!;
    expect(t.timing.peerStartUs).toBe(t.timing.copyStartUs);
    const words = "-D engine=0 -O1 --prelaunch --size-define chunk/4";
    const p = compiled(ascending, words, at({}), KiB);
    expect(time(p, at({ peerStartUs: 9 })) - time(p, at({ peerStartUs: 4 }))).toBeCloseTo(5, 5);
  });
});

describe("a program that never finishes", () => {
  it("names the stream and the command it waits at", () => {
    const p: CudaProgram = {
      format: "dmac-cuda-program",
      version: 1,
      schedule: "stuck",
      target: "h200",
      params: {},
      gpus: 1,
      buffers: [],
      words: [{ id: 0, kind: "signal", name: "s@0" }],
      trigger: null,
      external: [],
      completions: [],
      streams: [{ gpu: 0, stream: 2, commands: [{ op: "wait", word: 0, cmp: "geq", value: 1 }] }],
      expect: [],
    };
    const target = builtinTarget("h200")!;
    expect(timeCuda(p, cudaOf(target)!)).toBeUndefined();
    const r = simulate({ cuda: p }, { target });
    expect(r.diagnostics.map((d) => d.code)).toEqual(["DMAC6004"]);
    expect(r.diagnostics[0]!.message).toMatch(/gpu0\.stream2 #0 waits for s@0/);
  });
});
