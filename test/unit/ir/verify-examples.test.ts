// The examples verify at their defaults and at other sizes; deliberately broken variants fail
// with messages that point at the culprit. Runs the real front end and instantiation.
import { describe, it, expect } from "vitest";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { checkSource } from "../../../src/check/check-source.js";
import { instantiate, DEFAULT_MAX_OPS } from "../../../src/ir/instantiate.js";
import { inferDeps } from "../../../src/ir/deps.js";
import { verifyModule } from "../../../src/ir/verify.js";
import type { Diagnostic } from "../../../src/diagnostics/diagnostic.js";

const EXAMPLES = join(import.meta.dirname, "../../../examples");

function run(name: string, text: string, defines: Record<string, string> = {}): Diagnostic[] {
  const file = makeSourceFile(name, text);
  const checked = checkSource(file, { defines });
  const errors = checked.diagnostics.filter((d) => d.severity === "error");
  if (errors.length > 0) return errors;
  const inst = instantiate(checked.schedules[0]!, { maxOps: DEFAULT_MAX_OPS });
  if (inst.module === undefined) return inst.diagnostics;
  return verifyModule(inferDeps(inst.module), file);
}

const example = (name: string) => readFileSync(join(EXAMPLES, name), "utf8");

describe("examples verify", () => {
  const files = readdirSync(EXAMPLES).filter((f) => f.endsWith(".dmac"));
  for (const f of files) {
    it(`${f} at its defaults and at other sizes`, () => {
      const text = example(f);
      expect(run(f, text)).toEqual([]);
      const sizeParam = /\((\w+): bytes/.exec(text)?.[1];
      if (sizeParam !== undefined) {
        expect(run(f, text, { [sizeParam]: "4KiB" })).toEqual([]);
        expect(run(f, text, { [sizeParam]: "2MiB" })).toEqual([]);
      }
    });
  }
});

describe("broken examples fail verification at the culprit", () => {
  it("all_gather_pcpy with a wrong offset", () => {
    const text = example("all_gather_pcpy.dmac").replace(
      "-> buf@p[r * chunk +: chunk]",
      "-> buf@p[(r + 1) % ranks * chunk +: chunk]",
    );
    const d = run("ag.dmac", text);
    expect(d.map((x) => x.code)).toEqual(["DMAC3020"]);
    // Rank r's chunk lands in slot r + 1: slot 1 of rank 0 is never written, and the others
    // hold chunks that had already been overwritten in their source rank.
    expect(d[0]!.message).toBe(
      "schedule does not implement all_gather_inplace(buf): " +
        "likely cause: bytes from another rank and offset (an index with the wrong loop variable or expression?) (43 of 57 wrong ranges). " +
        "buf@0[8192 +: 8192] holds its own initial bytes (never written) but should hold buf@1[8192 +: 8192] (initial); " +
        "buf@0[16384 +: 8192] holds buf@0[0 +: 8192] (initial) (written by copy at 14:5 when r = 1, k = 7) " +
        "but should hold buf@2[16384 +: 8192] (initial); " +
        "buf@0[24576 +: 8192] holds buf@0[0 +: 8192] (initial) (written by copy at 14:5 when r = 2, k = 6) " +
        "but should hold buf@3[24576 +: 8192] (initial); (54 more)",
    );
    expect(d[0]!.related.map((r) => r.message)).toEqual([
      "buf@0[16384 +: 8192] last written by this copy when r = 1, k = 7",
      "buf@0[24576 +: 8192] last written by this copy when r = 2, k = 6",
    ]);
  });

  it("all_to_all_pcpy_local with a missing peer", () => {
    const text = example("all_to_all_pcpy_local.dmac").replace(
      "for r in ranks, k in 0..ranks {",
      "for r in ranks, k in 0..ranks where !(r == 3 && (r + k) % ranks == 5) {",
    );
    const d = run("a2a.dmac", text);
    expect(d.map((x) => x.message)).toEqual([
      "schedule does not implement all_to_all(src, dst): likely cause: ranges never written (a loop that stops short, a `where` that skips too much, or an index with the wrong loop variable that sends the copies elsewhere) (1 of 1 wrong ranges). dst@5[24576 +: 8192] holds its own initial bytes (never written) but should hold src@3[40960 +: 8192] (initial)",
    ]);
  });

  it("all_to_all_swap with a wrong partner", () => {
    const text = example("all_to_all_swap.dmac").replace(
      "swap buf@r[p * chunk +: chunk] <-> buf@p[r * chunk +: chunk] by r",
      "swap buf@r[p * chunk +: chunk] <-> buf@p[(r + 1) % ranks * chunk +: chunk] by r",
    );
    const d = run("sw.dmac", text);
    expect(d.map((x) => x.code)).toEqual(["DMAC3020"]);
    expect(d[0]!.message).toContain("(written by swap at");
    expect(d[0]!.message).toMatch(/more\)$/);
  });
});
