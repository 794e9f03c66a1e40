// Small, dependency-free SVG charts for the executor's outputs: log-log line plots (sweeps) and
// grouped stacked bars (the calibration breakdown in docs/model.md). Deterministic text output.

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
    return [
      10 ** Math.floor(Math.log10(Math.min(...ys))),
      10 ** Math.ceil(Math.log10(Math.max(...ys))),
    ];
  };
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
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
