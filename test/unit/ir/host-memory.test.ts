// The `host` memory space: declarations, regions, placement, the IR text form, dependencies and
// every diagnostic it adds (DMAC2040, DMAC3040) or reuses (DMAC3005).

import { describe, expect, it } from "vitest";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { checkSource } from "../../../src/check/check-source.js";
import { HOST, HOST_REGION_RANK, isHostBuffer } from "../../../src/ir/ir.js";
import { printIr } from "../../../src/ir/print.js";
import { parseIr } from "../../../src/ir/parse-text.js";
import { inferDeps } from "../../../src/ir/deps.js";
import { errs, ok } from "./instantiate-helpers.js";

const sched = (body: string, target = "mi300x"): string =>
  `target ${target}\nschedule s() {\n  buffer h: 8KiB on host\n  buffer g: 8KiB\n${body}\n}\n`;

describe("host memory", () => {
  it("declares a host buffer and copies to and from it, driven by the GPU end", () => {
    const m = ok(
      sched(
        "  copy h@host[0 +: 4KiB] -> g@3[0 +: 4KiB]\n  copy g@5[0 +: 4KiB] -> h@host[4KiB +: 4KiB]",
      ),
    );
    expect(m.buffers[0]!.rank).toBe(HOST);
    expect(isHostBuffer(m, 0)).toBe(true);
    expect(isHostBuffer(m, 1)).toBe(false);
    const t = m.ops;
    expect([t.srcRank[0], t.dstRank[0], t.driver[0], t.engine[0]]).toEqual([
      HOST_REGION_RANK,
      3,
      3,
      0,
    ]);
    expect([t.srcRank[1], t.dstRank[1], t.driver[1], t.engine[1]]).toEqual([
      5,
      HOST_REGION_RANK,
      5,
      1,
    ]);
  });

  it("prints host regions as @host and parses them back", () => {
    const m = ok(
      sched(
        "  copy h@host[0 +: 4KiB] -> g@3[0 +: 4KiB]\n  ensure g@3[0 +: 4KiB] == h@host[0 +: 4KiB]",
      ),
    );
    const text = printIr(m);
    expect(text).toContain("buffer 0 h size 8192 on host");
    expect(text).toContain("copy h@host[0 +: 4096] -> g@3[0 +: 4096]");
    expect(text).toContain("ensure g@3[0 +: 4096] == h@host[0 +: 4096]");
    const back = parseIr(text);
    expect(back.errors).toEqual([]);
    expect(printIr(back.module!)).toBe(text);
    // A host region on a GPU buffer (or the reverse) is refused.
    expect(parseIr(text.replace("copy h@host", "copy h@0")).errors.join()).toMatch(
      /is a host buffer/,
    );
  });

  it("orders overlapping host accesses, and host writes wait for no notify", () => {
    const file = makeSourceFile(
      "t.dmac",
      sched(
        "  signal done on 0\n  copy g@0[0 +: 4KiB] -> h@host[0 +: 4KiB]\n  copy h@host[0 +: 4KiB] -> g@1[0 +: 4KiB]\n  notify done@0",
      ),
    );
    const c = checkSource(file, { defines: {} });
    expect(c.diagnostics).toEqual([]);
    const m = ok(file.text);
    const d = inferDeps(m);
    const preds = (i: number): number[] =>
      Array.from(d.edges!.predIdx.subarray(d.edges!.predStart[i], d.edges!.predStart[i + 1]));
    expect(preds(1)).toEqual([0]); // read after write through host memory
    expect(preds(2)).toEqual([]); // the notify on rank 0 does not wait for the write to host
  });

  it("DMAC2040: host used as a value", () => {
    const file = makeSourceFile("t.dmac", sched("  let x = host + 1"));
    const d = checkSource(file, { defines: {} }).diagnostics;
    expect(d.map((x) => x.code)).toContain("DMAC2040");
  });

  it("DMAC3040: host and GPU places mixed up, and what the host cannot do", () => {
    const code = (body: string): string[] => errs(sched(body)).map((d) => `${d.code} ${d.message}`);
    expect(code("  copy h@0 -> g@1")).toEqual([
      "DMAC3040 buffer 'h' is declared on host: name it 'h@host'",
    ]);
    expect(code("  copy g@host -> g@1")).toEqual([
      "DMAC3040 buffer 'g' lives on GPUs, not on the host",
    ]);
    expect(code("  fill h@host with 1")[0]).toMatch(/^DMAC3040 a fill cannot write host memory/);
    expect(code("  copy h@host[0 +: 4KiB] -> h@host[4KiB +: 4KiB]")[0]).toMatch(
      /host memory to host memory/,
    );
    expect(code("  copy h@host[0 +: 4KiB] -> g@1[0 +: 4KiB] by 2")[0]).toMatch(
      /driven by GPU 1, not by 2/,
    );
    expect(code("  swap h@host[0 +: 4KiB] <-> g@1[0 +: 4KiB]")[0]).toMatch(
      /swap cannot involve host/,
    );
  });

  it("DMAC3005: a host copy pinned to an xGMI engine", () => {
    expect(errs(sched("  copy h@host -> g@1 on sdma(5)")).map((d) => d.code)).toEqual(["DMAC3005"]);
  });
});
