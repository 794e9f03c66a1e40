// The library API (src/index.ts) beyond the documented examples: user errors come back as
// diagnostics (never exceptions), the options mean what the CLI's do, and the failure shapes.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  check,
  compile,
  doublings,
  explain,
  format,
  formatDiagnostics,
  loadTarget,
  simulate,
  sweep,
  validateDocument,
} from "../../../src/index.js";
import { example } from "../../helpers/cli.js";

const pcpy = readFileSync(example("all_gather_pcpy.dmac"), "utf8");
const codes = (ds: readonly { code: string }[]): string[] => ds.map((d) => d.code);

describe("the library API", () => {
  it("check: every schedule, or one; defines as -D takes them", () => {
    const r = check(pcpy, { defines: { chunk: "64KiB" } });
    expect(r.ok).toBe(true);
    expect(r.modules.length).toBe(1);
    expect(r.modules[0]!.params.find((p) => p.name === "chunk")?.value).toBe(65536);
    const bad = check(pcpy, { defines: { chunk: 3 } });
    expect(bad.ok).toBe(false);
    expect(codes(bad.diagnostics)).toEqual(["DMAC2010"]);
    // An own key, not the prototype: unknown parameter, as with `-D __proto__=1`.
    expect(codes(check(pcpy, { defines: JSON.parse('{"__proto__": "1"}') }).diagnostics)).toEqual([
      "DMAC2009",
    ]);
  });

  it("compile: failures are diagnostics, with the phases' results so far", () => {
    expect(codes(compile(pcpy, { target: "mi250" }).diagnostics)).toEqual(["DMAC2006"]);
    expect(codes(compile(pcpy, { engines: "sideways" }).diagnostics)).toEqual(["DMAC5004"]);
    const r = compile("schedule s() { buffer b: 64\n copy b@0[0 +: 8] -> b@9[0 +: 8] }\n");
    expect(r.ok).toBe(false);
    expect(r.manifest).toBeUndefined();
    expect(r.diagnostics.some((d) => d.severity === "error")).toBe(true);
  });

  it("compile: emit, levels and the files dmac compile -o writes", () => {
    const sdma = compile(pcpy, { emit: ["sdma"], opt: 2 });
    if (!sdma.ok) throw new Error("does not compile");
    expect(sdma.trace).toBeUndefined();
    expect(sdma.optimised?.plan).toBeDefined();
    expect(sdma.files.map((f) => f.name)).not.toContain("dump.txt");
    const listed = compile(pcpy, { emit: ["sdma", "dump"] });
    expect(listed.ok && listed.files.map((f) => f.name)).toContain("dump.txt");
    const trace = compile(pcpy, { emit: ["trace"], target: loadTarget("mi300x") });
    expect(trace.ok && trace.manifest === undefined && trace.trace !== undefined).toBe(true);
  });

  it("simulate: manifest or trace, the same verdict; what it needs", () => {
    const c = compile(pcpy, { opt: 1 });
    const m = simulate(c);
    const t = simulate(c, { useTrace: true });
    expect([m.verified, t.verified]).toEqual([true, true]);
    expect(m.totalUs).toBeGreaterThan(0);
    if (!c.ok) throw new Error("does not compile");
    const unchecked = simulate({ manifest: c.manifest, streams: c.streams });
    expect([unchecked.verified, unchecked.postcondition]).toEqual([false, "unchecked"]);
    expect(codes(simulate({ manifest: c.manifest }).diagnostics)).toEqual(["DMAC5004"]);
    expect(codes(simulate({}).diagnostics)).toEqual(["DMAC5004"]);
    expect(codes(simulate(c, { target: "nope" }).diagnostics)).toEqual(["DMAC2006"]);
  });

  it("sweep: a point per size; a size that does not compile says why", () => {
    expect(doublings(1024, 8192)).toEqual([1024, 2048, 4096, 8192]);
    const r = sweep(pcpy, { param: "chunk", sizes: [1024, 2 ** 40] });
    expect(r.points.map((p) => p.verified)).toEqual([true, false]);
    expect(r.ok).toBe(false);
    expect(r.points[1]!.problem).toMatch(/^DMAC\d{4} /);
  });

  it("explain and loadTarget", () => {
    expect(explain("2004")).toMatch(/DMAC2004/);
    expect(explain("nonsense")).toBeUndefined();
    expect(loadTarget("mi300x").name).toBe("mi300x");
    expect(() => loadTarget("/nonexistent/target.json")).toThrow();
  });

  it("format is dmac fmt; a syntax error comes back as diagnostics with a fix the schema allows", async () => {
    const formatted = await format("target mi300x\nschedule s(){\nbuffer b: 64B\n}\n");
    expect(formatted).toEqual({ ok: true, text: expect.stringContaining("schedule s() {\n") });
    const broken = "schedule s() {\n  buffer b: 64B\n  for r in rank {\n  }\n}\n";
    const failed = await format(broken);
    expect(failed.ok).toBe(false);
    const result = check(broken);
    const json = JSON.parse(formatDiagnostics(result.diagnostics, "json"));
    expect(json.diagnostics[0].fix.replacement).toBe("ranks");
    expect(validateDocument("diagnostics", json)).toEqual([]);
  });
});
