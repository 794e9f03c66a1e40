// `dmac ... | head` closes the pipe before dmac has written everything: the installed command
// (bin/dmac.js, run on the built dist/) must stop quietly with exit 0, not print an EPIPE stack.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "dmac-pipe-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a closed output pipe", () => {
  it("ends dmac quietly", () => {
    // 100,000 operations: megabytes of IR text, far more than a pipe buffer holds.
    const src = join(dir, "many.dmac");
    writeFileSync(
      src,
      "schedule many() {\n  buffer b: 1MiB\n  for i in 0..100000 {\n" +
        "    copy b@0[(i % 1024) * 1KiB +: 1KiB] -> b@1[(i % 1024) * 1KiB +: 1KiB]\n  }\n}\n",
    );
    const r = spawnSync(
      "bash",
      ["-c", `node bin/dmac.js ir '${src}' | head -1; echo "rc=\${PIPESTATUS[0]}"`],
      { encoding: "utf8" },
    );
    expect(r.stdout).toContain("; dmac ir v1");
    expect(r.stdout).toContain("rc=0");
    expect(r.stderr).not.toMatch(/EPIPE|Error/);
  });
});
