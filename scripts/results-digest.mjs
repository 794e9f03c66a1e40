#!/usr/bin/env node
// Results-unchanged digests (issue 13): what `dmac compile` writes and what `dmac sim` reports, per
// case, as sha256 digests and summaries, compared against committed goldens so a rewrite of
// lowering, passes, emission or the executor can show that it changed no result.
//
//   node scripts/results-digest.mjs                    check the CI cases (test/results/digests.json)
//   node scripts/results-digest.mjs --update           re-bless them
//   node scripts/results-digest.mjs --large --check    check the large cases (digests-large.json)
//   node scripts/results-digest.mjs --large --update   re-bless them (minutes)
//
// It runs the built CLI of this checkout (bin/dmac.js on dist/: `npm run build` first) as a user
// would, in a scratch directory laid out like the repository (examples/..., bench/...), so the
// relative source paths that manifest.json and trace.json record are the same on every machine.
// The -O2 plan search runs without its work budget (`--plan-budget unlimited`), so the large cases
// pin the plan a full search chooses.

import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readdirSync } from "node:fs";
import { copyFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as gen from "../bench/gen.js";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const BIN = join(ROOT, "bin", "dmac.js");
export const DIGESTS = join(ROOT, "test", "results", "digests.json");
export const DIGESTS_LARGE = join(ROOT, "test", "results", "digests-large.json");

/** What compile writes: one place to change when dump.txt becomes opt-in (`--emit sdma,dump,trace`). */
export const EMIT = "sdma,trace,dump";
/** -O2 without the plan search's work budget (see the header). */
const UNBUDGETED = ["--plan-budget", "unlimited"];
const LEVELS = ["0", "1", "2"];

/**
 * The golden cases (test/golden/cases) that compile: the others are diagnostics, which
 * test/golden.test.ts already pins. None of these has a `@define` or `@schedule` directive.
 */
const GOLDEN_COMPILABLE = [
  "test/golden/cases/diagnostics/DMAC2008-unused-names.dmac",
  "test/golden/cases/diagnostics/DMAC2018-shadowed-name.dmac",
  "test/golden/cases/diagnostics/type-rules-ok.dmac",
];

/** bench/gen.js programs: [generator, argument, -O levels]. */
const BENCH_CI = [
  ["allToAll", 1, LEVELS],
  ["allToAll", 16, LEVELS],
  ["allToAll", 256, LEVELS],
  ["forwardProgram", 10_000, LEVELS],
  ["sameSourceChain", 1000, LEVELS],
];
const BENCH_LARGE = [
  ["allToAll", 2048, ["0", "2"]], // 131,072 copies
  ["allToAll", 4096, ["0"]], // 262,144 copies
  ["forwardProgram", 1_000_000, ["0"]],
];

/**
 * One case: `source` is a path relative to the repository; `gen` (a bench/gen.js call) says the
 * script writes it, otherwise it is copied from the checkout.
 */
function makeCase(source, level, generator, sync = "aggressive") {
  // The cases from before `--sync` (issue 17) compile with --sync aggressive, today's forms, and
  // keep their ids; the conservative cases (the default of target mi300x) are ids of their own.
  const id = `${source} -O${level}${sync === "aggressive" ? "" : ` --sync ${sync}`}`;
  return { id, source, level, sync, ...(generator ? { gen: generator } : {}) };
}

function benchCases(table) {
  return table.flatMap(([fn, arg, levels]) =>
    levels.map((l) => makeCase(`bench/${fn}-${arg}.dmac`, l, { fn, arg })),
  );
}

/** The CI cases: every example and the compilable golden cases at -O0/1/2, small bench programs. */
export function ciCases() {
  const examples = readdirSync(join(ROOT, "examples"))
    .filter((f) => f.endsWith(".dmac"))
    .sort()
    .map((f) => `examples/${f}`);
  return [
    ...[...examples, ...GOLDEN_COMPILABLE].flatMap((s) => LEVELS.map((l) => makeCase(s, l))),
    ...examples.flatMap((s) => LEVELS.map((l) => makeCase(s, l, undefined, "conservative"))),
    ...benchCases(BENCH_CI),
  ];
}

/** The large cases (not run in CI): the million-op scale of issue 13. */
export function largeCases() {
  return benchCases(BENCH_LARGE);
}

/** Copies (or generates) every case's source into the scratch directory `work`. */
function writeSources(cases, work) {
  for (const c of cases) {
    const to = join(work, c.source);
    if (existsSync(to)) continue;
    mkdirSync(dirname(to), { recursive: true });
    if (c.gen) writeFileSync(to, gen[c.gen.fn](c.gen.arg));
    else copyFileSync(join(ROOT, c.source), to);
  }
}

/** A directory name for the case's output: unique per case, the same on every run. */
const slug = (c) => c.id.replace(/[^A-Za-z0-9.]+/g, "_");

/**
 * The command lines of a case, as [env, argv] (argv after `dmac`): compile, then one `sim` of the
 * packet streams (through the manifest) and of the command trace (one process: start-up is most
 * of a small case's time).
 */
export function caseCommands(c) {
  const out = `out/${slug(c)}`;
  const budget = c.level === "2" ? UNBUDGETED : [];
  return [
    [
      {},
      ["compile", c.source, "-o", out, "-O", c.level, ...budget, "--emit", EMIT, "--sync", c.sync],
    ],
    [{}, ["sim", out, `${out}/trace.json`, "--json"]],
  ];
}

const showCommand = ([env, argv]) =>
  [...Object.entries(env).map(([k, v]) => `${k}=${v}`), "dmac", ...argv].join(" ");

function run(argv, env, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...argv], {
      cwd,
      env: { ...baseEnv(), ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out = [];
    const err = [];
    child.stdout.on("data", (b) => out.push(b));
    child.stderr.on("data", (b) => err.push(b));
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolve({
        exit: code ?? `signal ${signal}`,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      }),
    );
  });
}

