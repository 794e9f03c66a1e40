// Per-pass scaling: each optimisation pass alone, on the -O0 lowering of a bench/gen.js program
// at n and 8n operations, and the ratio of the two times (linear: ~8, somewhat more where the
// larger heap costs the garbage collector more per object; n log n: ~9-10; quadratic: ~64). Also
// one -O2 plan candidate's passes (all of them in turn, no prediction). Programs: the
// forward program, the all-to-all (its copies merge: batch-copies) and the same-source chain
// (every copy a broadcast candidate of every other: bcast-fusion's worst case).
//   node --expose-gc bench/pass-scaling.js [--n 100000] [--reps 2] [--dist DIR]
//        [--program forward|all-to-all|same-source-chain|all]                     -> JSON line
// Each size runs in this process after the previous one is dropped; the time of a pass is the
// fastest of --reps runs (after a warm-up at n/8), in CPU milliseconds of the process (steadier
// than wall time on a shared machine; the passes are single-threaded, GC threads included).
// Uses the built dist/ modules (or --dist DIR: another build, to compare before/after).
const argv = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : dflt;
};
const n = Number(arg("n", "100000"));
const reps = Number(arg("reps", "2"));
const which = arg("program", "all");
const dist = new URL(arg("dist", new URL("../dist/", import.meta.url).pathname) + "/", "file:");
const load = (p) => import(new URL(p, dist).href);

const { compileToQueues } = await load("driver/compile.js");
const { PASSES, runPasses } = await load("passes/index.js");
const { makeSourceFile } = await load("source/source-file.js");
const gen = await import("./gen.js");

const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** The -O0 lowering of a program of about `ops` operations. */
function lowered(program, ops) {
  const text =
    program === "forward"
      ? gen.forwardProgram(ops)
      : program === "all-to-all"
        ? gen.allToAll(ops / 64)
        : gen.sameSourceChain(ops);
  const file = makeSourceFile(`<${program} ${ops}>`, text);
  const q = compileToQueues(file, { maxOps: 1e8 });
  if (!q.compiled) throw new Error(q.diagnostics.map((d) => d.message).join("\n"));
  return { ...q.compiled, file };
}

const LEVEL2 = { level: 2, engines: { kind: "spread", k: 8 } };

function timeIt(f) {
  let best = Infinity;
  let out;
  for (let i = 0; i < reps; i++) {
    if (globalThis.gc) globalThis.gc();
    const c0 = cpu();
    out = f();
    best = Math.min(best, cpu() - c0);
  }
  return { ms: best, out };
}

/** Times of every pass alone, and of the plan's work per candidate, at `ops` operations. */
function measure(program, ops) {
  const { module: m, program: prog, target, file } = lowered(program, ops);
  const lower = { completion: "atomic" };
  const ctx = (options) => ({ target, module: m, options, lower, file });
  const times = {};
  for (const p of PASSES) {
    const c = ctx({ ...LEVEL2, enable: { [p.name]: true } });
    times[p.name] = timeIt(() => p.run(prog, c)).ms;
  }
  // One -O2 candidate without its prediction (spread:8 +bcast +prelaunch): every pass in turn.
  times["-O2 candidate (all passes)"] = timeIt(() =>
    runPasses(prog, m, ctx({ ...LEVEL2, prelaunch: true })),
  ).ms;
  return { ops: m.ops.count, commands: prog.queues.reduce((a, q) => a + q.cmds.length, 0), times };
}

const programs = which === "all" ? ["forward", "all-to-all", "same-source-chain"] : [which];
// forwardProgram needs a multiple of 16, allToAll of 64 (ops / 64 chunks).
const round = (n) => (program) =>
  program === "forward" ? n - (n % 16) : program === "all-to-all" ? n - (n % 64) : n;
const out = [];
for (const program of programs) {
  measure(program, round(Math.max(64, n / 8))(program)); // warm-up (JIT)
  const small = measure(program, round(n)(program));
  const large = measure(program, round(8 * n)(program));
  const ratio = {};
  for (const k of Object.keys(small.times))
    ratio[k] = large.times[k] / Math.max(small.times[k], 0.01);
  out.push({ program, small, large, ratio });
}
process.stdout.write(JSON.stringify({ n, reps, results: out }) + "\n");
