// Issue 29 (trust): one path for every target. Engine choice on parts whose recommended-engine
// map is unknown (C1), the library's compile taking the CLI's path for every target (W7), host
// buffers on targets without a host link (W8), the library's options checked as the CLI's (C9),
// CUDA results naming the program they ran (W6), and the CLI's option edges (polish).

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compile } from "../../src/index.js";
import { dmac } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-adv-targets-"));

/** A copy from pinned host memory to GPU 1 (pinned to a PCIe engine by the front end). */
const HOST_COPY = `schedule up(total: bytes = 8KiB) {
  buffer staging: total on host
  buffer dst: total on 1
  copy staging@host[0 +: total] -> dst@1[0 +: total]
  ensure dst@1[0 +: total] == staging@host[0 +: total]
}
`;

/** Local copies and a fill only: no GPU-to-GPU traffic, so no engine map is needed. */
const LOCAL_ONLY = `schedule local(total: bytes = 8KiB) {
  buffer a: total on 1
  buffer b: total on 1
  copy a@1[0 +: total] -> b@1[0 +: total]
  fill b@1[0 +: 64B] with 7
}
`;

describe("C1: engine choice when the target's engine map is unknown", () => {
  for (const target of ["mi355x", "mi308x"]) {
    for (const opt of [1, 2] as const) {
      it(`${target} -O${opt}: local copies and fills compile`, () => {
        const r = compile(LOCAL_ONLY, { target, opt });
        expect(r.diagnostics.map((d) => d.message)).toEqual([]);
        expect(r.ok).toBe(true);
      });
      it(`${target} -O${opt}: a host copy is no internal error`, () => {
        expect(() => compile(HOST_COPY, { target, opt })).not.toThrow();
      });
    }
    it(`${target}: dmac sim of a source with local copies runs at -O2`, async () => {
      const path = join(dir, `local-${target}.dmac`);
      writeFileSync(path, LOCAL_ONLY);
      const r = await dmac("sim", path, "--target", target, "-O2", "--format", "concise");
      expect(r.err).not.toMatch(/internal error/i);
      expect(r.code).toBe(0);
    });
  }
  it("mi308x -O2 puts local copies on engines with hardware only", () => {
    const r = compile(LOCAL_ONLY, { target: "mi308x", opt: 2, engines: "spread:4" });
    expect(r.ok).toBe(true);
    for (const q of r.queues!.queues) expect([0, 2, 4, 6]).toContain(q.engine);
  });
});
