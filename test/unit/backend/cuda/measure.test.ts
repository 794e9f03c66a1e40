// `dmac measure` / `dmac calibrate RESULTS.json` on the committed H100 results (the fixture of
// everything GPU-measured): the document is read, every configuration recompiles and predicts,
// and the calibration meets issue 18's bounds on the held-out sizes.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseVariants, resultsProblem } from "../../../../src/backend/cuda/measure.js";
import { makeSourceFile } from "../../../../src/source/source-file.js";
import { dmac } from "../../../helpers/cli.js";

const RESULTS = "bench/hardware/h100-2026-host-copies.json";

/** The variants of a committed table, which has no bad row. */
function table(path: string): Map<string, string[]> {
  const t = parseVariants(makeSourceFile(path, readFileSync(path, "utf8")));
  expect(t.diagnostics).toEqual([]);
  return t.variants;
}

describe("runner results", () => {
  it("the committed results are a results document, every run verified", () => {
    const doc = JSON.parse(readFileSync(RESULTS, "utf8"));
    expect(resultsProblem(doc)).toBeUndefined();
    expect(doc.device).toMatch(/H100/);
    expect(doc.runs).toHaveLength(154);
    expect(doc.runs.every((r: { verified: boolean }) => r.verified)).toBe(true);
  });

  it("rejects what is not one", () => {
    expect(resultsProblem({ format: "x" })).toMatch(/not a dmac CUDA results/);
    expect(resultsProblem({ format: "dmac-cuda-results", runs: [{ example: 1 }] })).toMatch(
      /runs\[0\]/,
    );
  });

  it("reads the variants table", () => {
    const v = table("runtime/cuda/variants.tsv");
    expect(v.get("host_upload_pieces/batch+pl")).toEqual(["-D", "queues=1", "-O1", "--prelaunch"]);
    expect(v.size).toBe(14);
  });

  it("reads the peer table's size define (issue 19): chunk = SIZE / 2", () => {
    const v = table("runtime/cuda/variants-peer.tsv");
    expect(v.get("all_to_all_b2b/batch")).toEqual([
      "-D",
      "engine=0",
      "-O1",
      "--size-define",
      "chunk/2",
    ]);
    expect(v.size).toBe(14);
  });

  it("dmac measure recompiles the 2-GPU peer runs (84, all verified on two H200s)", async () => {
    const dir = "bench/hardware/2026-11-24-h200x2";
    const doc = JSON.parse(readFileSync(`${dir}/results.json`, "utf8"));
    expect(doc.runs.every((r: { verified: boolean }) => r.verified)).toBe(true);
    const r = await dmac(
      "measure",
      `${dir}/results.json`,
      "--target",
      `${dir}/target.json`,
      "--variants",
      "runtime/cuda/variants-peer.tsv",
    );
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^all_to_all_b2b\s+batch\s+1024\s+12\.46 µs\s+12\.80 µs/m);
    expect(r.out.split("\n").filter((l) => l.startsWith("all_"))).toHaveLength(84);
  });

  it("dmac measure prints measured against predicted for every run", async () => {
    const r = await dmac("measure", RESULTS);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^host_upload_pieces\s+batch\+pl\s+1024\s+6\.06 µs\s+/m);
    expect(r.out.split("\n").filter((l) => l.startsWith("host_"))).toHaveLength(154);
  });

  it("a bad results file is DMAC5001", async () => {
    const r = await dmac("measure", "runtime/cuda/variants.tsv");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/DMAC5001/);
  });
});
