// One host-copy source, both vendors: `dmac compile --target h100` writes a command program, and
// the same file as written (target mi300x) simulates on the PCIe engines at the host link's rate.

import { mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dmac, example } from "../helpers/cli.js";

describe("host copies end to end", () => {
  it("dmac sim of a host upload (no collective, no xGMI bytes) prints bandwidth as n/a, not 0.00", async () => {
    const r = await dmac("sim", example("host_upload_pieces.dmac"));
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^algbw \/ busbw\s+n\/a/m);
  });

  it("dmac sim on a CUDA target verifies the schedule and reports the copy-engine model's time", async () => {
    const r = await dmac("sim", example("host_upload_pieces.dmac"), "--target", "h100");
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^verified: /m);
    expect(r.out).toMatch(/^timed by\s+the copy-engine model/m);
  });

  it("compiles for h100 into program.json and program.txt", async () => {
    const out = join(mkdtempSync(join(tmpdir(), "dmac-cuda-")), "o");
    const r = await dmac(
      "compile",
      example("host_upload_pieces.dmac"),
      "--target",
      "h100",
      "-D",
      "queues=1",
      "-O1",
      "--prelaunch",
      "-o",
      out,
    );
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(
      readdirSync(out)
        .filter((f) => !f.startsWith("."))
        .sort(),
    ).toEqual(["program.json", "program.txt"]);
    const p = JSON.parse(readFileSync(join(out, "program.json"), "utf8"));
    expect(p.format).toBe("dmac-cuda-program");
    expect(p.predictedUs).toBeGreaterThan(0);
  });

  it("simulates the same source on mi300x's PCIe engines", async () => {
    const r = await dmac("sim", example("host_upload_pieces.dmac"), "-D", "total=64MiB");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^verified/);
    expect(r.out).toMatch(/gpu0\.sdma0/);
    expect(r.out).toMatch(/gpu0\.sdma1/);
    // 7/8 of 64 MiB over one 54 GB/s PCIe link: about 1.09 ms whatever the engines.
    const ms = Number(/total time\s+([\d.]+) ms/.exec(r.out)![1]);
    expect(ms).toBeGreaterThan(1.0);
    expect(ms).toBeLessThan(1.2);
  });

  it("DMAC4040 names the operation a copy engine cannot run", async () => {
    const r = await dmac(
      "compile",
      example("all_to_all_pcpy_local.dmac"),
      "--target",
      "h100",
      "-o",
      join(mkdtempSync(join(tmpdir(), "dmac-cuda-")), "o"),
    );
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/DMAC4040/);
  });
});
