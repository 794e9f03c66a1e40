// Issue 32, the copy engine among several streams of one GPU: every pcpy and pcpy+pl run of the
// 4x H100 and 4x H200 calls (fit-run/ and heldout/) against the fixed stream order (the target
// with engineOrderRuns 0), the median over drawn orders (targets/*.json as they are) and the
// rotated order on one stream (b2b-rot, the same prelaunch): the two bounds. docs/model.md, "Fabric".
//   npm run build && node bench/hardware/2026-11-28-h100x4/streams.mjs
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const root = new URL("../../../", import.meta.url).pathname;
const load = (p) => import(pathToFileURL(`${root}dist/${p}`).href);
const { parseVariants, median } = await load("backend/cuda/measure.js");
const { compileRun } = await load("driver/measured-run.js");
const { timeCuda } = await load("sim/cuda-time.js");
const { cudaOf } = await load("target/cuda-target.js");
const { parseTarget } = await load("target/target.js");
const { makeSourceFile } = await load("source/source-file.js");

const H = `${root}bench/hardware/2026-11-27-h200x4`;
const V = `${H}/variants.tsv`;
const variants = parseVariants(makeSourceFile(V, readFileSync(V, "utf8"))).variants;
const sources = new Map();

/** targets/NAME.json with `gpus` 4; `fixed`: without the order draws. */
function target(name, fixed) {
  const json = JSON.parse(readFileSync(`${root}targets/${name}.json`, "utf8"));
  json.gpus = 4;
  if (fixed) delete json.timing.engineOrderRuns;
  return parseTarget(json, `${name}x4.json`);
}

function predict(example, variant, bytes, t) {
  const src = `${H}/schedules/${example}.dmac`;
  if (!sources.has(src)) sources.set(src, makeSourceFile(src, readFileSync(src, "utf8")));
  const built = compileRun(sources.get(src), variants.get(`${example}/${variant}`), bytes, t);
  return timeCuda(built.program, cudaOf(t));
}

const machines = [
  ["h100", `${root}bench/hardware/2026-11-28-h100x4`],
  ["h200", H],
];
const pc = (x) => `${(x * 100).toFixed(1)}%`;
/** pcpy+pl's iterations at >= 64 MiB per rank, in copy-times c = (fixed - rotated) / 3, by half c. */
const levels = new Map();
console.log("machine\tcall\trun\tmeasured\tfixed order\tmedian over orders\trotated, one stream");
for (const [name, dir] of machines) {
  const fixed = target(name, true);
  const drawn = target(name, false);
  for (const call of ["fit-run/rep1", "heldout/rep1", "heldout/rep2"]) {
    const err = { fixed: [], drawn: [] };
    const doc = JSON.parse(readFileSync(`${dir}/${call}/results.json`, "utf8"));
    for (const r of doc.runs.filter((r) => r.variant === "pcpy" || r.variant === "pcpy+pl")) {
      const f = predict(r.example, r.variant, r.totalBytes, fixed);
      const d = predict(r.example, r.variant, r.totalBytes, drawn);
      const rotVariant = r.variant === "pcpy" ? "b2b-rot" : "b2b-rot+pl";
      const rot = predict(r.example.replace("pcpy", "b2b_rot"), rotVariant, r.totalBytes, fixed);
      if (r.variant === "pcpy+pl" && r.totalBytes >= 64 << 20)
        for (const t of r.timesUs) {
          const c = (Math.round((6 * (t - rot)) / (f - rot)) / 2 + 3).toFixed(1);
          levels.set(c, (levels.get(c) ?? 0) + 1);
        }
      err.fixed.push(Math.abs(f - r.medianUs) / r.medianUs);
      err.drawn.push(Math.abs(d - r.medianUs) / r.medianUs);
      const us = [r.medianUs, f, d, rot].map((x) => x.toFixed(1));
      console.log([name, call, r.label, ...us].join("\t"));
    }
    const sum = (e) => `median ${pc(median(e))}, max ${pc(Math.max(...e))}`;
    console.log(
      `# ${name} ${call}: ${err.fixed.length} runs; fixed order ${sum(err.fixed)}; median over orders ${sum(err.drawn)}`,
    );
  }
}
const n = [...levels.values()].reduce((a, b) => a + b, 0);
const shares = [...levels].sort((a, b) => a[0] - b[0]).map(([c, k]) => `${c}c ${pc(k / n)}`);
console.log(`# pcpy+pl iterations at >= 64 MiB per rank (${n}): ${shares.join(", ")}`);
