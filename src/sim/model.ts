// The executor's machine model: the "timing" and "links" sections of a target description,
// typed and validated. Every constant carries a `source` string (a citation or the fit that
// produced it; docs/model.md explains each one). Times are microseconds, bandwidths GB/s
// (10^9 bytes per second, which is 10^3 bytes per microsecond).

import type { Target } from "../target/target.js";
import type { CudaTarget } from "../target/cuda-target.js";
import { partRules, XGMI_ENGINE, type PartRules } from "./part-rules.js";

/** THE table of timing constants: name -> what it means (used by the validator and the docs). */
export const TIMING_CONSTANTS = {
  hostPacketUs: "host time to build one packet and write it into a ring (control)",
  hostDoorbellUs: "host time to store the 64-bit wptr and ring the doorbell",
  doorbellLatencyUs: "doorbell store until the engine fetches the first new packet (schedule)",
  enginePacketUs: "engine cost to fetch and decode one packet (every packet except NOP)",
  copyStartupUs: "start-up of a data packet (copy, broadcast, swap, fill) before bytes flow",
  engineGBps: "largest rate one SDMA engine moves bytes at",
  localCopyGBps: "HBM bandwidth of one GPU shared by its local (same-GPU) copies",
  hostSignalLatencyUs: "FENCE/ATOMIC until the write is visible in host memory (sync)",
  gpuSignalLatencyUs: "FENCE/ATOMIC until the write is visible in GPU memory to a POLL_REGMEM",
  hostPollIntervalUs: "period of the host's spin-poll over its completion slots",
  sdmaClockMHz: "SDMA clock; a POLL_REGMEM retry waits interval x 16 of its clocks",
  pollRepollUs: "fixed latency of one POLL_REGMEM re-check (memory read round trip)",
  triggerStoreUs: "host store that releases a prelaunched schedule",
  hostSlotReadUs: "host read of one completion slot in host memory (the host checks every slot)",
  backToBackUs: "least time between the starts of two back-to-back data packets on one engine",
  broadcastGBps: "total write rate of a broadcasting engine (both destinations together)",
} as const;

export type TimingName = keyof typeof TIMING_CONSTANTS;

export interface TimingConstant {
  readonly value: number;
  readonly source: string;
}

export interface LinkModel {
  readonly topology: "full-mesh";
  readonly ratedGBps: number;
  /** Per-direction usable bandwidth of one xGMI link: the executor's link capacity. */
  readonly usableGBps: number;
  readonly source: string;
}

/** Each GPU's host link (the target's "pcie" section): copies to and from `on host` buffers. */
export interface PcieModel {
  readonly ratedGBps: number;
  /** Per-direction usable bandwidth of one GPU's host link: the executor's capacity. */
  readonly usableGBps: number;
  readonly source: string;
}

export interface MachineModel {
  readonly name: string;
  readonly gpus: number;
  readonly engines: number;
  readonly timing: { readonly [K in TimingName]: number };
  readonly sources: { readonly [K in TimingName]: string };
  readonly links: LinkModel;
  /**
   * The figures the target marks "unknown", each with the fallback the model uses instead
   * ("links.usableGBps = 48 (fallback)"): the summary says the prediction rests on them.
   */
  readonly fallbacks: readonly string[];
  /** Re-check latency of a POLL_REGMEM on a compiler sync word in host memory (target sync). */
  readonly hostWordPollUs: number;
  /** Absent in a target without host links; then a host copy is DMAC6011 at load. */
  readonly pcie?: PcieModel | undefined;
  /** The part's limits every packet is held to (part-rules.ts). */
  readonly part: PartRules;
  /** A CUDA target's copy-engine constants (cudaModel): its queues are CUDA streams. */
  readonly cuda?: CudaTarget | undefined;
}

export type ModelResult =
  | { readonly ok: true; readonly model: MachineModel }
  | { readonly ok: false; readonly error: string };

/** Reads and validates the timing and links sections of a target (the Target type allows extra keys). */
export function readMachineModel(target: Target): ModelResult {
  const fail = (error: string): ModelResult => ({ ok: false, error: `${target.name}: ${error}` });
  if (target.backend === "cuda")
    return fail(
      `a CUDA copy-engine target: the executor runs SDMA packet streams (a manifest or a trace); a CUDA schedule runs as its source: \`dmac sim FILE.dmac --target ${target.name}\` checks it and times its command program (docs/cuda.md)`,
    );
  const timing = target["timing"];
  if (typeof timing !== "object" || timing === null) return fail("missing 'timing' object");
  const t = timing as Record<string, unknown>;
  const values: Partial<Record<TimingName, number>> = {};
  const sources: Partial<Record<TimingName, string>> = {};
  const fallbacks: string[] = [];
  for (const name of Object.keys(TIMING_CONSTANTS) as TimingName[]) {
    const entry = t[name] as Record<string, unknown> | undefined;
    const v = known(entry, "value", "fallback", `timing.${name}`, fallbacks);
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0)
      return fail(
        `'timing.${name}.value' must be a non-negative number (${TIMING_CONSTANTS[name]})`,
      );
    if (typeof entry?.["source"] !== "string" || entry["source"] === "")
      return fail(`'timing.${name}.source' must say where the value comes from`);
    values[name] = v;
    sources[name] = entry["source"];
  }
  for (const name of [
    "engineGBps",
    "localCopyGBps",
    "sdmaClockMHz",
    "hostPollIntervalUs",
    "broadcastGBps",
  ] as const)
    if (values[name] === 0) return fail(`'timing.${name}.value' must be positive`);
  const links = target["links"] as Record<string, unknown> | undefined;
  if (typeof links !== "object" || links === null) return fail("missing 'links' object");
  if (links["topology"] !== "full-mesh") return fail("'links.topology' must be \"full-mesh\"");
  const gbps = linkFigures(links, "links", fallbacks);
  if (typeof gbps === "string") return fail(gbps);
  const pcieEntry = target["pcie"] as Record<string, unknown> | undefined;
  let pcie: PcieModel | undefined;
  if (pcieEntry !== undefined) {
    const figures = linkFigures(pcieEntry, "pcie", fallbacks);
    if (typeof figures === "string") return fail(figures);
    pcie = { ...pcieEntry, ...figures } as unknown as PcieModel;
  }
  return {
    ok: true,
    model: {
      name: target.name,
      gpus: target.gpus,
      engines: target.engines.count,
      timing: values as MachineModel["timing"],
      sources: sources as MachineModel["sources"],
      links: { ...links, ...gbps } as unknown as LinkModel,
      fallbacks,
      hostWordPollUs: target.sync?.hostPollRepollUs.value ?? values.pollRepollUs!,
      part: partRules(target),
      ...(pcie ? { pcie } : {}),
    },
  };
}

