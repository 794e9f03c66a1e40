// Target descriptions: the machine a schedule runs on. A target is a JSON file (targets/*.json
// for the built-in ones, or a user's copy given with `target "file.json"` / `--target FILE`).
// Every phase that needs a machine fact (rank count, engines, the recommended-engine map, packet
// limits, timing constants) reads it from here and nowhere else.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { readInputText } from "../util/read-input.js";
import { CudaTargetError, parseCudaTarget } from "./cuda-target.js";

export interface Target {
  readonly version: 1;
  readonly name: string;
  readonly description: string;
  readonly gpus: number;
  readonly engines: {
    readonly count: number;
    /** Engines that serve host<->GPU transfers only. */
    readonly pcie: readonly number[];
    /** Engines that serve GPU<->GPU transfers over xGMI. */
    readonly xgmi: readonly number[];
    /** The engine used by default for a copy within one GPU. */
    readonly localCopy: number;
  };
  readonly recommendedEngine: {
    /** map[src][dst]: the engine of GPU src recommended for src -> dst; -1 on the diagonal. */
    readonly map: readonly (readonly number[])[];
  };
  readonly limits: {
    /** Largest COPY_LINEAR in bytes (the emitted policy). */
    readonly maxCopyBytes: number;
    /** The 22-bit reading, used with --conservative-count. */
    readonly maxCopyBytesConservative: number;
    readonly maxFillBytes: number;
  };
  /** Timing model constants (see docs/model.md); filled in by the executor's target section. */
  readonly [extra: string]: unknown;
}

export const BUILTIN_TARGETS = ["mi300x", "h100", "h200"] as const;

/** The file of a built-in target. */
export function builtinPath(name: string): string {
  return fileURLToPath(new URL(`../../targets/${name}.json`, import.meta.url));
}

export class TargetError extends Error {
  override readonly name = "TargetError";
}

/** Loads and validates a target description; throws TargetError with a readable reason. */
export function parseTarget(json: unknown, where: string): Target {
  const fail = (detail: string): never => {
    throw new TargetError(`${where}: ${detail}`);
  };
  if (typeof json !== "object" || json === null) fail("not a JSON object");
  const t = json as Record<string, unknown>;
  // NVIDIA copy-engine targets have a schema of their own (cuda-target.ts).
  if (t["backend"] === "cuda") {
    try {
      return parseCudaTarget(t, where);
    } catch (e) {
      if (e instanceof CudaTargetError) throw new TargetError(e.message);
      throw e;
    }
  }
  if (t["version"] !== 1) fail("'version' must be 1");
  if (typeof t["name"] !== "string") fail("'name' must be a string");
  const gpus = t["gpus"];
  if (typeof gpus !== "number" || !Number.isInteger(gpus) || gpus < 1 || gpus > 64)
    fail("'gpus' must be an integer from 1 to 64");
  const eng = t["engines"] as Record<string, unknown> | undefined;
  const count = eng?.["count"];
  // 64 bounds every per-GPU table dmac builds; gfx942 has 16 SDMA engines per GPU.
  if (typeof count !== "number" || !Number.isInteger(count) || count < 1 || count > 64)
    fail("'engines.count' must be an integer from 1 to 64");
  for (const key of ["pcie", "xgmi"]) {
    const list = eng![key];
    if (
      !Array.isArray(list) ||
      list.some((e) => !Number.isInteger(e) || e < 0 || e >= (count as number)) ||
      new Set(list).size !== list.length
    )
      fail(`'engines.${key}' must list distinct engine ids below engines.count`);
  }
  const pcie = eng!["pcie"] as number[];
  const xgmi = eng!["xgmi"] as number[];
  if (xgmi.length === 0) fail("'engines.xgmi' must list at least one engine");
  if (xgmi.some((e) => pcie.includes(e)))
    fail("'engines.pcie' and 'engines.xgmi' must not share an engine");
  const local = eng!["localCopy"];
  if (
    typeof local !== "number" ||
    !Number.isInteger(local) ||
    local < 0 ||
    local >= (count as number)
  )
    fail("'engines.localCopy' must be an engine id below engines.count");
  const map = (t["recommendedEngine"] as Record<string, unknown> | undefined)?.["map"];
  if (
    !Array.isArray(map) ||
    map.length !== gpus ||
    map.some(
      (row, s) =>
        !Array.isArray(row) ||
        row.length !== gpus ||
        row.some((e, d) => (s === d ? e !== -1 : !xgmi.includes(e as number))),
    )
  )
    fail(
      "'recommendedEngine.map' must be a gpus x gpus table of xGMI engine ids (engines.xgmi) with -1 on the diagonal: GPU-to-GPU copies cannot run on the PCIe engines",
    );
  const limits = t["limits"] as Record<string, unknown> | undefined;
  for (const key of ["maxCopyBytes", "maxCopyBytesConservative", "maxFillBytes"]) {
    const v = limits?.[key];
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1)
      fail(`'limits.${key}' must be a positive integer`);
  }
  const timing = t["timing"];
  if (typeof timing === "object" && timing !== null)
    for (const [name, entry] of Object.entries(timing as Record<string, unknown>)) {
      const e = entry as Record<string, unknown> | null;
      if (typeof e !== "object" || e === null || e["fit"] === undefined) continue;
      const problem = fitProblem(e["value"], e["fit"]);
      if (problem !== undefined) fail(`'timing.${name}.fit' ${problem}`);
    }
  return json as Target;
}

