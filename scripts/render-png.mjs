// Renders dmac's plot SVGs to PNG with resvg (no browser), using one bundled font so the result
// does not depend on the machine's fonts, and measures what a test checks: the bounding box of
// everything drawn and of each text alone. Writes FILE.png beside each FILE.svg given:
//   node scripts/render-png.mjs docs/model-calibration.svg docs/sweeps/*/sweep.svg
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Resvg } from "@resvg/resvg-js";

const root = new URL("..", import.meta.url);
/**
 * THE font: DejaVu Sans (what the SVGs' font-family names first). From the npm package
 * dejavu-fonts-ttf when it is installed, else from Debian's fonts-dejavu-core.
 */
export const FONT_FILE = [
  fileURLToPath(new URL("node_modules/dejavu-fonts-ttf/ttf/DejaVuSans.ttf", root)),
  "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
].find((f) => existsSync(f));

function resvg(svg, background) {
  if (FONT_FILE === undefined)
    throw new Error("no DejaVuSans.ttf: install dejavu-fonts-ttf (npm) or fonts-dejavu-core (apt)");
  return new Resvg(svg, {
    font: { fontFiles: [FONT_FILE], loadSystemFonts: false, defaultFontFamily: "DejaVu Sans" },
    ...(background ? { background } : {}),
  });
}

/** The PNG of an SVG document, at its own size. */
export function renderPng(svg) {
  return resvg(svg, "white").render().asPng();
}

/** How far outside its canvas drawnBox looks, px. */
export const MARGIN = 60;

/**
 * The box of the pixels `svg` draws, {x, y, width, height} in its own units (the root's width
 * and viewBox must agree, as dmac's plots do), or undefined when it draws nothing. It renders on
 * a canvas MARGIN px larger on every side, so what a viewer would clip shows as x < 0 or beyond
 * the width. (Pixels, not resvg's innerBBox(), which clamps text to x >= 0.)
 */
export function drawnBox(svg) {
  const m = /^<svg [^>]*?width="([\d.]+)" height="([\d.]+)" viewBox="0 0 [\d.]+ [\d.]+"/.exec(svg);
  if (!m)
    throw new Error('drawnBox: the SVG does not start <svg ... width height viewBox="0 0 W H"');
  const w = Number(m[1]) + 2 * MARGIN;
  const h = Number(m[2]) + 2 * MARGIN;
  const grown = svg.replace(
    m[0],
    m[0].replace(
      /width="[\d.]+" height="[\d.]+" viewBox="[^"]*"/,
      `width="${w}" height="${h}" viewBox="${-MARGIN} ${-MARGIN} ${w} ${h}"`,
    ),
  );
  const img = resvg(grown).render();
  // One 32-bit word per RGBA pixel: a pixel nothing was drawn on is all zero (transparent).
  const px = new Uint32Array(img.pixels.buffer);
  let [x0, y0, x1, y1] = [Infinity, Infinity, -1, -1];
  for (let y = 0, i = 0; y < img.height; y++)
    for (let x = 0; x < img.width; x++, i++)
      if (px[i] !== 0) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        y1 = y;
      }
  if (x1 < 0) return undefined;
  return { x: x0 - MARGIN, y: y0 - MARGIN, width: x1 - x0 + 1, height: y1 - y0 + 1 };
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  for (const file of process.argv.slice(2)) {
    const out = file.replace(/\.svg$/, ".png");
    writeFileSync(out, renderPng(readFileSync(file, "utf8")));
    console.log(`wrote ${out}`);
  }
