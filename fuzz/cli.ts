// `npm run fuzz -- --iterations N --seed S [--target frontend|decoder|executor|sim-input|all]
//   [--time-bound MS] [--no-save]`: long-mode fuzzing against the compiled dist/ (so run
// `npm run build` first; the npm script does). Prints cases per second as it goes, saves every
// failing input under test/fuzz-regressions/ (replayed by test/unit/fuzz/regressions.test.ts),
// and exits 1 if any case failed.

import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadDistApi } from "./api.js";
import {
  DEFAULT_TARGETS,
  FUZZ_TARGETS,
  runFuzz,
  type FuzzFailure,
  type FuzzTarget,
} from "./engine.js";
import { verifiedMutants } from "./properties.js";
import { partsOutcomes } from "./parts.js";
import { saveInput } from "./regressions.js";

interface Args {
  iterations: number;
  seed: number;
  targets: FuzzTarget[];
  timeBoundMs: number;
  save: boolean;
  only: number[] | undefined;
  from: number;
  simEvery: number;
}

function parseArgs(argv: readonly string[]): Args | string {
  const a: Args = {
    iterations: 10_000,
    seed: 1,
    targets: [...DEFAULT_TARGETS],
    timeBoundMs: 2000,
    save: true,
    only: undefined,
    from: 0,
    simEvery: 8,
  };
  for (let i = 0; i < argv.length; i++) {
    const k = argv[i]!;
    const v = argv[i + 1];
    const num = (): number | undefined => {
      i++;
      const n = Number((v ?? "").replace(/_/g, ""));
      return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
    };
    if (k === "--iterations") {
      const n = num();
      if (n === undefined) return `--iterations: '${v}' is not a count`;
      a.iterations = n;
    } else if (k === "--seed") {
      const n = num();
      if (n === undefined) return `--seed: '${v}' is not a non-negative integer`;
      a.seed = n;
    } else if (k === "--time-bound") {
      const n = num();
      if (n === undefined || n === 0) return `--time-bound: '${v}' is not a number of ms`;
      a.timeBoundMs = n;
    } else if (k === "--target") {
      i++;
      if (v === "all") a.targets = [...DEFAULT_TARGETS];
      else if ((FUZZ_TARGETS as readonly string[]).includes(v ?? "")) a.targets = [v as FuzzTarget];
      else return `--target: choose from ${FUZZ_TARGETS.join(", ")}, all`;
    } else if (k === "--from") {
      const n = num();
      if (n === undefined) return `--from: '${v}' is not a case index`;
      a.from = n;
    } else if (k === "--case") {
      const n = num();
      if (n === undefined) return `--case: '${v}' is not a case index`;
      (a.only ??= []).push(n);
    } else if (k === "--sim-every") {
      const n = num();
      if (n === undefined) return `--sim-every: '${v}' is not a count (0 = never)`;
      a.simEvery = n;
    } else if (k === "--no-save") a.save = false;
    else return `unknown argument '${k}'`;
  }
  return a;
}

async function run(): Promise<number> {
  const args = parseArgs(process.argv.slice(2));
  if (typeof args === "string") {
    process.stderr.write(`fuzz: ${args}\n`);
    return 2;
  }
  // This file runs as dist/fuzz/fuzz/cli.js; the repository root is three levels up.
  const root = resolve(fileURLToPath(new URL("../../../", import.meta.url)));
  const { api, missing } = await loadDistApi(join(root, "dist"));
  for (const m of missing)
    process.stderr.write(`fuzz: warning: ${m.name} unavailable: ${m.error}\n`);
  if (missing.some((m) => m.name === "simulate")) {
    process.stderr.write("fuzz: the executor does not load: no executor cases, no simulation\n");
    args.targets = args.targets.filter((t) => t !== "executor" && t !== "sim-input");
    args.simEvery = 0;
  }
  let cliEvery = 250;
  if (missing.some((m) => m.name === "main")) {
    process.stderr.write("fuzz: the CLI does not load: no cases through main()\n");
    cliEvery = 0;
  }
  if (missing.some((m) => m.name !== "simulate" && m.name !== "main")) return 2;
  const exDir = join(root, "examples");
  const examples = readdirSync(exDir)
    .filter((f) => f.endsWith(".dmac"))
    .sort()
    .map((f) => ({ name: f, text: readFileSync(join(exDir, f), "utf8") }));
  const saveDir = join(root, "test", "fuzz-regressions");
  process.stdout.write(
    `fuzz: seed ${args.seed}, ${args.iterations} cases, targets ${args.targets.join(",")}, bound ${args.timeBoundMs} ms\n`,
  );
  let last = performance.now();
  let lastDone = args.from;
  const report = (f: FuzzFailure): void => {
    const where = args.save ? saveInput(saveDir, f.input) : "(not saved)";
    if (args.only && f.input.target === "frontend")
      process.stdout.write(`${f.input.source.slice(0, 3000)}\n`);
    process.stdout.write(
      `FAIL case ${f.index} (${f.input.target}): ${f.failures.map((x) => `[${x.property}] ${x.detail}`).join("; ")}\n  saved: ${where}\n`,
    );
  };
  const stats = await runFuzz({
    api,
    seed: args.seed,
    iterations: args.iterations,
    targets: args.targets,
    examples,
    timeBoundMs: args.timeBoundMs,
    onFailure: report,
    only: args.only,
    from: args.from,
    simEvery: args.simEvery,
    cliEvery,
    progressEvery: 20_000,
    onProgress: (done, s) => {
      const now = performance.now();
      const rate = ((done - lastDone) * 1000) / (now - last);
      last = now;
      lastDone = done;
      process.stdout.write(
        `  ${done} cases, ${rate.toFixed(0)} cases/s now, ${(((done - args.from) * 1000) / s.elapsedMs).toFixed(0)} cases/s overall, ${s.failures.length} failing\n`,
      );
    },
  });
  const secs = stats.elapsedMs / 1000;
  const total = Object.values(stats.cases).reduce((x, y) => x + y, 0);
  process.stdout.write(
    `fuzz: ${total} cases in ${secs.toFixed(1)} s (${(total / secs).toFixed(0)} cases/s): ` +
      `${Object.entries(stats.cases)
        .filter(([, n]) => n > 0)
        .map(([t, n]) => `${t} ${n}`)
        .join(", ")}; ${stats.failures.length} failing\n`,
  );
  if (stats.cases.parts > 0)
    process.stdout.write(
      `fuzz: parts: ${partsOutcomes.verified} compiled and verified by both sims, ${partsOutcomes.compiledOnly} compiled for a CUDA target, ${partsOutcomes.refused} refused with a located diagnostic (${[
        ...partsOutcomes.refusedBy,
      ]
        .sort((a, b) => b[1] - a[1])
        .map(([c, n]) => `${c} ${n}`)
        .join(", ")})\n`,
    );
  if (verifiedMutants.verified > 0)
    process.stdout.write(
      `fuzz: ${verifiedMutants.verified} mutated executor inputs verified, ${verifiedMutants.equivalent} of them proven equivalent to their original\n`,
    );
  return stats.failures.length > 0 ? 1 : 0;
}

process.exitCode = await run();
