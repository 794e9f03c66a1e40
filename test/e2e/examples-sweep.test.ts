// End to end through the CLI: every bundled example compiles to packets, runs on the simulated
// node and verifies at -O0, -O1 and -O2, at every power-of-two size of its size parameter from
// 1 KiB to 1 GiB (`dmac sweep` exits 1 if any run fails to verify).

import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";

const examples = readdirSync("examples")
  .filter((f) => f.endsWith(".dmac"))
  .sort();
const out = mkdtempSync(join(tmpdir(), "dmac-sweep-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The example's size parameter: the first `bytes` parameter of its schedule. */
function sizeParam(file: string): string {
  const m = /\b(\w+)\s*:\s*bytes\b/.exec(readFileSync(file, "utf8"));
  if (!m) throw new Error(`${file} has no bytes parameter`);
  return m[1]!;
}

describe("every example, swept from 1 KiB to 1 GiB at -O0/-O1/-O2", () => {
  for (const f of examples) {
    it(f, async () => {
      let stdout = "";
      let stderr = "";
      const path = join("examples", f);
      const code = await main(
        [
          "node",
          "dmac",
          "sweep",
          path,
          "--param",
          sizeParam(path),
          "--sizes",
          "1KiB..1GiB",
          "-O",
          "0,1,2",
          "--out",
          join(out, f),
        ],
        { out: (s) => void (stdout += s), err: (s) => void (stderr += s), isTTY: false },
      );
      expect(stderr).not.toMatch(/FAIL|error/);
      expect(code).toBe(0);
      // 21 sizes x 3 levels, one CSV row each, every one verified.
      const csv = readFileSync(join(out, f, "sweep.csv"), "utf8")
        .trim()
        .split("\n");
      expect(csv.length - 1).toBe(21 * 3);
      const verified = csv[0]!.split(",").indexOf("verified");
      expect(csv.slice(1).filter((row) => row.split(",")[verified] !== "true")).toEqual([]);
      expect(stdout).toContain("1 GiB");
    });
  }
});
