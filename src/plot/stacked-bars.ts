// Pairs of 100 % stacked bars per category (one bar per source, e.g. model beside measured):
// the calibration figure of docs/model.md. The paler bar of each pair is the second source; the
// legend names the parts and which bar is which.

import { legend, legendLayout, SAMPLE_W } from "./legend.js";
import { PALETTE } from "./style.js";
import { document, el, FONT, text, verticalText } from "./svg.js";
import { textWidth } from "./text.js";

export interface StackedPairs {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  readonly categories: readonly string[];
  /** The stacked parts, bottom first; colours come from the palette unless given. */
  readonly parts: readonly { readonly name: string; readonly color?: string }[];
  /** [category][bar 0 or 1][part]: percent. */
  readonly values: readonly (readonly (readonly number[])[])[];
  /** What the two bars of a pair are (the second is drawn pale). */
  readonly barNames: readonly [string, string];
}

const PAD = 14;
const PLOT_H = 280;
const BAR = 15;
const PALE = 0.45;

function partColor(p: StackedPairs["parts"][number], k: number): string {
  // Skip black: stacked areas read better in colour.
  return p.color ?? PALETTE[(k % (PALETTE.length - 1)) + 1]!;
}

/** One pair of bars, left edge at x, baseline at y0. */
function pair(c: StackedPairs, i: number, x: number, y0: number): string[] {
  const out: string[] = [];
  for (let b = 0; b < 2; b++) {
    let y = y0;
    c.parts.forEach((p, k) => {
      const h = ((c.values[i]![b]![k] ?? 0) / 100) * PLOT_H;
      y -= h;
      out.push(
        el("rect", {
          x: x + b * (BAR + 1),
          y,
          width: BAR,
          height: h,
          fill: partColor(p, k),
          "fill-opacity": b === 1 ? PALE : undefined,
        }),
      );
    });
  }
  return out;
}

export function stackedPairs(c: StackedPairs): string {
  const yTicks = [0, 25, 50, 75, 100];
  const left = PAD + FONT.label + 8 + textWidth("100 %", FONT.tick) + 7;
  const catLabelW = Math.max(...c.categories.map((s) => textWidth(s, FONT.tick)));
  const step = Math.max(2 * BAR + 14, catLabelW + 8);
  const plotW = c.categories.length * step;
  const entries = [
    ...c.parts.map((p, k) => ({
      name: p.name,
      sample: (x: number, y: number) =>
        el("rect", {
          x: x + SAMPLE_W / 2 - 12,
          y: y - 6,
          width: 24,
          height: 12,
          fill: partColor(p, k),
        }),
    })),
    {
      name: `left bar: ${c.barNames[0]}`,
      sample: (x: number, y: number) =>
        el("rect", { x: x + SAMPLE_W / 2 - 12, y: y - 6, width: 11, height: 12, fill: "#808080" }),
    },
    {
      name: `right bar (pale): ${c.barNames[1]}`,
      sample: (x: number, y: number) =>
        el("rect", {
          x: x + SAMPLE_W / 2 + 1,
          y: y - 6,
          width: 11,
          height: 12,
          fill: "#808080",
          "fill-opacity": PALE,
        }),
    },
  ];
  const inner = Math.max(left - PAD + plotW + 10, textWidth(c.title, FONT.title));
  const layout = legendLayout(entries, inner);
  const W = 2 * PAD + Math.max(inner, layout.width);
  const top = PAD + FONT.title + 16;
  const bottom = top + PLOT_H;
  const body = [
    text(W / 2, PAD + FONT.title, c.title, { "text-anchor": "middle", "font-size": FONT.title }),
  ];
  for (const pct of yTicks) {
    const y = bottom - (pct / 100) * PLOT_H;
    body.push(el("line", { x1: left - 4, y1: y, x2: left + plotW, y2: y, stroke: "#d0d0d0" }));
    body.push(
      text(left - 7, y, `${pct} %`, { "text-anchor": "end", "dominant-baseline": "central" }),
    );
  }
  c.categories.forEach((cat, i) => {
    const x = left + i * step + (step - 2 * BAR - 1) / 2;
    body.push(...pair(c, i, x, bottom));
    body.push(
      text(left + i * step + step / 2, bottom + 6 + FONT.tick, cat, { "text-anchor": "middle" }),
    );
  });
  body.push(
    el("rect", { x: left, y: top, width: plotW, height: PLOT_H, fill: "none", stroke: "#404040" }),
    verticalText(PAD + FONT.label, top + PLOT_H / 2, c.yLabel, { "font-size": FONT.label }),
    text(left + plotW / 2, bottom + 6 + FONT.tick + 10 + FONT.label, c.xLabel, {
      "text-anchor": "middle",
      "font-size": FONT.label,
    }),
  );
  const legendTop = bottom + 6 + FONT.tick + 10 + FONT.label + 14;
  body.push(...legend(entries, layout, (W - layout.width) / 2, legendTop));
  return document(W, legendTop + layout.height + PAD, body);
}
