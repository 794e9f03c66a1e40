// Each golden case in test/golden/cases/instantiate is named after the code it must report; check
// that instantiation reports exactly that error (independently of the golden harness's rendering).

import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { checkSource } from "../../../src/check/check-source.js";
import { instantiate, DEFAULT_MAX_OPS } from "../../../src/ir/instantiate.js";

const DIR = fileURLToPath(new URL("../../golden/cases/instantiate/", import.meta.url));

describe("instantiate golden cases", () => {
  const files = readdirSync(DIR)
    .filter((f) => f.endsWith(".dmac"))
    .sort();
  it("cover the instantiation codes", () => {
    expect(files.length).toBeGreaterThanOrEqual(19);
  });
  for (const f of files) {
    it(f, () => {
      const file = makeSourceFile(f, readFileSync(DIR + f, "utf8"));
      const checked = checkSource(file, { defines: {} });
      expect(checked.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
      const r = instantiate(checked.schedules[0]!, { maxOps: DEFAULT_MAX_OPS });
      const codes = r.diagnostics.filter((d) => d.severity === "error").map((d) => d.code);
      expect(codes).toEqual([f.slice(0, 8)]);
      expect(r.module).toBeUndefined();
    });
  }
});
