// A target from a node's KFD topology (`dmac target import`): the GPUs, their SDMA engines and
// the recommended engine of every (source, destination) pair, as the kernel publishes them under
// /sys/devices/virtual/kfd/kfd/topology/nodes. The facts the topology does not carry (packet
// limits, poll functions, link figures, timing) come from a base target, normally the built-in
// target of the same ISA. Pure: the command (src/cli/commands/target.ts) reads the files.
//
// What is read (kfd_topology.c, node_show and iolink_show; one "name value" line per property):
//   nodes/N/properties          simd_count (0 on a CPU node), num_sdma_engines,
//                               num_sdma_xgmi_engines, num_sdma_queues_per_engine,
//                               gfx_target_version (major*10000 + minor*100 + stepping)
//   nodes/N/io_links/L/properties  type (11 = xGMI), node_from, node_to,
//                               recommended_sdma_engine_id_mask (one bit: the engine KFD
//                               recommends for node_from -> node_to)
// GPUs are numbered in node order, as libhsakmt and ROCr enumerate them.

import { UNKNOWN } from "./target.js";

/** CRAT_IOLINK_TYPE_XGMI (kfd_crat.h). */
export const IOLINK_TYPE_XGMI = 11;

/** One properties file: its lines as name -> value (decimal, up to 64 bits). */
export type Properties = ReadonlyMap<string, bigint>;

export interface KfdNode {
  /** The node's directory number. */
  readonly id: number;
  readonly properties: Properties;
  readonly links: readonly { readonly id: number; readonly properties: Properties }[];
}

/** A problem with the tree, located at the file it concerns (relative to the tree's root). */
export class TopologyError extends Error {
  override readonly name = "TopologyError";
  constructor(
    readonly file: string,
    readonly detail: string,
  ) {
    super(`${file}: ${detail}`);
  }
}

/** The largest properties file read: the kernel's are below 2 KiB (one sysfs page at most). */
export const MAX_PROPERTIES_BYTES = 64 * 1024;

/** Parses one properties file; throws TopologyError on a line that is not `name decimal`. */
export function parseProperties(text: string, file: string): Properties {
  const out = new Map<string, bigint>();
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === "" && i === lines.length - 1) break;
    const m = /^([a-z][a-z0-9_]*) ([0-9]{1,20})$/.exec(line);
    if (!m) throw new TopologyError(file, `line ${i + 1} is not 'name value' with a decimal value`);
    const value = BigInt(m[2]!);
    if (value >= 1n << 64n) throw new TopologyError(file, `line ${i + 1}: value above 64 bits`);
    out.set(m[1]!, value);
  }
  return out;
}

/** A property as a number no larger than `max`; throws if it is missing or larger. */
function prop(p: Properties, key: string, file: string, max = 0xffff_ffff): number {
  const v = p.get(key);
  if (v === undefined) throw new TopologyError(file, `has no '${key}' line`);
  if (v > BigInt(max)) throw new TopologyError(file, `'${key}' ${v} is out of range`);
  return Number(v);
}

/** gfx_target_version 90402 -> "gfx942", 90010 -> "gfx90a" (stepping in hex, as LLVM names). */
export function gfxName(version: number): string {
  const major = Math.floor(version / 10000);
  const minor = Math.floor(version / 100) % 100;
  const stepping = version % 100;
  return `gfx${major}${minor}${stepping.toString(16)}`;
}

const nodeFile = (n: KfdNode): string => `${n.id}/properties`;
const linkFile = (n: KfdNode, l: number): string => `${n.id}/io_links/${l}/properties`;

/** What the tree says about its GPUs: ISA, engines, and the recommended-engine map. */
export interface ImportedTopology {
  readonly gfx: string;
  readonly gpuNodes: readonly number[];
  readonly pcieEngines: number;
  readonly xgmiEngines: number;
  readonly queuesPerEngine: number | undefined;
  readonly map: readonly (readonly number[])[];
  /** Pairs whose mask named several engines (KFD's "no recommendation"): the lowest was taken. */
  readonly multiEnginePairs: number;
}

