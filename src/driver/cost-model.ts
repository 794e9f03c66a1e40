// The cost model the optimiser predicts with (passes/cost-model.ts): lay the program out, emit
// its hardware-neutral command trace (no packet encoding), and run the executor's simulate() on
// it, which also checks the final state against the reference semantics.

import type { CostModel, CostResult } from "../passes/cost-model.js";
import { simulate } from "../sim/run.js";
import { makeSourceFile } from "../source/source-file.js";
import { DEFAULT_LAYOUT, layoutProgram } from "../backend/sdma/layout.js";
import { emitTrace } from "../backend/trace/trace.js";

export const SIMULATED_COST_MODEL: CostModel = {
  predict(prog, m, req): CostResult {
    const file = req.file ?? makeSourceFile("<plan>", "");
    const laid = layoutProgram(m, prog, file, DEFAULT_LAYOUT);
    if (!laid.layout)
      return { kind: "failed", note: "layout failed", events: 0, eventLimitHit: false };
    const trace = emitTrace(m, prog, laid.layout, req.target.name);
    const maxEvents = req.maxEvents;
    const r = simulate(
      { trace, module: m },
      { target: req.target, signalPeriodUs: req.signalPeriodUs, maxEvents },
    );
    if (r.verified) return { kind: "predicted", timeUs: r.stats.totalUs, events: r.stats.events };
    const d = r.diagnostics.find((x) => x.severity === "error");
    return {
      kind: "failed",
      note: d ? `${d.code} ${d.message}` : "did not verify",
      events: r.stats.events,
      eventLimitHit:
        maxEvents !== undefined &&
        r.stats.events >= maxEvents &&
        r.diagnostics.some((x) => x.code === "DMAC6008"),
    };
  },
};
