// The CUDA back end: command programs from the host-copy examples (stream shapes per variant,
// batches, the trigger, expectations), DMAC4040 for what copy engines cannot do, the executor's
// ordering of the variants, the runner's line format, and the source pattern shared with C++.

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileRun } from "../../../../src/driver/measured-run.js";
import { patternByte, patternWord, HOST_PLACE } from "../../../../src/backend/cuda/pattern.js";
import { programText } from "../../../../src/backend/cuda/text.js";
import type { CudaProgram } from "../../../../src/backend/cuda/program.js";
import { timeCuda } from "../../../../src/sim/cuda-time.js";
import { makeSourceFile } from "../../../../src/source/source-file.js";
import { cudaOf } from "../../../../src/target/cuda-target.js";
import { builtinTarget } from "../../../../src/target/target.js";
import { dmac, example } from "../../../helpers/cli.js";

const h100 = builtinTarget("h100")!;
const upload = makeSourceFile("up.dmac", readFileSync(example("host_upload_pieces.dmac"), "utf8"));

function program(words: string, total = 1024, file = upload): CudaProgram {
  const r = compileRun(file, words.split(" "), total, h100);
  if (!r.program) throw new Error(r.diagnostics.map((d) => `${d.code} ${d.message}`).join("; "));
  return r.program;
}

const ops = (p: CudaProgram): string[] =>
  p.streams.map((s) => s.commands.map((c) => c.op).join(","));

describe("CUDA command programs", () => {
  it("pcpy: seven streams, a copy and a completion write each", () => {
    const p = program("-D queues=7 -O0");
    expect(ops(p)).toEqual(Array(7).fill("copy,write"));
    expect(p.trigger).toBeNull();
    expect(p.completions).toHaveLength(7);
  });

  it("b2b: one stream, seven copies, one completion write", () => {
    expect(ops(program("-D queues=1 -O0 --completion per-queue"))).toEqual([
      "copy,copy,copy,copy,copy,copy,copy,write",
    ]);
  });

  it("batch+PL: a wait on the trigger, one batched copy of seven, one write", () => {
    const p = program("-D queues=1 -O1 --prelaunch");
    expect(ops(p)).toEqual(["wait,batch,write"]);
    const [wait, batch] = p.streams[0]!.commands;
    expect(wait).toEqual({
      op: "wait",
      word: p.trigger!.word,
      cmp: "geq",
      value: p.trigger!.value,
    });
    expect(batch?.op === "batch" && batch.copies.length).toBe(7);
  });

  it("expects piece k in slot 6 - k, from the host buffer", () => {
    const p = program("-D queues=1 -O1", 8192);
    expect(p.buffers).toEqual([
      { id: 0, name: "staging", place: "host", size: 8192 },
      { id: 1, name: "dst", place: 0, size: 8192 },
    ]);
    expect(p.expect).toHaveLength(7);
    expect(p.expect[0]).toEqual({
      at: { buffer: 1, place: 0, offset: 0 },
      bytes: 1024,
      from: { buffer: 0, place: "host", offset: 6144 },
    });
  });

  it("the pipelined upload waits on its flag, which the runner raises", () => {
    const file = makeSourceFile(
      "p.dmac",
      readFileSync(example("host_upload_pipelined.dmac"), "utf8"),
    );
    const p = program("-O0 --completion per-queue", 65536, file);
    // `ready` is a thermometer flag: raised to 8 it holds 2^8 - 1, and `>= k + 1` is GEQ 2^k.
    expect(p.external).toEqual([{ word: 0, value: 255 }]);
    expect(ops(p)[0]).toBe("wait,copy,".repeat(8) + "write");
    const waits = p.streams[0]!.commands.filter((c) => c.op === "wait");
    expect(waits.map((c) => (c.op === "wait" ? `${c.cmp} ${c.value}` : ""))).toEqual(
      [1, 2, 4, 8, 16, 32, 64, 128].map((v) => `geq ${v}`),
    );
  });

  it("a thermometer flag's wait runs in either sync mode; a count flag's >= is DMAC4020 in conservative", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dmac-cuda-"));
    const out = join(dir, "out");
    const compile = (file: string, sync: string) =>
      dmac("compile", file, "--target", "h100", "--sync", sync, "-o", out, "--format", "concise");
    const upload = example("host_upload_pipelined.dmac");
    expect((await compile(upload, "conservative")).code).toBe(0);
    expect((await compile(upload, "aggressive")).code).toBe(0);
    // The progress and trigger words' conservative forms (== on write-once words) do run.
    expect((await compile(example("ring_all_gather.dmac"), "conservative")).code).toBe(0);
    const count = join(dir, "count.dmac");
    writeFileSync(count, readFileSync(upload, "utf8").replace(" thermometer //", " //"));
    const r = await compile(count, "conservative");
    expect(r.code).toBe(1);
    expect(r.err.split("\n")[0]).toMatch(/DMAC4020 .*count flag.*thermometer.*--sync aggressive/);
    expect((await compile(count, "aggressive")).code).toBe(0);
  });

  it("writes the runner's line format", () => {
    const text = programText(program("-D queues=1 -O1 --prelaunch"));
    expect(text.split("\n").slice(0, 9)).toEqual([
      "dmac-cuda-program 1",
      "gpus 1",
      "words 2",
      "buffer 0 host 1024 staging",
      "buffer 1 0 1024 dst",
      "trigger 0 1",
      "completion 1 1",
      "stream 0 0 3",
      "wait 0 geq 1",
    ]);
    expect(text).toContain("batch 7\nitem 0 host 0 1 0 768 128\n");
    expect(text.endsWith("end\n")).toBe(true);
  });

  it("DMAC4040: same-GPU copies, broadcasts, fills and notifies are not copy-engine work", () => {
    const codes = (body: string): string[] => {
      const f = makeSourceFile(
        "x.dmac",
        `target h100\nschedule x(total: bytes = 8KiB) {\n  buffer a: total\n  signal s on 0\n${body}\n}\n`,
      );
      const r = compileRun(f, [], 8192, h100);
      return r.diagnostics.map((d) => `${d.code} ${d.message}`);
    };
    expect(codes("  copy a@0[0 +: 4KiB] -> a@0[4KiB +: 4KiB]")).toEqual([
      "DMAC4040 copy on GPU 0: a copy within one GPU runs on its SMs, not on a copy engine",
    ]);
    expect(codes("  copy a@0[0 +: 4KiB] -> a@1[0 +: 4KiB], a@2[0 +: 4KiB]")[0]).toMatch(
      /^DMAC4040 broadcast/,
    );
    expect(codes("  fill a@1 with 7")[0]).toMatch(/^DMAC4040 fill/);
    expect(codes("  copy a@0[0 +: 4KiB] -> a@1[0 +: 4KiB]\n  notify s@0")[0]).toMatch(
      /^DMAC4040 notify/,
    );
    expect(codes("  copy a@0[0 +: 4KiB] -> a@1[0 +: 4KiB]")).toEqual([]);
    // One error per statement, not one per loop instance.
    expect(
      codes("  for r in 0..4 {\n    copy a@r[0 +: 1KiB] -> a@r[4KiB +: 1KiB]\n  }"),
    ).toHaveLength(1);
  });
});

