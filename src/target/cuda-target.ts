// NVIDIA copy-engine targets (`"backend": "cuda"`: targets/h100.json, h200.json). The file says
// what the hardware is (copy streams per GPU, the host link, NVLink peers), what its copy engines
// cannot do, and the predictor's timing constants. parseCudaTarget validates it and returns the
// `Target` view the shared phases read (instantiation, lowering and the passes treat a copy
// stream like an SDMA engine: `on sdma(E)` pins stream E), with the typed section under `cuda`.

import type { Target } from "./target.js";

/**
 * The executor's CUDA constants (docs/cuda.md, "The timing model"): name -> what it means, and
 * for the constants a target file may leave out, what stands in (`absent`: a number, or the name
 * of the constant whose value it takes). One table, like the SDMA one.
 */
export const CUDA_TIMING: Readonly<
  Record<string, { readonly doc: string; readonly absent?: number | string }>
> = {
  hostCallUs: {
    doc: "host time of one stream API call (cudaMemcpyAsync, cuStreamWriteValue32, ...)",
  },
  hostBatchItemUs: { doc: "extra host time per copy of a cudaMemcpyBatchAsync" },
  hostStreamUs: {
    doc: "extra host time per stream the calls go to (the runner's cudaSetDevice and the first call on the stream)",
    absent: 0,
  },
  hostGpuUs: {
    doc: "extra host time each time the calls move to another GPU's stream (the current device changes)",
    absent: 0,
  },
  launchUs: { doc: "submission of a call until its stream may start it (driver push + doorbell)" },
  copyStartUs: { doc: "copy engine start-up of a copy to or from the host before bytes flow" },
  peerStartUs: {
    doc: "copy engine start-up of a peer (GPU to GPU) copy before bytes flow",
    absent: "copyStartUs",
  },
  copyNextUs: {
    doc: "start-up of a copy the engine takes straight after finishing the same stream's previous copy (it was queued behind it); another stream's copy pays the full start-up",
    absent: "copyStartUs",
  },
  peerNextUs: {
    doc: "start-up of a peer copy queued behind the same stream's copy the engine just finished, or after the first copy of a batch",
    absent: "copyNextUs",
  },
  batchItemUs: {
    doc: "per-copy engine cost inside a batched copy after the first (host-link copies)",
  },
  batchStartUs: {
    doc: "extra engine start-up of a batch of peer copies (cudaMemcpyBatchAsync) over the same copies submitted one by one",
    absent: 0,
  },
  flagUs: { doc: "write-value after the stream's last command until the host sees the word" },
  waitReleaseUs: { doc: "host store of a word until a stream waiting on it (wait-value) moves on" },
  engineOrderRuns: {
    doc: "runs a program's time is the median of where streams of one GPU ask for its copy engine at the same instant, each serving them in another pseudo-random order (a whole number; 0: one run, the lowest stream index first)",
    absent: 0,
  },
};

export type CudaTimingName =
  | "hostCallUs"
  | "hostBatchItemUs"
  | "hostStreamUs"
  | "hostGpuUs"
  | "launchUs"
  | "copyStartUs"
  | "peerStartUs"
  | "copyNextUs"
  | "peerNextUs"
  | "batchItemUs"
  | "batchStartUs"
  | "flagUs"
  | "waitReleaseUs"
  | "engineOrderRuns";

/** The constants a CUDA target file must give (the others have an `absent` stand-in). */
export const CUDA_TIMING_REQUIRED = Object.keys(CUDA_TIMING).filter(
  (n) => CUDA_TIMING[n]!.absent === undefined,
) as CudaTimingName[];

export interface CudaTarget {
  /** Copy streams per GPU the back end may use (stream ids 0 .. streams-1). */
  readonly streams: number;
  /** Host<->GPU link, GB/s per direction, and both directions together. */
  readonly hostLink: {
    readonly h2dGBps: number;
    readonly d2hGBps: number;
    readonly bothGBps: number;
  };
  /** NVLink bandwidth per direction between two GPUs (aggregate of the GPU's links): one copy's top rate. */
  readonly peerGBps: number;
  /**
   * How the GPUs are connected (the file's `nvlink.topology`): "switch" (NVSwitch: each GPU's
   * aggregate egress and ingress is one resource of portGBps, peerGBps when the file gives none;
   * the default) or "full-mesh" (a link of peerGBps per ordered pair). docs/model.md, "Fabric".
   */
  readonly fabric: { readonly topology: CudaTopology; readonly portGBps?: number | undefined };
  readonly timing: { readonly [K in CudaTimingName]: number };
  /** The constants the file left out: each holds its stand-in (withStandIns), kept in step by a fit. */
  readonly absent: readonly CudaTimingName[];
}

/** `values` with each constant of `absent` set to its stand-in (CUDA_TIMING's `absent`). */
export function withStandIns(
  values: Partial<Record<CudaTimingName, number>>,
  absent: readonly CudaTimingName[],
): CudaTarget["timing"] {
  const out = { ...values };
  for (const name of absent) {
    const v = CUDA_TIMING[name]!.absent!;
    out[name] = typeof v === "number" ? v : out[v as CudaTimingName]!;
  }
  return out as CudaTarget["timing"];
}

/** The fabrics a CUDA target may describe (`nvlink.topology`). */
export const CUDA_TOPOLOGIES = {
  switch: "NVSwitch: each GPU's NVLink egress and ingress aggregate is one shared resource",
  "full-mesh": "point-to-point NVLink: one link per ordered GPU pair",
} as const;

export type CudaTopology = keyof typeof CUDA_TOPOLOGIES;

