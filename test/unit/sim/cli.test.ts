import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli as run } from "../../helpers/cli.js";
import { parseSizeRange } from "../../../src/cli/commands/sweep.js";
import type { ChromeTrace } from "../../../src/sim/chrome-trace.js";
import { readTrace } from "./trace-check.js";

/** The Chrome trace against its schema, read as Perfetto reads it (trace-check.ts). */
function checkChromeTrace(json: unknown): void {
  const t = readTrace(json as ChromeTrace);
  expect(t.slices.some((s) => s.cat === "wait")).toBe(true);
  const phases = new Set((json as ChromeTrace).traceEvents.map((e) => e.ph));
  expect([...phases].sort()).toEqual(["C", "M", "X", "f", "i", "s"]);
}

describe("dmac sim and dmac sweep", () => {
  const dir = mkdtempSync(join(tmpdir(), "dmac-sim-"));

  it("sim FILE.dmac prints a verified summary and writes a valid Chrome trace", async () => {
    const trace = join(dir, "t.json");
    const r = await run([
      "sim",
      "examples/all_gather_bcst.dmac",
      "-D",
      "chunk=64KiB",
      "--trace",
      trace,
    ]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^verified/);
    expect(r.out).toMatch(/algbw \/ busbw/);
    expect(r.out).toMatch(/gpu0->gpu1/);
    checkChromeTrace(JSON.parse(readFileSync(trace, "utf8")));
  });

  it("sim --json; compiled output directories and traces also run", async () => {
    const out = join(dir, "ag");
    expect(
      (await run(["compile", "examples/all_to_all_pcpy.dmac", "-o", out, "--emit", "sdma,trace"]))
        .code,
    ).toBe(0);
    const j = await run(["sim", out, "--json"]);
    expect(j.code).toBe(0);
    const s = JSON.parse(j.out) as { verified: boolean; totalUs: number; postcondition: string };
    expect(s.postcondition).toBe("holds");
    expect(s.verified).toBe(true);
    const t = await run(["sim", join(out, "trace.json"), "--json"]);
    expect((JSON.parse(t.out) as { totalUs: number }).totalUs).toBeCloseTo(s.totalUs, 6);
  });

  it("sim exits 1 with a report on a bad stream and on bad options", async () => {
    const out = join(dir, "bad");
    expect((await run(["compile", "examples/scatter.dmac", "-o", out])).code).toBe(0);
    const m = JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")) as {
      queues: { file: string }[];
    };
    // An undecodable first dword, the file's length unchanged (the manifest still describes it).
    const bin = readFileSync(join(out, m.queues[0]!.file));
    bin.writeUInt32LE(0xff, 0);
    writeFileSync(join(out, m.queues[0]!.file), bin);
    const r = await run(["sim", out, "--format", "concise"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/DMAC6007/);
    expect((await run(["sim", "examples/scatter.dmac", "--max-sim-time", "-3"])).code).toBe(1);
  });

  it("sweep prints a table and writes CSV and SVG", async () => {
    const out = join(dir, "sweep");
    const r = await run([
      "sweep",
      "examples/all_gather_pcpy.dmac",
      "--param",
      "chunk",
      "--sizes",
      "1KiB..1GiB",
      "--out",
      out,
    ]);
    expect(r.code).toBe(0);
    expect(r.out.trim().split("\n")).toHaveLength(22);
    expect(r.out).toMatch(/1 GiB .* yes/);
    const csv = readFileSync(join(out, "sweep.csv"), "utf8").trim().split("\n");
    expect(csv).toHaveLength(22);
    expect(readFileSync(join(out, "sweep.svg"), "utf8")).toMatch(
      /^<svg[^>]*>[\s\S]*<polyline[\s\S]*<\/svg>\n$/,
    );
    expect(parseSizeRange("1KiB..4KiB")).toEqual([1024, 2048, 4096]);
    expect(parseSizeRange("4KB..1MiB")).toBeUndefined();
  });
});
