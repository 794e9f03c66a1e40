// `dmac sim` of one input through its session (src/sim/session/session.ts): a .dmac compiled in
// memory and run, its output directory read and run with the same verdict, and each phase's
// early end (an input that cannot be found, optimiser options for a compiled input, a document
// that is neither a manifest nor a trace) as diagnostics with no result.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compileForSim } from "../../../../src/driver/compile-for-sim.js";
import { runSimSession, type SessionRequest } from "../../../../src/sim/session/session.js";
import { dmac, example } from "../../../helpers/cli.js";

const tmp = mkdtempSync(join(tmpdir(), "dmac-session-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const request = (path: string, more: Partial<SessionRequest> = {}): SessionRequest => ({
  path,
  defines: {},
  compile: compileForSim,
  run: {},
  ...more,
});

const codes = (r: { diagnostics: readonly { code: string }[] }): string[] =>
  r.diagnostics.map((d) => d.code);

describe("runSimSession", () => {
  it("a .dmac and its compiled output directory: both verified, the same time", async () => {
    const src = example("all_gather_pcpy.dmac");
    const fromSource = runSimSession(request(src));
    expect(fromSource.result?.verified).toBe(true);
    expect(fromSource.module).toBeDefined();
    const dir = join(tmp, "out");
    expect((await dmac("compile", src, "-o", dir)).code).toBe(0);
    const fromDir = runSimSession(request(dir));
    expect(fromDir.result?.verified).toBe(true);
    expect(fromDir.result?.stats.totalUs).toBe(fromSource.result?.stats.totalUs);
    expect(fromDir.reads?.length).toBeGreaterThan(0);
  });

  it("--no-verify: run without the IR, and not failed for it", () => {
    const r = runSimSession(request(example("all_gather_pcpy.dmac"), { verify: false }));
    expect(r.result?.postcondition).toBe("unchecked");
    expect(r.module).toBeUndefined();
    expect(codes(r)).not.toContain("DMAC6020");
  });

  it("ends early with diagnostics and no result", async () => {
    expect(codes(runSimSession(request(join(tmp, "missing"))))).toEqual(["DMAC5001"]);
    const dir = join(tmp, "out2");
    expect((await dmac("compile", example("all_gather_pcpy.dmac"), "-o", dir)).code).toBe(0);
    const optimised = runSimSession(request(dir, { optimiserGiven: true }));
    expect(optimised.result).toBeUndefined();
    expect(codes(optimised)).toEqual(["DMAC5004"]);
    const other = join(tmp, "other.json");
    writeFileSync(other, '{"kind": "something else"}');
    expect(codes(runSimSession(request(other)))).toEqual(["DMAC5004"]);
  });
});
