// DMAC4030, the incast lint: it fires on the ascending all-gather on 4 GPUs with a fix that,
// applied, compiles, verifies and no longer has incast; it does not fire on the rotated example
// or on 2 GPUs. The model is the test's incast-charging one (test/unit/passes/incast.ts).

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { compileToQueues } from "../../../src/driver/compile.js";
import { incastLint } from "../../../src/backend/incast-lint.js";
import { SIMULATED_COST_MODEL } from "../../../src/driver/cost-model.js";
import { checkSource } from "../../../src/check/check-source.js";
import { formatDmac } from "../../../src/fmt/format.js";
import type { CostModel } from "../../../src/passes/cost-model.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import type { Target } from "../../../src/target/target.js";
import { h200With, INCAST_MODEL } from "../passes/incast.js";

const text = (p: string): string =>
  readFileSync(fileURLToPath(new URL(`../../../${p}`, import.meta.url)), "utf8");

function lint(
  name: string,
  source: string,
  target: Target | undefined,
  defines: Record<string, string>,
  costModel: CostModel = INCAST_MODEL,
) {
  const file = makeSourceFile(name, source);
  const q = compileToQueues(file, { defines, sync: "aggressive", targetOverride: target });
  if (!q.compiled) throw new Error(q.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  const checked = checkSource(file, { defines, targetOverride: target });
  const { module, program } = q.compiled;
  return incastLint({
    file,
    schedule: checked.schedules[0]!.schedule,
    module,
    program,
    target: q.compiled.target,
    lower: { completion: "atomic" },
    costModel,
  });
}

const apply = (
  source: string,
  fix: { span: { start: number; end: number }; replacement: string },
) => source.slice(0, fix.span.start) + fix.replacement + source.slice(fix.span.end);

describe("DMAC4030: several GPUs write one receiver at once", () => {
  const ASC = "bench/calibration/all_gather_b2b.dmac";
  const b2b = { engine: "0", chunk: "64MiB" };

  it("fires on the ascending all-gather on 4 GPUs, at the loop, with a fix", () => {
    const source = text(ASC);
    const ds = lint(ASC, source, h200With(4), b2b);
    expect(ds.map((d) => [d.code, d.severity])).toEqual([["DMAC4030", "warning"]]);
    const d = ds[0]!;
    expect(source.slice(d.span!.start, d.span!.end)).toBe(
      "for r in ranks, p in ranks where p != r {",
    );
    expect(d.message).toMatch(
      /several GPUs write into one receiver at once: predicted .* \(2\.7x faster\)/,
    );
    expect(d.fix!.replacement).toBe("for r in ranks, k in 1..ranks { let p = (r + k) % ranks");
  });

  it("the fix, applied, compiles, verifies in the executor, and has no incast", async () => {
    const source = text(ASC);
    const fixed = apply(source, lint(ASC, source, h200With(4), b2b)[0]!.fix!);
    expect(lint(ASC, fixed, h200With(4), b2b)).toEqual([]);
    // `dmac fmt` gives the `let` a line of its own.
    const formatted = await formatDmac(fixed);
    expect(formatted.ok && formatted.text).toContain(
      "  for r in ranks, k in 1..ranks {\n    let p = (r + k) % ranks\n    copy",
    );
    // On the file's own target (mi300x), the executor verifies the result.
    const file = makeSourceFile(ASC, fixed);
    const q = compileToQueues(file, { defines: {}, sync: "aggressive" });
    expect(q.diagnostics.filter((x) => x.severity === "error")).toEqual([]);
    const r = SIMULATED_COST_MODEL.predict(q.compiled!.program, q.compiled!.module, {
      target: q.compiled!.target,
    });
    expect(r.kind).toBe("predicted");
  });

  it("picks a loop variable the loop does not use", () => {
    const source = text(ASC).replace(/\bchunk\b/g, "k");
    const d = lint(ASC, source, h200With(4), { engine: "0", k: "64MiB" })[0]!;
    expect(d.fix!.replacement).toBe("for r in ranks, k1 in 1..ranks { let p = (r + k1) % ranks");
  });

  it("does not fire on the rotated example", () => {
    const name = "examples/all_gather_b2b.dmac";
    expect(lint(name, text(name), h200With(4), b2b)).toEqual([]);
  });

  it("does not fire on 2 GPUs (one peer each: no receiver has two senders)", () => {
    expect(lint(ASC, text(ASC), h200With(2), b2b)).toEqual([]);
  });

  it("does not fire when the model predicts less than 1.2x", () => {
    const flat: CostModel = { predict: () => ({ kind: "predicted", timeUs: 100, events: 1 }) };
    expect(lint(ASC, text(ASC), h200With(4), b2b, flat)).toEqual([]);
  });

  it("costs no prediction when the work budget cannot pay for one", () => {
    const source = text(ASC);
    const file = makeSourceFile(ASC, source);
    const q = compileToQueues(file, {
      defines: b2b,
      sync: "aggressive",
      targetOverride: h200With(4),
    });
    let calls = 0;
    const counting: CostModel = { predict: (p, m, r) => (calls++, INCAST_MODEL.predict(p, m, r)) };
    const ds = incastLint({
      file,
      schedule: checkSource(file, { defines: b2b, targetOverride: h200With(4) }).schedules[0]!
        .schedule,
      module: q.compiled!.module,
      program: q.compiled!.program,
      target: q.compiled!.target,
      lower: { completion: "atomic" },
      costModel: counting,
      budget: 0,
    });
    expect([ds, calls]).toEqual([[], 0]);
  });
});

describe("DMAC4030 in compile, with the compile's own cost model (the fabric-aware executor)", () => {
  const codes = (path: string, target: Target | undefined, defines: Record<string, string>) => {
    const file = makeSourceFile(path, text(path));
    return compileToQueues(file, { defines, targetOverride: target }).diagnostics.map(
      (d) => d.code,
    );
  };
  const b2b = { engine: "0", chunk: "64MiB" };

  it("fires on the ascending all-gather and all-to-all on 4 H200s", () => {
    expect(codes("bench/calibration/all_gather_b2b.dmac", h200With(4), b2b)).toEqual(["DMAC4030"]);
    expect(codes("bench/calibration/all_to_all_b2b.dmac", h200With(4), b2b)).toEqual(["DMAC4030"]);
  });

  it("not on the rotated examples, on 2 GPUs, or on MI300X", () => {
    expect(codes("examples/all_gather_b2b.dmac", h200With(4), b2b)).toEqual([]);
    expect(codes("examples/all_to_all_b2b.dmac", h200With(4), b2b)).toEqual([]);
    expect(codes("bench/calibration/all_gather_b2b.dmac", h200With(2), b2b)).toEqual([]);
    expect(codes("bench/calibration/all_gather_b2b.dmac", undefined, { chunk: "64MiB" })).toEqual(
      [],
    );
  });
});
