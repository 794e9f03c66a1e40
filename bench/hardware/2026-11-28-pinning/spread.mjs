// The probe's per-process medians (µs) of a few programs, one line per placement, rounds in order.
//   node bench/hardware/2026-11-28-pinning/spread.mjs [RUNS_DIR]   (default: run/runs beside this file)
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const dir = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), "run/runs");
const LABELS = [
  "all_gather_b2b/b2b/4096",
  "all_gather_pcpy/pcpy/4096",
  "all_gather_b2b/b2b+pl/4096",
  "all_gather_b2b/batch/1048576",
  "all_gather_b2b/b2b+pl/1048576",
  "all_gather_b2b_rot/b2b-rot/16777216",
  "all_gather_b2b_rot/b2b-rot+pl/16777216",
];
const us = new Map(); // label -> placement -> [round, µs][]
for (const f of readdirSync(dir)) {
  const m = /^(free|near|far)-(\d+)\.jsonl$/.exec(f);
  if (!m) continue;
  for (const line of readFileSync(join(dir, f), "utf8").split("\n").filter(Boolean)) {
    const r = JSON.parse(line);
    const byMode = us.get(r.label) ?? us.set(r.label, new Map()).get(r.label);
    (byMode.get(m[1]) ?? byMode.set(m[1], []).get(m[1])).push([Number(m[2]), r.medianUs]);
  }
}
for (const label of LABELS) {
  console.log(label);
  for (const mode of ["free", "near", "far"]) {
    const runs = us
      .get(label)
      .get(mode)
      .sort((a, b) => a[0] - b[0]);
    console.log(`  ${mode.padEnd(5)} ${runs.map(([, x]) => x.toFixed(1).padStart(6)).join("")}`);
  }
}
