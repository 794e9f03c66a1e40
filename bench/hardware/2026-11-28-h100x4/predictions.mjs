// The predictions of the programs prepare.sh compiled into DIR (each program.json's predictedUs,
// the executor's time for the target it was compiled for), as predictions.tsv rows:
// example, variant, bytes per rank, µs.
//   node bench/hardware/2026-11-28-h100x4/predictions.mjs DIR "# header" > predictions.tsv
import { readFileSync } from "node:fs";
import { join } from "node:path";

const [dir, header] = process.argv.slice(2);
if (header) console.log(header);
for (const line of readFileSync(join(dir, "programs/list.tsv"), "utf8").split("\n")) {
  const [example, variant, size, rel] = line.split("\t");
  if (!rel) continue;
  const p = JSON.parse(readFileSync(join(dir, "programs", rel, "program.json"), "utf8"));
  console.log([example, variant, size, p.predictedUs.toFixed(3)].join("\t"));
}
