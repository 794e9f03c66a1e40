import { describe, expect, it } from "vitest";
import {
  MEASURED,
  PHASES,
  fitPhaseCosts,
  maxError,
  modelPhaseCosts,
  predictBreakdown,
} from "../../../src/sim/calibrate.js";
import { readMachineModel, withTiming } from "../../../src/sim/model.js";
import { builtinTarget } from "../../../src/target/target.js";
import { model } from "./node.js";

describe("calibration against mi300x-node.md section 4", () => {
  const rows = predictBreakdown(model);

  it("reproduces every phase share at every size within 5 percentage points", () => {
    expect(rows.map((r) => r.bytes)).toEqual(MEASURED.map((m) => m.bytes));
    for (const row of rows)
      for (const ph of PHASES)
        expect(Math.abs(row.error[ph]), `${ph} at ${row.bytes} B`).toBeLessThanOrEqual(5);
    for (const row of rows)
      expect(PHASES.reduce((a, ph) => a + row.share[ph], 0)).toBeCloseTo(100, 6);
  });

  it("fails the same test when a constant is far off (the test can fail)", () => {
    const slow = withTiming(model, { doorbellLatencyUs: 6 });
    expect(maxError(predictBreakdown(slow))).toBeGreaterThan(5);
  });

  it("the single-copy fit alone stays close to the shipped target's phase costs", () => {
    // The shipped constants come from the joint calibration (bench/calibration: the variant
    // table and these shares together, docs/model.md); the phase-only fit is the check that the
    // two sources of data do not pull apart: each phase within 0.3 us of what the shares alone say.
    const fit = fitPhaseCosts(48);
    expect(fit.maxErrorPp).toBeLessThan(4);
    const shipped = modelPhaseCosts(model);
    expect(Math.abs(fit.controlUs - shipped.controlUs)).toBeLessThan(0.3);
    expect(Math.abs(fit.scheduleUs - shipped.scheduleUs)).toBeLessThan(0.3);
    expect(Math.abs(fit.copyFixedUs - shipped.copyFixedUs)).toBeLessThan(0.3);
    expect(Math.abs(fit.syncUs - shipped.syncUs)).toBeLessThan(0.3);
  });

  it("the target's timing section validates and every constant has a source", () => {
    const r = readMachineModel(builtinTarget("mi300x")!);
    expect(r.ok).toBe(true);
    if (r.ok) for (const s of Object.values(r.model.sources)) expect(s.length).toBeGreaterThan(10);
    const broken = {
      ...builtinTarget("mi300x")!,
      timing: { hostPacketUs: { value: 1, source: "x" } },
    };
    const bad = readMachineModel(broken);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toContain("timing.hostDoorbellUs");
  });
});
