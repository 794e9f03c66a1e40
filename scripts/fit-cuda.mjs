// One set of CUDA timing constants fitted on several runner tables at once (GPU counts, host and
// peer copies), each run recompiled for its own table's target and predicted by the executor
// (src/sim/cuda-time.ts) with the shared constants. Fits on every other size of each table (the
// smallest first, as `dmac measure --fit`) and reports each table's error on the sizes held out.
//   npm run build
//   node scripts/fit-cuda.mjs BASE.json RESULTS.json:TARGET.json:VARIANTS.tsv[:EXAMPLES[:all]] ...
// `all`: every size of that table is fitted (a table measured as the fitting half of a run whose
// other half is a table of its own: give that one as HELD=RESULTS:TARGET:VARIANTS[:EXAMPLES]).
// BASE: the target whose constants are the start and whose `fit` ranges bound the search (the
// optional constants get the ranges below). Prints the tables' errors before and after, and the
// fitted values as JSON (the last line).
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

const root = resolve(new URL("..", import.meta.url).pathname);
const load = (p) => import(pathToFileURL(`${root}/dist/${p}`).href);
const { parseVariants, fitSizes, median } = await load("backend/cuda/measure.js");
const { compileRun } = await load("driver/measured-run.js");
const { withValues } = await load("backend/cuda/fit.js");
const { minimise } = await load("util/pattern-search.js");
const { timeCuda } = await load("sim/cuda-time.js");
const { cudaOf } = await load("target/cuda-target.js");
const { loadTargetFile } = await load("target/target.js");
const { makeSourceFile } = await load("source/source-file.js");

/** Bounds of the constants a target file may leave out (and of those it gives no range). */
const EXTRA = {
  hostStreamUs: [0.01, 10],
  hostGpuUs: [0.01, 20],
  peerStartUs: [0.2, 10],
  copyNextUs: [0.01, 10],
  peerNextUs: [0.01, 10],
};

const [basePath, ...specs] = process.argv.slice(2);
if (!basePath || specs.length === 0) {
  console.error(
    "usage: node scripts/fit-cuda.mjs BASE.json RESULTS:TARGET:VARIANTS[:EXAMPLES] ...",
  );
  process.exit(1);
}
const baseTarget = loadTargetFile(basePath);
const base = cudaOf(baseTarget);

function table(spec) {
  const [results, targetPath, variantsPath, ex, all] = spec.split(":");
  const examples = ex || "examples";
  const doc = JSON.parse(readFileSync(results, "utf8"));
  const target = loadTargetFile(targetPath);
  const parsed = parseVariants(makeSourceFile(variantsPath, readFileSync(variantsPath, "utf8")));
  if (parsed.diagnostics.length) throw new Error(parsed.diagnostics[0].message);
  const files = new Map();
  const rows = [];
  for (const run of doc.runs) {
    if (!run.verified || run.hung) continue;
    const words = parsed.variants.get(`${run.example}/${run.variant}`);
    if (!words) throw new Error(`${results}: no variant ${run.example}/${run.variant}`);
    const src = run.example.includes("/")
      ? `${run.example}.dmac`
      : join(examples, `${run.example}.dmac`);
    if (!files.has(src)) files.set(src, makeSourceFile(src, readFileSync(src, "utf8")));
    const built = compileRun(files.get(src), words, run.totalBytes, target);
    if (!built.program) throw new Error(`${src}: ${built.diagnostics[0]?.message}`);
    rows.push({ run, program: built.program, predictedUs: NaN });
  }
  const fit = fitSizes(rows, all === "all" ? "all" : "alternate");
  return { name: results, rows, fit };
}

const tables = specs.map(table);
// Tables only predicted (held out whole), never fitted.
const held = (process.env.HELD ?? "").split(",").filter(Boolean).map(table);
for (const tb of held) tb.fit = new Set();
const timing = baseTarget.timing;
const bounds = [];
for (const name of Object.keys(base.timing)) {
  const range = timing[name]?.fit ?? (EXTRA[name] && { min: EXTRA[name][0], max: EXTRA[name][1] });
  if (!range) continue;
  const value = Math.min(range.max, Math.max(range.min, base.timing[name] || range.min));
  bounds.push({ name, value, min: range.min, max: range.max });
}
// The host link's bandwidths: PCIe Gen5 x16 (as `dmac measure --fit`; peer-only runs leave them).
for (const name of ["h2dGBps", "d2hGBps"])
  bounds.push({ name, value: base.hostLink[name], min: 40, max: 64 });
const nvlink = baseTarget.nvlink;
if (nvlink?.fit) bounds.push({ name: "peerGBps", value: base.peerGBps, ...nvlink.fit });
const names = bounds.map((b) => b.name);

const predict = (p, t) => timeCuda(p, t) ?? NaN;
const err = (r, t) => Math.abs(predict(r.program, t) - r.run.medianUs) / r.run.medianUs;

function report(label, t) {
  for (const tb of [...tables, ...held]) {
    const held = tb.rows.filter((r) => !tb.fit.has(r.run.totalBytes)).map((r) => err(r, t));
    const fit = tb.rows.filter((r) => tb.fit.has(r.run.totalBytes)).map((r) => err(r, t));
    const pc = (x) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "-");
    console.log(
      `${label} ${tb.name}: fitted sizes median ${pc(median(fit))} (max ${pc(Math.max(...fit))}); held out median ${pc(median(held))} (max ${pc(Math.max(...held))}) over ${held.length} runs`,
    );
  }
}

report("before", base);
// Each table weighs the same, whatever its number of runs.
const f = (logx) => {
  const t = withValues(base, names, logx.map(Math.exp));
  let s = 0;
  for (const tb of tables) {
    let e = 0;
    let n = 0;
    for (const r of tb.rows) {
      if (!tb.fit.has(r.run.totalBytes)) continue;
      const p = predict(r.program, t);
      const d = Number.isFinite(p) ? Math.log(p / r.run.medianUs) : 10;
      e += d * d;
      n++;
    }
    s += e / n;
  }
  return s / tables.length;
};
const r = minimise(
  f,
  bounds.map((b) => Math.log(b.value)),
  bounds.map((b) => Math.log(b.min)),
  bounds.map((b) => Math.log(b.max)),
  { maxEvals: Number(process.env.EVALS ?? 3000), minStep: 1e-3 },
);
const values = r.x.map(Math.exp);
const fitted = withValues(base, names, values);
report("after", fitted);
console.log(
  JSON.stringify(Object.fromEntries(names.map((n, i) => [n, Number(values[i].toPrecision(4))]))),
);
