// Red-team class 2 (issue 11): silent miscompiles. `copy a@0 -> a@1, a@2, a@3, a@99` passed
// `check`, its IR kept only a@1 and a@2, `sim` said "verified", a@99 was never range-checked and
// `ensure a@3 == a@0` failed with "never written". Now the form is rejected (DMAC2023), and the
// class is closed by fuzz/ir-faithful.ts: every IR op must say what its statement says. It runs
// on every fuzz case (test/unit/fuzz/ci.test.ts) and here on every example and golden case.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { irFaithfulness } from "../../fuzz/ir-faithful.js";
import { parseSource } from "../../src/frontend/parse.js";
import { OP_KINDS } from "../../src/ir/ir.js";
import { analyzeSource } from "../../src/driver/analyze.js";
import { makeSourceFile } from "../../src/source/source-file.js";
import { dmac } from "../helpers/cli.js";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";

const MISCOMPILE = `schedule s(chunk: bytes = 1KiB) {
  buffer a: chunk
  copy a@0 -> a@1, a@2, a@3, a@99
  ensure a@3 == a@0
}
`;

function sources(): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".dmac")) out.push({ name: p, text: readFileSync(p, "utf8") });
    }
  };
  walk("examples");
  walk("test/golden/cases");
  return out;
}

describe("a copy with more than two destinations", () => {
  it("is rejected by check (DMAC2023) and never simulated as verified", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dmac-mc-"));
    const f = join(dir, "mc.dmac");
    writeFileSync(f, MISCOMPILE);
    const check = await dmac("check", f, "--format", "concise");
    expect(check.code).toBe(1);
    expect(check.err).toContain("DMAC2023");
    const sim = await dmac("sim", f);
    expect(sim.code).toBe(1);
    expect(sim.out).not.toMatch(/verified/);
  });
});

describe("ir-faithful: every IR op matches its source statement", () => {
  it("holds for every example and golden case that instantiates", () => {
    let modules = 0;
    for (const { name, text } of sources()) {
      const file = makeSourceFile(name, text);
      const { program } = parseSource(file);
      for (const m of analyzeSource(file, { defines: {} }).modules) {
        modules++;
        expect(irFaithfulness(program, m), name).toEqual([]);
      }
    }
    expect(modules).toBeGreaterThan(20);
  });

  it("can fail: a broadcast whose second destination was dropped is caught", () => {
    const text = "schedule s() {\n  buffer a: 1KiB\n  copy a@0 -> a@1, a@2\n}\n";
    const file = makeSourceFile("b.dmac", text);
    const m = analyzeSource(file, { defines: {} }).modules[0]!;
    m.ops.kind[0] = OP_KINDS.copy.code; // what the instantiator did to a@3 and a@99
    expect(irFaithfulness(parseSource(file).program, m)[0]).toMatch(
      /is a copy but .* 2 destinations/,
    );
    m.ops.kind[0] = OP_KINDS.bcast.code;
    m.ops.dst2Rank[0] = 99; // a destination that was never range-checked
    expect(irFaithfulness(parseSource(file).program, m)[0]).toMatch(/dst2 is not a region/);
  });
});
