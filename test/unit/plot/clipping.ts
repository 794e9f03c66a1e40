// What the PNG tests check of a plot SVG, with resvg (scripts/render-png.mjs, one bundled font):
// everything drawn lies inside the canvas, every text is drawn (the font loaded) and inside it,
// and no two texts and no two legend entries overlap.

import { drawnBox } from "../../../scripts/render-png.mjs";

export interface Box {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** Slack for anti-aliased edges: boxes are whole pixels, px. */
const EPS = 1;

function canvasOf(svg: string): Box {
  const m = /<svg [^>]*width="(\d+)" height="(\d+)"/.exec(svg);
  if (!m) throw new Error("no <svg width height>");
  return { x: 0, y: 0, width: Number(m[1]), height: Number(m[2]) };
}

const inside = (b: Box, c: Box): boolean =>
  b.x >= c.x - EPS &&
  b.y >= c.y - EPS &&
  b.x + b.width <= c.x + c.width + EPS &&
  b.y + b.height <= c.y + c.height + EPS;

const overlap = (a: Box, b: Box): boolean =>
  a.x < b.x + b.width - EPS &&
  b.x < a.x + a.width - EPS &&
  a.y < b.y + b.height - EPS &&
  b.y < a.y + a.height - EPS;

/** The box of one element (a line of the SVG) drawn alone on the same canvas. */
function boxOfElement(head: string, element: string): Box | undefined {
  return drawnBox(`${head}\n${element}\n</svg>\n`);
}

/** Problems found, as sentences (empty: nothing clipped, nothing overlaps). */
export function clippingProblems(svg: string): string[] {
  const problems: string[] = [];
  const canvas = canvasOf(svg);
  const lines = svg.split("\n");
  const head = lines[0]!;
  // Everything but the white background.
  const all = drawnBox(lines.filter((l) => !l.includes('class="background"')).join("\n"));
  if (!all || !inside(all, canvas))
    problems.push(`drawing ${JSON.stringify(all)} leaves the canvas ${JSON.stringify(canvas)}`);
  const texts = lines.filter((l) => l.startsWith("<text"));
  const entries = lines.filter((l) => l.startsWith('<g class="legend-entry"'));
  const boxes = new Map<string, Box>();
  for (const t of [...texts, ...entries]) {
    const b = boxOfElement(head, t);
    if (!b || b.width <= 0) problems.push(`not drawn (no font?): ${t}`);
    else if (!inside(b, canvas)) problems.push(`outside the canvas: ${t}`);
    else boxes.set(t, b);
  }
  for (const group of [texts, entries])
    for (let i = 0; i < group.length; i++)
      for (let j = i + 1; j < group.length; j++) {
        const [a, b] = [boxes.get(group[i]!), boxes.get(group[j]!)];
        if (a && b && overlap(a, b)) problems.push(`overlap: ${group[i]} and ${group[j]}`);
      }
  return problems;
}
