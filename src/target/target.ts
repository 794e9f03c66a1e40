// Target descriptions: the machine a schedule runs on. A target is a JSON file (targets/*.json
// for the built-in ones, or a user's copy given with `target "file.json"` / `--target FILE`).
// Every phase that needs a machine fact (rank count, engines, the recommended-engine map, packet
// limits, timing constants) reads it from here and nowhere else.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { readInputText } from "../util/read-input.js";
import { CudaTargetError, parseCudaTarget } from "./cuda-target.js";
import { POLL_FUNC_NAMES, type PollFuncName } from "./poll.js";

/** The back ends a target can describe: the top-level "backend" key (absent = "sdma"). */
export type TargetBackend = "sdma" | "cuda";

/** The value a target file writes for a fact no public source gives. */
export const UNKNOWN = "unknown";

export interface Target {
  readonly version: 1;
  readonly name: string;
  readonly description: string;
  /** Always "sdma" here: a file without the key is an SDMA target (files written before it). */
  readonly backend: TargetBackend;
  /** The AMD part and its ISA ("MI355X", "gfx950"), when the file names one. */
  readonly part?: { readonly name: string; readonly gfx: string; readonly source: string };
  readonly gpus: number;
  readonly engines: {
    readonly count: number;
    /** Engines that serve host<->GPU transfers only. */
    readonly pcie: readonly number[];
    /** Engines that serve GPU<->GPU transfers over xGMI (empty when the part's are unknown). */
    readonly xgmi: readonly number[];
    /** The engine used by default for a copy within one GPU. */
    readonly localCopy: number;
    /**
     * The engine ids that have hardware behind them: absent in the file = every id below count;
     * "unknown" = the part lists more ids than it has engines and which ones are real is not
     * known, so a queue on any id outside `pcie` is refused (DMAC4202).
     */
    readonly physical: readonly number[] | typeof UNKNOWN;
  };
  readonly recommendedEngine: {
    /** map[src][dst]: the engine of GPU src recommended for src -> dst; -1 on the diagonal. */
    readonly map: readonly (readonly number[])[];
    /** False when the file says "unknown": map is then all -1 and GPU-to-GPU ops are DMAC4201. */
    readonly known: boolean;
  };
  readonly limits: {
    /** Largest COPY_LINEAR in bytes (the emitted policy; the conservative count if unknown). */
    readonly maxCopyBytes: number;
    /** The 22-bit reading, used with --conservative-count. */
    readonly maxCopyBytesConservative: number;
    readonly maxFillBytes: number;
  };
  /** POLL_REGMEM functions the part runs (absent in the file = all seven the packet encodes). */
  readonly pollFunctions: readonly PollFuncName[];
  /** One line per fact the file marks "unknown", saying what dmac does instead. */
  readonly unknowns: readonly string[];
  /** Synchronisation forms (absent: aggressive, GPU-memory polling allowed); see syncInfo. */
  readonly sync?: TargetSync | undefined;
  /** Timing model constants (see docs/model.md); filled in by the executor's target section. */
  readonly [extra: string]: unknown;
}

export const BUILTIN_TARGETS = ["mi300x", "mi308x", "mi325x", "mi355x", "h100", "h200"] as const;

/**
 * True if a `--target` value names a built-in target rather than a file: exactly one of
 * BUILTIN_TARGETS (a file of that name is given as `./mi300x`).
 */
export function isBuiltinTargetName(value: string): boolean {
  return (BUILTIN_TARGETS as readonly string[]).includes(value);
}

/**
 * `--sync`: conservative polls only with function 3 (==) on words that cannot pass the awaited
 * value (AMD's own gfx942 forms); aggressive keeps `>=` on progress counters (fewer words).
 */
export type SyncMode = "conservative" | "aggressive";
export const SYNC_MODES: readonly SyncMode[] = ["conservative", "aggressive"];

export interface TargetSync {
  readonly default: SyncMode;
  /** Conservative sync words may live in GPU memory (else host memory, as AMD's code). */
  readonly gpuMemoryPolling: boolean;
  readonly hostPollRepollUs: { readonly value: number; readonly source: string };
  readonly source: string;
}

/** The target's sync section, with the defaults of a target that has none. */
export function syncInfo(t: Target): {
  readonly default: SyncMode;
  readonly gpuMemoryPolling: boolean;
} {
  return t.sync ?? { default: "aggressive", gpuMemoryPolling: true };
}

/** The file of a built-in target. */
export function builtinPath(name: string): string {
  return fileURLToPath(new URL(`../../targets/${name}.json`, import.meta.url));
}

export class TargetError extends Error {
  override readonly name = "TargetError";
}

/**
 * The parser of each back end's target files, keyed by the top-level "backend" value. A file
 * without "backend" is an SDMA target. Another back end adds its own entry (and its own module).
 */
