// One benchmark case, run in its own child process by bench/run.js so that its peak resident
// memory (process.resourceUsage().maxRSS at exit) belongs to that case alone.
//   node bench/worker.js '<json spec>'   ->  one JSON line on stdout
// spec: { phase: "check" | "pipeline", source: path, warmup, reps, sim?: boolean,
//         defines?: {name: value} }
// "check" times parse + check of the file; "pipeline" times, per repetition, the phases
//   check (parse + check), front (select + instantiate + infer deps + verify),
//   packets (lower -O0 + layout + SDMA emission) and, with sim, the executor (simulate()).
// Uses the built dist/ modules: what users run.
import { readFileSync } from "node:fs";

const dist = new URL("../dist/", import.meta.url);
const load = (p) => import(new URL(p, dist).href);

const spec = JSON.parse(process.argv[2]);
const { makeSourceFile } = await load("source/source-file.js");
const { checkSource } = await load("check/check-source.js");
const { selectSchedule } = await load("check/select-schedule.js");
const { instantiate, DEFAULT_MAX_OPS } = await load("ir/instantiate.js");
const { inferDeps } = await load("ir/deps.js");
const { verifyModule } = await load("ir/verify.js");
const { lowerToQueues } = await load("queues/lower.js");
const { layoutProgram, DEFAULT_LAYOUT } = await load("backend/sdma/layout.js");
const { emitSdma } = await load("backend/sdma/emit.js");
const { buildManifest } = await load("backend/sdma/manifest.js");

let simulate;
let simNote;
if (spec.sim) {
  try {
    ({ simulate } = await load("sim/run.js"));
  } catch (e) {
    simNote = `executor not loadable: ${String(e?.message ?? e).split("\n")[0]}`;
  }
}

const text = readFileSync(spec.source, "utf8");
const file = makeSourceFile(spec.source, text);
const lines = text.split("\n").length;
const errorsOf = (ds) => ds.filter((d) => d.severity === "error");
const fail = (phase, ds) => {
  throw new Error(`${phase}: ${ds.map((d) => `${d.code} ${d.message}`).join("; ")}`);
};

function once() {
  const t = {};
  let t0 = performance.now();
  const checked = checkSource(file, { defines: spec.defines ?? {} });
  t.check = performance.now() - t0;
  if (errorsOf(checked.diagnostics).length) fail("check", checked.diagnostics);
  if (spec.phase === "check") return { t, ops: 0, packets: 0 };

  t0 = performance.now();
  const sel = selectSchedule(checked.schedules, undefined);
  if (!sel.schedule) fail("select", sel.diagnostics);
  const inst = instantiate(sel.schedule, { maxOps: DEFAULT_MAX_OPS });
  if (!inst.module) fail("instantiate", inst.diagnostics);
  const m = inferDeps(inst.module);
  const v = verifyModule(m, file);
  t.front = performance.now() - t0;
  if (errorsOf(v).length) fail("verify", v);

  t0 = performance.now();
  const target = sel.schedule.target;
  const p = lowerToQueues(m, target, { completion: "atomic" });
  const laid = layoutProgram(m, p, file, DEFAULT_LAYOUT);
  if (!laid.layout) fail("layout", laid.diagnostics);
  const em = emitSdma(p, m, laid.layout, file, {});
  t.packets = performance.now() - t0;
  if (errorsOf(em.diagnostics).length) fail("emit", em.diagnostics);
  const packets = em.queues.reduce((a, q) => a + q.packetCount, 0);

  let simPackets = 0;
  let simVerified;
  if (simulate) {
    const manifest = buildManifest(m, p, laid.layout, em.queues, file, target.name);
    const streams = new Map(em.queues.map((q) => [`${q.name}.bin`, q.words]));
    t0 = performance.now();
    try {
      const r = simulate({ manifest, streams, module: m }, { target });
      t.sim = performance.now() - t0;
      simPackets = r.stats.packets;
      simVerified = r.verified;
      if (!r.verified && !simNote)
        simNote = `executor did not verify: ${r.diagnostics.map((d) => d.code).join(",")}`;
    } catch (e) {
      simNote = `executor failed: ${String(e?.message ?? e).split("\n")[0]}`;
      simulate = undefined;
    }
  }
  return { t, ops: m.ops.count, packets, simPackets, simVerified };
}

const runs = [];
let last;
for (let i = 0; i < (spec.warmup ?? 1) + (spec.reps ?? 3); i++) {
  last = once();
  if (i >= (spec.warmup ?? 1)) runs.push(last.t);
}
const stats = {};
for (const k of Object.keys(runs[0] ?? {})) {
  const xs = runs
    .map((r) => r[k])
    .filter((x) => x !== undefined)
    .sort((a, b) => a - b);
  if (xs.length)
    stats[k] = {
      median: xs[Math.floor((xs.length - 1) / 2)],
      min: xs[0],
      max: xs.at(-1),
      n: xs.length,
    };
}
process.stdout.write(
  JSON.stringify({
    lines,
    ops: last.ops,
    packets: last.packets,
    simPackets: last.simPackets,
    simVerified: last.simVerified,
    simNote,
    ms: stats,
    maxRssKiB: process.resourceUsage().maxRSS,
  }) + "\n",
);
