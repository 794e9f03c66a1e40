// Summarises a V8 .cpuprofile (from `node --cpu-prof`): self time per function and per file,
// so the profile evidence in docs/performance.md can be reproduced with one command:
//   node bench/prof-summary.js PROFILE.cpuprofile [topN]
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