describe("the executor's timing of a command program", () => {
  const t = cudaOf(h100)!;
  const time = (words: string, total: number): number => {
    const us = timeCuda(program(words, total), t);
    if (us === undefined) throw new Error("a stream never finishes");
    return us;
  };

  it("orders the 1 KiB variants as measured: batch+PL < batch < b2b < pcpy", () => {
    const pcpy = time("-D queues=7 -O0", 1024);
    const b2b = time("-D queues=1 -O0 --completion per-queue", 1024);
    const batch = time("-D queues=1 -O1", 1024);
    const batchPl = time("-D queues=1 -O1 --prelaunch", 1024);
    expect(batchPl).toBeLessThan(batch);
    expect(batch).toBeLessThan(b2b);
    expect(b2b).toBeLessThan(pcpy);
  });

  it("is bandwidth-bound at 1 GiB: 7/8 GiB at the host link's rate", () => {
    const us = time("-D queues=1 -O1", 1 << 30);
    expect(us).toBeCloseTo(((7 / 8) * 2 ** 30) / (t.hostLink.h2dGBps * 1e3), -2);
  });
});

describe("the source pattern", () => {
  it("is pinned to fixed values (runtime/cuda/pattern.h computes the same)", () => {
    expect([patternWord(0, 0, 0), patternWord(1, HOST_PLACE, 12345)]).toEqual(PINNED_WORDS);
    expect(patternByte(1, HOST_PLACE, 12345 * 4 + 2)).toBe((PINNED_WORDS[1]! >>> 16) & 0xff);
  });

  it("is not periodic in the offset", () => {
    const a = Array.from({ length: 64 }, (_, i) => patternByte(3, 0, i));
    const b = Array.from({ length: 64 }, (_, i) => patternByte(3, 0, i + 256));
    expect(a).not.toEqual(b);
  });

  const gxx = (() => {
    try {
      execFileSync("g++", ["--version"], { stdio: "ignore" });
      return true;
    } catch {
      return false;
    }
  })();
  it.skipIf(!gxx)("matches the C++ header byte for byte", () => {
    const dir = mkdtempSync(join(tmpdir(), "dmac-pattern-"));
    const header = join(process.cwd(), "runtime", "cuda", "pattern.h");
    writeFileSync(
      join(dir, "p.cc"),
      `#include "${header}"\n#include <cstdio>\n#include <initializer_list>\nint main(){for(unsigned b=0;b<3;b++)for(unsigned p: {0u,5u,255u})for(unsigned long long o=0;o<4100;o+=37)printf("%u ",pattern_byte(b,p,o));}\n`,
    );
    execFileSync("g++", ["-std=c++17", "-o", join(dir, "p"), join(dir, "p.cc")]);
    const cxx = execFileSync(join(dir, "p"), { encoding: "utf8" }).trim().split(" ").map(Number);
    const ts: number[] = [];
    for (let b = 0; b < 3; b++)
      for (const p of [0, 5, 255]) for (let o = 0; o < 4100; o += 37) ts.push(patternByte(b, p, o));
    expect(cxx).toEqual(ts);
  });
});

const PINNED_WORDS = [738164860, 2280339988];
