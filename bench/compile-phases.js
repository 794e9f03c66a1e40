// The `dmac compile -O0` path in one process, phase by phase: read + compileToQueues (parse ..
// lowering), buildOutputs (layout, emission, manifest, listing), writeOutputDir; with and
// without dump.txt (the listing is part of the output contract; this only shows what it costs).
// Prints one JSON line on stdout:
//   {"dump": bool, "phases": {name: {wallMs, cpuMs}}, "wallMs", "cpuMs", "maxRssKiB", "bytes"}
//   node bench/compile-phases.js FILE OUTDIR [--no-dump]
import { readFileSync, rmSync } from "node:fs";
import { dirname } from "node:path";

const [file, outDir] = process.argv.slice(2);
const dump = !process.argv.includes("--no-dump");
const dist = (p) => import(new URL(`../dist/${p}`, import.meta.url).href);
const { compileToQueues, buildOutputs } = await dist("backend/compile-pipeline.js");
const { writeOutputDir } = await dist("backend/output.js");
const { makeSourceFile } = await dist("source/source-file.js");

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const phases = {};
let t = performance.now();
let c = cpu();
const lap = (name) => {
  const t1 = performance.now();
  const c1 = cpu();
  phases[name] = { wallMs: Math.round(t1 - t), cpuMs: Math.round(c1 - c) };
  t = t1;
  c = c1;
};
const start = { t, c };
const src = makeSourceFile(file, readFileSync(file, "utf8"));
const q = compileToQueues(src, { baseDir: dirname(file) });
if (!q.compiled) throw new Error(q.diagnostics.map((d) => d.message).join("\n"));
lap("parse..lower");
const out = buildOutputs(src, q.compiled, { emit: ["sdma"], dump });
if (!out.files) throw new Error(out.diagnostics.map((d) => d.message).join("\n"));
lap("layout+emit+manifest+listing");
writeOutputDir(outDir, out.files);
lap("write");
const bytes = out.files.reduce(
  (a, f) => a + (typeof f.data === "string" ? f.data.length : f.data.length),
  0,
);
rmSync(outDir, { recursive: true, force: true });
process.stdout.write(
  JSON.stringify({
    dump,
    phases,
    wallMs: Math.round(t - start.t),
    cpuMs: Math.round(c - start.c),
    maxRssKiB: process.resourceUsage().maxRSS,
    bytes,
  }) + "\n",
);
