// Predicted vs measured speedups of the DMA-Latte all-gather variants for ANY build of dmac,
// including ones from before `dmac calibrate` existed (the "before" row of docs/model.md,
// Calibration). For the current build, `dmac calibrate bench/calibration/mi300x-allgather.csv
// --no-fit` says the same per row.
//   git worktree add /tmp/old a846f3c && (cd /tmp/old && npm ci && npm run build)
//   DMAC=/tmp/old node scripts/variant-error.mjs
// DMAC: the checkout whose dist/, examples/ and targets/mi300x.json are used (default: this one).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const root = resolve(process.env.DMAC ?? new URL("..", import.meta.url).pathname);
const load = (p) => import(pathToFileURL(`${root}/dist/${p}`).href);
const { compileForSim } = await load("driver/compile-for-sim.js");
const { parseOptOptions } = await load("options/opt-options.js");
const { simulate } = await load("sim/run.js");
const { builtinTarget } = await load("target/target.js");
const csvPath = new URL("../../shared/reference/mi300x-allgather-variants.csv", import.meta.url);
const lines = readFileSync(csvPath, "utf8")
  .split("\n")
  .filter((l) => l && !l.startsWith("#"));
const cols = lines[0].split(",");
const target = builtinTarget("mi300x");
// The DMA-Latte variants: file, optimiser options, parameters (b2b on DMA-Latte's engine 8).
const V = {
  pcpy: ["all_gather_pcpy.dmac", { opt: "0" }, {}],
  pcpy_pl: ["all_gather_pcpy.dmac", { opt: "0", prelaunch: true }, {}],
  bcst: ["all_gather_bcst.dmac", { opt: "0" }, {}],
  bcst_pl: ["all_gather_bcst.dmac", { opt: "0", prelaunch: true }, {}],
  b2b: ["all_gather_b2b.dmac", { opt: "1", completion: "per-queue" }, { engine: "8" }],
  b2b_pl: [
    "all_gather_b2b.dmac",
    { opt: "1", completion: "per-queue", prelaunch: true },
    { engine: "8" },
  ],
};
function time(v, chunk) {
  const [file, opt, defines] = V[v];
  const path = `${root}/examples/${file}`;
  const o = parseOptOptions(opt, target);
  const c = compileForSim(
    path,
    readFileSync(path, "utf8"),
    { ...defines, chunk: `${chunk}B` },
    {
      passes: o.passes,
      completion: o.protocol,
    },
  );
  if (!c.loaded) throw new Error(`${v}: ${c.diagnostics.map((d) => d.message).join("; ")}`);
  const r = simulate(c.loaded.input, { target });
  if (!r.verified) throw new Error(`${v} at chunk ${chunk} did not verify`);
  return r.stats.totalUs;
}
const errs = [];
const small = [];
let best = 0;
for (const row of lines.slice(1).map((l) => l.split(","))) {
  const total = Number(row[1]);
  const base = time("pcpy", total / 8);
  const pred = { pcpy: 1 };
  const meas = { pcpy: 1 };
  for (let c = 2; c < cols.length; c++) {
    pred[cols[c]] = base / time(cols[c], total / 8);
    meas[cols[c]] = Number(row[c]);
    const e = Math.abs(pred[cols[c]] / meas[cols[c]] - 1);
    errs.push(e);
    if (total <= 131072) small.push(e);
  }
  const top = (o) => Object.entries(o).sort((a, b) => b[1] - a[1])[0][0];
  if (top(pred) === top(meas)) best++;
  console.log(
    `${String(total).padStart(10)}  ${cols
      .slice(2)
      .map((v) => `${v} ${pred[v].toFixed(2)}/${meas[v].toFixed(2)}`)
      .join("  ")}`,
  );
}
const pct = (xs, q) =>
  ((xs.sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))] ?? 0) * 100).toFixed(1);
console.log(
  `median ${pct(errs, 0.5)} %, max ${pct(errs, 1)} %, median at <= 128 KiB ${pct(small, 0.5)} %, best variant predicted best at ${best} of ${lines.length - 1} sizes`,
);
