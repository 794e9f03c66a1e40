// What -O2 plans with the fitted target (target.fitted.json), per collective and size, against
// what was measured: the plan is compiled and compared byte for byte (program.txt) with every
// measured variant's program (compiled for target.json, as prepare.sh did); where it equals one,
// that variant's measured median is the plan's measured time.
//   node bench/hardware/2026-11-24-h200x2/o2-plan.mjs   (from the repo root, after npm run build)
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const DIR = "bench/hardware/2026-11-24-h200x2";
const FITTED = join(DIR, "target.fitted.json");
const MEASURED = join(DIR, "target.json");
const results = JSON.parse(readFileSync(join(DIR, "results.json"), "utf8")).runs;
const variants = readFileSync("runtime/cuda/variants-peer.tsv", "utf8")
  .split("\n")
  .filter((l) => l && !l.startsWith("#"))
  .map((l) => l.split("\t"))
  .filter(([, v]) => v !== "O2");
const tmp = mkdtempSync(join(tmpdir(), "o2-plan-"));

/** program.txt and the predicted time of one compile into a fresh directory. */
let n = 0;
function compile(example, opts, target, size) {
  const out = join(tmp, String(n++));
  const args = ["bin/dmac.js", "compile", `examples/${example}.dmac`, "--target", target];
  args.push(...opts.trim().split(/\s+/), "-D", `chunk=${size / 2}B`, "-o", out);
  execFileSync("node", args, { stdio: ["ignore", "ignore", "inherit"] });
  const json = JSON.parse(readFileSync(join(out, "program.json"), "utf8"));
  return { text: readFileSync(join(out, "program.txt"), "utf8"), predictedUs: json.predictedUs };
}

const measured = (example, variant, size) =>
  results.find((r) => r.example === example && r.variant === variant && r.totalBytes === size)
    ?.medianUs;
const fmt = (us) => (us >= 1000 ? us.toFixed(0) : us.toFixed(1));

console.log(
  "| collective | bytes/rank | -O2 plan (fitted) | predicted | measured (same program) | fastest measured | gap | -O2 before (measured) |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const coll of ["all_gather", "all_to_all"]) {
  const sizes = [...new Set(results.map((r) => r.totalBytes))].sort((a, b) => a - b);
  for (const size of sizes) {
    const plan = compile(`${coll}_pcpy`, "-O2", FITTED, size);
    const same = variants.filter(
      ([ex, , opts]) => ex.startsWith(coll) && compile(ex, opts, MEASURED, size).text === plan.text,
    );
    const runs = results.filter((r) => r.example.startsWith(coll) && r.totalBytes === size);
    const fastest = runs.reduce((a, b) => (b.medianUs < a.medianUs ? b : a));
    const name = same.length ? same.map(([, v]) => v).join(" = ") : "new (must be measured)";
    const got = same.length ? measured(same[0][0], same[0][1], size) : undefined;
    const gap = got === undefined ? "-" : `+${((got / fastest.medianUs - 1) * 100).toFixed(0)}%`;
    const before = measured(`${coll}_pcpy`, "O2", size);
    console.log(
      `| ${coll} | ${size} | ${name} | ${fmt(plan.predictedUs)} | ${got === undefined ? "-" : fmt(got)} | ${fastest.variant} ${fmt(fastest.medianUs)} | ${gap} | ${fmt(before)} |`,
    );
  }
}
rmSync(tmp, { recursive: true, force: true });
