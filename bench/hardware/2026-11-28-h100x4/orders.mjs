// Issue 32: the time of one stream per peer on 4 GPUs (every GPU one copy of c to each peer, one
// at a time) over all 6^4 = 1296 engine orders, each receiver's ingress shared max-min fairly
// (the executor's fabric, docs/model.md "Fabric"), in copy-times c. Prints the distribution,
// its mean and median, and the ascending order's time. node bench/hardware/2026-11-28-h100x4/orders.mjs
const G = 4;
const perms = (a) =>
  a.length <= 1
    ? [a]
    : a.flatMap((x, i) => perms([...a.slice(0, i), ...a.slice(i + 1)]).map((p) => [x, ...p]));

/** The makespan of the copies in `orders` (per GPU, its destinations in turn). */
function makespan(orders) {
  const at = new Array(G).fill(0);
  const left = new Array(G).fill(1);
  let t = 0;
  for (;;) {
    const active = [...Array(G).keys()].filter((g) => at[g] < G - 1);
    if (active.length === 0) return t;
    const writers = new Array(G).fill(0);
    for (const g of active) writers[orders[g][at[g]]]++;
    const rate = (g) => 1 / writers[orders[g][at[g]]];
    const dt = Math.min(...active.map((g) => left[g] / rate(g)));
    t += dt;
    for (const g of active) {
      left[g] -= rate(g) * dt;
      if (left[g] < 1e-9) [at[g], left[g]] = [at[g] + 1, 1];
    }
  }
}

const choices = [...Array(G).keys()].map((g) => perms([...Array(G).keys()].filter((d) => d !== g)));
const times = [];
const walk = (g, chosen) =>
  g === G ? times.push(makespan(chosen)) : choices[g].forEach((p) => walk(g + 1, [...chosen, p]));
walk(0, []);
times.sort((a, b) => a - b);
const hist = {};
for (const t of times) hist[t.toFixed(2)] = (hist[t.toFixed(2)] ?? 0) + 1;
for (const [c, n] of Object.entries(hist).sort((a, b) => a[0] - b[0]))
  console.log(`${c}c\t${((100 * n) / times.length).toFixed(1)} %`);
const mean = times.reduce((a, b) => a + b, 0) / times.length;
console.log(
  `mean ${mean.toFixed(2)}c, median ${times[(times.length - 1) >> 1]}c, ascending ${makespan(choices.map((c) => c[0]))}c`,
);
