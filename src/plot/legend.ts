// One legend for a whole figure, laid out in as many equal columns as fit the width, read down
// each column in the series' order. Each entry is one <g class="legend-entry"> line, so a test can
// find the entries and check that none overlaps another.

import { FONT, el, text } from "./svg.js";
import { textWidth } from "./text.js";

export interface LegendEntry {
  readonly name: string;
  /** The sample drawn before the name, as SVG elements, in a SAMPLE_W x ROW_H box at (0, 0). */
  readonly sample: (x: number, yMid: number) => string;
}

export const SAMPLE_W = 34;
const GAP = 6;
const COLUMN_GAP = 20;
export const ROW_H = 19;

export interface LegendLayout {
  readonly columns: number;
  readonly rows: number;
  readonly columnWidth: number;
  /** The legend's width and height. */
  readonly width: number;
  readonly height: number;
}

/** Columns of the widest entry's width, as many as fit `maxWidth` (at least one). */
export function legendLayout(entries: readonly LegendEntry[], maxWidth: number): LegendLayout {
  const widest = Math.max(0, ...entries.map((e) => textWidth(e.name, FONT.legend)));
  const columnWidth = SAMPLE_W + GAP + widest + COLUMN_GAP;
  const fit = Math.max(1, Math.floor((maxWidth + COLUMN_GAP) / columnWidth));
  const columns = Math.min(fit, Math.max(1, entries.length));
  const rows = Math.ceil(entries.length / columns);
  return {
    columns,
    rows,
    columnWidth,
    width: columns * columnWidth - COLUMN_GAP,
    height: rows * ROW_H,
  };
}

/** The legend's elements with its top left corner at (x, y). */
export function legend(
  entries: readonly LegendEntry[],
  layout: LegendLayout,
  x: number,
  y: number,
): string[] {
  return entries.map((e, i) => {
    const cx = x + Math.floor(i / layout.rows) * layout.columnWidth;
    const cy = y + (i % layout.rows) * ROW_H + ROW_H / 2;
    return el(
      "g",
      { class: "legend-entry" },
      e.sample(cx, cy) +
        text(cx + SAMPLE_W + GAP, cy, e.name, {
          "dominant-baseline": "central",
          "font-size": FONT.legend,
        }),
    );
  });
}
