// The figures people read, rendered to PNG headless (resvg, the bundled DejaVu Sans): the example
// sweeps and the calibration figure in docs/, and charts made to stress the layout (long names,
// many series, one point). Nothing may be clipped or overlap (clipping.ts).

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FONT_FILE, renderPng } from "../../../scripts/render-png.mjs";
import { lineChart } from "../../../src/plot/line-chart.js";
import { stackedPairs } from "../../../src/plot/stacked-bars.js";
import { clippingProblems } from "./clipping.js";

const DOCS_FIGURES = [
  "docs/sweeps/all_gather/sweep.svg",
  "docs/sweeps/all_to_all/sweep.svg",
  "docs/model-calibration.svg",
];

const sizes = Array.from({ length: 24 }, (_, i) => 128 * 2 ** i);

/** Charts whose text pushes every margin: long labels, many series, tiny and huge values. */
const STRESS: Record<string, string> = {
  "many series, long names": lineChart({
    title:
      "a sweep with many variants and a title long enough to be wider than both panels together, as titles get",
    xLabel: "chunk size",
    xUnit: "bytes",
    panels: [
      { title: "Time", yLabel: "time, lower is better", yUnit: "us" },
      { title: "Bus bandwidth", yLabel: "busbw (GB/s), higher is better", yUnit: "number" },
    ],
    series: Array.from({ length: 14 }, (_, k) => ({
      name: `variant ${k} ${"x".repeat(k * 3)} engines=single:8`,
      points: [
        sizes.map((b) => [b, 0.0007 * (k + 1) + b / 4e4] as const),
        sizes.map((b) => [b, b / (1 + 0.0007 * (k + 1) + b / 4e4) / 1e3] as const),
      ],
    })),
  }),
  "one point": lineChart({
    title: "one",
    xLabel: "chunk size",
    xUnit: "bytes",
    panels: [{ title: "Time", yLabel: "time", yUnit: "us" }],
    series: [{ name: "a", points: [[[1 << 30, 123456]]] }],
  }),
  "bars with long categories": stackedPairs({
    title: "t",
    xLabel: "size",
    yLabel: "share",
    categories: ["1 KiB", "1023.5 MiB", "a very long category"],
    parts: [{ name: "one" }, { name: "two" }],
    values: [
      [
        [50, 50],
        [20, 80],
      ],
      [
        [10, 90],
        [0, 100],
      ],
      [
        [100, 0],
        [30, 70],
      ],
    ],
    barNames: ["model", "measured"],
  }),
};

// Each text is rendered alone (clipping.ts): a few seconds per figure on a loaded machine.
describe("plots rendered to PNG", { timeout: 60_000 }, () => {
  it("has DejaVu Sans to render text with", () => {
    expect(FONT_FILE, "install dejavu-fonts-ttf (npm) or fonts-dejavu-core (apt)").toBeDefined();
  });

  it.each(DOCS_FIGURES)("%s: nothing clipped, no text overlaps", (file) => {
    const svg = readFileSync(file, "utf8");
    expect(clippingProblems(svg)).toEqual([]);
    const png = renderPng(svg);
    expect(png.subarray(1, 4).toString()).toBe("PNG");
  });

  it.each(Object.keys(STRESS))("%s: nothing clipped, no text overlaps", (name) => {
    expect(clippingProblems(STRESS[name]!)).toEqual([]);
  });

  it("finds a clipped label (the check can fail)", () => {
    const svg = STRESS["one point"]!.replace(/<text x="[\d.]+"(?=[^\n]*>one<)/, '<text x="-20"');
    expect(clippingProblems(svg).join("\n")).toMatch(/outside the canvas/);
  });
});
