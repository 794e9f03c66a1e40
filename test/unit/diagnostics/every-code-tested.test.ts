// Every diagnostic code in the catalogue is exercised by at least one test: its code appears in a
// golden expected file or in a test source under test/ (other than this file and the catalogue
// coverage list). A new code without a test fails here.

import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DIAGNOSTICS } from "../../../src/diagnostics/codes.js";

const TEST_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SELF = fileURLToPath(import.meta.url);

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? allFiles(p) : [p];
  });
}

describe("diagnostic catalogue", () => {
  it("every code appears in some test or golden", () => {
    const corpus = allFiles(TEST_ROOT)
      .filter((p) => p !== SELF && !p.endsWith("coverage.test.ts"))
      .map((p) => readFileSync(p, "utf8"))
      .join("\n");
    const untested = Object.keys(DIAGNOSTICS).filter((code) => !corpus.includes(code));
    expect(untested, "write a test that triggers each of these codes").toEqual([]);
  });
});