function baseEnv() {
  return { ...process.env, NO_COLOR: "1" };
}

function sha256File(path) {
  return new Promise((resolve, reject) => {
    const h = createHash("sha256");
    createReadStream(path)
      .on("data", (b) => h.update(b))
      .on("error", reject)
      .on("end", () => resolve(h.digest("hex")));
  });
}

const sha256 = (text) => createHash("sha256").update(text).digest("hex");

/** Every output file by name (the .dmac-output marker aside: bookkeeping, not a result). */
async function fileDigests(dir) {
  const files = {};
  if (!existsSync(dir)) return files;
  for (const name of readdirSync(dir).sort()) {
    if (name === ".dmac-output") continue;
    const path = join(dir, name);
    files[name] = { bytes: readFileSync(path).length, sha256: await sha256File(path) };
  }
  return files;
}

/** Keys of a sim summary that are not results: host time, should any appear. */
const NOT_RESULTS = /^(wall|elapsed|cpu|rss|heap|host(?!Submit))|Ms$|Seconds$|^searchMs$/;

/**
 * The simulation summary with keys sorted and anything that is not a result removed; long arrays
 * (engines, links) become their length and a digest, to keep the goldens readable.
 */
export function normalizeSummary(value) {
  if (Array.isArray(value)) {
    const items = value.map(normalizeSummary);
    return items.length <= 4 ? items : { length: items.length, sha256: sha256(canon(items)) };
  }
  if (value === null || typeof value !== "object") return value;
  const out = {};
  for (const k of Object.keys(value).sort()) {
    if (NOT_RESULTS.test(k)) continue;
    out[k] = normalizeSummary(value[k]);
  }
  return out;
}

/** JSON with sorted keys: the stable text of a value. */
export function canon(value) {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortKeys(value[k])]),
  );
}

/** Host-dependent paths out of a diagnostic text. */
function scrub(text, work) {
  return text.split(work).join("<work>").split(ROOT).join("<repo>");
}

/** The sim's summaries: [packets, trace] (`input` aside), or its output when it is not JSON. */
async function simRecord(cmd, work) {
  const r = await run(cmd[1], cmd[0], work);
  const record = { exit: r.exit, stderr: scrub(r.stderr, work) };
  let runs;
  try {
    runs = JSON.parse(scrub(r.stdout, work));
  } catch {
    return { ...record, stdout: scrub(r.stdout, work) };
  }
  const [packets, trace] = runs.map(({ input: _, ...summary }) => normalizeSummary(summary));
  return { ...record, packets, trace };
}

/** Runs one case in `work` (sources already there) and returns its record. */
export async function runCase(c, work) {
  const [compile, sim] = caseCommands(c);
  const out = join(work, compile[1][3]);
  const compiled = await run(compile[1], compile[0], work);
  const record = {
    commands: [compile, sim].map(showCommand),
    compile: {
      exit: compiled.exit,
      stdout: scrub(compiled.stdout, work),
      stderr: scrub(compiled.stderr, work),
    },
    files: await fileDigests(out),
  };
  if (compiled.exit === 0) record.sim = await simRecord(sim, work);
  rmSync(out, { recursive: true, force: true });
  return record;
}