/** A timing constant that `dmac calibrate` may fit: `"fit": { "min": a, "max": b }` in its entry. */
export interface FitBound {
  readonly name: string;
  readonly value: number;
  readonly min: number;
  readonly max: number;
}

/** Why a `fit` entry is invalid, or undefined: finite bounds with 0 < min <= value <= max. */
function fitProblem(value: unknown, fit: unknown): string | undefined {
  if (typeof fit !== "object" || fit === null || Array.isArray(fit))
    return 'must be an object { "min": a, "max": b }';
  const f = fit as Record<string, unknown>;
  const extra = Object.keys(f).find((k) => k !== "min" && k !== "max");
  if (extra !== undefined) return `has an unknown key '${extra}' (it takes min and max)`;
  const { min, max } = f;
  if (typeof min !== "number" || !Number.isFinite(min) || min <= 0)
    return "'min' must be a positive number";
  if (typeof max !== "number" || !Number.isFinite(max) || max < min)
    return "'max' must be a number no smaller than 'min'";
  if (typeof value !== "number" || value < min || value > max)
    return `bounds [${min}, ${max}] must contain the value (${String(value)})`;
  return undefined;
}

/** The timing constants marked fittable, in the order of the file. */
export function fittableTiming(target: Target): FitBound[] {
  const timing = target["timing"];
  if (typeof timing !== "object" || timing === null) return [];
  const out: FitBound[] = [];
  for (const [name, entry] of Object.entries(timing as Record<string, unknown>)) {
    const e = entry as { value?: unknown; fit?: { min?: unknown; max?: unknown } } | null;
    if (!e?.fit || typeof e.value !== "number") continue;
    out.push({ name, value: e.value, min: Number(e.fit.min), max: Number(e.fit.max) });
  }
  return out;
}

const cache = new Map<string, Target>();

/** A built-in target by name, or undefined if there is none. */
export function builtinTarget(name: string): Target | undefined {
  if (!(BUILTIN_TARGETS as readonly string[]).includes(name)) return undefined;
  let t = cache.get(name);
  if (!t) {
    t = parseTarget(JSON.parse(readFileSync(builtinPath(name), "utf8")), `${name}.json`);
    cache.set(name, t);
  }
  return t;
}

/** The largest target description file read (the shipped one is a few KiB). */
export const MAX_TARGET_FILE_BYTES = 1 << 20;

/**
 * A target description file; throws TargetError (bad content) or InputFileError (unreadable, not
 * a regular file, or larger than MAX_TARGET_FILE_BYTES: src/util/read-input.ts).
 */
export function loadTargetFile(path: string): Target {
  let json: unknown;
  try {
    json = JSON.parse(
      readInputText(path, { maxBytes: MAX_TARGET_FILE_BYTES, what: "a target description" }),
    );
  } catch (e) {
    if (e instanceof SyntaxError) throw new TargetError(`${path}: ${e.message}`);
    throw e;
  }
  return parseTarget(json, path);
}
