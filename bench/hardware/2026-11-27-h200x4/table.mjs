// The 4-GPU comparison table: per collective and size, each dmac variant's median (the median of
// its repetitions' medians), the fastest variant, -O2 against it, and nccl-tests on the SM path
// and the copy-engine path (-R 2 -x 2; the better of out-of-place and in-place, mean of -n
// launches, median over repetitions).
//   node bench/hardware/2026-11-27-h200x4/table.mjs DIR [DIR ...]
// DIR holds rep*/results.json (the runner's) and nccl-{all_gather,alltoall}-{sm,ce}-rep*.txt.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const push = (m, k, v) => (m.has(k) ? m.get(k) : m.set(k, []).get(k)).push(v);

/** (collective, size) -> variant -> [median per repetition]. */
function dmacRuns(dirs) {
  const t = new Map();
  for (const dir of dirs)
    for (const rep of readdirSync(dir).filter((d) => /^rep\d+$/.test(d))) {
      const f = join(dir, rep, "results.json");
      if (!existsSync(f)) continue;
      for (const r of JSON.parse(readFileSync(f, "utf8")).runs) {
        if (!r.verified) throw new Error(`${f}: ${r.label} did not verify`);
        const coll = r.example.startsWith("all_gather") ? "all_gather" : "all_to_all";
        const key = `${coll} ${r.totalBytes}`;
        if (!t.has(key)) t.set(key, new Map());
        push(t.get(key), r.variant, r.medianUs);
      }
    }
  return t;
}

/** (collective, path, size) -> [time per repetition] from nccl-tests' text output. */
function ncclRuns(dirs) {
  const t = new Map();
  for (const dir of dirs)
    for (const f of readdirSync(dir)) {
      const m = /^nccl-(all_gather|alltoall)-(sm|ce)-rep\d+\.txt$/.exec(f);
      if (!m) continue;
      const coll = m[1] === "alltoall" ? "all_to_all" : "all_gather";
      for (const line of readFileSync(join(dir, f), "utf8").split("\n")) {
        const c = line.trim().split(/\s+/);
        if (c.length < 10 || !/^\d+$/.test(c[0])) continue;
        push(t, `${coll} ${m[2]} ${c[0]}`, Math.min(Number(c[5]), Number(c[9])));
      }
    }
  return t;
}

const dirs = process.argv.slice(2);
if (dirs.length === 0) {
  console.error("usage: node table.mjs DIR [DIR ...]");
  process.exit(2);
}
const dmac = dmacRuns(dirs);
const nccl = ncclRuns(dirs);
const f = (x) => (x === undefined ? "-" : x >= 1000 ? x.toFixed(0) : x.toFixed(1));
console.log(
  "| collective | bytes/rank | fastest | -O2 | -O2 vs fastest | NCCL SM | NCCL CE | -O2 vs best NCCL |",
);
console.log("|---|---|---|---|---|---|---|---|");
const keys = [...dmac.keys()].sort((a, b) => {
  const [ca, sa] = a.split(" ");
  const [cb, sb] = b.split(" ");
  return ca.localeCompare(cb) || Number(sa) - Number(sb);
});
for (const key of keys) {
  const [coll, size] = key.split(" ");
  const v = [...dmac.get(key)].map(([name, reps]) => [name, median(reps)]);
  const [bestName, best] = v.reduce((a, b) => (b[1] < a[1] ? b : a));
  const o2 = v.find(([n]) => n === "O2")?.[1];
  const sm = nccl.get(`${coll} sm ${size}`);
  const ce = nccl.get(`${coll} ce ${size}`);
  const bestNccl = Math.min(sm ? median(sm) : Infinity, ce ? median(ce) : Infinity);
  console.log(
    `| ${coll} | ${size} | ${bestName} ${f(best)} | ${f(o2)} | ${o2 === undefined ? "-" : `${(((o2 - best) / best) * 100).toFixed(0)} %`} | ${f(sm && median(sm))} | ${f(ce && median(ce))} | ${o2 === undefined || !Number.isFinite(bestNccl) ? "-" : `${(bestNccl / o2).toFixed(2)}x`} |`,
  );
}
