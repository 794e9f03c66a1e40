// The formatter as shipped (the built dist/): prettier itself with `--plugin dmac/prettier-plugin`
// (the package's subpath export) formats exactly as `dmac fmt` does, and both find the examples
// formatted.

import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const PRETTIER = resolve("node_modules/prettier/bin/prettier.cjs");
const BIN = resolve("bin/dmac.js");
const UGLY =
  "schedule s(n: int = 2) {\nbuffer b: 1KiB // size\n  for k in 0 .. n { copy b@0 -> b@(k+1) }\n}\n";

describe("prettier --plugin dmac/prettier-plugin", () => {
  it("checks the examples as formatted", () => {
    const r = spawnSync(
      process.execPath,
      [PRETTIER, "--plugin", "dmac/prettier-plugin", "--check", "examples/*.dmac"],
      { encoding: "utf8" },
    );
    expect(r.status, r.stderr).toBe(0);
  });

  it("formats a file exactly as dmac fmt does", () => {
    const dir = mkdtempSync(join(tmpdir(), "dmac-prettier-"));
    const path = join(dir, "s.dmac");
    writeFileSync(path, UGLY);
    const viaDmac = execFileSync(process.execPath, [BIN, "fmt", path], { encoding: "utf8" });
    execFileSync(
      process.execPath,
      [PRETTIER, "--plugin", "dmac/prettier-plugin", "--write", path],
      {
        encoding: "utf8",
      },
    );
    expect(readFileSync(path, "utf8")).toBe(viaDmac);
    expect(viaDmac).toContain("for k in 0..n {\n    copy b@0 -> b@(k + 1)\n  }");
  });
});
