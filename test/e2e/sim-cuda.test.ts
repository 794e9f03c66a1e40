// `dmac sim FILE.dmac` on a CUDA target (docs/cuda.md, "dmac sim on a CUDA target"): the command
// program runs in the executor, checked and timed by the copy-engine model, whose time `dmac
// compile` writes as program.json's predictedUs.

import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { compileForSim } from "../../src/driver/compile-for-sim.js";
import { simulate } from "../../src/sim/run.js";
import type { CudaOps, CudaProgram } from "../../src/backend/cuda/program.js";
import { builtinTarget } from "../../src/target/target.js";
import { dmac, example } from "../helpers/cli.js";

/** The 4-GPU H200 target the 2026-11-27 measurements were fitted on. */
const H200X4 = fileURLToPath(
  new URL("../../bench/hardware/2026-11-27-h200x4/target.fitted.json", import.meta.url),
);
const scratch = mkdtempSync(join(tmpdir(), "dmac-sim-cuda-"));

/** program.json's predictedUs of `file` compiled for `target` with `args`. */
async function predicted(file: string, target: string, ...args: string[]): Promise<number> {
  const out = mkdtempSync(join(scratch, "c-"));
  const c = await dmac("compile", file, "--target", target, "-o", out, ...args);
  expect(c.code, c.err).toBe(0);
  return (JSON.parse(readFileSync(join(out, "program.json"), "utf8")) as { predictedUs: number })
    .predictedUs;
}