export class CudaTargetError extends Error {
  override readonly name = "CudaTargetError";
}

const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** Why a `fit` range (absent, or { min, max } with 0 < min <= value <= max) is wrong, or undefined. */
function fitProblem(fit: unknown, value: number): string | undefined {
  if (fit === undefined) return undefined;
  const f = fit as Record<string, unknown> | null;
  if (typeof f !== "object" || f === null || !num(f["min"]) || !num(f["max"]))
    return "must be { min, max }";
  if (!(f["min"] > 0 && f["min"] <= value && value <= f["max"]))
    return `must have 0 < min <= value <= max (min ${f["min"]}, value ${value}, max ${f["max"]})`;
  return undefined;
}

/** The typed section of a CUDA target, or undefined for an SDMA one. */
export function cudaOf(t: Target): CudaTarget | undefined {
  return t["backend"] === "cuda" ? (t["cuda"] as CudaTarget) : undefined;
}

/** Validates a `"backend": "cuda"` description; throws CudaTargetError with a readable reason. */
export function parseCudaTarget(json: Record<string, unknown>, where: string): Target {
  const fail = (detail: string): never => {
    throw new CudaTargetError(`${where}: ${detail}`);
  };
  if (json["version"] !== 1) fail("'version' must be 1");
  if (typeof json["name"] !== "string") fail("'name' must be a string");
  const gpus = json["gpus"];
  if (!num(gpus) || !Number.isInteger(gpus) || gpus < 1 || gpus > 64)
    fail("'gpus' must be an integer from 1 to 64");
  const streams = (json["streams"] as Record<string, unknown> | undefined)?.["count"];
  if (!num(streams) || !Number.isInteger(streams) || streams < 1 || streams > 64)
    fail("'streams.count' must be an integer from 1 to 64");
  const link = json["hostLink"] as Record<string, unknown> | undefined;
  for (const k of ["h2dGBps", "d2hGBps", "bothGBps"])
    if (!num(link?.[k]) || !((link[k] as number) > 0)) fail(`'hostLink.${k}' must be positive`);
  const nvlink = json["nvlink"] as Record<string, unknown> | undefined;
  const peer = nvlink?.["perDirectionGBps"];
  if (!num(peer) || !(peer > 0)) fail("'nvlink.perDirectionGBps' must be positive");
  const peerFit = fitProblem(nvlink?.["fit"], peer as number);
  if (peerFit) fail(`'nvlink.fit' ${peerFit}`);
  // Every CUDA node dmac knows is an HGX board (NVSwitch); with two GPUs the two agree.
  const topology = nvlink?.["topology"] ?? "switch";
  if (typeof topology !== "string" || !Object.hasOwn(CUDA_TOPOLOGIES, topology))
    fail(`'nvlink.topology' must be one of ${Object.keys(CUDA_TOPOLOGIES).join(", ")}`);
  const port = nvlink?.["portGBps"];
  if (port !== undefined && (!num(port) || !(port > 0))) fail("'nvlink.portGBps' must be positive");
  const timing = json["timing"] as Record<string, unknown> | undefined;
  const values: Partial<Record<CudaTimingName, number>> = {};
  for (const name of Object.keys(CUDA_TIMING) as CudaTimingName[]) {
    const e = timing?.[name] as Record<string, unknown> | undefined;
    if (e === undefined && CUDA_TIMING[name]!.absent !== undefined) continue;
    if (!num(e?.["value"]) || (e["value"] as number) < 0)
      fail(`'timing.${name}.value' must be a non-negative number (${CUDA_TIMING[name]!.doc})`);
    if (typeof e!["source"] !== "string" || e!["source"] === "")
      fail(`'timing.${name}.source' must say where the value comes from`);
    const range = fitProblem(e!["fit"], e!["value"] as number);
    if (range) fail(`'timing.${name}.fit' ${range}`);
    values[name] = e!["value"] as number;
  }
  if (!Number.isInteger(values.engineOrderRuns ?? 0))
    fail("'timing.engineOrderRuns.value' must be a whole number of runs");
  const absent = (Object.keys(CUDA_TIMING) as CudaTimingName[]).filter(
    (name) => values[name] === undefined,
  );
  const n = gpus as number;
  const s = streams as number;
  const all = Array.from({ length: s }, (_, i) => i);
  const cuda: CudaTarget = {
    streams: s,
    hostLink: link as unknown as CudaTarget["hostLink"],
    peerGBps: peer as number,
    fabric: { topology: topology as CudaTopology, portGBps: port as number | undefined },
    timing: withStandIns(values, absent),
    absent,
  };
  // The shared phases' view: every stream reaches the host and every peer (the driver picks the
  // copy engine by direction, not the stream), so `pcie` and `xgmi` both list all of them.
  return {
    ...json,
    version: 1,
    name: json["name"] as string,
    description: String(json["description"] ?? ""),
    gpus: n,
    engines: { count: s, pcie: all, xgmi: all, localCopy: 0, physical: all },
    recommendedEngine: {
      map: Array.from({ length: n }, (_, a) =>
        Array.from({ length: n }, (_, b) => (a === b ? -1 : b % s)),
      ),
      known: true,
    },
    // cudaMemcpyAsync takes any size_t length: split nothing.
    limits: { maxCopyBytes: 2 ** 50, maxCopyBytesConservative: 2 ** 50, maxFillBytes: 2 ** 50 },
    // cuStreamWaitValue32 compares with EQ or GEQ (AND and NOR are not dmac's forms).
    pollFunctions: ["eq", "ge"],
    unknowns: [],
    backend: "cuda",
    cuda,
  };
}
