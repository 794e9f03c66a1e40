#!/usr/bin/env node
// Calibrates the -O2 plan search's work units (src/passes/plan.ts PlanBudget): for a few programs,
// the wall time of a prediction's set-up (layout and command trace, as driver/cost-model.ts makes
// them) per command, and of the rest of the prediction (the executor) per event. The
// ratio is SETUP_WORK_PER_COMMAND; events per ms turns PLAN_BUDGET_WORK into seconds on the
// machine at hand. Wall-clock readings are the point here: nothing dmac outputs depends on them.
//
//   npm run build && node scripts/plan-work.mjs

import { SIMULATED_COST_MODEL } from "../dist/driver/cost-model.js";
import { DEFAULT_LAYOUT, layoutProgram } from "../dist/backend/sdma/layout.js";
import { emitTrace } from "../dist/backend/trace/trace.js";
import { compileToQueues } from "../dist/driver/compile.js";
import { commandCount } from "../dist/queues/queue-program.js";
import { makeSourceFile } from "../dist/source/source-file.js";
import { allToAll, forwardProgram } from "../bench/gen.js";

const cases = [
  ["allToAll(256)", allToAll(256)],
  ["allToAll(1024)", allToAll(1024)],
  ["forwardProgram(10000)", forwardProgram(10_000)],
  ["forwardProgram(50000)", forwardProgram(50_000)],
];

/** Median wall time (ms) of f over n runs after one warm-up. */
function timeMs(f, n = 5) {
  f();
  const ts = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    f();
    ts.push(performance.now() - t0);
  }
  return ts.sort((a, b) => a - b)[n >> 1];
}

for (const [name, text] of cases) {
  const q = compileToQueues(makeSourceFile(name, text), {});
  const { program, module, target } = q.compiled;
  const file = makeSourceFile("<plan>", "");
  const setupMs = timeMs(() =>
    emitTrace(
      module,
      program,
      layoutProgram(module, program, file, DEFAULT_LAYOUT).layout,
      target.name,
    ),
  );
  const predict = () => SIMULATED_COST_MODEL.predict(program, module, { target });
  const full = predict();
  const allMs = timeMs(predict);
  const commands = commandCount(program);
  const usPerCommand = (setupMs * 1000) / commands;
  const usPerEvent = ((allMs - setupMs) * 1000) / full.events;
  console.log(
    `${name}: ${commands} commands, ${full.events} events; set-up ${usPerCommand.toFixed(2)} us/command, ` +
      `events ${usPerEvent.toFixed(3)} us/event: one command's set-up = ${(usPerCommand / usPerEvent).toFixed(1)} events; ` +
      `${((full.events + commands * (usPerCommand / usPerEvent)) / allMs).toFixed(0)} work/ms`,
  );
}
