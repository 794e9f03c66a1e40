// The IR front end phase by phase (issue 13): parse + check, instantiate, infer dependencies
// (with the pipeline's edge limit), verify; each phase's wall and CPU milliseconds, the garbage
// collector's share, the heap used after it, and the peak RSS of the process at the end.
//   node bench/ir-phases.js FILE [--dist DIR] [--max-ops N] [--reps R]   -> one JSON line
// With --reps R the phases run R times and each phase's fastest run is reported (the first runs
// warm up the JIT); peak RSS covers all runs. Uses the built dist/ modules, or --dist DIR (another
// build, to compare before/after in one session).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { PerformanceObserver } from "node:perf_hooks";

const argv = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
const file = argv[0];
const reps = Number(arg("reps", "1"));
const maxOps = Number(arg("max-ops", "4000000"));
const dist = pathToFileURL(
  resolve(arg("dist", new URL("../dist/", import.meta.url).pathname)) + "/",
);
const load = (p) => import(new URL(p, dist).href);

const { checkSource } = await load("check/check-source.js");
const { selectSchedule } = await load("check/select-schedule.js");
const { instantiate } = await load("ir/instantiate.js");
const { inferDepsWithin } = await load("ir/deps.js");
const { verifyModule } = await load("ir/verify.js");
const { makeSourceFile } = await load("source/source-file.js");
const { WORK_PER_OP } = await load("driver/analyze.js");

// GC entries arrive asynchronously (after the synchronous phases): kept, and attributed to the
// phases by their start times at the end.
const gcEntries = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcEntries.push({ start: e.startTime, ms: e.duration });
}).observe({ entryTypes: ["gc"] });

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Runs `f`, returning its value, its wall and CPU milliseconds and its time window. */
function timed(f) {
  const w0 = performance.now();
  const c0 = cpu();
  const value = f();
  const w1 = performance.now();
  return {
    value,
    from: w0,
    to: w1,
    wallMs: w1 - w0,
    cpuMs: cpu() - c0,
    heapMiB: process.memoryUsage().heapUsed / 2 ** 20,
  };
}

function runOnce() {
  const text = readFileSync(file, "utf8");
  const src = makeSourceFile(file, text);
  const check = timed(() => {
    const checked = checkSource(src, { defines: {} });
    const s = selectSchedule(checked.schedules, undefined).schedule;
    if (!s) throw new Error(checked.diagnostics.map((d) => d.message).join("\n"));
    return s;
  });
  const inst = timed(() => instantiate(check.value, { maxOps }));
  const m = inst.value.module;
  if (!m) throw new Error(inst.value.diagnostics.map((d) => d.message).join("\n"));
  const deps = timed(() => inferDepsWithin(m, WORK_PER_OP * maxOps));
  if ("over" in deps.value) throw new Error(`edge limit at op ${deps.value.over}`);
  const mod = deps.value.module;
  const verify = timed(() => verifyModule(mod, src, { maxPieces: WORK_PER_OP * maxOps }));
  const errors = verify.value.filter((d) => d.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((d) => d.message).join("\n"));
  return {
    ops: m.ops.count,
    edges: mod.edges.predIdx.length,
    phases: { check, instantiate: inst, deps, verify },
  };
}

const best = {};
let last;
for (let r = 0; r < reps; r++) {
  last = runOnce();
  for (const [name, p] of Object.entries(last.phases)) {
    if (best[name] === undefined || p.wallMs < best[name].wallMs) best[name] = p;
  }
}
await new Promise((resolve) => setTimeout(resolve, 50));
const gcIn = (p) =>
  gcEntries.filter((e) => e.start >= p.from && e.start < p.to).reduce((a, e) => a + e.ms, 0);
const round = (p) => ({
  wallMs: Math.round(p.wallMs),
  cpuMs: Math.round(p.cpuMs),
  gcMs: Math.round(gcIn(p)),
  heapMiB: Math.round(p.heapMiB),
});
const phases = Object.fromEntries(Object.entries(best).map(([k, p]) => [k, round(p)]));
const sum = (key) => ["instantiate", "deps", "verify"].reduce((a, k) => a + phases[k][key], 0);
process.stdout.write(
  JSON.stringify({
    file,
    ops: last.ops,
    edges: last.edges,
    phases,
    instDepsVerify: { wallMs: sum("wallMs"), cpuMs: sum("cpuMs"), gcMs: sum("gcMs") },
    maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
  }) + "\n",
);
