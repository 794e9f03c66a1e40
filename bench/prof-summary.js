// Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time per function and per file,
// so the profile evidence in docs/performance.md can be reproduced with one command:
//   node bench/prof-summary.js PROFILE.cpuprofile [topN]
// then the time under each function (inclusive, a function counted once per stack), which gives a
// phase's whole cost (`loadSimInput`, `packedFromManifest`, `runEvents`, ...), and the collector's
// time charged to the phase that ran just before each of its samples.
import { readFileSync } from "node:fs";

const [, , path, topArg] = process.argv;
if (!path) {
  console.error("usage: node bench/prof-summary.js PROFILE.cpuprofile [topN]");
  process.exit(2);
}
const top = Number(topArg ?? 25);
const prof = JSON.parse(readFileSync(path, "utf8"));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = prof.timeDeltas;
for (let i = 0; i < prof.samples.length; i++) {
  const id = prof.samples[i];
  self.set(id, (self.get(id) ?? 0) + (dt[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const fnTimes = new Map();
const fileTimes = new Map();
for (const [id, us] of self) {
  const cf = byId.get(id).callFrame;
  const file = (cf.url || "(native)")
    .replace(/^file:\/\//, "")
    .replace(/.*\/(dist|node_modules)\//, "$1/");
  const fn = `${cf.functionName || "(anon)"} ${file}:${cf.lineNumber + 1}`;
  fnTimes.set(fn, (fnTimes.get(fn) ?? 0) + us);
  fileTimes.set(file, (fileTimes.get(file) ?? 0) + us);
}
const show = (title, m) => {
  console.log(`\n${title} (total ${(total / 1000).toFixed(0)} ms)`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(
      `${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`,
    );
};
show("self time by function", fnTimes);
show("self time by file", fileTimes);

// Inclusive time per function name, and the collector's samples charged to the function below
// which the previous sample ran (its innermost frame on the list of the program's phases).
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const inclusive = new Map();
for (const [id, us] of self) {
  const seen = new Set();
  for (let x = id; x !== undefined; x = parent.get(x)) {
    const name = byId.get(x).callFrame.functionName || "(anon)";
    if (seen.has(name)) continue;
    seen.add(name);
    inclusive.set(name, (inclusive.get(name) ?? 0) + us);
  }
}
show("time under function (inclusive)", inclusive);
const PHASES = [
  "readJsonInput",
  "validateManifest",
  "frontEndModule",
  "readInputFile",
  "packedFromManifest",
  "validateManifestInputs",
  "createExecState",
  "runEvents",
  "execute",
  "checkFinalState",
  "compileToQueues",
  "buildOutputs",
];
const phaseOf = (id) => {
  const names = new Set();
  for (let x = id; x !== undefined; x = parent.get(x))
    names.add(byId.get(x).callFrame.functionName);
  return PHASES.find((p) => names.has(p)) ?? "other";
};
const gcAfter = new Map();
let last = "other";
for (let i = 0; i < prof.samples.length; i++) {
  const id = prof.samples[i];
  if (byId.get(id).callFrame.functionName === "(garbage collector)")
    gcAfter.set(last, (gcAfter.get(last) ?? 0) + (dt[i] ?? 0));
  else last = phaseOf(id);
}
show("collector time after each phase", gcAfter);
