// Prediction error split by how a program starts: prelaunched (`+pl`, and -O2, which prelaunches
// on CUDA targets) against host-submitted (the host enqueues every copy after the clock starts).
// Each configuration's measured time is the median of its repetitions' medians, as in error.mjs.
//   node bench/hardware/2026-11-28-machine-fit/by-kind.mjs NAME=DIR:PREDICTIONS.tsv[,MORE.tsv] ...
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
function predictions(files) {
  const p = new Map();
  for (const f of files)
    for (const line of readFileSync(f, "utf8").split("\n")) {
      const [ex, v, size, us] = line.split("\t");
      if (!line.startsWith("#") && us) p.set(`${ex}/${v}/${size}`, Number(us));
    }
  return p;
}
function measured(dir) {
  const m = new Map();
  for (const rep of readdirSync(dir).filter((d) => /^rep\d+$/.test(d)))
    for (const r of JSON.parse(readFileSync(join(dir, rep, "results.json"), "utf8")).runs)
      m.set(r.label, [...(m.get(r.label) ?? []), r.medianUs]);
  return new Map([...m].map(([label, reps]) => [label, median(reps)]));
}
const pct = (x) => `${(100 * x).toFixed(1)} %`;
for (const arg of process.argv.slice(2)) {
  const [name, rest] = arg.split("=");
  const [dir, preds] = rest.split(":");
  const p = predictions(preds.split(","));
  const kinds = { prelaunched: [], "host-submitted": [] };
  for (const [label, us] of measured(dir)) {
    const variant = label.split("/")[1];
    const kind = variant.endsWith("+pl") || variant === "O2" ? "prelaunched" : "host-submitted";
    kinds[kind].push({ label, err: Math.abs(p.get(label) - us) / us });
  }
  const cells = Object.entries(kinds).map(([kind, rows]) => {
    const worst = rows.reduce((a, b) => (b.err > a.err ? b : a));
    return `${kind} ${rows.length}: median ${pct(median(rows.map((r) => r.err)))}, max ${pct(worst.err)} (${worst.label})`;
  });
  console.log(`${name}: ${cells.join("; ")}`);
}
