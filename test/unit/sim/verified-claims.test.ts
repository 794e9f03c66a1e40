// "verified" says exactly what was proved (issue 30, item 5): the schedule's postcondition where
// it states one (`implements`, `ensure`), and otherwise only that every buffer ends as the
// schedule's own copies say. Before, a schedule with neither was "verified: the postcondition
// holds".

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { dmac, example } from "../../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-verified-claims-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function source(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const COPY = `schedule s() {
  buffer a: 1KiB
  buffer b: 1KiB
  copy a@0[0..1KiB] -> b@1[0..1KiB]
`;

describe("the verdict names the promise it checked", () => {
  it("no implements, no ensure: no postcondition is claimed", async () => {
    const r = await dmac("sim", source("plain.dmac", `${COPY}}\n`));
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /^verified: every buffer ends as the schedule's copies say \(it states no postcondition: no implements, no ensure\)/,
    );
    expect(r.out).not.toMatch(/postcondition holds/);
  });

  it("an ensure: the postcondition holds, with the count", async () => {
    const r = await dmac(
      "sim",
      source("ensured.dmac", `${COPY}  ensure b@1[0..1KiB] == a@0[0..1KiB]\n}\n`),
    );
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/^verified: the postcondition holds \(1 ensure\)/);
  });

  it("implements: the collective is named", async () => {
    const r = await dmac("sim", example("all_gather_pcpy.dmac"));
    expect(r.out).toMatch(/^verified: the postcondition holds \(implements all_gather_inplace\)/);
  });
});