const BACKEND_PARSERS: Readonly<
  Record<string, (t: Record<string, unknown>, where: string) => Target>
> = { sdma: parseSdmaTarget, cuda: parseCudaBackend };

/** An NVIDIA copy-engine target: its own schema and checks (cuda-target.ts). */
function parseCudaBackend(t: Record<string, unknown>, where: string): Target {
  try {
    return parseCudaTarget(t, where);
  } catch (e) {
    if (e instanceof CudaTargetError) throw new TargetError(e.message);
    throw e;
  }
}

/** Loads and validates a target description; throws TargetError with a readable reason. */
export function parseTarget(json: unknown, where: string): Target {
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw new TargetError(`${where}: not a JSON object`);
  const t = json as Record<string, unknown>;
  const backend = t["backend"] ?? "sdma";
  const parse = typeof backend === "string" ? BACKEND_PARSERS[backend] : undefined;
  if (!parse || !Object.hasOwn(BACKEND_PARSERS, backend as string))
    throw new TargetError(
      `${where}: 'backend' must be one of ${Object.keys(BACKEND_PARSERS)
        .map((b) => `"${b}"`)
        .join(", ")} (absent means "sdma")`,
    );
  return parse(t, where);
}

/** An SDMA (AMD) target: the checks of every field, then the unknowns resolved. */
function parseSdmaTarget(t: Record<string, unknown>, where: string): Target {
  const fail = (detail: string): never => {
    throw new TargetError(`${where}: ${detail}`);
  };
  if (t["version"] !== 1) fail("'version' must be 1");
  if (typeof t["name"] !== "string") fail("'name' must be a string");
  const gpus = t["gpus"];
  if (typeof gpus !== "number" || !Number.isInteger(gpus) || gpus < 1 || gpus > 64)
    fail("'gpus' must be an integer from 1 to 64");
  const unknowns: string[] = [];
  const engines = parseEngines(t["engines"], fail, unknowns);
  const recommendedEngine = parseEngineMap(t["recommendedEngine"], gpus as number, engines, fail);
  if (!recommendedEngine.known)
    unknowns.push(
      "recommendedEngine.map: unknown; GPU-to-GPU operations are refused (DMAC4201) until a map is given (`dmac target import`)",
    );
  if (engines.physical === UNKNOWN)
    unknowns.push(
      "engines.physical: unknown; queues on the xGMI engine ids are refused (DMAC4202)",
    );
  const limits = parseLimits(t["limits"], fail, unknowns);
  const pollFunctions = parsePollFunctions(t["pollFunctions"], fail);
  parsePart(t["part"], fail);
  parseSync(t["sync"], fail);
  const timing = t["timing"];
  if (typeof timing === "object" && timing !== null)
    for (const [name, entry] of Object.entries(timing as Record<string, unknown>)) {
      const e = entry as Record<string, unknown> | null;
      if (typeof e !== "object" || e === null || e["fit"] === undefined) continue;
      const problem = fitProblem(e["value"], e["fit"]);
      if (problem !== undefined) fail(`'timing.${name}.fit' ${problem}`);
    }
  return {
    ...t,
    backend: "sdma",
    engines,
    recommendedEngine,
    limits,
    pollFunctions,
    unknowns,
  } as unknown as Target;
}

type Fail = (detail: string) => never;

const isId = (e: unknown, count: number): e is number =>
  typeof e === "number" && Number.isInteger(e) && e >= 0 && e < count;

/** engines: count, pcie, xgmi ("unknown" = none known), localCopy, physical (absent = all). */
function parseEngines(value: unknown, fail: Fail, unknowns: string[]): Target["engines"] {
  const eng = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
  // An unknown count: only the ids the file names are known to exist (dmac uses no other).
  const count = eng["count"] === UNKNOWN ? knownIdBound(eng) : eng["count"];
  if (eng["count"] === UNKNOWN)
    unknowns.push(
      `engines.count: unknown; dmac uses only the engine ids the file names (below ${String(count)})`,
    );
  // 64 bounds every per-GPU table dmac builds; gfx942 has 16 SDMA engines per GPU.
  if (typeof count !== "number" || !Number.isInteger(count) || count < 1 || count > 64)
    fail("'engines.count' must be an integer from 1 to 64");
  const ids = (key: string, list: unknown): number[] => {
    if (
      !Array.isArray(list) ||
      list.some((e) => !isId(e, count as number)) ||
      new Set(list).size !== list.length
    )
      fail(`'engines.${key}' must list distinct engine ids below engines.count`);
    return list as number[];
  };
  const pcie = ids("pcie", eng["pcie"]);
  const xgmi = eng["xgmi"] === UNKNOWN ? [] : ids("xgmi", eng["xgmi"]);
  if (eng["xgmi"] === UNKNOWN)
    unknowns.push("engines.xgmi: unknown; no engine is known to carry GPU-to-GPU traffic");
  if (xgmi.some((e) => pcie.includes(e)))
    fail("'engines.pcie' and 'engines.xgmi' must not share an engine");
  const local = eng["localCopy"];
  if (!isId(local, count as number))
    fail("'engines.localCopy' must be an engine id below engines.count");
  const raw = eng["physical"];
  const physical =
    raw === undefined
      ? Array.from({ length: count as number }, (_, i) => i)
      : raw === UNKNOWN
        ? UNKNOWN
        : ids("physical", raw);
  if (physical !== UNKNOWN && !physical.includes(local as number))
    fail("'engines.localCopy' must be one of engines.physical");
  return { count: count as number, pcie, xgmi, localCopy: local as number, physical };
}

