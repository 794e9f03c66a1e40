// `dmac compile` with the optimiser's options (the hook in cli/commands/compile.ts).

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dmac as run, example } from "../../helpers/cli.js";

let tmp: string;
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), "dmac-passes-"));
});
afterEach(() => rmSync(tmp, { recursive: true, force: true }));

describe("dmac compile with optimiser options", () => {
  it("-O1 --stats prints each pass's counters; b2b gets one completion per queue", async () => {
    const r = await run("compile", example("all_gather_b2b.dmac"), "-o", tmp, "-O1", "--stats");
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^batch-completions +completions removed 48, completion slots 8$/m);
    const manifest = JSON.parse(readFileSync(join(tmp, "manifest.json"), "utf8")) as {
      queues: unknown[];
    };
    expect(manifest.queues).toHaveLength(8);
  });

  it("--prelaunch names the trigger in the manifest; --dump-after prints the program", async () => {
    const r = await run(
      "compile",
      example("all_gather_pcpy.dmac"),
      "-o",
      tmp,
      "--prelaunch",
      "--dump-after",
      "prelaunch",
    );
    expect(r.code).toBe(0);
    expect(r.out.startsWith("# after prelaunch\nqueues ranks 8, 56 queues")).toBe(true);
    const manifest = JSON.parse(readFileSync(join(tmp, "manifest.json"), "utf8")) as {
      trigger: { address: number; value: number } | null;
    };
    expect(manifest.trigger?.value).toBe(1);
  });

  it("-O2 --explain-plan prints the chosen plan and the alternatives", async () => {
    const r = await run(
      "compile",
      example("all_to_all_pcpy.dmac"),
      "-o",
      tmp,
      "-O2",
      "--explain-plan",
    );
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /^plan: .+, predicted [\d.]+ µs \(\d+ candidates, work [\d.]+[kM]?\)\n\* /,
    );
    expect(readdirSync(tmp)).toContain("manifest.json");
  });

  it("--engines single:3 and --completion per-queue,fence combine", async () => {
    const r = await run(
      "compile",
      example("all_to_all_pcpy.dmac"),
      "-o",
      tmp,
      "--engines",
      "single:3",
      "--completion",
      "per-queue,fence",
    );
    expect(r.code).toBe(0);
    const files = readdirSync(tmp).filter((f) => f.endsWith(".bin"));
    expect(files.sort()).toEqual([...Array(8).keys()].map((g) => `gpu${g}.sdma3.bin`));
  });

  it("bad optimiser options are DMAC5004 errors", async () => {
    for (const args of [
      ["-O", "3"],
      ["--engines", "spread:99"],
      ["--disable-pass", "engine-assign"],
      ["--dump-after", "nope"],
      ["--completion", "sometimes"],
    ]) {
      const r = await run("compile", example("all_gather_pcpy.dmac"), "-o", tmp, ...args);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.err, args.join(" ")).toContain("DMAC5004");
    }
  });
});
