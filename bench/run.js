// `npm run bench` (after `npm run build`): every benchmark of issue 7, on the built dist/ JS.
// Prints a table and writes bench/results.json. Each case runs in its own child process
// (bench/worker.js for in-process phase timings, bench/cli-rss.js for whole CLI runs) so that its
// peak resident memory is its own. Timings: median (min..max) of several repetitions after a
// warm-up; fewer repetitions for the big cases. Generated programs go to a temporary directory.
//   node bench/run.js [--quick]      (--quick: one repetition each, for trying the script out)
//   node bench/run.js --only startup,compile65k,simE2E   (just those cases, printed, nothing written)
//   node bench/run.js --only compile4M   (the 4x10^6-op compile against the 10^6 one, paired: ~1.5 min)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { allToAll, checkHeavySource, forwardProgram } from "./gen.js";
import { startProgress } from "../dist/cli/progress.js";

const ROOT = new URL("..", import.meta.url).pathname;
const quick = process.argv.includes("--quick");
const ONLY_CASES = ["startup", "compile65k", "simE2E", "compile4M"];
const onlyArg = process.argv.indexOf("--only");
const only = onlyArg < 0 ? null : (process.argv[onlyArg + 1] ?? "").split(",");
if (only && (only.length === 0 || only.some((c) => !ONLY_CASES.includes(c)))) {
  process.stderr.write(`usage: node bench/run.js --only ${ONLY_CASES.join(",")}\n`);
  process.exit(2);
}
const reps = (n) => (quick ? 1 : n);
const tmp = mkdtempSync(join(tmpdir(), "dmac-bench-"));
const write = (name, text) => {
  const p = join(tmp, name);
  writeFileSync(p, text);
  return p;
};

// Which case is running, on stderr: redrawn in place on a terminal (dmac's progress line,
// src/cli/progress.ts), one line per step otherwise; cleared before the results table.
const progress = startProgress(
  { err: (s) => void process.stderr.write(s), isTTY: process.stderr.isTTY === true },
  { label: "bench", delayMs: 0, intervalMs: 0 },
);
let steps = 0;
const step = (what) => {
  steps++;
  if (process.stderr.isTTY) progress.update(what, steps);
  else process.stderr.write(`bench: ${what}\n`);
};

