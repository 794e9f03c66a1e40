// Which variant's program -O2's is (the same commands, stream numbers aside: -O2 may number a
// GPU's one stream 1 where the variant numbers it 0), and how far apart the two measured in
// each call: where they are one program, their difference is the measurement's own spread.
//   node bench/hardware/2026-11-28-o2-table/same-program.mjs PROGRAMS RUN...
// PROGRAMS: the prepared programs (.dev-o2x: runtime/cuda/prepare.sh, README); RUN: run, run2 ...
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const [programs, ...runs] = process.argv.slice(2);
const here = new URL(".", import.meta.url).pathname;
const body = (rel) =>
  readFileSync(join(programs, "programs", rel, "program.txt"), "utf8")
    .split("\n")
    .map((l) => (l.startsWith("stream ") ? l.split(" ").slice(0, 2).join(" ") : l))
    .join("\n");
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const measured = (run) => {
  const m = new Map();
  for (const rep of readdirSync(join(here, run)).filter((d) => /^rep\d+$/.test(d)))
    for (const r of JSON.parse(readFileSync(join(here, run, rep, "results.json"), "utf8")).runs)
      (m.get(r.label) ?? m.set(r.label, []).get(r.label)).push(r.medianUs);
  return m;
};
const tables = runs.map(measured);
const list = readFileSync(join(programs, "programs", "list.tsv"), "utf8")
  .trim()
  .split("\n");
const rows = list.map((l) => l.split("\t"));
for (const [ex, v, size, rel] of rows) {
  if (v !== "O2") continue;
  const twin = rows.find(
    ([e2, v2, s2, r2]) =>
      v2 !== "O2" && s2 === size && e2.slice(0, 10) === ex.slice(0, 10) && body(r2) === body(rel),
  );
  if (!twin) continue;
  const gaps = tables.map((m) => {
    const a = median(m.get(rel)),
      b = median(m.get(twin[3]));
    return `${(((a - b) / b) * 100).toFixed(1)} %`;
  });
  console.log(
    `${ex.slice(0, 10)} ${size.padStart(10)}: -O2 = ${twin[1].padEnd(12)} -O2 against it: ${gaps.join(", ")}`,
  );
}