/** A rough guess of a case's run time: the longest start first, so the others fill in. */
function cost(c) {
  const ops = c.gen ? c.gen.arg * (c.gen.fn === "allToAll" ? 64 : 1) : 1;
  return ops * (c.level === "2" ? 8 : 1);
}

/** Every case's record, `concurrency` cases at a time, keyed by case id in sorted order. */
export async function computeDigests(cases, { concurrency = 2, log } = {}) {
  const work = mkdtempSync(join(tmpdir(), "dmac-results-"));
  try {
    writeSources(cases, work);
    const records = new Map();
    const queue = [...cases].sort((a, b) => cost(b) - cost(a));
    let next = 0;
    const worker = async () => {
      while (next < queue.length) {
        const c = queue[next++];
        const t0 = Date.now();
        records.set(c.id, await runCase(c, work));
        log?.(`${c.id}: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    return Object.fromEntries([...records.keys()].sort().map((id) => [id, records.get(id)]));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * What differs between two digest sets, one line per changed leaf ("case: path: expected ...,
 * got ..."); empty when the results are unchanged. The command lines are informative only.
 */
export function compareDigests(expected, actual) {
  const diffs = [];
  const ids = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
  for (const id of ids) {
    if (!(id in actual)) diffs.push(`${id}: case missing from this run`);
    else if (!(id in expected)) diffs.push(`${id}: new case, not in the goldens`);
    else {
      const { commands: _a, ...e } = expected[id];
      const { commands: _b, ...a } = actual[id];
      diffLeaves(e, a, id + ":", diffs);
    }
  }
  return diffs;
}

/** The differences, at most `perCase` lines of each case (a changed plan changes every file). */
export function abridge(diffs, perCase = 6) {
  const shown = new Map();
  const out = [];
  for (const d of diffs) {
    const id = d.slice(0, d.indexOf(":"));
    const n = (shown.get(id) ?? 0) + 1;
    shown.set(id, n);
    if (n <= perCase) out.push(d);
    else if (n === perCase + 1) out.push(`${id}: ... (more differences)`);
  }
  return out;
}

function diffLeaves(e, a, path, diffs) {
  const isObj = (v) => v !== null && typeof v === "object";
  if (isObj(e) && isObj(a) && Array.isArray(e) === Array.isArray(a)) {
    const keys = [...new Set([...Object.keys(e), ...Object.keys(a)])].sort();
    for (const k of keys) {
      if (!(k in a)) diffs.push(`${path} ${k}: missing (expected ${short(e[k])})`);
      else if (!(k in e)) diffs.push(`${path} ${k}: unexpected (got ${short(a[k])})`);
      else diffLeaves(e[k], a[k], `${path} ${k}`, diffs);
    }
  } else if (canon(e) !== canon(a)) {
    diffs.push(`${path}: expected ${short(e)}, got ${short(a)}`);
  }
}

function short(v) {
  const s = JSON.stringify(v);
  return s.length > 120 ? s.slice(0, 117) + "..." : s;
}

/** The goldens as written: pretty-printed, keys sorted. */
export function formatDigests(digests) {
  return JSON.stringify(sortKeys(digests), null, 2) + "\n";
}

async function main(args) {
  const large = args.includes("--large");
  const update = args.includes("--update");
  const unknown = args.filter((a) => !["--large", "--update", "--check"].includes(a));
  if (unknown.length > 0 || (update && args.includes("--check"))) {
    console.error("usage: node scripts/results-digest.mjs [--large] [--update | --check]");
    return 2;
  }
  const file = large ? DIGESTS_LARGE : DIGESTS;
  const cases = large ? largeCases() : ciCases();
  const digests = await computeDigests(cases, {
    concurrency: large ? 1 : 2,
    log: (s) => console.error(s),
  });
  if (update) {
    writeFileSync(file, formatDigests(digests));
    console.error(`wrote ${file} (${cases.length} cases)`);
    return 0;
  }
  const diffs = compareDigests(JSON.parse(readFileSync(file, "utf8")), digests);
  for (const d of abridge(diffs, 20)) console.log(d);
  console.error(
    diffs.length === 0
      ? `results unchanged (${cases.length} cases)`
      : `${diffs.length} difference(s); if intended, re-bless with --update`,
  );
  return diffs.length === 0 ? 0 : 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
