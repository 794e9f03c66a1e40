// Small, dependency-free SVG charts for the executor's outputs: log-log line plots (sweeps) and
// grouped stacked bars (the calibration breakdown in docs/model.md). Deterministic text output.

import { maxOf, minOf } from "../util/arrays.js";

export interface Series {
  readonly name: string;
  readonly color: string;
  readonly points: readonly (readonly [number, number])[];
  /** Plot against the right-hand axis. */
  readonly right?: boolean;
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function fmt(v: number): string {
  return Number(v.toPrecision(4)).toString();
}

/** A decade tick: plain digits from 0.01 to 1000, else 1e<exponent>. */
function decade(v: number): string {
  const e = Math.round(Math.log10(v));
  return e >= -2 && e <= 3 ? fmt(v) : `1e${e}`;
}

function logTicks(lo: number, hi: number): number[] {
  const out: number[] = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) out.push(10 ** e);
  return out;
}

function label(v: number, bytes: boolean): string {
  if (!bytes) return fmt(v);
  const u = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (v >= 1024 && i < u.length - 1) {
    v /= 1024;
    i++;
  }
  return `${fmt(v)} ${u[i]}`;
}

/** A log-log plot with a left and an optional right axis; x values are byte sizes (powers of 2). */
export function logLogPlot(opts: {
  title: string;
  xLabel: string;
  leftLabel: string;
  rightLabel?: string;
  series: readonly Series[];
}): string {
  const W = 720;
  const H = 420;
  const L = 80;
  const R = 80;
  const Tp = 40;
  const B = 60;
  const xs = opts.series.flatMap((s) => s.points.map((p) => p[0]));
  const range = (right: boolean): [number, number] => {
    const ys = opts.series
      .filter((s) => (s.right ?? false) === right)
      .flatMap((s) => s.points.map((p) => p[1]).filter((y) => y > 0));
    if (ys.length === 0) return [1, 10];
    return [10 ** Math.floor(Math.log10(minOf(ys))), 10 ** Math.ceil(Math.log10(maxOf(ys)))];
  };
  const [x0, x1] = [minOf(xs), maxOf(xs)];
  const yl = range(false);
  const yr = range(true);
  const px = (x: number): number =>
    L +
    ((Math.log2(x) - Math.log2(x0)) / Math.max(1e-9, Math.log2(x1) - Math.log2(x0))) * (W - L - R);
  const py = (y: number, [a, b]: [number, number]): number =>
    H - B - ((Math.log10(y) - Math.log10(a)) / (Math.log10(b) - Math.log10(a))) * (H - Tp - B);
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(
    `<text x="${W / 2}" y="22" text-anchor="middle" font-size="15">${esc(opts.title)}</text>`,
  );
  out.push(
    `<rect x="${L}" y="${Tp}" width="${W - L - R}" height="${H - Tp - B}" fill="none" stroke="#888"/>`,
  );
  // x ticks: every power of 4 of the sizes
  for (let x = x0; x <= x1; x *= 4) {
    const X = px(x).toFixed(1);
    out.push(`<line x1="${X}" y1="${Tp}" x2="${X}" y2="${H - B}" stroke="#eee"/>`);
    out.push(`<text x="${X}" y="${H - B + 16}" text-anchor="middle">${esc(label(x, true))}</text>`);
  }
  for (const t of logTicks(...yl)) {
    if (t < yl[0] || t > yl[1]) continue;
    const Y = py(t, yl).toFixed(1);
    out.push(`<line x1="${L}" y1="${Y}" x2="${W - R}" y2="${Y}" stroke="#eee"/>`);
    out.push(
      `<text x="${L - 6}" y="${Y}" text-anchor="end" dominant-baseline="middle">${fmt(t)}</text>`,
    );
  }
  if (opts.rightLabel)
    for (const t of logTicks(...yr)) {
      if (t < yr[0] || t > yr[1]) continue;
      out.push(
        `<text x="${W - R + 6}" y="${py(t, yr).toFixed(1)}" dominant-baseline="middle">${fmt(t)}</text>`,
      );
    }
  out.push(`<text x="${W / 2}" y="${H - 18}" text-anchor="middle">${esc(opts.xLabel)}</text>`);
  out.push(
    `<text transform="translate(18 ${H / 2}) rotate(-90)" text-anchor="middle">${esc(opts.leftLabel)}</text>`,
  );
  if (opts.rightLabel)
    out.push(
      `<text transform="translate(${W - 14} ${H / 2}) rotate(90)" text-anchor="middle">${esc(opts.rightLabel)}</text>`,
    );
  opts.series.forEach((s, i) => {
    const ax = s.right ? yr : yl;
    const pts = s.points
      .filter((p) => p[1] > 0)
      .map((p) => `${px(p[0]).toFixed(1)},${py(p[1], ax).toFixed(1)}`);
    out.push(
      `<polyline fill="none" stroke="${s.color}" stroke-width="2"${s.right ? ' stroke-dasharray="6 3"' : ""} points="${pts.join(" ")}"/>`,
    );
    out.push(`<text x="${L + 10}" y="${Tp + 16 + 16 * i}" fill="${s.color}">${esc(s.name)}</text>`);
  });
  out.push("</svg>");
  return out.join("\n") + "\n";
}

