// The per-part targets as data (targets/*.json): every built-in target loads, cites a source for
// every fact, marks what is unknown, and the loader resolves "unknown" conservatively.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { packetRuleViolations } from "../../../src/backend/sdma/packet-rules.js";
import { readMachineModel } from "../../../src/sim/model.js";
import {
  BUILTIN_TARGETS,
  builtinPath,
  builtinTarget,
  parseTarget,
  TargetError,
} from "../../../src/target/target.js";

const raw = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(builtinPath(name), "utf8")) as Record<string, unknown>;

/** The AMD parts (h100/h200 are CUDA targets with a schema of their own: test/unit/backend/cuda). */
const SDMA_TARGETS = BUILTIN_TARGETS.filter((n) => builtinTarget(n)?.backend === "sdma");

describe("built-in part targets", () => {
  it.each(SDMA_TARGETS)("%s loads and every section cites its source", (name) => {
    const t = builtinTarget(name)!;
    expect(t.backend).toBe("sdma");
    const j = raw(name);
    for (const key of ["part", "engines", "recommendedEngine", "limits", "links"]) {
      const source = (j[key] as { source?: unknown }).source;
      expect(typeof source === "string" && source.length > 20, `${name}.${key}.source`).toBe(true);
    }
    expect(String(j["pollFunctionsSource"]).length).toBeGreaterThan(20);
    const alignment = (j["limits"] as { alignment: { source: string } }).alignment;
    expect(alignment.source.length).toBeGreaterThan(20);
    for (const [k, e] of Object.entries(j["timing"] as Record<string, { source: string }>))
      expect(e.source.length, `${name}.timing.${k}.source`).toBeGreaterThan(20);
    expect(readMachineModel(t).ok).toBe(true);
  });

  it("marks what is unknown and resolves it conservatively", () => {
    expect(builtinTarget("mi300x")!.unknowns).toEqual([]);
    expect(readMachineModel(builtinTarget("mi300x")!)).toMatchObject({ model: { fallbacks: [] } });
    const mi355x = builtinTarget("mi355x")!;
    expect(mi355x.limits.maxCopyBytes).toBe(128 * 2 ** 20);
    expect(mi355x.recommendedEngine.known).toBe(false);
    expect(mi355x.engines).toMatchObject({ count: 2, pcie: [0, 1], xgmi: [], localCopy: 0 });
    expect(mi355x.unknowns.join("\n")).toMatch(/recommendedEngine\.map: unknown/);
    const model = readMachineModel(mi355x);
    if (!model.ok) throw new Error(model.error);
    // Every timing constant, the usable bandwidth and the host link fall back, each named.
    expect(model.model.fallbacks).toHaveLength(17 - 1 + 2);
    expect(model.model.fallbacks).toContain("links.usableGBps = 57.6");
    expect(model.model.fallbacks).toContain("pcie.usableGBps = 54");
    expect(model.model.pcie?.usableGBps).toBe(54);
    expect(model.model.links.usableGBps).toBe(57.6);
    expect(model.model.timing.localCopyGBps).toBe(4000);
    const mi308x = builtinTarget("mi308x")!;
    expect(mi308x.engines.physical).toEqual([0, 2, 4, 6]);
    expect(mi308x.recommendedEngine.known).toBe(false);
    expect(builtinTarget("mi325x")!.recommendedEngine.map).toEqual(
      builtinTarget("mi300x")!.recommendedEngine.map,
    );
  });

  it("an unknown descriptor limit falls back to the 22-bit count", () => {
    const j = raw("mi300x");
    const t = parseTarget(
      { ...j, limits: { ...(j["limits"] as object), maxCopyBytes: "unknown" } },
      "x.json",
    );
    expect(t.limits.maxCopyBytes).toBe(0x3fffe0);
    expect(t.unknowns).toEqual([
      expect.stringMatching(/^limits\.maxCopyBytes: unknown; .*4194272/),
    ]);
  });

  it("records the alignment rules the encoder enforces", () => {
    // The packet rules are gfx942's (src/backend/sdma/packets.ts); a part with other numbers
    // would need per-target rules, and this test says so.
    for (const name of SDMA_TARGETS) {
      const a = (raw(name)["limits"] as { alignment: Record<string, number> }).alignment;
      const d = a["broadcastDestinations"]!;
      expect(
        packetRuleViolations({
          kind: "copy_broadcast",
          bytes: 64,
          src: 0,
          dst1: 0,
          dst2: d / 2,
        } as never),
      ).toHaveLength(1);
      expect(
        packetRuleViolations({
          kind: "copy_broadcast",
          bytes: 64,
          src: 0,
          dst1: 0,
          dst2: d,
        } as never),
      ).toHaveLength(0);
      expect(
        packetRuleViolations({ kind: "copy_swap", bytes: 64, a: a["swap"]! / 2, b: 0 } as never),
      ).toHaveLength(1);
      expect(
        packetRuleViolations({ kind: "copy_swap", bytes: 64, a: a["swap"]!, b: 0 } as never),
      ).toHaveLength(0);
      expect(
        packetRuleViolations({ kind: "timestamp_get_global", addr: a["timestamp"]! / 2 } as never),
      ).toHaveLength(1);
    }
  });
});

