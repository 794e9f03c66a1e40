// The resources a CUDA copy crosses (docs/model.md, "Fabric"), as flows.ts capacities: per GPU
// its copy engines (one per direction), its fabric ports or links, and its host link per
// direction and both together. A copy loads every resource on its way; flows.ts shares each
// resource's capacity max-min fairly among the copies crossing it.
//
// - NVLink through NVSwitch (`nvlink.topology` "switch"): each GPU's aggregate egress and ingress
//   is one resource of `portGBps`. Measured on 4x H200: three GPUs writing into one take 2x the
//   time of the same copies in rotated order, which max-min sharing of the receiver's ingress
//   reproduces.
// - Point-to-point NVLink ("full-mesh"): one resource per ordered GPU pair.
// - Host link (PCIe): upload and download of each GPU, and both directions together (bothGBps).

import type { CudaTarget } from "../target/cuda-target.js";
import type { FlowLoad } from "./flows.js";

/** A copy engine's direction; engine id = gpu * DIRS + direction. */
const H2D = 0;
const D2H = 1;
const PEER = 2;
const DIRS = 3;

/** Resources per GPU: egress, ingress, upload, download, both host directions. */
const OUT = 0;
const IN = 1;
const UP = 2;
const DOWN = 3;
const BOTH = 4;
const PER_GPU = 5;

export interface CudaFabric {
  readonly gpus: number;
  readonly engines: number;
  readonly capacity: Float64Array;
  readonly switched: boolean;
  readonly t: CudaTarget;
  /** One FlowLoad per resource (weight 1). */
  readonly load: readonly FlowLoad[];
}

const perUs = (gbps: number): number => gbps * 1e3;

export function cudaFabric(t: CudaTarget, gpus: number): CudaFabric {
  const switched = t.fabric.topology === "switch";
  const pairs = switched ? 0 : gpus * gpus;
  const capacity = new Float64Array(gpus * PER_GPU + pairs);
  const port = perUs(t.fabric.portGBps ?? t.peerGBps);
  for (let g = 0; g < gpus; g++) {
    const base = g * PER_GPU;
    capacity[base + OUT] = port;
    capacity[base + IN] = port;
    capacity[base + UP] = perUs(t.hostLink.h2dGBps);
    capacity[base + DOWN] = perUs(t.hostLink.d2hGBps);
    capacity[base + BOTH] = perUs(t.hostLink.bothGBps);
  }
  for (let k = 0; k < pairs; k++) capacity[gpus * PER_GPU + k] = perUs(t.peerGBps);
  const load = Array.from(capacity, (_, resource) => ({ resource, weight: 1 }));
  return { gpus, engines: gpus * DIRS, capacity, switched, t, load };
}

/** The engine a copy runs on, the resources its bytes load, and its own top rate (bytes/us). */
export interface CopyRoute {
  readonly engine: number;
  readonly loads: readonly FlowLoad[];
  readonly cap: number;
  readonly peer: boolean;
}

/** The route of a copy from GPU `src` to GPU `dst` (-1: host memory). */
export function routeBetween(f: CudaFabric, src: number, dst: number): CopyRoute {
  const at = (g: number, r: number): FlowLoad => f.load[g * PER_GPU + r]!;
  if (src < 0)
    return {
      engine: dst * DIRS + H2D,
      loads: [at(dst, UP), at(dst, BOTH)],
      cap: perUs(f.t.hostLink.h2dGBps),
      peer: false,
    };
  if (dst < 0)
    return {
      engine: src * DIRS + D2H,
      loads: [at(src, DOWN), at(src, BOTH)],
      cap: perUs(f.t.hostLink.d2hGBps),
      peer: false,
    };
  // A peer copy is pushed by the source GPU's engine.
  const loads = f.switched
    ? [at(src, OUT), at(dst, IN)]
    : [f.load[f.gpus * PER_GPU + src * f.gpus + dst]!];
  return { engine: src * DIRS + PEER, loads, cap: perUs(f.t.peerGBps), peer: true };
}

/** Bytes that crossed between GPUs, from each resource's moved bytes (flows.ts FlowSet.moved). */
export function peerBytesMoved(f: CudaFabric, moved: Float64Array): number {
  let n = 0;
  if (f.switched) for (let g = 0; g < f.gpus; g++) n += moved[g * PER_GPU + OUT]!;
  else for (let k = 0; k < f.gpus * f.gpus; k++) n += moved[f.gpus * PER_GPU + k]!;
  return n;
}
