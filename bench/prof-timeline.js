// What a thread did over time, from a V8 .cpuprofile (`node --cpu-prof` writes one per thread):
// per time slice, the phases that took it, so that two threads' profiles side by side show which
// waits for which (docs/performance.md, "Where the time goes").
//   node bench/prof-timeline.js PROFILE.cpuprofile [sliceMs=100]
// A sample is charged to the innermost function on its stack that names a phase (PHASES), else
// to its own function when that is V8's ((garbage collector), (idle), (program)), else "other".
import { readFileSync } from "node:fs";

const [, , path, sliceArg] = process.argv;
if (!path) {
  console.error("usage: node bench/prof-timeline.js PROFILE.cpuprofile [sliceMs]");
  process.exit(2);
}
const PHASES = new Set([
  "loadSimInput",
  "readJsonInput",
  "validateManifest",
  "packedFromManifest",
  "createExecState",
  "runEvents",
  "waitForRoom",
  "take",
  "checks",
  "execute",
  "simulate",
  "hash",
  "update",
  "loadBundle",
  "buildSourceModule",
  "serveFrontEnd",
  "runReference",
  "checkMemory",
  "createCheckState",
  "toEnd",
  "replayBatch",
  "checkEnd",
  "finalStateProblems",
  "post",
]);
const prof = JSON.parse(readFileSync(path, "utf8"));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const slice = Number(sliceArg ?? 100) * 1000;
const slices = new Map();
let t = prof.startTime;
for (let i = 0; i < prof.samples.length; i++) {
  t += prof.timeDeltas[i];
  const leaf = byId.get(prof.samples[i]).callFrame.functionName || "(anon)";
  let label = leaf.startsWith("(") && leaf !== "(anon)" ? leaf : "other";
  for (let id = prof.samples[i]; id !== undefined; id = parent.get(id)) {
    const fn = byId.get(id).callFrame.functionName;
    if (PHASES.has(fn)) {
      label = fn;
      break;
    }
  }
  const k = Math.floor((t - prof.startTime) / slice);
  const m = slices.get(k) ?? new Map();
  m.set(label, (m.get(label) ?? 0) + 1);
  slices.set(k, m);
}
for (const [k, m] of [...slices].sort((a, b) => a[0] - b[0])) {
  const all = [...m.values()].reduce((a, c) => a + c, 0);
  const top = [...m].sort((a, b) => b[1] - a[1]).slice(0, 4);
  console.log(
    `${String((k * slice) / 1000).padStart(6)} ms  ${top.map(([f, n]) => `${f} ${Math.round((100 * n) / all)}%`).join(", ")}`,
  );
}
