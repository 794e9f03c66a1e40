// Prediction error of the held-out call: predictions.tsv (written before the call) against the
// measured medians (the median of the repetitions' medians), per run and summarised.
//   node bench/hardware/2026-11-27-h200x4/error.mjs [DIR [PREDICTIONS]]   (defaults: heldout/, predictions.tsv)
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const dir = process.argv[2] ?? join(here, "heldout");
const predicted = new Map();
for (const line of readFileSync(join(here, process.argv[3] ?? "predictions.tsv"), "utf8").split(
  "\n",
)) {
  const [ex, v, size, us] = line.split("\t");
  if (line.startsWith("#") || !us) continue;
  predicted.set(`${ex}/${v}/${size}`, Number(us));
}
const measured = new Map();
for (const rep of readdirSync(dir).filter((d) => /^rep\d+$/.test(d)))
  for (const r of JSON.parse(readFileSync(join(dir, rep, "results.json"), "utf8")).runs) {
    if (!r.verified) throw new Error(`${r.label} did not verify`);
    (measured.get(r.label) ?? measured.set(r.label, []).get(r.label)).push(r.medianUs);
  }
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const errors = [];
for (const [label, reps] of measured) {
  const p = predicted.get(label);
  if (p === undefined) continue;
  const m = median(reps);
  const e = (p - m) / m;
  errors.push({ label, m, p, e });
}
errors.sort((a, b) => Math.abs(b.e) - Math.abs(a.e));
const abs = errors.map((x) => Math.abs(x.e));
const pct = (x) => `${(x * 100).toFixed(1)} %`;
console.log(`${errors.length} runs: median |error| ${pct(median(abs))}, max ${pct(abs[0] ?? 0)}`);
for (const size of [...new Set(errors.map((x) => x.label.split("/")[2]))].sort((a, b) => a - b)) {
  const s = errors.filter((x) => x.label.endsWith(`/${size}`)).map((x) => Math.abs(x.e));
  console.log(
    `  ${size} B/rank: median ${pct(median(s))}, max ${pct(Math.max(...s))} (${s.length} runs)`,
  );
}
console.log("largest (signed: + predicted slower than measured):");
for (const x of errors.slice(0, 12))
  console.log(
    `  ${x.label.padEnd(40)} measured ${x.m.toFixed(1)} predicted ${x.p.toFixed(1)} ${pct(x.e)}`,
  );
