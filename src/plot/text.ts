// Text in the plots: escaping, and widths estimated from the advance widths of DejaVu Sans (the
// font the SVGs ask for and the PNG test renders with), so layout (margins, legend columns, the
// canvas width) fits the text without a browser to measure it.

/** DejaVu Sans advance widths of U+0020..U+007E, in 1/1000 em (read from DejaVuSans.ttf 2.37). */
const ASCII_WIDTHS = [
  318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636,
  636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632,
  575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732, 684, 989, 685,
  611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579,
  278, 974, 634, 612, 635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
];
/** Anything else (µ, ×, −, →): the widest of those, so estimates err on the wide side. */
const OTHER_WIDTH = 838;

/** The width of `text` at `size` px in DejaVu Sans (no kerning: an upper bound in practice). */
export function textWidth(text: string, size: number): number {
  let w = 0;
  for (const ch of text) {
    const c = ch.codePointAt(0)! - 32;
    w += c >= 0 && c < ASCII_WIDTHS.length ? ASCII_WIDTHS[c]! : OTHER_WIDTH;
  }
  return (w * size) / 1000;
}

export function esc(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");
}
