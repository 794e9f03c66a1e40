// One results file from several repetitions (runner processes) of the same programs: each run's
// medianUs becomes the median of its repetitions' medians (the other fields are the first
// repetition's), so that `dmac measure` judges the table as error.mjs does.
//   node bench/hardware/2026-11-28-machine-fit/merge-reps.mjs OUT.json REP1.json REP2.json ...
import { readFileSync, writeFileSync } from "node:fs";

const [out, ...reps] = process.argv.slice(2);
const files = reps.map((f) => JSON.parse(readFileSync(f, "utf8")));
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const byLabel = new Map();
for (const f of files)
  for (const r of f.runs) byLabel.set(r.label, [...(byLabel.get(r.label) ?? []), r]);
const runs = [...byLabel.values()].map((rs) => ({
  ...rs[0],
  medianUs: median(rs.map((r) => r.medianUs)),
  verified: rs.every((r) => r.verified),
  repetitions: rs.length,
}));
writeFileSync(out, JSON.stringify({ ...files[0], runs }, null, 1) + "\n");