describe("target file checks", () => {
  const base = raw("mi300x");
  const bad = (patch: Record<string, unknown>): string => {
    try {
      parseTarget({ ...base, ...patch }, "t.json");
    } catch (e) {
      if (e instanceof TargetError) return e.message;
      throw e;
    }
    return "accepted";
  };

  it("defaults the backend to sdma and refuses others", () => {
    const { backend: _, ...old } = base;
    expect(parseTarget(old, "old.json").backend).toBe("sdma");
    expect(bad({ backend: "cuda2" })).toMatch(/'backend' must be one of "sdma"/);
    expect(bad({ backend: "toString" })).toMatch(/'backend' must be one of/);
  });

  it("refuses a map that names an engine without hardware", () => {
    const engines = { ...(base["engines"] as object), physical: [0, 1, 2, 4, 6, 8, 10, 12] };
    expect(bad({ engines })).toMatch(/names engine 14, which engines\.physical does not list/);
    const local = { ...(base["engines"] as object), physical: [0, 1], localCopy: 2 };
    expect(bad({ engines: local })).toMatch(/localCopy' must be one of engines\.physical/);
  });

  it("refuses bad pollFunctions", () => {
    expect(bad({ pollFunctions: ["eq", "gte"] })).toMatch(
      /'pollFunctions' must list distinct names/,
    );
    expect(bad({ pollFunctions: ["eq", "eq"] })).toMatch(/'pollFunctions'/);
    expect(parseTarget({ ...base, pollFunctions: ["eq"] }, "t.json").pollFunctions).toEqual(["eq"]);
  });

  it("takes the map as unknown, and an unknown engine count from the ids it names", () => {
    const t = parseTarget(
      {
        ...base,
        engines: { count: "unknown", pcie: [0, 1], xgmi: "unknown", localCopy: 1 },
        recommendedEngine: { map: "unknown" },
      },
      "t.json",
    );
    expect(t.engines.count).toBe(2);
    expect(t.recommendedEngine.map[0]).toEqual(new Array(8).fill(-1));
  });

  it("takes unknown link figures only with a fallback", () => {
    const links = { ...(base["links"] as object), usableGBps: "unknown" };
    const t = parseTarget({ ...base, links }, "t.json");
    expect(readMachineModel(t)).toMatchObject({ ok: false });
    const m = readMachineModel(
      parseTarget({ ...base, links: { ...links, usableGBpsFallback: 40 } }, "t.json"),
    );
    expect(m).toMatchObject({
      ok: true,
      model: { links: { usableGBps: 40 }, fallbacks: ["links.usableGBps = 40"] },
    });
  });
});
