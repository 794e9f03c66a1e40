// `dmac ir` through the CLI entry point.

import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli as run } from "../../helpers/cli.js";
import { parseIr } from "../../../src/ir/parse-text.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-ir-"));
const file = join(dir, "ag.dmac");
writeFileSync(
  file,
  `schedule ag(chunk: bytes = 8KiB) implements all_gather_inplace(buf) {
  buffer buf: chunk * ranks
  for r in ranks, p in ranks where p != r {
    copy buf@r[r * chunk +: chunk] -> buf@p[r * chunk +: chunk]
  }
}
schedule other() {
  buffer b: 64B
  fill b@0 with 1
  fill b@0 with 2
}
`,
);

describe("dmac ir", () => {
  it("prints the IR of the chosen schedule with -D values", async () => {
    const r = await run(["ir", file, "--schedule", "ag", "-D", "chunk=1KiB"]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const m = parseIr(r.out);
    expect(m.errors).toEqual([]);
    expect(m.module!.ops.count).toBe(56);
    expect(r.out).toContain("param chunk: bytes = 1024\n");
    expect(r.out).toContain(
      "op 0 copy buf@0[0 +: 1024] -> buf@1[0 +: 1024] driver 0 stmt 0 bind r=0 p=1\n",
    );
    expect(r.out).not.toContain("deps");
  });

  it("--dump-deps adds the edges", async () => {
    const r = await run(["ir", file, "--schedule", "other", "--dump-deps"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("edges 1\ndeps 1 <- 0\n");
  });

  it("reports instantiation errors and --max-ops with exit code 1", async () => {
    const r = await run(["ir", file, "--schedule", "ag", "--max-ops", "10", "--format", "concise"]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toContain("DMAC3019");
    const several = await run(["ir", file, "--format", "concise"]);
    expect(several.code).toBe(1);
    expect(several.err).toContain("DMAC2019");
    const bad = await run(["ir", file, "--max-ops", "zero", "--format", "concise"]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("DMAC5004");
    const missing = await run(["ir", join(dir, "nope.dmac"), "--format", "concise"]);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("DMAC5001");
  });
});
