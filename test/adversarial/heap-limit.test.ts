// Issue 13 item 4: a schedule too large for Node's heap is a diagnostic (DMAC4011), never
// "JavaScript heap out of memory". The estimate (src/util/heap-budget.ts) is checked after
// instantiation, before the phases whose memory grows with the op count.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { forwardProgram } from "../../bench/gen.js";
import { compileToQueues } from "../../src/driver/compile.js";
import { makeSourceFile } from "../../src/source/source-file.js";
import { COMPILE_BYTES_PER_OP, heapShortfall } from "../../src/util/heap-budget.js";

const root = mkdtempSync(join(tmpdir(), "dmac-heap-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe("a schedule too large for the heap (DMAC4011)", () => {
  it("is refused at the schedule's name, with the heap it would need, before lowering", () => {
    const file = makeSourceFile("fwd.dmac", forwardProgram(16_000));
    const small = compileToQueues(file, { heapLimit: 8 * 2 ** 20 });
    expect(small.diagnostics.map((d) => d.code)).toEqual(["DMAC4011"]);
    expect(small.diagnostics[0]!.message).toMatch(/16000 operations; compiling them needs about/);
    expect(small.diagnostics[0]!.hint).toMatch(/--max-old-space-size=\d+/);
    expect(small.compiled).toBeUndefined();
    // The same schedule with this process's heap compiles.
    expect(compileToQueues(file, {}).compiled).toBeDefined();
  });

  it("the estimate grows with the -O level and fits the default --max-ops in a 4 GiB heap", () => {
    expect(COMPILE_BYTES_PER_OP[0]!).toBeLessThan(COMPILE_BYTES_PER_OP[2]!);
    for (const perOp of COMPILE_BYTES_PER_OP)
      expect(heapShortfall(2_000_000, perOp, 4 * 2 ** 30)).toBe(0);
    expect(heapShortfall(8_000_000, COMPILE_BYTES_PER_OP[2]!, 4 * 2 ** 30)).toBeGreaterThan(0);
  });

  it("a real process with a small heap exits 1 with the diagnostic, not a crash", () => {
    const path = join(root, "fwd200k.dmac");
    writeFileSync(path, forwardProgram(200_000));
    const r = spawnSync(
      process.execPath,
      ["--max-old-space-size=96", "bin/dmac.js", "compile", path, "-O2", "-o", join(root, "out")],
      { encoding: "utf8" },
    );
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/error\[DMAC4011\]/);
    expect(r.stderr).not.toMatch(/heap out of memory/);
  });
});
