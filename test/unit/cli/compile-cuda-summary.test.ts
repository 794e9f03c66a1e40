// `dmac compile --target h100` says what it wrote and what the copy-engine model predicts
// (issue 30 item 9: it printed nothing, and `dmac sim` does not run command programs yet).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dmac, example } from "../../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-compile-cuda-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("compile for a CUDA target", () => {
  it("prints one line: the program written and its predicted time", async () => {
    const out = join(dir, "h100");
    const r = await dmac("compile", example("all_gather_pcpy.dmac"), "--target", "h100", "-o", out);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(
      /^.*h100: a command program for h100 \(program\.json, program\.txt\); predicted [\d.]+ [µm]s by the copy-engine model \(docs\/cuda\.md\)\n$/,
    );
    const sdma = await dmac("compile", example("all_gather_pcpy.dmac"), "-o", join(dir, "mi300x"));
    expect(sdma.out).toBe("");
  });
});
