// The line chart's SVG, byte for byte (golden: bless with -u after looking at the PNG of it,
// `node scripts/render-png.mjs test/unit/plot/__snapshots__/line-chart.svg`), and its parts.

import { describe, expect, it } from "vitest";
import { logAxis, tickLabel } from "../../../src/plot/axis.js";
import { lineChart } from "../../../src/plot/line-chart.js";
import { DASHES, MARKERS, PALETTE, seriesStyle } from "../../../src/plot/style.js";

const sizes = [1024, 2048, 4096, 8192, 16384];

describe("lineChart", () => {
  it("draws two panels, one legend, markers and dashes (golden)", async () => {
    const svg = lineChart({
      title: "all-gather <two> & variants",
      xLabel: "chunk size",
      xUnit: "bytes",
      panels: [
        { title: "Time", yLabel: "time, lower is better", yUnit: "us" },
        { title: "Bus bandwidth", yLabel: "busbw (GB/s), higher is better", yUnit: "number" },
      ],
      series: ["pcpy", "b2b +prelaunch"].map((name, k) => ({
        name,
        points: [
          sizes.map((b) => [b, 10 + b / (1000 * (k + 1))] as const),
          sizes.map((b) => [b, b / (10 + b / (1000 * (k + 1))) / 1e3] as const),
        ],
      })),
    });
    await expect(svg).toMatchFileSnapshot("__snapshots__/line-chart.svg");
    expect(svg.match(/<g class="legend-entry">/g)).toHaveLength(2);
    expect(svg).toContain("all-gather &lt;two&gt; &amp; variants");
    // A deterministic function of its input.
    expect(lineChart({ title: "t", xLabel: "x", xUnit: "bytes", panels: [], series: [] })).toBe(
      lineChart({ title: "t", xLabel: "x", xUnit: "bytes", panels: [], series: [] }),
    );
  });
});

describe("axes", () => {
  it("labels sizes with IEC units at powers of two, times with SI units, numbers plainly", () => {
    const x = logAxis("bytes", [128, 2 ** 30]);
    expect(x.major.map((v) => tickLabel("bytes", v))).toEqual([
      "1 KiB",
      "32 KiB",
      "1 MiB",
      "32 MiB",
      "1 GiB",
    ]);
    expect([x.lo, x.hi]).toEqual([128, 2 ** 30]);
    const t = logAxis("us", [0.2, 1500]);
    expect(t.major.map((v) => tickLabel("us", v))).toEqual([
      "100 ns",
      "1 µs",
      "10 µs",
      "100 µs",
      "1 ms",
      "10 ms",
    ]);
    expect(logAxis("number", [0.003, 350]).major.map((v) => tickLabel("number", v))).toEqual([
      "0.001",
      "0.01",
      "0.1",
      "1",
      "10",
      "100",
      "1 000",
    ]);
    expect([1e3, 2e4, 5e5, 1e6].map((v) => tickLabel("number", v))).toEqual([
      "1 000",
      "20 000",
      "500 000",
      "1e6",
    ]);
    expect(logAxis("number", [12, 30]).major).toEqual([10, 20, 50, 100]);
    expect(tickLabel("us", 1e6)).toBe("1 s");
  });

  it("gives a one-value range room on both sides", () => {
    const a = logAxis("bytes", [4096]);
    expect([a.lo, a.hi]).toEqual([2048, 8192]);
    const b = logAxis("us", [10]);
    expect([b.lo, b.hi]).toEqual([10, 100]);
  });
});

describe("series styles", () => {
  it("differ in at least two of colour, marker and dash for 35 series", () => {
    for (let i = 0; i < 35; i++)
      for (let j = i + 1; j < 35; j++) {
        const [a, b] = [seriesStyle(i), seriesStyle(j)];
        const same = [a.color === b.color, a.marker === b.marker, a.dash === b.dash];
        expect(same.filter(Boolean).length, `${i} ${j}`).toBeLessThanOrEqual(1);
      }
    expect([PALETTE.length, MARKERS.length, DASHES.length]).toEqual([8, 7, 5]);
  });
});
