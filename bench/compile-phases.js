// The `dmac compile -O0` path in one process, phase by phase: read + compileToQueues (parse ..
// lowering), buildOutputs (layout, emission, manifest, listing), writeOutputDir; without and (with
// --dump) with dump.txt, which `dmac compile` writes on request (--dump / --emit sdma,dump).
// Prints one JSON line on stdout:
//   {"dump": bool, "phases": {name: {wallMs, cpuMs}}, "wallMs", "cpuMs", "maxRssKiB", "bytes"}
//   node bench/compile-phases.js FILE OUTDIR [--dump] [--dist DIR]
// (--no-dump, the default, is accepted for older command lines; --dist: another build's dist/,
// e.g. a worktree of the base commit, to compare before and after in one run.)
import { readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve } from "node:path";
import { pathToFileURL } from "node:url";

// The V8 flags `dmac` runs with (bin/load-bundle.js), so that the phases compile as they do there.
createRequire(import.meta.url)("../bin/load-bundle.js").applyV8Flags();

const [file, outDir] = process.argv.slice(2);
const dump = process.argv.includes("--dump");
const distArg = process.argv.indexOf("--dist");
const distDir =
  distArg > 0
    ? pathToFileURL(resolve(process.argv[distArg + 1]) + "/")
    : new URL("../dist/", import.meta.url);
const dist = (p) => import(new URL(p, distDir).href);
const { compileToQueues } = await dist("driver/compile.js");
const { buildOutputs } = await dist("driver/outputs.js");
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
// `dump` for builds before dump.txt was on request (they ignore the "dump" emit kind).
const out = buildOutputs(src, q.compiled, { emit: dump ? ["sdma", "dump"] : ["sdma"], dump });
if (!out.files) throw new Error(out.diagnostics.map((d) => d.message).join("\n"));
lap("layout+emit+manifest+listing");
// (manifest.json, its sidecar and dump.txt are streamed outputs: formatted as they are written,
// so their formatting counts in "write", and `bytes` counts the streams only.)
writeOutputDir(outDir, out.files);
lap("write");
const bytes = out.files.reduce((a, f) => a + (f.data.length ?? 0), 0);
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
