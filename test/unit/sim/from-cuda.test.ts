// A CUDA command program as the executor's program (src/sim/from-cuda.ts): one queue per stream,
// a row per copy (a batch's copies unordered with each other, a stream's commands in order).

import { describe, expect, it } from "vitest";
import type { CudaCmd, CudaProgram } from "../../../src/backend/cuda/program.js";
import { packedFromCuda } from "../../../src/sim/from-cuda.js";
import { COPY, FENCE, POLL, STREAM_ORDERED } from "../../../src/sim/program.js";
import { simulate } from "../../../src/sim/run.js";
import { builtinTarget } from "../../../src/target/target.js";

const KiB = 1024;

/** Buffer a on GPU 0 and b, c on GPU 1; one stream on GPU 0 running `commands`. */
function program(commands: CudaCmd[]): CudaProgram {
  return {
    format: "dmac-cuda-program",
    version: 1,
    schedule: "t",
    target: "h100",
    params: {},
    gpus: 2,
    buffers: [
      { id: 0, name: "a", place: 0, size: 4 * KiB },
      { id: 1, name: "b", place: 1, size: 4 * KiB },
      { id: 2, name: "c", place: 0, size: 4 * KiB },
    ],
    words: [{ id: 0, kind: "completion", name: "completion0" }],
    trigger: null,
    external: [],
    completions: [{ word: 0, value: 1 }],
    streams: [{ gpu: 0, stream: 0, commands: [...commands, { op: "write", word: 0, value: 1 }] }],
    expect: [],
  };
}

const a = (offset: number) => ({ buffer: 0, place: 0, offset });
const b = (offset: number) => ({ buffer: 1, place: 1, offset });
const c = (offset: number) => ({ buffer: 2, place: 0, offset });

describe("packedFromCuda", () => {
  it("makes a row per copy, each command's first ordered after the stream's work", () => {
    const p = packedFromCuda(
      program([
        { op: "wait", word: 0, cmp: "geq", value: 0 },
        { op: "copy", src: a(0), dst: b(0), bytes: KiB },
        {
          op: "batch",
          copies: [
            { src: a(0), dst: b(KiB), bytes: KiB },
            { src: a(KiB), dst: b(2 * KiB), bytes: KiB },
          ],
        },
      ]),
    );
    const C = p.cmds;
    expect(Array.from(C.kind)).toEqual([POLL, COPY, COPY, COPY, FENCE]);
    expect(Array.from(C.at)).toEqual([0, 1, 2, 2, 3]);
    expect(Array.from(C.aux.subarray(1, 4))).toEqual([STREAM_ORDERED, STREAM_ORDERED, 0]);
    expect(Array.from(C.packets)).toEqual([1, 1, 1, 0, 1]);
    expect(p.queues.map((q) => q.name)).toEqual(["gpu0.stream0"]);
    expect(p.completions.queue[0]).toBe(0);
  });

  it("races two copies of one batch on the same bytes, not two commands of a stream", () => {
    const target = builtinTarget("h100")!;
    const there = { src: a(0), dst: b(0), bytes: KiB };
    const back = { src: b(0), dst: c(0), bytes: KiB };
    const codes = (cmds: CudaCmd[]) =>
      simulate({ cuda: program(cmds) }, { target }).diagnostics.map((d) => d.code);
    expect(
      codes([
        { op: "copy", ...there },
        { op: "copy", ...back },
      ]),
    ).toEqual([]);
    expect(codes([{ op: "batch", copies: [there, back] }])).toContain("DMAC6003");
  });
});
