// Writes test/fixtures/kfd-mi300x: a KFD topology tree (a copy of
// /sys/devices/virtual/kfd/kfd/topology/nodes) for an 8x MI300X node in SPX mode, made from the
// published facts in targets/mi300x.json: two CPU nodes without GPUs (0, 1) as the real tree
// has them, then eight GPU nodes (2-9, GPU i = node i + 2) with 2 + 14 SDMA engines, one PCIe
// io_link to their CPU and one xGMI io_link (type 11) to each peer whose
// recommended_sdma_engine_id_mask is 1 << recommendedEngine.map[src][dst]. The property names are
// the kernel's (kfd_topology.c node_show / iolink_show); values the import does not read are
// plausible, not measured. Run: node scripts/make-kfd-fixture.mjs
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("../test/fixtures/kfd-mi300x/", import.meta.url).pathname;
const target = JSON.parse(readFileSync(new URL("../targets/mi300x.json", import.meta.url), "utf8"));
const map = target.recommendedEngine.map;
const CPUS = 2;

const lines = (entries) => entries.map(([k, v]) => `${k} ${v}`).join("\n") + "\n";
const write = (rel, text) => {
  mkdirSync(join(root, rel, ".."), { recursive: true });
  writeFileSync(join(root, rel), text);
};
function link(from, to, type, mask) {
  return lines([
    ["type", type],
    ["version_major", 0],
    ["version_minor", 0],
    ["node_from", from],
    ["node_to", to],
    ["weight", type === 11 ? 15 : 20],
    ["min_latency", 0],
    ["max_latency", 0],
    ["min_bandwidth", type === 11 ? 50000 : 0],
    ["max_bandwidth", type === 11 ? 50000 : 0],
    ["recommended_transfer_size", 0],
    ["recommended_sdma_engine_id_mask", mask],
    ["flags", 1],
  ]);
}

rmSync(root, { recursive: true, force: true });
for (let c = 0; c < CPUS; c++) {
  write(`${c}/gpu_id`, "0\n");
  write(`${c}/name`, "\n");
  write(
    `${c}/properties`,
    lines([
      ["cpu_cores_count", 96],
      ["simd_count", 0],
      ["mem_banks_count", 1],
      ["caches_count", 0],
      ["io_links_count", 4],
      ["p2p_links_count", 0],
      ["cpu_core_id_base", c * 96],
      ["simd_id_base", 0],
      ["gfx_target_version", 0],
      ["vendor_id", 0],
      ["device_id", 0],
      ["location_id", 0],
      ["domain", 0],
      ["num_sdma_engines", 0],
      ["num_sdma_xgmi_engines", 0],
      ["num_sdma_queues_per_engine", 0],
    ]),
  );
  for (let g = 0; g < 4; g++) {
    const node = CPUS + c * 4 + g;
    write(`${c}/io_links/${g}/properties`, link(c, node, 2, 3));
  }
}
for (let i = 0; i < map.length; i++) {
  const node = CPUS + i;
  write(`${node}/gpu_id`, `${10000 + i * 1111}\n`);
  write(`${node}/name`, "\n");
  write(
    `${node}/properties`,
    lines([
      ["cpu_cores_count", 0],
      ["simd_count", 1216],
      ["mem_banks_count", 1],
      ["caches_count", 0],
      ["io_links_count", map.length],
      ["p2p_links_count", 0],
      ["cpu_core_id_base", 0],
      ["simd_id_base", 2147487744 + i * 1216],
      ["max_waves_per_simd", 8],
      ["lds_size_in_kb", 64],
      ["wave_front_size", 64],
      ["array_count", 32],
      ["gfx_target_version", 90402],
      ["vendor_id", 4098],
      ["device_id", 29857],
      ["location_id", 256 * (i + 1)],
      ["domain", 0],
      ["drm_render_minor", 128 + i],
      ["hive_id", "1311768467294899695"],
      ["num_sdma_engines", 2],
      ["num_sdma_xgmi_engines", 14],
      ["num_sdma_queues_per_engine", 8],
      ["num_cp_queues", 64],
      ["unique_id", `${BigInt("0x1234567800000000") + BigInt(i)}`],
      ["num_xcc", 8],
    ]),
  );
  // Link 0: PCIe to the CPU socket; 1..7: xGMI to each peer, in node order.
  write(`${node}/io_links/0/properties`, link(node, i < 4 ? 0 : 1, 2, 3));
  let l = 1;
  for (let j = 0; j < map.length; j++) {
    if (j === i) continue;
    write(`${node}/io_links/${l++}/properties`, link(node, CPUS + j, 11, 1 << map[i][j]));
  }
}
console.log(`wrote ${root}`);
