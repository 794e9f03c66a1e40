// How series tell apart: a colour from the Okabe-Ito palette (distinct for the common forms of
// colour blindness and in greyscale print, Okabe & Ito 2008), a marker shape and a dash pattern.
// The three cycle with pairwise coprime periods (8, 7, 5), so two series of one chart differ in at
// least two of them up to 35 series, and lines that coincide stay visible through each other's dashes
// and hollow markers.

import { el, px } from "./svg.js";

/** Okabe-Ito, black first and yellow last (the palest on white). */
export const PALETTE = [
  "#000000",
  "#E69F00",
  "#56B4E9",
  "#009E73",
  "#0072B2",
  "#D55E00",
  "#CC79A7",
  "#F0E442",
] as const;

export type Marker = "circle" | "square" | "triangle" | "diamond" | "down" | "plus" | "cross";
export const MARKERS: readonly Marker[] = [
  "circle",
  "square",
  "triangle",
  "diamond",
  "down",
  "plus",
  "cross",
];

/** stroke-dasharray values; "" is a solid line. */
export const DASHES = ["", "7 3", "2 2.5", "9 3 2 3", "4 2 4 5"] as const;

export interface SeriesStyle {
  readonly color: string;
  readonly marker: Marker;
  readonly dash: string;
}

export function seriesStyle(i: number): SeriesStyle {
  return {
    color: PALETTE[i % PALETTE.length]!,
    marker: MARKERS[i % MARKERS.length]!,
    dash: DASHES[i % DASHES.length]!,
  };
}

/** Marker half-size in px. */
export const MARKER_R = 3.5;

/** A hollow marker centred on (x, y): shapes drawn over each other all stay visible. */
export function marker(m: Marker, x: number, y: number, color: string): string {
  const r = MARKER_R;
  const a = { fill: "none", stroke: color, "stroke-width": 1.3 };
  const poly = (pts: readonly (readonly [number, number])[]): string =>
    el("polygon", { points: pts.map(([dx, dy]) => `${px(x + dx)},${px(y + dy)}`).join(" "), ...a });
  const path = (d: string): string => el("path", { d, ...a });
  switch (m) {
    case "circle":
      return el("circle", { cx: x, cy: y, r, ...a });
    case "square":
      return el("rect", { x: x - r, y: y - r, width: 2 * r, height: 2 * r, ...a });
    case "triangle":
      return poly([
        [0, -r * 1.2],
        [r * 1.1, r * 0.8],
        [-r * 1.1, r * 0.8],
      ]);
    case "down":
      return poly([
        [0, r * 1.2],
        [r * 1.1, -r * 0.8],
        [-r * 1.1, -r * 0.8],
      ]);
    case "diamond":
      return poly([
        [0, -r * 1.3],
        [r * 1.1, 0],
        [0, r * 1.3],
        [-r * 1.1, 0],
      ]);
    case "plus":
      return path(`M${px(x - r)} ${px(y)}H${px(x + r)}M${px(x)} ${px(y - r)}V${px(y + r)}`);
    case "cross":
      return path(
        `M${px(x - r)} ${px(y - r)}L${px(x + r)} ${px(y + r)}M${px(x - r)} ${px(y + r)}L${px(x + r)} ${px(y - r)}`,
      );
  }
}
