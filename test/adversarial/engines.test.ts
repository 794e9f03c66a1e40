// Red-team class 3 (issue 11): engine ids past the engine count spilled into the GPU number
// (`--engines single:99` wrote gpu6..gpu13 queues on an 8-GPU node, exit 0; so did a target
// file with `localCopy: 99`), `single:16` at -O2 was an internal error, and `single:0` (or a
// target map naming engine 0/1) put GPU-to-GPU copies on the PCIe-only engines silently.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { dmac, example } from "../helpers/cli.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-adv-eng-"));
const AG = example("all_gather_pcpy.dmac");
const MI300X = JSON.parse(readFileSync("targets/mi300x.json", "utf8")) as Record<string, unknown>;

describe("--engines names only the target's xGMI engines", () => {
  const cases: [string, string[], RegExp][] = [
    ["single:99", ["-O1"], /engine 99 is past any target/],
    ["single:16", ["-O2"], /engine 16 is not an xGMI engine/],
    ["single:0", ["-O1"], /engine 0 is not an xGMI engine/],
    ["single:2,1", ["-O1"], /engine 1 is not an xGMI engine/],
    ["spread:15", ["-O1"], /from 1 to 14/],
    ["spread:0", ["-O2"], /from 1 to 64/],
    ["single:63", ["-O1"], /engine 63 is not an xGMI engine of mi300x/],
  ];
  for (const [engines, level, message] of cases) {
    for (const command of ["compile", "sim"]) {
      it(`${command} ${level.join(" ")} --engines ${engines}: DMAC5004, exit 1, nothing written`, async () => {
        const out = join(dir, `out-${command}-${engines.replace(/[:,]/g, "_")}`);
        const args = command === "compile" ? [AG, "-o", out] : [AG];
        const r = await dmac(
          command,
          ...args,
          ...level,
          "--engines",
          engines,
          "--format",
          "concise",
        );
        expect(r.code).toBe(1);
        expect(r.err).toMatch(/DMAC5004/);
        expect(r.err).toMatch(message);
        expect(r.err).not.toMatch(/internal error/i);
      });
    }
  }
});

describe("target files: engine ids are checked at the edge", () => {
  const variants: [string, (t: Record<string, any>) => void, RegExp][] = [
    ["localCopy: 99", (t) => (t["engines"].localCopy = 99), /localCopy/],
    ["no localCopy", (t) => delete t["engines"].localCopy, /localCopy/],
    ["engines.count: 1e9", (t) => (t["engines"].count = 1e9), /engines\.count/],
    ["a map naming PCIe engine 0", (t) => (t["recommendedEngine"].map[0][1] = 0), /xGMI engine/],
    ["pcie and xgmi sharing an engine", (t) => t["engines"].pcie.push(2), /must not share/],
  ];
  for (const [name, mutate, message] of variants) {
    it(`${name}: DMAC5006, exit 1`, async () => {
      const t = structuredClone(MI300X) as Record<string, any>;
      mutate(t);
      const file = join(dir, `${name.replace(/\W+/g, "_")}.json`);
      writeFileSync(file, JSON.stringify(t));
      const r = await dmac("sim", AG, "--target", file, "--format", "concise");
      expect(r.code).toBe(1);
      expect(r.err).toMatch(/DMAC5006/);
      expect(r.err).toMatch(message);
    });
  }

  it("the shipped target passes the same checks", async () => {
    expect((await dmac("sim", AG, "--target", "targets/mi300x.json")).code).toBe(0);
  });
});