/** What the sources of a CUDA target's model say of the SDMA constants. */
const CUDA_SOURCE =
  'a CUDA target: its streams run under the copy-engine model and the target\'s own constants (docs/cuda.md, "The timing model")';

/**
 * A CUDA target's model: `cuda` holds the constants the copy-engine model reads (host.ts
 * submission, copy-engines.ts, the wait release and write latency). The SDMA constants the
 * shared paths read are what a stream does: a command costs nothing to fetch, a write-value
 * lands flagUs after its stream reaches it (every word is in host memory), and the prelaunch
 * trigger is stored at time 0. The others are never read on a CUDA target.
 */
export function cudaModel(
  name: string,
  gpus: number,
  cuda: CudaTarget,
  part: PartRules,
): MachineModel {
  const T = cuda.timing;
  const v: Record<TimingName, number> = {
    hostPacketUs: T.hostCallUs,
    hostDoorbellUs: 0,
    doorbellLatencyUs: T.launchUs,
    enginePacketUs: 0,
    copyStartupUs: T.peerStartUs,
    engineGBps: cuda.peerGBps,
    localCopyGBps: cuda.peerGBps,
    hostSignalLatencyUs: T.flagUs,
    gpuSignalLatencyUs: 0,
    hostPollIntervalUs: 1,
    sdmaClockMHz: 1000,
    pollRepollUs: T.waitReleaseUs,
    triggerStoreUs: 0,
    hostSlotReadUs: 0,
    backToBackUs: 0,
    broadcastGBps: cuda.peerGBps,
  };
  const sources = Object.fromEntries(Object.keys(v).map((k) => [k, CUDA_SOURCE]));
  const link = (gbps: number): { ratedGBps: number; usableGBps: number; source: string } => ({
    ratedGBps: gbps,
    usableGBps: gbps,
    source: CUDA_SOURCE,
  });
  return {
    name,
    gpus,
    engines: cuda.streams,
    timing: v,
    sources: sources as MachineModel["sources"],
    links: { topology: "full-mesh", ...link(cuda.peerGBps) },
    fallbacks: [],
    hostWordPollUs: T.waitReleaseUs,
    part,
    pcie: link(cuda.hostLink.h2dGBps),
    cuda,
  };
}

/**
 * A CUDA target's part rules: any stream reaches the host and every peer (the driver picks the
 * copy engine by direction); copies are split as the target's limits say.
 */
export function cudaPart(target: Target): PartRules {
  return {
    ...partRules(target),
    engineKind: new Uint8Array(target.engines.count).fill(XGMI_ENGINE),
    hasPcie: false,
  };
}

/**
 * A link section's ratedGBps and usableGBps ("links", or the host links' "pcie"): each a positive
 * number, or "unknown" with a positive `<key>Fallback` (noted in `fallbacks`); and its source.
 * A string: what is wrong.
 */
function linkFigures(
  section: Record<string, unknown> | null,
  name: string,
  fallbacks: string[],
): { ratedGBps: number; usableGBps: number } | string {
  if (typeof section !== "object" || section === null) return `'${name}' must be an object`;
  const gbps: Record<string, number> = {};
  for (const key of ["ratedGBps", "usableGBps"]) {
    const v = known(section, key, `${key}Fallback`, `${name}.${key}`, fallbacks);
    if (typeof v !== "number" || !(v > 0))
      return `'${name}.${key}' must be a positive number, or "unknown" with a positive '${key}Fallback'`;
    gbps[key] = v;
  }
  if (typeof section["source"] !== "string") return `'${name}.source' must be a string`;
  return { ratedGBps: gbps["ratedGBps"]!, usableGBps: gbps["usableGBps"]! };
}

/**
 * `entry[key]`, or when the file says "unknown" there, `entry[fallbackKey]` (noted in
 * `fallbacks`); whatever is found is returned unchecked for the caller's own validation.
 */
function known(
  entry: Record<string, unknown> | undefined,
  key: string,
  fallbackKey: string,
  what: string,
  fallbacks: string[],
): unknown {
  const v = entry?.[key];
  if (v !== "unknown") return v;
  const f = entry?.[fallbackKey];
  fallbacks.push(`${what} = ${String(f)}`);
  return f;
}

/** A copy of `m` with some timing constants replaced (calibration, what-if runs). */
export function withTiming(
  m: MachineModel,
  patch: Partial<Record<TimingName, number>>,
): MachineModel {
  return { ...m, timing: { ...m.timing, ...patch } };
}

/** GB/s -> bytes per microsecond. */
export function bytesPerUs(gbps: number): number {
  return gbps * 1e3;
}