/** Pairs of 100 % stacked bars (model beside measured) per category. */
export function stackedPairs(opts: {
  title: string;
  categories: readonly string[];
  parts: readonly { readonly name: string; readonly color: string }[];
  /** [category][bar 0 = model, 1 = measured][part] percent. */
  values: readonly (readonly (readonly number[])[])[];
  barNames: readonly [string, string];
}): string {
  const n = opts.categories.length;
  const W = 60 + n * 44 + 160;
  const H = 380;
  const Tp = 40;
  const B = 50;
  const h = H - Tp - B;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`,
  );
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(
    `<text x="${(W - 160) / 2}" y="22" text-anchor="middle" font-size="14">${esc(opts.title)}</text>`,
  );
  for (const pct of [0, 25, 50, 75, 100]) {
    const y = Tp + h - (pct / 100) * h;
    out.push(`<line x1="50" y1="${y}" x2="${60 + n * 44}" y2="${y}" stroke="#eee"/>`);
    out.push(`<text x="46" y="${y}" text-anchor="end" dominant-baseline="middle">${pct}%</text>`);
  }
  opts.categories.forEach((c, i) => {
    for (let b = 0; b < 2; b++) {
      const x = 60 + i * 44 + b * 19;
      let y = Tp + h;
      opts.parts.forEach((p, k) => {
        const v = opts.values[i]![b]![k]!;
        const hh = (v / 100) * h;
        y -= hh;
        out.push(
          `<rect x="${x}" y="${y.toFixed(1)}" width="17" height="${hh.toFixed(1)}" fill="${p.color}"${b === 1 ? ' fill-opacity="0.55"' : ""}/>`,
        );
      });
    }
    out.push(
      `<text x="${60 + i * 44 + 18}" y="${Tp + h + 14}" text-anchor="middle">${esc(c)}</text>`,
    );
  });
  const lx = 70 + n * 44;
  opts.parts.forEach((p, k) => {
    out.push(`<rect x="${lx}" y="${Tp + 18 * k}" width="12" height="12" fill="${p.color}"/>`);
    out.push(`<text x="${lx + 18}" y="${Tp + 10 + 18 * k}">${esc(p.name)}</text>`);
  });
  out.push(
    `<text x="${lx}" y="${Tp + 18 * opts.parts.length + 16}">left bar: ${esc(opts.barNames[0])}</text>`,
  );
  out.push(
    `<text x="${lx}" y="${Tp + 18 * opts.parts.length + 32}">right bar (pale): ${esc(opts.barNames[1])}</text>`,
  );
  out.push("</svg>");
  return out.join("\n") + "\n";
}

export interface PlotLine {
  readonly name: string;
  readonly color: string;
  readonly dashed?: boolean | undefined;
  readonly points: readonly (readonly [number, number])[];
}

/**
 * Side-by-side log-log panels sharing the x axis (byte sizes) and one legend below them: the
 * comparison plot of `dmac sweep` (time in one panel, bus bandwidth in the other, one line per
 * variant). Each panel scales its y axis to whole decades around its data.
 */
export function sweepPlot(opts: {
  title: string;
  xLabel: string;
  panels: readonly { readonly yLabel: string; readonly series: readonly PlotLine[] }[];
}): string {
  const PW = 440; // panel width, including its left margin
  const L = 70;
  const Rm = 16;
  const Tp = 44;
  const PH = 300; // plot height
  const names = opts.panels[0]?.series ?? [];
  const legendCols = 2;
  const legendRows = Math.ceil(names.length / legendCols);
  const W = PW * opts.panels.length + 10;
  const H = Tp + PH + 56 + 18 * legendRows + 10;
  const xs = opts.panels.flatMap((p) => p.series.flatMap((s) => s.points.map((q) => q[0])));
  // Later lines are drawn thinner, on top of earlier ones: lines that coincide (variants whose
  // predicted times tie) stay visible as a thin line inside a wider one.
  const n = names.length;
  const width = (i: number): string => (n <= 1 ? 2 : 1.5 + (3 * (n - 1 - i)) / (n - 1)).toFixed(2);
  const x0 = xs.length > 0 ? minOf(xs) : 1;
  const x1 = xs.length > 0 ? maxOf(xs) : 2;
  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${W}" height="${H}" fill="white"/>`);
  out.push(
    `<text x="${W / 2}" y="22" text-anchor="middle" font-size="15">${esc(opts.title)}</text>`,
  );
  opts.panels.forEach((panel, pi) => {
    const left = pi * PW + L;
    const right = (pi + 1) * PW - Rm;
    const ys = panel.series.flatMap((s) => s.points.map((q) => q[1]).filter((y) => y > 0));
    const y0 = ys.length > 0 ? 10 ** Math.floor(Math.log10(minOf(ys))) : 1;
    let y1 = ys.length > 0 ? 10 ** Math.ceil(Math.log10(maxOf(ys))) : 10;
    if (y1 <= y0) y1 = y0 * 10;
    const px = (x: number): number =>
      left +
      ((Math.log2(x) - Math.log2(x0)) / Math.max(1e-9, Math.log2(x1) - Math.log2(x0))) *
        (right - left);
    const py = (y: number): number =>
      Tp + PH - ((Math.log10(y) - Math.log10(y0)) / (Math.log10(y1) - Math.log10(y0))) * PH;
    out.push(
      `<rect x="${left}" y="${Tp}" width="${right - left}" height="${PH}" fill="none" stroke="#888"/>`,
    );
    // At most ~6 x labels: a power-of-two step wide enough for the range.
    const step = 2 ** Math.max(1, Math.ceil(Math.log2(x1 / x0) / 6));
    for (let x = x0; x <= x1; x *= step) {
      const X = px(x).toFixed(1);
      out.push(`<line x1="${X}" y1="${Tp}" x2="${X}" y2="${Tp + PH}" stroke="#eee"/>`);
      out.push(
        `<text x="${X}" y="${Tp + PH + 16}" text-anchor="middle" font-size="10">${esc(label(x, true))}</text>`,
      );
    }
    for (const t of logTicks(y0, y1)) {
      if (t < y0 || t > y1) continue;
      const Y = py(t).toFixed(1);
      out.push(`<line x1="${left}" y1="${Y}" x2="${right}" y2="${Y}" stroke="#eee"/>`);
      out.push(
        `<text x="${left - 6}" y="${Y}" text-anchor="end" dominant-baseline="middle">${decade(t)}</text>`,
      );
    }
    out.push(
      `<text x="${(left + right) / 2}" y="${Tp + PH + 34}" text-anchor="middle">${esc(opts.xLabel)}</text>`,
    );
    out.push(
      `<text transform="translate(${left - 52} ${Tp + PH / 2}) rotate(-90)" text-anchor="middle">${esc(panel.yLabel)}</text>`,
    );
    panel.series.forEach((s, i) => {
      const pts = s.points
        .filter((q) => q[1] > 0)
        .map((q) => `${px(q[0]).toFixed(1)},${py(q[1]).toFixed(1)}`);
      if (pts.length === 0) return;
      out.push(
        `<polyline fill="none" stroke="${s.color}" stroke-width="${width(i)}"${s.dashed ? ' stroke-dasharray="6 3"' : ""} points="${pts.join(" ")}"><title>${esc(s.name)}</title></polyline>`,
      );
    });
  });
  const ly = Tp + PH + 52;
  names.forEach((s, i) => {
    // Column-major, so the legend reads down in the order of the table's columns.
    const x = 20 + Math.floor(i / legendRows) * ((W - 40) / legendCols);
    const y = ly + 18 * (i % legendRows);
    out.push(
      `<line x1="${x}" y1="${y}" x2="${x + 24}" y2="${y}" stroke="${s.color}" stroke-width="${width(i)}"${s.dashed ? ' stroke-dasharray="6 3"' : ""}/>`,
    );
    out.push(`<text x="${x + 30}" y="${y}" dominant-baseline="middle">${esc(s.name)}</text>`);
  });
  out.push("</svg>");
  return out.join("\n") + "\n";
}
