// What a batched copy (one cudaMemcpyBatchAsync of a GPU's 3 peer copies) costs over the same
// copies submitted one by one, prelaunched, where the model times both alike but for the
// target's batchStartUs: each pair (batch+pl, b2b+pl; batch-rot+pl, b2b-rot+pl) measured in one
// runner process (the interleaved sizes), its difference per repetition, and their median.
//   node bench/hardware/2026-11-28-h100x4-heldout2/batch-start.mjs DIR SIZE...
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";

const [dir, ...sizes] = process.argv.slice(2);
const pairs = [
  ["all_gather_b2b/batch+pl", "all_gather_b2b/b2b+pl"],
  ["all_gather_b2b_rot/batch-rot+pl", "all_gather_b2b_rot/b2b-rot+pl"],
  ["all_to_all_b2b/batch+pl", "all_to_all_b2b/b2b+pl"],
  ["all_to_all_b2b_rot/batch-rot+pl", "all_to_all_b2b_rot/b2b-rot+pl"],
];
const diffs = [];
for (const rep of readdirSync(dir).filter((d) => /^rep\d+$/.test(d))) {
  const us = new Map();
  for (const r of JSON.parse(readFileSync(join(dir, rep, "results.json"), "utf8")).runs)
    us.set(r.label, r.medianUs);
  for (const size of sizes)
    for (const [batch, single] of pairs) {
      const d = us.get(`${batch}/${size}`) - us.get(`${single}/${size}`);
      if (Number.isNaN(d)) throw new Error(`${rep}: no ${batch}/${size} or ${single}/${size}`);
      diffs.push(d);
      console.log(`${rep} ${size} ${batch.padEnd(34)} - single: ${d.toFixed(2)} us`);
    }
}
diffs.sort((a, b) => a - b);
const n = diffs.length;
const median = n % 2 ? diffs[(n - 1) / 2] : (diffs[n / 2 - 1] + diffs[n / 2]) / 2;
console.log(
  `${n} pairs: median ${median.toFixed(3)} us (min ${diffs[0].toFixed(2)}, max ${diffs[n - 1].toFixed(2)})`,
);
