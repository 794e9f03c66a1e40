// Log-log line charts in side-by-side panels that share the x axis and one legend below them:
// `dmac sweep`'s figure (time in one panel, bus bandwidth in the other, one series per variant).
// Layout is computed from the text it must hold (tick labels, axis labels, title, legend), so
// nothing is clipped whatever the labels are.

import { logAxis, position, tickLabel, type AxisUnit, type LogAxis } from "./axis.js";
import { legend, legendLayout, SAMPLE_W, type LegendEntry } from "./legend.js";
import { marker, seriesStyle, type SeriesStyle } from "./style.js";
import { document, el, FONT, px, text, verticalText } from "./svg.js";
import { esc, textWidth } from "./text.js";

export type Point = readonly [number, number];

export interface PanelSpec {
  readonly title: string;
  readonly yLabel: string;
  readonly yUnit: AxisUnit;
}

export interface ChartSeries {
  readonly name: string;
  /** The series' points in each panel (x, y); points with y <= 0 are left out (log axes). */
  readonly points: readonly (readonly Point[])[];
}

export interface LineChart {
  readonly title: string;
  readonly xLabel: string;
  readonly xUnit: AxisUnit;
  readonly panels: readonly PanelSpec[];
  readonly series: readonly ChartSeries[];
}

const PAD = 14;
const PLOT_W = 380;
const PLOT_H = 270;
const TICK = 4;

interface Box {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/** Grid, frame, ticks and labels of one panel's axes. */
function axes(box: Box, x: LogAxis, y: LogAxis, spec: PanelSpec, xLabel: string): string[] {
  const out: string[] = [];
  const X = (v: number): number => box.left + position(x, v) * box.width;
  const Y = (v: number): number => box.top + (1 - position(y, v)) * box.height;
  const bottom = box.top + box.height;
  const right = box.left + box.width;
  const grid = (v: number, major: boolean, vertical: boolean): string =>
    vertical
      ? el("line", {
          x1: X(v),
          y1: box.top,
          x2: X(v),
          y2: bottom + (major ? TICK : TICK / 2),
          stroke: major ? "#d0d0d0" : "#ececec",
        })
      : el("line", {
          x1: box.left - (major ? TICK : TICK / 2),
          y1: Y(v),
          x2: right,
          y2: Y(v),
          stroke: major ? "#d0d0d0" : "#ececec",
        });
  for (const v of x.minor) out.push(grid(v, false, true));
  for (const v of y.minor) out.push(grid(v, false, false));
  for (const v of x.major) out.push(grid(v, true, true));
  for (const v of y.major) out.push(grid(v, true, false));
  out.push(
    el("rect", {
      x: box.left,
      y: box.top,
      width: box.width,
      height: box.height,
      fill: "none",
      stroke: "#404040",
    }),
  );
  for (const v of x.major)
    out.push(
      text(X(v), bottom + TICK + 3 + FONT.tick, tickLabel(x.unit, v), { "text-anchor": "middle" }),
    );
  for (const v of y.major)
    out.push(
      text(box.left - TICK - 3, Y(v), tickLabel(y.unit, v), {
        "text-anchor": "end",
        "dominant-baseline": "central",
      }),
    );
  const yTicksW = Math.max(...y.major.map((v) => textWidth(tickLabel(y.unit, v), FONT.tick)));
  out.push(
    verticalText(box.left - TICK - 3 - yTicksW - 8, box.top + box.height / 2, spec.yLabel, {
      "font-size": FONT.label,
    }),
    text(box.left + box.width / 2, bottom + TICK + 3 + FONT.tick + 8 + FONT.label, xLabel, {
      "text-anchor": "middle",
      "font-size": FONT.label,
    }),
    text(box.left + box.width / 2, box.top - 8, spec.title, {
      "text-anchor": "middle",
      "font-size": FONT.panel,
      "font-weight": "bold",
    }),
  );
  return out;
}

/** One series in one panel: its line, then a marker on every point. */
function seriesMarks(
  box: Box,
  x: LogAxis,
  y: LogAxis,
  name: string,
  pts: readonly Point[],
  s: SeriesStyle,
): string[] {
  const at = pts
    .filter(([a, b]) => a > 0 && b > 0)
    .map(
      ([a, b]) =>
        [
          box.left + position(x, a) * box.width,
          box.top + (1 - position(y, b)) * box.height,
        ] as const,
    );
  if (at.length === 0) return [];
  const line = el(
    "polyline",
    {
      fill: "none",
      stroke: s.color,
      "stroke-width": 1.6,
      "stroke-dasharray": s.dash || undefined,
      points: at.map(([a, b]) => `${px(a)},${px(b)}`).join(" "),
    },
    `<title>${esc(name)}</title>`,
  );
  return [line, ...at.map(([a, b]) => marker(s.marker, a, b, s.color))];
}

/** The sample of a series in the legend: a stretch of its line with its marker in the middle. */
function sample(s: SeriesStyle): LegendEntry["sample"] {
  return (x, y) =>
    el("line", {
      x1: x,
      y1: y,
      x2: x + SAMPLE_W,
      y2: y,
      stroke: s.color,
      "stroke-width": 1.6,
      "stroke-dasharray": s.dash || undefined,
    }) + marker(s.marker, x + SAMPLE_W / 2, y, s.color);
}

/** The chart as an SVG document. */
export function lineChart(c: LineChart): string {
  const x = logAxis(
    c.xUnit,
    c.series.flatMap((s) => s.points.flatMap((p) => p.map((q) => q[0]))),
  );
  const ys = c.panels.map((p, i) =>
    logAxis(
      p.yUnit,
      c.series.flatMap((s) => (s.points[i] ?? []).map((q) => q[1])),
    ),
  );
  // Each panel: y label, tick labels, the plot, and room for half the last x tick label.
  const lefts = ys.map(
    (y) =>
      FONT.label +
      8 +
      Math.max(...y.major.map((v) => textWidth(tickLabel(y.unit, v), FONT.tick))) +
      TICK +
      3,
  );
  const tail = textWidth(tickLabel(x.unit, x.hi), FONT.tick) / 2 + 10;
  const panelsW = lefts.reduce((a, l) => a + l + PLOT_W + tail, 0);
  const styles = c.series.map((_, i) => seriesStyle(i));
  const entries = c.series.map((s, i) => ({ name: s.name, sample: sample(styles[i]!) }));
  const layout = legendLayout(entries, Math.max(panelsW, textWidth(c.title, FONT.title)));
  const W = 2 * PAD + Math.max(panelsW, layout.width, textWidth(c.title, FONT.title));
  const top = PAD + FONT.title + 12 + FONT.panel + 8;
  const legendTop = top + PLOT_H + TICK + 3 + FONT.tick + 8 + FONT.label + 16;
  const H = legendTop + layout.height + PAD;
  const body: string[] = [
    text(W / 2, PAD + FONT.title, c.title, { "text-anchor": "middle", "font-size": FONT.title }),
  ];
  let left = (W - panelsW) / 2;
  c.panels.forEach((p, i) => {
    const box = { left: left + lefts[i]!, top, width: PLOT_W, height: PLOT_H };
    body.push(...axes(box, x, ys[i]!, p, c.xLabel));
    c.series.forEach((s, k) =>
      body.push(...seriesMarks(box, x, ys[i]!, s.name, s.points[i] ?? [], styles[k]!)),
    );
    left += lefts[i]! + PLOT_W + tail;
  });
  body.push(...legend(entries, layout, (W - layout.width) / 2, legendTop));
  return document(W, H, body);
}