/** Reads the GPU facts out of the parsed nodes; throws TopologyError. */
export function readTopology(nodes: readonly KfdNode[]): ImportedTopology {
  const gpus = nodes.filter((n) => prop(n.properties, "simd_count", nodeFile(n)) > 0);
  if (gpus.length === 0) throw new TopologyError(".", "no GPU node (every simd_count is 0)");
  const first = gpus[0]!;
  const facts = (n: KfdNode) => ({
    gfx: gfxName(prop(n.properties, "gfx_target_version", nodeFile(n))),
    pcie: prop(n.properties, "num_sdma_engines", nodeFile(n), 64),
    xgmi: prop(n.properties, "num_sdma_xgmi_engines", nodeFile(n), 64),
  });
  const f0 = facts(first);
  for (const n of gpus) {
    const f = facts(n);
    if (f.gfx !== f0.gfx || f.pcie !== f0.pcie || f.xgmi !== f0.xgmi)
      throw new TopologyError(
        nodeFile(n),
        `is a ${f.gfx} with ${f.pcie} + ${f.xgmi} SDMA engines, node ${first.id} a ${f0.gfx} with ${f0.pcie} + ${f0.xgmi}: dmac describes nodes of one kind of GPU`,
      );
  }
  if (f0.pcie + f0.xgmi < 1 || f0.pcie + f0.xgmi > 64)
    throw new TopologyError(nodeFile(first), "reports no SDMA engine, or more than 64");
  const index = new Map(gpus.map((n, i) => [n.id, i]));
  let multi = 0;
  const map = gpus.map((n, s) => {
    const row = new Array<number>(gpus.length).fill(-2);
    row[s] = -1;
    for (const l of n.links) {
      const file = linkFile(n, l.id);
      if (prop(l.properties, "type", file) !== IOLINK_TYPE_XGMI) continue;
      const d = index.get(prop(l.properties, "node_to", file));
      if (d === undefined || d === s) continue;
      const mask = l.properties.get("recommended_sdma_engine_id_mask");
      if (mask === undefined || mask === 0n)
        throw new TopologyError(
          file,
          "has no recommended_sdma_engine_id_mask (a kernel before 6.11?)",
        );
      const engine = lowestBit(mask);
      if (engine >= f0.pcie + f0.xgmi)
        throw new TopologyError(
          file,
          `recommends engine ${engine}, beyond the node's ${f0.pcie + f0.xgmi}`,
        );
      if (mask !== 1n << BigInt(engine)) multi++;
      row[d] = engine;
    }
    const missing = row.indexOf(-2);
    if (missing >= 0)
      throw new TopologyError(
        `${n.id}/io_links`,
        `has no xGMI link to node ${gpus[missing]!.id}: dmac describes a fully connected xGMI hive`,
      );
    return row;
  });
  const queues = first.properties.get("num_sdma_queues_per_engine");
  return {
    gfx: f0.gfx,
    gpuNodes: gpus.map((n) => n.id),
    pcieEngines: f0.pcie,
    xgmiEngines: f0.xgmi,
    queuesPerEngine: queues === undefined ? undefined : Number(queues),
    map,
    multiEnginePairs: multi,
  };
}

function lowestBit(mask: bigint): number {
  let i = 0;
  while (((mask >> BigInt(i)) & 1n) === 0n) i++;
  return i;
}

/**
 * The target file (as a JSON value, key order as in targets/*.json): the topology's GPUs,
 * engines and map, everything else from `base` (the base file's JSON as written, so that its
 * "unknown" facts stay unknown), with every source naming where it came from. Throws
 * TopologyError if the base describes another ISA.
 */
export function importedTarget(
  topo: ImportedTopology,
  base: Readonly<Record<string, unknown>>,
  names: { readonly name: string; readonly dir: string; readonly baseName: string },
): Record<string, unknown> {
  const part = base["part"] as { gfx?: unknown } | undefined;
  if (part !== undefined && part.gfx !== topo.gfx)
    throw new TopologyError(
      ".",
      `its GPUs are ${topo.gfx} but the base target ${names.baseName} describes ${String(part.gfx)}: give --base a target of this part`,
    );
  const count = topo.pcieEngines + topo.xgmiEngines;
  const ids = (from: number, to: number): number[] =>
    Array.from({ length: to - from }, (_, i) => from + i);
  const xgmi = ids(topo.pcieEngines, count);
  const baseEngines = (base["engines"] ?? {}) as Record<string, unknown>;
  // The base's physical engines describe this node only if it has the base's engine ids.
  const basePhysical = baseEngines["physical"];
  const physical =
    basePhysical === undefined
      ? undefined
      : baseEngines["count"] === count
        ? basePhysical
        : UNKNOWN;
  const physicalOk = (e: number): boolean =>
    !Array.isArray(physical) || (physical as unknown[]).includes(e);
  const baseLocal = typeof baseEngines["localCopy"] === "number" ? [baseEngines["localCopy"]] : [];
  const localCopy =
    [...baseLocal, ...xgmi, ...ids(0, count)].find((e) => e < count && physicalOk(e)) ?? 0;
  const where = `KFD topology of ${names.dir} (nodes ${topo.gpuNodes.join(", ")})`;
  const queues =
    topo.queuesPerEngine !== undefined
      ? `, num_sdma_queues_per_engine ${topo.queuesPerEngine}`
      : "";
  const engines = {
    count,
    pcie: ids(0, topo.pcieEngines),
    xgmi,
    localCopy,
    ...(physical !== undefined ? { physical } : {}),
    source: `${where}: num_sdma_engines ${topo.pcieEngines}, num_sdma_xgmi_engines ${topo.xgmiEngines}${queues}; localCopy${physical !== undefined ? " and physical" : ""} from ${names.baseName}`,
  };
  const multi =
    topo.multiEnginePairs > 0
      ? `; ${topo.multiEnginePairs} masks named several engines (KFD's fallback when it has no map), the lowest was taken`
      : "";
  return {
    ...base,
    version: 1,
    name: names.name,
    description: `${topo.gpuNodes.length} ${topo.gfx} GPUs imported by dmac target import from ${names.dir}; the facts the topology does not carry are ${names.baseName}'s`,
    backend: "sdma",
    gpus: topo.gpuNodes.length,
    engines,
    recommendedEngine: {
      map: topo.map,
      source: `${where}: recommended_sdma_engine_id_mask of each xGMI io_link${multi}`,
    },
  };
}