/** One past the largest engine id named by pcie, xgmi and localCopy (an unknown count). */
function knownIdBound(eng: Record<string, unknown>): number {
  const named = [eng["pcie"], eng["xgmi"], [eng["localCopy"]]].flatMap((l) =>
    Array.isArray(l) ? l.filter((e): e is number => typeof e === "number") : [],
  );
  return Math.max(0, ...named) + 1;
}

/** recommendedEngine.map: a gpus x gpus table of physical xGMI engines, or "unknown". */
function parseEngineMap(
  value: unknown,
  gpus: number,
  engines: Target["engines"],
  fail: Fail,
): Target["recommendedEngine"] {
  const map = (value as Record<string, unknown> | undefined)?.["map"];
  if (map === UNKNOWN)
    return {
      map: Array.from({ length: gpus }, () => new Array<number>(gpus).fill(-1)),
      known: false,
    };
  const { xgmi, physical } = engines;
  if (
    xgmi.length === 0 ||
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
      "'recommendedEngine.map' must be a gpus x gpus table of xGMI engine ids (engines.xgmi) with -1 on the diagonal: GPU-to-GPU copies cannot run on the PCIe engines (or \"unknown\")",
    );
  const rows = map as number[][];
  if (physical !== UNKNOWN) {
    const fused = rows.flat().find((e) => e >= 0 && !physical.includes(e));
    if (fused !== undefined)
      fail(
        `'recommendedEngine.map' names engine ${fused}, which engines.physical does not list: a queue there would never run`,
      );
  }
  return { map: rows, known: true };
}

function parseLimits(value: unknown, fail: Fail, unknowns: string[]): Target["limits"] {
  const limits = (value ?? {}) as Record<string, unknown>;
  const num = (key: string): number => {
    const v = limits[key];
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1)
      fail(`'limits.${key}' must be a positive integer`);
    return v as number;
  };
  const conservative = num("maxCopyBytesConservative");
  const maxFillBytes = num("maxFillBytes");
  if (limits["maxCopyBytes"] === UNKNOWN) {
    unknowns.push(
      `limits.maxCopyBytes: unknown; copies are split at maxCopyBytesConservative (${conservative} bytes, the 22-bit count)`,
    );
    return { maxCopyBytes: conservative, maxCopyBytesConservative: conservative, maxFillBytes };
  }

  return {
    maxCopyBytes: num("maxCopyBytes"),
    maxCopyBytesConservative: conservative,
    maxFillBytes,
  };
}

function parseSync(value: unknown, fail: Fail): void {
  if (value === undefined) return;
  const y = value as Record<string, unknown> | null;
  if (typeof y !== "object" || y === null) fail("'sync' must be an object");
  if (!(SYNC_MODES as readonly unknown[]).includes(y!["default"]))
    fail(`'sync.default' must be one of ${SYNC_MODES.join(", ")}`);
  if (typeof y!["gpuMemoryPolling"] !== "boolean")
    fail("'sync.gpuMemoryPolling' must be true or false");
  const h = y!["hostPollRepollUs"] as Record<string, unknown> | undefined;
  if (typeof h?.["value"] !== "number" || !(h["value"] >= 0) || typeof h["source"] !== "string")
    fail('\'sync.hostPollRepollUs\' must be { "value": microseconds >= 0, "source": "..." }');
}

function parsePollFunctions(value: unknown, fail: Fail): readonly PollFuncName[] {
  if (value === undefined) return POLL_FUNC_NAMES;
  if (
    !Array.isArray(value) ||
    value.some((f) => !(POLL_FUNC_NAMES as readonly unknown[]).includes(f)) ||
    new Set(value).size !== value.length
  )
    fail(`'pollFunctions' must list distinct names from ${POLL_FUNC_NAMES.join(", ")}`);
  return value as PollFuncName[];
}

function parsePart(value: unknown, fail: Fail): void {
  if (value === undefined) return;
  const p = value as Record<string, unknown> | null;
  if (
    typeof p !== "object" ||
    p === null ||
    typeof p["name"] !== "string" ||
    typeof p["gfx"] !== "string" ||
    typeof p["source"] !== "string"
  )
    fail("'part' must be an object with string fields name, gfx and source");
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
