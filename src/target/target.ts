// Target descriptions: the machine a schedule runs on. A target is a JSON file (targets/*.json
// for the built-in ones, or a user's copy given with `target "file.json"` / `--target FILE`).
// Every phase that needs a machine fact (rank count, engines, the recommended-engine map, packet
// limits, timing constants) reads it from here and nowhere else.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

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

export const BUILTIN_TARGETS = ["mi300x"] as const;

function builtinPath(name: string): string {
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
  if (t["version"] !== 1) fail("'version' must be 1");
  if (typeof t["name"] !== "string") fail("'name' must be a string");
  const gpus = t["gpus"];
  if (typeof gpus !== "number" || !Number.isInteger(gpus) || gpus < 1 || gpus > 64)
    fail("'gpus' must be an integer from 1 to 64");
  const eng = t["engines"] as Record<string, unknown> | undefined;
  if (!eng || typeof eng["count"] !== "number") fail("'engines.count' must be a number");
  const count = eng!["count"] as number;
  for (const key of ["pcie", "xgmi"]) {
    const list = eng![key];
    if (!Array.isArray(list) || list.some((e) => !Number.isInteger(e) || e < 0 || e >= count))
      fail(`'engines.${key}' must list engine ids below engines.count`);
  }
  const map = (t["recommendedEngine"] as Record<string, unknown> | undefined)?.["map"];
  if (
    !Array.isArray(map) ||
    map.length !== gpus ||
    map.some(
      (row, s) =>
        !Array.isArray(row) ||
        row.length !== gpus ||
        row.some((e, d) => (s === d ? e !== -1 : !Number.isInteger(e) || e < 0 || e >= count)),
    )
  )
    fail(
      "'recommendedEngine.map' must be a gpus x gpus table of engine ids with -1 on the diagonal",
    );
  const limits = t["limits"] as Record<string, unknown> | undefined;
  for (const key of ["maxCopyBytes", "maxCopyBytesConservative", "maxFillBytes"]) {
    const v = limits?.[key];
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1)
      fail(`'limits.${key}' must be a positive integer`);
  }
  return json as Target;
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

/** A target description file; throws TargetError (bad content) or a Node fs error (unreadable). */
export function loadTargetFile(path: string): Target {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    if (e instanceof SyntaxError) throw new TargetError(`${path}: ${e.message}`);
    throw e;
  }
  return parseTarget(json, path);
}
