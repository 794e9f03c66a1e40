import { it } from "vitest";
import { loadSrcApi } from "../../../fuzz/api-src.js";
import { buildSimSeeds, runCase } from "../../../fuzz/engine.js";
import { decodeInput } from "../../../fuzz/regressions.js";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
const { api } = await loadSrcApi();
it("scratch", async () => {
  const seeds = buildSimSeeds(api, readdirSync("examples").filter((f) => f.endsWith(".dmac")).map((f) => ({ name: f, text: readFileSync(join("examples", f), "utf8") })));
  const dir = "test/fuzz-regressions/pending";
  for (const n of readdirSync(dir)) {
    const input = decodeInput(n, readFileSync(join(dir, n)));
    if (!input) continue;
    if (input.target === "sim-input") {
      const seed = seeds.find((s) => s.name === input.seedName)!;
      const orig = "manifest" in input.doc ? seed.manifest : seed.trace;
      const cur = "manifest" in input.doc ? input.doc.manifest : input.doc.trace;
      const diffs: string[] = [];
      const walk = (a: any, b: any, p: string) => { if (diffs.length > 5) return;
        if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) { if (JSON.stringify(a) !== JSON.stringify(b)) diffs.push(`${p}: ${JSON.stringify(a)?.slice(0,80)} -> ${JSON.stringify(b)?.slice(0,80)}`); return; }
        for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) walk(a[k], b[k], `${p}.${k}`); };
      walk(orig, cur, "");
      console.log(n, diffs);
      if (n.includes("67cd")) continue;
    }
    const f = await runCase(api, input, seeds, { timeBoundMs: 5000, maxOps: 20000, simulate: true });
    console.log(n, JSON.stringify(f).slice(0, 400));
  }
}, 120000);
