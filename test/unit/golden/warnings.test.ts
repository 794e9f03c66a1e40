// `dmac golden` shows a compile's warnings whether its goldens pass or not (issue 30, item 1): an
// -O2 golden whose plan search stopped at its budget says DMAC4009 on every run, as `compile`
// does, instead of passing in silence.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { example, runCli } from "../../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-golden-warnings-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("golden and the compile's warnings", () => {
  it("DMAC4009 is shown when the goldens are written and when they pass", async () => {
    const text = readFileSync(example("all_to_all_pcpy.dmac"), "utf8");
    writeFileSync(join(dir, "a.dmac"), `/// golden: -O2 --plan-budget 0\n${text}`);
    const wrote = await runCli(["golden", dir, "--update", "--jobs", "1"]);
    expect(wrote.code, wrote.err).toBe(0);
    expect(wrote.out).toMatch(/^WARN \S*a\.dmac .*\nDMAC4009 the -O2 plan search stopped/m);
    const passed = await runCli(["golden", dir, "--jobs", "1"]);
    expect(passed.code, passed.err).toBe(0);
    expect(passed.out).toMatch(/DMAC4009/);
    expect(passed.out).toMatch(/2 passed, 0 failed/);
    const json = await runCli(["golden", dir, "--format", "json", "--jobs", "1"]);
    const doc = JSON.parse(json.out) as { diagnostics: { code: string; severity: string }[] };
    expect(doc.diagnostics.map((d) => [d.code, d.severity])).toContainEqual([
      "DMAC4009",
      "warning",
    ]);
  });
});
