// The few SVG building blocks the charts share: the document frame (one font for every text, the
// one the PNG test bundles), text and number formatting. Output is plain text, one element per
// line, with coordinates rounded to 0.1 px, so the same figures give the same bytes.

import { esc } from "./text.js";

/** The font every plot asks for; the PNG test loads DejaVu Sans under this name. */
export const FONT_FAMILY = "DejaVu Sans, sans-serif";

export const FONT = { title: 16, panel: 14, label: 13, tick: 11, legend: 12 } as const;

/** A coordinate: 0.1 px, no trailing ".0". */
export function px(v: number): string {
  return String(Math.round(v * 10) / 10);
}

export type Attrs = Readonly<Record<string, string | number | undefined>>;

function attrs(a: Attrs): string {
  return Object.entries(a)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => ` ${k}="${typeof v === "number" ? px(v) : esc(v!)}"`)
    .join("");
}

export function el(name: string, a: Attrs, body?: string): string {
  return body === undefined ? `<${name}${attrs(a)}/>` : `<${name}${attrs(a)}>${body}</${name}>`;
}

export function text(x: number, y: number, content: string, a: Attrs = {}): string {
  return el("text", { x, y, ...a }, esc(content));
}

/** Text rotated -90 degrees about (x, y), reading upwards (a y-axis label). */
export function verticalText(x: number, y: number, content: string, a: Attrs = {}): string {
  return el(
    "text",
    { transform: `translate(${px(x)} ${px(y)}) rotate(-90)`, "text-anchor": "middle", ...a },
    esc(content),
  );
}

/** The document: a white canvas of `width` x `height`, then `body`, one element per line. */
export function document(width: number, height: number, body: readonly string[]): string {
  const w = Math.ceil(width);
  const h = Math.ceil(height);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" font-family="${FONT_FAMILY}" font-size="${FONT.tick}">`,
    el("rect", { width: w, height: h, fill: "white", class: "background" }),
    ...body,
    "</svg>",
    "",
  ].join("\n");
}
