// Every diagnostic code of the phases listed in GOLDEN_PHASES must appear in at least one golden
// expected file (test/golden/expected/**), or be listed in COVERED_ELSEWHERE with the test that
// covers it. Extend GOLDEN_PHASES as each phase gets its golden cases.

import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  DIAGNOSTICS,
  type DiagnosticCode,
  type DiagnosticSpec,
  type Phase,
} from "../../../src/diagnostics/codes.js";

/** Phases whose codes must be covered by goldens (add "instantiate", "verify", ... when ready). */
export const GOLDEN_PHASES: readonly Phase[] = [
  "lex",
  "parse",
  "check",
  "cli",
  "instantiate",
  "verify",
];

/** Codes that a golden case cannot produce, with the test that covers each. Keep this short. */
const COVERED_ELSEWHERE: Readonly<Partial<Record<DiagnosticCode, string>>> = {
  // Reported by commands that need exactly one schedule, not by checkSource.
  DMAC2019: "test/unit/check/select-schedule.test.ts",
  // Command-line and file-system errors: no source file to make a golden of.
  DMAC5001: "test/unit/cli/check.test.ts",
  DMAC5003: "test/unit/cli/check.test.ts",
  DMAC5004: "test/unit/cli/check.test.ts",
  // Resource limits that take a quadratic program (seconds at the default limits): scaled down
  // with --max-ops in the adversarial limits test.
  DMAC3024: "test/adversarial/limits.test.ts",
  DMAC3025: "test/adversarial/limits.test.ts",
  // A measurements file is CSV, not a schedule: dmac calibrate's tests cover it.
  DMAC5007: "test/unit/calibrate/cli.test.ts",
  // Reported by commands that do not exist yet (compile -o, dmac golden): their tests cover them.
  DMAC5002: "pending: dmac compile",
  DMAC5005: "test/e2e/golden-workflow.test.ts",
  // A `/// golden:` line is read by dmac golden, not by checkSource.
  DMAC5008: "test/unit/golden/config.test.ts",
  // Who owns a golden: dmac golden's runs over scratch projects.
  DMAC5030: "test/adversarial/golden-ownership.test.ts",
  DMAC5031: "test/adversarial/golden-ownership.test.ts",
  // A KFD topology tree is read by dmac target import, not by checkSource.
  DMAC5101: "test/unit/target/parts-cli.test.ts",
  // A hang snapshot is JSON read by dmac postmortem, not a schedule.
  DMAC5021: "test/unit/forensics/postmortem.test.ts",
  // The working directory was deleted: no source can say so.
  DMAC5040: "test/adversarial/output-replacement.test.ts",
  // A CUDA runner's results file is JSON read by dmac measure, not a schedule.
  DMAC5050: "test/adversarial/target-paths.test.ts",
  DMAC5051: "test/adversarial/target-paths.test.ts",
  DMAC5052: "test/adversarial/target-paths.test.ts",
  // A variants table is read by dmac measure, not by checkSource.
  DMAC5060: "test/adversarial/linear-costs.test.ts",
};

const EXPECTED = fileURLToPath(new URL("../../golden/expected", import.meta.url));

function goldenText(dir: string): string {
  if (!existsSync(dir)) return "";
  return readdirSync(dir, { withFileTypes: true })
    .map((e) =>
      e.isDirectory() ? goldenText(join(dir, e.name)) : readFileSync(join(dir, e.name), "utf8"),
    )
    .join("\n");
}

describe("diagnostic coverage", () => {
  const seen = new Set(goldenText(EXPECTED).match(/DMAC\d{4}/g) ?? []);
  const codes = (Object.entries(DIAGNOSTICS) as [DiagnosticCode, DiagnosticSpec][]).filter(
    ([, spec]) => GOLDEN_PHASES.includes(spec.phase) && spec.status !== "removed",
  );

  it("has a golden for every code of the covered phases", () => {
    const missing = codes
      .map(([code]) => code)
      .filter((c) => !seen.has(c) && !(c in COVERED_ELSEWHERE));
    expect(missing, "add a case under test/golden/cases/ that reports each of these").toEqual([]);
  });

  it("allow-lists only codes that need it", () => {
    const needless = Object.keys(COVERED_ELSEWHERE).filter((c) => seen.has(c));
    expect(needless, "these codes have goldens now: remove them from COVERED_ELSEWHERE").toEqual(
      [],
    );
  });
});
