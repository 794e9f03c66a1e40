// Regenerates docs/model-calibration.svg and prints the phase table of docs/model.md from the
// shipped target: the executor's single GPU0 -> GPU1 copy (src/sim/calibrate.ts) beside the
// phase shares of reference/mi300x-node.md section 4. Run after `npm run build`:
//   node scripts/model-calibration.mjs
import { writeFileSync } from "node:fs";
import { MEASURED, PHASES, predictBreakdown, maxError } from "../dist/sim/calibrate.js";
import { readMachineModel } from "../dist/sim/model.js";
import { stackedPairs } from "../dist/plot/stacked-bars.js";
import { formatSize } from "../dist/util/format-size.js";
import { builtinTarget } from "../dist/target/target.js";

const model = readMachineModel(builtinTarget("mi300x")).model;
const rows = predictBreakdown(model);
const svg = stackedPairs({
  title: "One GPU0 → GPU1 copy: share of each phase, model (left) and measured (right)",
  xLabel: "copy size",
  yLabel: "share of the copy's time",
  categories: rows.map((r) => formatSize(r.bytes)),
  parts: PHASES.map((name) => ({ name })),
  values: rows.map((r, i) => [
    PHASES.map((p) => r.share[p]),
    PHASES.map((p) => MEASURED[i].share[p]),
  ]),
  barNames: ["model", "measured"],
});
writeFileSync(new URL("../docs/model-calibration.svg", import.meta.url), svg);
console.log("| size | model total | control % model (measured) | schedule % | copy % | sync % |");
console.log("|---|---|---|---|---|---|");
for (const [i, r] of rows.entries()) {
  if (![0, 2, 6, 8, 10, 13, 16].includes(i)) continue;
  const cell = (p) => `${r.share[p].toFixed(1)} (${MEASURED[i].share[p]})`;
  console.log(
    `| ${formatSize(r.bytes)} | ${r.totalUs.toFixed(2)} us | ${PHASES.map(cell).join(" | ")} |`,
  );
}
console.log(`largest error: ${maxError(rows).toFixed(1)} points`);
