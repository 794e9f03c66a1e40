// Executor throughput measurement (a benchmark helper, not a test: nothing here asserts a time).
// Compiles each input with the real pipeline (compileToQueues + buildOutputs, -O0), then runs
// simulate() -- decode the packet streams, execute, check the postcondition -- once to warm up and
// `runs` more times, and prints the median / min / max wall time, the median CPU time and packets
// per second (median wall), plus a fingerprint of the result (verdict, diagnostics, statistics)
// so that two builds can be checked to report the same thing.
//
//   npm run build && node test/unit/sim/throughput.mjs [a2a256,a2a2048,fwd1m|all] [runs]
//   DMAC_DIST=/other/dist node test/unit/sim/throughput.mjs a2a2048 5   (compare another build)
//
// Inputs: the 8-GPU all-to-all with 256 and 2,048 chunks per pair (one copy + completion atomic
// per chunk), and a 1,000,000-operation pipelined program (every rank pushes 64-byte blocks to a
// rotating peer, which moves each on locally after a cross-queue signal + poll).

import { createHash } from "node:crypto";
import { pathToFileURL } from "node:url";

const dist = process.env.DMAC_DIST
  ? pathToFileURL(process.env.DMAC_DIST).href
  : new URL("../../../dist", import.meta.url).href;
const { compileToQueues } = await import(`${dist}/driver/compile.js`);
const { buildOutputs } = await import(`${dist}/driver/outputs.js`);
const { makeSourceFile } = await import(`${dist}/source/source-file.js`);
const { simulate } = await import(`${dist}/sim/run.js`);

const allToAll = (C) => `target mi300x
schedule a2a(chunk: bytes = 4KiB, C: int = ${C}) implements all_to_all(src, dst) {
  buffer src: chunk * C * ranks
  buffer dst: chunk * C * ranks
  for r in ranks, p in ranks, c in 0..C {
    copy src@r[(p * C + c) * chunk +: chunk] -> dst@p[(r * C + c) * chunk +: chunk]
  }
}
`;
const forward = (ops) => `target mi300x
schedule forward(blk: bytes = 64B, k: int = ${ops / 16}) {
  buffer src: blk * k
  buffer mid: blk * k
  buffer dst: blk * k
  for r in ranks, i in 0..k {
    copy src@r[i * blk +: blk] -> mid@((r + 1 + i % 7) % ranks)[i * blk +: blk]
    copy mid@((r + 1 + i % 7) % ranks)[i * blk +: blk] -> dst@((r + 1 + i % 7) % ranks)[i * blk +: blk]
  }
}
`;
const INPUTS = {
  a2a256: () => allToAll(256),
  a2a2048: () => allToAll(2048),
  fwd100k: () => forward(100_000),
  fwd1m: () => forward(1_000_000),
};

function compile(name, text) {
  const file = makeSourceFile(`${name}.dmac`, text);
  const q = compileToQueues(file, { maxOps: 10_000_000 });
  if (!q.compiled) throw new Error(q.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  const out = buildOutputs(file, q.compiled, { emit: ["sdma"] });
  if (!out.files) throw new Error(out.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  const streams = new Map();
  let manifest;
  for (const f of out.files) {
    if (f.name === "manifest.json")
      manifest = JSON.parse(typeof f.data === "string" ? f.data : new TextDecoder().decode(f.data));
    else if (f.name.endsWith(".bin"))
      streams.set(
        f.name,
        new Uint32Array(
          f.data.buffer.slice(f.data.byteOffset, f.data.byteOffset + f.data.byteLength),
        ),
      );
  }
  return { manifest, streams, module: q.compiled.module, target: q.compiled.target };
}

const which = process.argv[2] ?? "a2a256,a2a2048,fwd1m";
const runs = Number(process.argv[3] ?? 5);
const names = which === "all" ? Object.keys(INPUTS) : which.split(",");
for (const name of names) {
  const make = INPUTS[name];
  if (!make) throw new Error(`unknown input ${name} (${Object.keys(INPUTS).join(", ")})`);
  const c = compile(name, make());
  const wall = [];
  const cpu = [];
  let r;
  for (let i = 0; i <= runs; i++) {
    const u = process.cpuUsage();
    const t = performance.now();
    r = simulate(
      { manifest: c.manifest, streams: c.streams, module: c.module },
      { target: c.target },
    );
    const dt = performance.now() - t;
    const du = process.cpuUsage(u);
    if (i > 0) {
      wall.push(dt);
      cpu.push((du.user + du.system) / 1e3);
    }
  }
  const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
  const packets = r.stats.packets;
  const fp = createHash("sha1")
    .update(
      JSON.stringify({
        v: r.verified,
        d: r.diagnostics.map((d) => d.code + d.message),
        s: r.stats,
        b: r.bandwidth,
      }),
    )
    .digest("hex")
    .slice(0, 12);
  console.log(
    `${name}: ${packets} packets, ${r.stats.events} events; simulate wall median ${med(wall).toFixed(0)} ms ` +
      `(min ${Math.min(...wall).toFixed(0)}, max ${Math.max(...wall).toFixed(0)}), cpu median ${med(cpu).toFixed(0)} ms; ` +
      `${((packets / med(wall)) * 1e3).toFixed(0)} packets/s (median wall), ` +
      `${((packets / Math.min(...wall)) * 1e3).toFixed(0)} (min wall); ` +
      `verified ${r.verified}, totalUs ${r.stats.totalUs}, fingerprint ${fp}`,
  );
}