function worker(spec, timeoutMs = 0) {
  step(`${spec.phase} ${spec.source ? spec.source.replace(tmp + "/", "").replace(ROOT, "") : ""}`);
  const r = spawnSync(process.execPath, [join(ROOT, "bench/worker.js"), JSON.stringify(spec)], {
    encoding: "utf8",
    maxBuffer: 1 << 24,
    ...(timeoutMs > 0 ? { timeout: timeoutMs } : {}),
  });
  if (r.error?.code === "ETIMEDOUT" || r.signal === "SIGTERM")
    return { timedOut: true, ms: {}, simNote: `timed out after ${timeoutMs / 1000} s` };
  if (r.status !== 0) throw new Error(`worker ${JSON.stringify(spec)} failed:\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1));
}

/** Whole CLI runs: wall time (incl. Node start-up) and peak RSS, warm-up + n repetitions. */
function cli(args, n, warmup = 1) {
  step(`dmac ${args.join(" ")}`);
  const times = [];
  const cpu = [];
  let rss = 0;
  for (let i = 0; i < warmup + n; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [join(ROOT, "bench/cli-rss.js"), ...args], {
      encoding: "utf8",
      cwd: ROOT,
    });
    const ms = performance.now() - t0;
    const last = JSON.parse(r.stderr.trim().split("\n").at(-1));
    if (last.code !== 0)
      throw new Error(`dmac ${args.join(" ")} exited ${last.code}:\n${r.stderr}`);
    if (i >= warmup) {
      times.push(ms);
      cpu.push(last.cpuMs);
    }
    rss = Math.max(rss, last.maxRssKiB);
  }
  return { ms: summary(times), cpuMs: summary(cpu), maxRssKiB: rss };
}

function summary(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return { median: s[Math.floor((s.length - 1) / 2)], min: s[0], max: s.at(-1), n: s.length };
}

/**
 * One whole `node ARGS...` run as a user starts it (no bench code in the process but the
 * usage-at-exit preload): wall ms measured around it, CPU ms and peak RSS reported by it.
 */
function nodeRun(args) {
  const t0 = performance.now();
  const r = spawnSync(
    process.execPath,
    ["--import", join(ROOT, "bench/usage-at-exit.js"), ...args],
    { encoding: "utf8", cwd: ROOT, maxBuffer: 1 << 24 },
  );
  const wallMs = performance.now() - t0;
  const usage = JSON.parse(r.stderr.trim().split("\n").at(-1));
  if (usage.code !== 0)
    throw new Error(`node ${args.join(" ")} exited ${usage.code}:\n${r.stderr}`);
  return { wallMs, cpuMs: usage.cpuMs, maxRssKiB: usage.maxRssKiB };
}

/** Runs each argument list once per round, interleaved (pairs share the machine's load). */
function interleaved(argLists, rounds, warmup = 1) {
  const runs = argLists.map(() => []);
  for (let i = 0; i < warmup + rounds; i++)
    argLists.forEach((args, j) => {
      const r = nodeRun(args);
      if (i >= warmup) runs[j].push(r);
    });
  return runs.map((rs) => ({
    ms: summary(rs.map((r) => r.wallMs)),
    cpuMs: summary(rs.map((r) => r.cpuMs)),
    maxRssKiB: Math.max(...rs.map((r) => r.maxRssKiB)),
  }));
}

// ---- start-up: `dmac check` of a small example against Node's own start-up (issue 13) ---------
const STARTUP_FILE = "examples/all_gather_pcpy.dmac";
function startupCase() {
  const [node, check] = interleaved(
    [
      ["-e", "0"],
      ["bin/dmac.js", "check", STARTUP_FILE],
    ],
    reps(20),
  );
  return {
    node,
    check,
    ratio: check.ms.median / node.ms.median,
    cpuRatio: check.cpuMs.median / node.cpuMs.median,
    target: 2,
  };
}
const reportStartup = (r) =>
  log(
    `start-up: 'node -e 0' ${fmtMs(r.node.ms)} wall, ${fmt(r.node.cpuMs.median)} ms CPU; ` +
      `'dmac check ${STARTUP_FILE}' ${fmtMs(r.check.ms)} wall, ${fmt(r.check.cpuMs.median)} ms CPU; ` +
      `ratio ${r.ratio.toFixed(2)} wall, ${r.cpuRatio.toFixed(2)} CPU (target <= ${r.target}, wall)`,
  );

// ---- the 65,536-copy all-to-all, `dmac compile` end to end (issue 13) --------------------------
function compile65kCase() {
  const p = write("a2a-1024.dmac", allToAll(1024));
  const out = join(tmp, "out65k");
  const [r] = interleaved([["bin/dmac.js", "compile", p, "-o", out]], reps(5));
  rmSync(out, { recursive: true, force: true });
  return { copies: 65_536, ...r, targetMs: 400 };
}
const reportCompile65k = (r) =>
  log(
    `dmac compile of the 65,536-copy all-to-all (allToAll(1024)), end to end: ${fmtMs(r.ms)} wall, ` +
      `${fmtMs(r.cpuMs)} CPU, peak ${mib(r.maxRssKiB)} (target <= ${r.targetMs} ms wall)`,
  );

// ---- linear compile: 4x10^6 operations against 10^6, paired (issue 13) ------------------------
// `dmac compile -O0` of forwardProgram(10^6) and of forwardProgram(4x10^6) (--max-ops raised:
// the default is 2x10^6), one after the other in each round, so both see the same machine.
function compile4MCase() {
  const p1 = write("fwd-1000000.dmac", forwardProgram(1_000_000));
  const p4 = write("fwd-4000000.dmac", forwardProgram(4_000_000));
  const out = join(tmp, "out4M");
  const [one, four] = interleaved(
    [
      ["bin/dmac.js", "compile", p1, "-o", out],
      ["bin/dmac.js", "compile", p4, "--max-ops", "4000000", "-o", out],
    ],
    reps(3), // (odd: summary's median of an even count is the lower middle one)
    0,
  );
  rmSync(out, { recursive: true, force: true });
  return { one, four, ratio: four.ms.median / one.ms.median, target: 4.5 };
}
const reportCompile4M = (r) =>
  log(
    `dmac compile -O0, forward program: 10^6 ops ${fmtMs(r.one.ms)} wall, ${fmtMs(r.one.cpuMs)} CPU, peak ${mib(r.one.maxRssKiB)}; ` +
      `4x10^6 ops ${fmtMs(r.four.ms)} wall, ${fmtMs(r.four.cpuMs)} CPU, peak ${mib(r.four.maxRssKiB)}; ` +
      `ratio ${r.ratio.toFixed(2)} wall, ${(r.four.cpuMs.median / r.one.cpuMs.median).toFixed(2)} CPU (target <= ${r.target}, wall)`,
  );

// ---- `dmac sim DIR` end to end from the compiled output directory (issue 13) ------------------
// The user's command, Node start-up included: read and validate the manifest and the streams,
// rebuild the IR from the source, run, check the final state. Packets/s by wall and by CPU.
function simE2ECase() {
  const cases = [
    {
      name: "all-to-all 262,144 copies (allToAll(4096))",
      src: () => allToAll(4096),
      packets: 524_288,
    },
    { name: "forward 10^6 ops", src: () => forwardProgram(1_000_000), packets: 3_000_000 },
  ];
  return cases.map((c, i) => {
    const p = write(`sim-e2e-${i}.dmac`, c.src());
    const out = join(tmp, `sim-e2e-${i}`);
    const made = spawnSync(process.execPath, [join(ROOT, "bin/dmac.js"), "compile", p, "-o", out], {
      encoding: "utf8",
      cwd: ROOT,
    });
    if (made.status !== 0) throw new Error(`compile ${c.name} failed:\n${made.stderr}`);
    const big = c.packets > 1_000_000;
    const [r] = interleaved([["bin/dmac.js", "sim", out]], reps(big ? 2 : 3), big ? 0 : 1);
    rmSync(out, { recursive: true, force: true });
    return {
      name: c.name,
      packets: c.packets,
      ...r,
      packetsPerSec: rate(c.packets, r.ms),
      packetsPerCpuSec: rate(c.packets, r.cpuMs),
      target: 1_000_000,
    };
  });
}
const reportSimE2E = (rs) => {
  for (const r of rs)
    log(
      `dmac sim DIR, ${r.name}, ${r.packets} packets, end to end: ${fmtMs(r.ms)} wall, ` +
        `${fmtMs(r.cpuMs)} CPU, peak ${mib(r.maxRssKiB)}: ${fmtRate(r.packetsPerSec)} packets/s by wall, ` +
        `${fmtRate(r.packetsPerCpuSec)} by CPU (target >= 1M)`,
    );
};

const fmtMs = (s) => (s ? `${fmt(s.median)} ms (${fmt(s.min)}..${fmt(s.max)}, n=${s.n})` : "-");
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const rate = (count, s) => (s && s.median > 0 ? Math.round((count / s.median) * 1000) : null);
const fmtRate = (r) =>
  r === null
    ? "-"
    : r >= 1e6
      ? `${(r / 1e6).toFixed(2)}M`
      : r >= 1e3
        ? `${(r / 1e3).toFixed(1)}k`
        : `${r}`;
const mib = (kib) => `${(kib / 1024).toFixed(0)} MiB`;

const results = {
  date: new Date().toISOString(),
  machine: {
    nproc: cpus().length,
    cpu:
      (readFileSync("/proc/cpuinfo", "utf8").match(/model name\s*:\s*(.*)/) ?? [])[1] ??
      cpus()[0]?.model,
    node: process.version,
  },
  quick,
  parse: null,
  examples: [],
  allToAll: [],
  big: null,
  compile1M: null,
  compile1MPhases: [],
  scaling: null,
  plan: null,
  startup: null,
  compile65k: null,
  simE2E: null,
  compile4M: null,
  passScaling: null,
  optLevels1M: null,
  notes: [],
};
const log = (s) => {
  progress.end(); // the results are on stdout, often the same terminal
  process.stdout.write(s + "\n");
};

if (only) {
  const picked = {};
  if (only.includes("startup")) reportStartup((picked.startup = startupCase()));
  if (only.includes("compile65k")) reportCompile65k((picked.compile65k = compile65kCase()));
  if (only.includes("simE2E")) reportSimE2E((picked.simE2E = simE2ECase()));
  if (only.includes("compile4M")) reportCompile4M((picked.compile4M = compile4MCase()));
  rmSync(tmp, { recursive: true, force: true });
  log(JSON.stringify(picked));
  process.exit(0);
}

// ---- (1) parse + check throughput on a generated 50,000-line file -------------------------
{
  const p = write("check50k.dmac", checkHeavySource(50_000));
  const r = worker({ phase: "check", source: p, warmup: 1, reps: reps(3) });
  results.parse = {
    lines: r.lines,
    ms: r.ms.check,
    linesPerSec: rate(r.lines, r.ms.check),
    maxRssKiB: r.maxRssKiB,
  };
  log(
    `parse+check ${r.lines} lines: ${fmtMs(r.ms.check)} = ${fmtRate(results.parse.linesPerSec)} lines/s, peak ${mib(r.maxRssKiB)}`,
  );
}

// ---- pipeline cases: examples, all-to-all sizes, the 1M-op program ---------------------------
function pipelineCase(name, path, { warmup, n, sim }) {
  const r = worker({ phase: "pipeline", source: path, warmup, reps: n, sim });
  const mem = worker({ phase: "pipeline", source: path, warmup: 0, reps: 1, sim: false });
  if (r.simNote) results.notes.push(`${name}: ${r.simNote}`);
  return {
    name,
    ops: r.ops,
    packets: r.packets,
    ms: r.ms,
    checkLinesPerSec: rate(r.lines, r.ms.check),
    frontOpsPerSec: rate(r.ops, r.ms.front),
    packetsOpsPerSec: rate(r.ops, r.ms.packets),
    simPacketsPerSec: r.ms.sim ? rate(r.simPackets, r.ms.sim) : null,
    simVerified: r.simVerified ?? null,
    simNote: r.simNote ?? null,
    maxRssKiB: mem.maxRssKiB,
  };
}

const examples = readdirSync(join(ROOT, "examples"))
  .filter((f) => f.endsWith(".dmac"))
  .sort();
for (const f of examples) {
  const c = pipelineCase(f, join(ROOT, "examples", f), { warmup: 2, n: reps(5), sim: true });
  c.checkCli = cli(["check", join("examples", f)], reps(3));
  results.examples.push(c);
}
for (const chunks of [1, 16, 256, 2048]) {
  const p = write(`a2a-${chunks}.dmac`, allToAll(chunks));
  const big = chunks >= 256;
  results.allToAll.push(
    pipelineCase(`all-to-all 8 GPUs x ${chunks} chunks`, p, {
      warmup: 1,
      n: reps(big ? (chunks >= 2048 ? 2 : 3) : 5),
      sim: true,
    }),
  );
}

// ---- scaling: the forward program at 10^4, 10^5, 10^6 operations ----------------------------
const baseline = worker({
  phase: "pipeline",
  source: write("fwd16.dmac", forwardProgram(16)),
  warmup: 0,
  reps: 1,
});
const scale = [];
for (const ops of [10_000, 100_000, 1_000_000]) {
  const p = write(`fwd-${ops}.dmac`, forwardProgram(ops));
  const huge = ops >= 1_000_000;
  const c = pipelineCase(`forward ${ops} ops`, p, { warmup: 1, n: reps(huge ? 2 : 3), sim: !huge });
  if (huge) {
    // The executor once (no warm-up) at this size: it is the slowest phase.
    const s = worker({ phase: "pipeline", source: p, warmup: 0, reps: 1, sim: true }, 180_000);
    c.ms.sim = s.ms.sim;
    c.simPacketsPerSec = s.ms.sim ? rate(s.simPackets, s.ms.sim) : null;
    c.simVerified = s.simVerified ?? null;
    if (s.simNote) results.notes.push(`${c.name}: ${s.simNote}`);
  }
  if (ops === 1_000_000) results.big = c;
  const work = (c.ms.front?.median ?? 0) + (c.ms.packets?.median ?? 0);
  scale.push({
    ops: c.ops,
    usPerOp: (1000 * work) / c.ops,
    bytesPerOp: Math.max(0, ((c.maxRssKiB - baseline.maxRssKiB) * 1024) / c.ops),
  });
}
results.scaling = {
  what: "instantiate+deps+verify+lower+layout+emit time and peak-RSS growth over a 16-op run, per op",
  points: scale,
  timeRatio: scale.slice(1).map((s, i) => s.usPerOp / scale[i].usPerOp),
  memRatio: scale.slice(1).map((s, i) => s.bytesPerOp / scale[i].bytesPerOp),
};

// ---- the whole `dmac compile -O0` of the 1M-op program ---------------------------------------
{
  const p = join(tmp, "fwd-1000000.dmac");
  const out = join(tmp, "out1M");
  const r = cli(["compile", p, "-o", out], reps(2));
  results.compile1M = { ...r, targetMs: 4000, targetRssKiB: 1.5 * 1024 * 1024 };
  rmSync(out, { recursive: true, force: true });
  // The same compile in one process, phase by phase, with and without dump.txt (what the
  // 400 MB listing costs; the CLI always writes it).
  results.compile1MPhases = [["--dump"], []].map((extra) => {
    const r = spawnSync(
      process.execPath,
      [join(ROOT, "bench/compile-phases.js"), p, join(tmp, "phases1M"), ...extra],
      { encoding: "utf8", cwd: ROOT },
    );
    if (r.status !== 0) throw new Error(`compile-phases ${extra.join(" ")} failed:\n${r.stderr}`);
    return JSON.parse(r.stdout.trim().split("\n").at(-1));
  });
}

// ---- -O1 and -O2 of the 1M-op program (the -O2 plan search stops at its budget) ---------------
{
  const p = join(tmp, "fwd-1000000.dmac");
  const level = (o) => {
    const out = join(tmp, `out1M-O${o}`);
    const r = cli(["compile", p, `-O${o}`, "-o", out], reps(1), 0);
    rmSync(out, { recursive: true, force: true });
    return r;
  };
  const o1 = level(1);
  const o2 = level(2);
  results.optLevels1M = {
    o1,
    o2,
    o2OverO0: o2.ms.median / results.compile1M.ms.median,
    targetO2OverO0: 3,
  };
}

// ---- every pass alone at n and 8n operations (linear: ratio ~8; quadratic: 64) ----------------
{
  const n = 100_000;
  const r = spawnSync(
    process.execPath,
    [
      "--expose-gc",
      join(ROOT, "bench/pass-scaling.js"),
      "--n",
      String(n),
      "--reps",
      String(reps(2)),
    ],
    { encoding: "utf8", cwd: ROOT, maxBuffer: 1 << 24 },
  );
  if (r.status !== 0) results.notes.push(`pass scaling failed: ${r.stderr.split("\n")[0]}`);
  else results.passScaling = JSON.parse(r.stdout.trim().split("\n").at(-1));
}

// ---- -O2 plan choice for an 8-GPU all-to-all ---------------------------------------------------
if (existsSync(join(ROOT, "dist/passes/plan.js"))) {
  try {
    const src = join("examples", "all_to_all_pcpy.dmac");
    const o2 = cli(["compile", src, "-O2", "-o", join(tmp, "o2")], reps(3));
    const o0 = cli(["compile", src, "-O0", "-o", join(tmp, "o0")], reps(3));
    results.plan = { o2, o0, planMs: o2.ms.median - o0.ms.median };
  } catch (e) {
    results.notes.push(`-O2 plan timing skipped: ${String(e.message).split("\n")[0]}`);
  }
} else {
  results.notes.push(
    "-O2 plan timing skipped: the optimiser (src/passes/plan.ts) does not exist yet",
  );
}

results.startup = startupCase();
results.compile65k = compile65kCase();
results.simE2E = simE2ECase();
results.compile4M = compile4MCase();

rmSync(tmp, { recursive: true, force: true });

// ---- the table -------------------------------------------------------------------------------
const rows = [];
const row = (c) =>
  rows.push([
    c.name,
    String(c.ops),
    String(c.packets),
    fmtRate(c.frontOpsPerSec),
    fmtRate(c.packetsOpsPerSec),
    c.simPacketsPerSec !== null
      ? `${fmtRate(c.simPacketsPerSec)}${c.simVerified ? "" : " (!)"}`
      : "skipped",
    mib(c.maxRssKiB),
    c.checkCli ? `${fmt(c.checkCli.ms.median)} ms` : "",
  ]);
for (const c of [...results.examples, ...results.allToAll, results.big]) row(c);
const head = [
  "case",
  "ops",
  "packets",
  "inst+deps+verify ops/s",
  "lower+emit ops/s",
  "executor pkts/s",
  "peak RSS",
  "dmac check",
];
const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
const line = (r) =>
  r.map((x, i) => (i === 0 ? x.padEnd(widths[i]) : x.padStart(widths[i]))).join("  ");
log("\n" + line(head));
log(widths.map((w) => "-".repeat(w)).join("  "));
for (const r of rows) log(line(r));
log("\nphase timings, median (min..max):");
for (const c of [...results.allToAll, results.big])
  log(
    `  ${c.name}: front ${fmtMs(c.ms.front)}; packets ${fmtMs(c.ms.packets)}; executor ${fmtMs(c.ms.sim)}`,
  );
log(`\nscaling (${results.scaling.what}):`);
for (const s of results.scaling.points)
  log(
    `  ${String(s.ops).padStart(8)} ops: ${s.usPerOp.toFixed(2)} us/op, ${s.bytesPerOp.toFixed(0)} B/op`,
  );
log(
  `  ratios 10^5/10^4, 10^6/10^5: time ${results.scaling.timeRatio.map((x) => x.toFixed(2)).join(", ")}; memory ${results.scaling.memRatio.map((x) => x.toFixed(2)).join(", ")} (linear: <= 1.3)`,
);
const c1 = results.compile1M;
log(
  `\ndmac compile -O0 of the 1,000,000-op program: ${fmtMs(c1.ms)}, peak ${mib(c1.maxRssKiB)} (targets: < 4000 ms, < 1536 MiB)`,
);
for (const ph of results.compile1MPhases)
  log(
    `  in-process, ${ph.dump ? "with" : "without"} dump.txt: ${fmt(ph.wallMs)} ms wall, ${fmt(ph.cpuMs)} ms CPU, peak ${mib(ph.maxRssKiB)}; ${Object.entries(
      ph.phases,
    )
      .map(([k, v]) => `${k} ${fmt(v.wallMs)}/${fmt(v.cpuMs)}`)
      .join(", ")} (wall/CPU ms)`,
  );
const worstCheck = Math.max(...results.examples.map((c) => c.checkCli.ms.median));
log(
  `slowest 'dmac check' of an example (incl. Node start-up): ${fmt(worstCheck)} ms (target < 500 ms)`,
);
if (results.plan)
  log(`-O2 plan choice, 8-GPU all-to-all: ~${fmt(results.plan.planMs)} ms (compile -O2 minus -O0)`);
if (results.optLevels1M) {
  const { o1, o2, o2OverO0 } = results.optLevels1M;
  log(
    `dmac compile of the 1,000,000-op program: -O1 ${fmtMs(o1.ms)}, peak ${mib(o1.maxRssKiB)}; -O2 ${fmtMs(o2.ms)}, peak ${mib(o2.maxRssKiB)}; -O2 / -O0 ${o2OverO0.toFixed(2)} (target < 3)`,
  );
}
if (results.passScaling) {
  const { n, results: progs } = results.passScaling;
  log(`\nevery pass alone, ${n} vs ${8 * n} operations (CPU ms; linear: ratio ~8, quadratic: 64):`);
  for (const r of progs) {
    log(`  ${r.program} (${r.small.commands} -> ${r.large.commands} commands):`);
    for (const k of Object.keys(r.small.times))
      log(
        `    ${k.padEnd(28)} ${fmt(r.small.times[k]).padStart(7)} -> ${fmt(r.large.times[k]).padStart(7)} ms  ratio ${r.ratio[k].toFixed(1)}`,
      );
  }
}
log("");
reportStartup(results.startup);
reportCompile65k(results.compile65k);
reportSimE2E(results.simE2E);
reportCompile4M(results.compile4M);
for (const n of results.notes) log(`note: ${n}`);

if (!quick)
  writeFileSync(join(ROOT, "bench/results.json"), JSON.stringify(results, null, 2) + "\n");
log(quick ? "\n(--quick: bench/results.json not written)" : "\nwrote bench/results.json");