describe("dmac sim on a CUDA target", () => {
  it.each([["-O0"], ["-O2"]])(
    "verifies the all-gather on the 4-GPU H200 target (%s) with program.json's time",
    async (level) => {
      const file = example("all_gather_pcpy.dmac");
      const r = await dmac("sim", file, "--target", H200X4, level, "--format", "json");
      expect(r.code, r.err).toBe(0);
      const s = JSON.parse(r.out) as { verified: boolean; totalUs: number; timedBy: string };
      expect(s.verified).toBe(true);
      expect(s.timedBy).toMatch(/^the copy-engine model/);
      expect(s.totalUs).toBeCloseTo(await predicted(file, H200X4, level), 3);
      const text = await dmac("sim", file, "--target", H200X4, level);
      expect(text.out).toMatch(/^verified: the postcondition holds \(implements all_gather/m);
      expect(text.out).toMatch(/^timed by\s+the copy-engine model/m);
    },
  );

  it("reports a deadlock the same way as on mi300x", async () => {
    const hang = join(scratch, "hang.dmac");
    writeFileSync(
      hang,
      `schedule hang(n: bytes = 4KiB) {
  buffer a: n
  buffer b: n
  signal go thermometer
  copy a@0 -> b@1
  when go@0 >= 1 {
    copy a@0 -> b@2
  }
}
`,
    );
    const codes = async (target: string): Promise<string[]> => {
      const r = await dmac("sim", hang, "--target", target, "--hold-signals", "--format", "json");
      expect(r.code).toBe(1);
      const s = JSON.parse(r.out) as { verified: boolean; diagnostics: { code: string }[] };
      expect(s.verified).toBe(false);
      return s.diagnostics.map((d) => d.code);
    };
    const cuda = await codes("h200");
    expect(cuda).toContain("DMAC6004");
    const text = await dmac("sim", hang, "--target", "h200", "--hold-signals");
    expect(text.err).toMatch(/DMAC6004\].*gpu0\.stream\d+ #0 waits for go@0/);
    expect(cuda).toEqual(await codes("mi300x"));
  });

  it("checks the emitted command program: a wait-value dropped from it is a race", () => {
    const text = readFileSync(example("ring_all_gather.dmac"), "utf8");
    const h200 = builtinTarget("h200")!;
    const c = compileForSim(example("ring_all_gather.dmac"), text, {}, { target: h200 });
    const input = c.loaded!.input;
    if (!("cuda" in input)) throw new Error("a CUDA target's input is its command program");
    const program = input.cuda;
    const waits = (p: CudaProgram): number =>
      p.streams.reduce((n, st) => n + st.commands.filter((x) => x.op === "wait").length, 0);
    expect(waits(program)).toBeGreaterThan(0);
    // program.json as written (no ops: no meaning checks) verifies, with ops too...
    const codes = (p: CudaProgram, ops?: CudaOps): string[] =>
      simulate({ cuda: p, ops, module: input.module }, { target: h200 }).diagnostics.map(
        (d) => d.code,
      );
    expect(codes(program)).toEqual([]);
    expect(codes(program, input.ops)).toEqual([]);
    // ...and without its waits on the ring's sync words, the copies race: the queue program
    // these were built from still has its polls, so a check of that alone passed this.
    const broken: CudaProgram = {
      ...program,
      streams: program.streams.map((st) => ({
        ...st,
        commands: st.commands.filter((x) => x.op !== "wait" || x.word === program.trigger?.word),
      })),
    };
    expect(waits(broken)).toBeLessThan(waits(program));
    expect(codes(broken)).toContain("DMAC6003");
  });

  it("--trace writes the CUDA program's streams and copies with the executor's times", async () => {
    const out = join(scratch, "t.json");
    const file = example("all_gather_pcpy.dmac");
    const r = await dmac("sim", file, "--target", H200X4, "-o", out);
    expect(r.code, r.err).toBe(0);
    const t = JSON.parse(readFileSync(out, "utf8")) as {
      traceEvents: {
        name: string;
        ph: string;
        cat?: string;
        ts?: number;
        dur?: number;
        args: Record<string, unknown>;
      }[];
    };
    const names = t.traceEvents.filter((e) => e.name === "thread_name").map((e) => e.args["name"]);
    expect(names).toContain("stream 1 (gpu0.stream1)");
    const procs = t.traceEvents.filter((e) => e.name === "process_name").map((e) => e.args["name"]);
    expect(procs).toEqual(["GPU 0", "GPU 1", "GPU 2", "GPU 3", "host"]);
    // The host's calls, one per command, back to back up to the summary's host submission.
    const calls = t.traceEvents.filter((e) => e.cat === "host");
    expect(calls).toHaveLength(24);
    const json = await dmac("sim", file, "--target", H200X4, "--format", "json");
    const submitted = (JSON.parse(json.out) as { hostSubmitUs: number }).hostSubmitUs;
    expect(Math.max(...calls.map((e) => e.ts! + e.dur!))).toBeCloseTo(submitted, 6);
    const slices = t.traceEvents.filter((e) => e.ph === "X");
    expect(slices.filter((e) => e.name.startsWith("copy "))).toHaveLength(12);
    expect(slices.every((e) => e.dur! >= 0)).toBe(true);
    const end = Math.max(...slices.map((e) => e.ts! + e.dur!));
    expect(end).toBeCloseTo(await predicted(file, H200X4), 3);
  });

  it("every example the 4-GPU target compiles is verified at program.json's time (-O0, -O2)", async () => {
    const dir = fileURLToPath(new URL("../../examples/", import.meta.url));
    let compared = 0;
    for (const f of readdirSync(dir).filter((n) => n.endsWith(".dmac")))
      for (const level of ["-O0", "-O2"]) {
        const out = mkdtempSync(join(scratch, "all-"));
        const c = await dmac("compile", join(dir, f), "--target", H200X4, level, "-o", out);
        if (c.code !== 0) {
          // What copy engines cannot do (DMAC4040), or an engine the target lacks (DMAC3004).
          expect(c.err, f).toMatch(/DMAC(4040|3004)/);
          continue;
        }
        const want = (
          JSON.parse(readFileSync(join(out, "program.json"), "utf8")) as {
            predictedUs: number;
          }
        ).predictedUs;
        const r = await dmac("sim", join(dir, f), "--target", H200X4, level, "--format", "json");
        expect(r.code, `${f} ${level}: ${r.err}`).toBe(0);
        const s = JSON.parse(r.out) as { verified: boolean; totalUs: number };
        expect(s.verified, f).toBe(true);
        expect(Math.round(s.totalUs * 1000) / 1000, `${f} ${level}`).toBe(want);
        compared++;
      }
    expect(compared).toBeGreaterThanOrEqual(10);
  });

  it("dmac sweep over a CUDA target gives program.json's times", async () => {
    const file = example("all_gather_pcpy.dmac");
    const out = join(scratch, "sweep");
    const r = await dmac(
      "sweep",
      file,
      "--param",
      "chunk",
      "--sizes",
      "1KiB..2KiB",
      "--target",
      H200X4,
      "--out",
      out,
    );
    expect(r.code, r.err).toBe(0);
    const rows = readFileSync(join(out, "sweep.csv"), "utf8").trim().split("\n").slice(1);
    expect(rows).toHaveLength(2);
    for (const [i, bytes] of [1024, 2048].entries()) {
      const cols = rows[i]!.split(",");
      expect(Number(cols[7])).toBeCloseTo(
        await predicted(file, H200X4, "-D", `chunk=${bytes}B`),
        3,
      );
    }
  });

  it("a manifest on a CUDA target is refused, pointing at the source", async () => {
    const dir = mkdtempSync(join(scratch, "m-"));
    expect((await dmac("compile", example("ring_all_gather.dmac"), "-o", dir)).code).toBe(0);
    const r = await dmac("sim", dir, "--target", "h100");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/DMAC5006\].*dmac sim FILE\.dmac --target h100/s);
  });
});
