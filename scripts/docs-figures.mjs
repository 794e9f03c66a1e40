// Regenerates the figures of the docs: the example sweeps (docs/sweeps/<collective>/ table.txt,
// sweep.csv, sweep.svg and sweep.png) and the calibration figure (docs/model-calibration.svg and
// .png). Run after `npm run build`; about a minute on 2 cores:
//   node scripts/docs-figures.mjs [--out DIR]     (DIR instead of docs/, e.g. to compare)
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { renderPng } from "./render-png.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const at = process.argv.indexOf("--out");
const docs = at > 0 ? process.argv[at + 1] : join(root, "docs");
const E = "examples";

/** The sweeps of docs/sweeps/README.md: directory, title, variants (FILE@SPEC=LABEL). */
export const SWEEPS = [
  {
    dir: "all_gather",
    title: "all-gather, 8 MI300X GPUs (executor model), chunk = per-rank block",
    variants: [
      `${E}/all_gather_pcpy.dmac@O0=pcpy`,
      `${E}/all_gather_pcpy.dmac@O0,prelaunch=pcpy_pl`,
      `${E}/all_gather_bcst.dmac@O0=bcst`,
      `${E}/all_gather_bcst.dmac@O0,prelaunch=bcst_pl`,
      `${E}/all_gather_b2b.dmac@O1=b2b`,
      `${E}/all_gather_b2b.dmac@O1,prelaunch=b2b_pl`,
      `${E}/all_gather_pcpy.dmac@O1=O1`,
      `${E}/all_gather_pcpy.dmac@O2=O2`,
    ],
  },
  {
    dir: "all_to_all",
    title: "all-to-all, 8 MI300X GPUs (executor model), chunk = per-peer block",
    variants: [
      `${E}/all_to_all_pcpy.dmac@O0=pcpy`,
      `${E}/all_to_all_pcpy.dmac@O0,prelaunch=pcpy_pl`,
      `${E}/all_to_all_b2b.dmac@O1=b2b`,
      `${E}/all_to_all_b2b.dmac@O1,prelaunch=b2b_pl`,
      `${E}/all_to_all_pcpy.dmac@O1=O1`,
      `${E}/all_to_all_pcpy.dmac@O2=O2`,
      `${E}/all_to_all_swap.dmac@O0=swap`,
      `${E}/all_to_all_swap.dmac@O0,prelaunch=swap_pl`,
      `${E}/all_to_all_swap.dmac@O2=swap_O2`,
    ],
  },
];

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const s of SWEEPS) {
    const out = join(docs, "sweeps", s.dir);
    mkdirSync(out, { recursive: true });
    const args = [...s.variants, "--param", "chunk", "--sizes", "128B..1GiB", "--baseline", "pcpy"];
    const table = execFileSync(
      process.execPath,
      ["bin/dmac.js", "sweep", ...args, "--explain-plan", "--out", out, "--title", s.title],
      { cwd: root, encoding: "utf8" },
    );
    writeFileSync(join(out, "table.txt"), table);
    writeFileSync(join(out, "sweep.png"), renderPng(readFileSync(join(out, "sweep.svg"), "utf8")));
    console.log(`wrote ${out}/{table.txt,sweep.csv,sweep.svg,sweep.png}`);
  }
  const calibration = execFileSync(process.execPath, ["scripts/model-calibration.mjs"], {
    cwd: root,
    encoding: "utf8",
  });
  const svg = join(root, "docs", "model-calibration.svg");
  writeFileSync(join(docs, "model-calibration.png"), renderPng(readFileSync(svg, "utf8")));
  console.log(calibration.trimEnd());
  console.log(`wrote ${join(docs, "model-calibration.png")}`);
}
