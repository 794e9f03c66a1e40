/** The font file the PNGs are rendered with (DejaVu Sans), or undefined when none is found. */
export const FONT_FILE: string | undefined;
/** How far outside its canvas drawnBox looks, px. */
export const MARGIN: number;
/** The PNG of an SVG document, at its own size. */
export function renderPng(svg: string): Buffer;
/** The box of the pixels `svg` draws, in its own units, or undefined when it draws nothing. */
export function drawnBox(
  svg: string,
): { x: number; y: number; width: number; height: number } | undefined;
