// The fuzzing loop shared by CI mode (vitest, fixed seed, a few thousand cases) and long mode
// (`npm run fuzz`). Case i of a run depends only on (seed, i), so any failure is reproduced by
// its seed and index, and the failing input itself is handed to `onFailure` (the CLI saves it
// under test/fuzz-regressions/, where a test replays it).

import type { Manifest } from "../src/backend/sdma/manifest.js";
import type { DmacApi } from "./api.js";
import { generateProgram } from "./generate.js";
import { mutateJson, mutateSource, mutateWords, randomWords } from "./mutate.js";
import {
  checkDecoder,
  checkExecutor,
  checkFrontend,
  checkFrontendCli,
  checkSimInput,
  textOf,
  type Failure,
  type SimSeed,
} from "./properties.js";
import { caseRng, type Rng } from "./rng.js";
import { checkParts, pickConfig, type PartsCase } from "./parts.js";
import { assemble, cloneQueues, explode, mutatePackets, type EditQueues } from "./stream-edit.js";

/** Each seed's packets, exploded once per process (mutations work on clones). */
const exploded = new WeakMap<SimSeed, EditQueues>();
import { pushAll } from "../src/util/arrays.js";

export type FuzzTarget = "frontend" | "decoder" | "executor" | "sim-input" | "parts";
export const FUZZ_TARGETS: readonly FuzzTarget[] = [
  "frontend",
  "decoder",
  "executor",
  "sim-input",
  "parts",
];
/**
 * `--target all` and CI mode: every target but `parts` (three CLI runs and two temporary
 * directories a case: `--target parts` runs it on its own).
 */
export const DEFAULT_TARGETS: readonly FuzzTarget[] = FUZZ_TARGETS.filter((t) => t !== "parts");

export type FuzzInput =
  | { readonly target: "frontend"; readonly source: string; readonly viaCli: boolean }
  | { readonly target: "decoder"; readonly words: Uint32Array }
  | {
      readonly target: "executor";
      readonly seedName: string;
      readonly streams: ReadonlyMap<string, Uint32Array>;
      /** Packet-level edits come with the manifest rebuilt around them (fuzz/stream-edit.ts). */
      readonly manifest?: Manifest | undefined;
      /** What was done (for reports; not saved). */
      readonly edits?: readonly string[] | undefined;
    }
  | {
      readonly target: "sim-input";
      readonly seedName: string;
      readonly doc: { readonly manifest: unknown } | { readonly trace: unknown };
    }
  | ({ readonly target: "parts" } & PartsCase);

export interface FuzzFailure {
  readonly seed: number;
  readonly index: number;
  readonly input: FuzzInput;
  readonly failures: readonly Failure[];
}

export interface FuzzOptions {
  readonly api: DmacApi;
  readonly seed: number;
  readonly iterations: number;
  readonly targets: readonly FuzzTarget[];
  /** The example programs the mutator starts from (and the executor's seed corpus). */
  readonly examples: readonly { readonly name: string; readonly text: string }[];
  /** Per-case time bound (default 2000 ms). */
  readonly timeBoundMs?: number;
  /** One front-end case in this many goes through the CLI's main() (default 250; 0 = never). */
  readonly cliEvery?: number;
  /** One compiling front-end case in this many is also simulated (default 8; 0 = never). */
  readonly simEvery?: number;
  /**
   * Share of executor cases that are packet-level edits with the manifest rebuilt around them
   * (fuzz/stream-edit.ts; default 0.5); the others flip, insert and delete raw dwords.
   */
  readonly packetEdits?: number;
  /** --max-ops for front-end cases (default 5000: at about 10k operations per second through the back end, larger schedules would exceed the time bound without being wrong). */
  readonly maxOps?: number;
  readonly onFailure?: (f: FuzzFailure) => void;
  /** Called every `progressEvery` cases (default 10000). */
  readonly onProgress?: (done: number, stats: FuzzStats) => void;
  readonly progressEvery?: number;
  /** First case index (default 0): `--from` resumes or bisects a long run. */
  readonly from?: number | undefined;
  /** Run only these case indices (to reproduce a failure). */
  readonly only?: readonly number[] | undefined;
}

export interface FuzzStats {
  readonly cases: Record<FuzzTarget, number>;
  readonly failures: FuzzFailure[];
  readonly elapsedMs: number;
}

export async function runFuzz(opts: FuzzOptions): Promise<FuzzStats> {
  const t0 = performance.now();
  const cases: Record<FuzzTarget, number> = {
    frontend: 0,
    decoder: 0,
    executor: 0,
    "sim-input": 0,
    parts: 0,
  };
  const failures: FuzzFailure[] = [];
  const texts = opts.examples.map((e) => e.text);
  const simSeeds =
    opts.targets.includes("executor") || opts.targets.includes("sim-input")
      ? buildSimSeeds(opts.api, opts.examples)
      : [];
  const streamSeeds = buildStreamSeeds(opts.api, opts.examples, opts.targets);
  const bound = opts.timeBoundMs ?? 2000;
  const stats = (): FuzzStats => ({ cases, failures, elapsedMs: performance.now() - t0 });
  for (let i = opts.from ?? 0; i < opts.iterations; i++) {
    if (opts.only && !opts.only.includes(i)) continue;
    const target = opts.targets[i % opts.targets.length]!;
    const rng = caseRng(opts.seed, i);
    const input = makeInput(rng, target, opts, texts, streamSeeds, simSeeds, i);
    const found = await runCase(opts.api, input, simSeeds, {
      timeBoundMs: bound,
      maxOps: opts.maxOps ?? 5_000,
      simulate: (opts.simEvery ?? 8) > 0 && rng.int(opts.simEvery ?? 8) === 0,
    });
    cases[target]++;
    if (found.length > 0) {
      const f: FuzzFailure = { seed: opts.seed, index: i, input, failures: found };
      failures.push(f);
      opts.onFailure?.(f);
    }
    if (opts.onProgress && (i + 1) % (opts.progressEvery ?? 10_000) === 0)
      opts.onProgress(i + 1, stats());
  }
  return stats();
}

/** Runs one input against its target's properties (also used to replay saved regressions). */
export async function runCase(
  api: DmacApi,
  input: FuzzInput,
  simSeeds: readonly SimSeed[],
  o: { timeBoundMs: number; maxOps: number; simulate: boolean },
): Promise<Failure[]> {
  switch (input.target) {
    case "frontend": {
      const fo = { maxOps: o.maxOps, simulate: o.simulate, timeBoundMs: o.timeBoundMs };
      return input.viaCli
        ? checkFrontendCli(api, input.source, fo)
        : checkFrontend(api, input.source, fo);
    }
    case "decoder":
      return checkDecoder(api, input.words, o.timeBoundMs);
    case "executor": {
      const seed = simSeeds.find((s) => s.name === input.seedName);
      if (!seed) return [{ property: "setup", detail: `no executor seed ${input.seedName}` }];
      const found = checkExecutor(api, seed, o.timeBoundMs, input);
      const edits = input.edits?.length ? ` [edits: ${input.edits.join("; ")}]` : "";
      return found.map((f) => ({ ...f, detail: f.detail + edits }));
    }
    case "sim-input": {
      const seed = simSeeds.find((s) => s.name === input.seedName);
      if (!seed) return [{ property: "setup", detail: `no executor seed ${input.seedName}` }];
      return checkSimInput(api, seed, input.doc, o.timeBoundMs);
    }
    case "parts":
      return checkParts(api, input, o.maxOps);
  }
}

function makeInput(
  rng: Rng,
  target: FuzzTarget,
  opts: FuzzOptions,
  texts: readonly string[],
  streamSeeds: readonly Uint32Array[],
  simSeeds: readonly SimSeed[],
  index: number,
): FuzzInput {
  switch (target) {
    case "frontend": {
      const every = opts.cliEvery ?? 250;
      const viaCli = every > 0 && index % (every * opts.targets.length) === 0;
      const roll = rng.int(10);
      let source: string;
      if (roll < 5 || texts.length === 0) source = generateProgram(rng);
      else if (roll < 9) source = mutateSource(rng, rng.pick(texts), texts);
      else source = mutateSource(rng, generateProgram(rng, { errorRate: 0 }), texts);
      return { target, source, viaCli };
    }
    case "decoder": {
      const words =
        streamSeeds.length > 0 && rng.chance(0.5)
          ? mutateWords(rng, sliceOf(rng, rng.pick(streamSeeds)))
          : randomWords(rng);
      return { target, words };
    }
    case "executor": {
      if (simSeeds.length === 0) return { target, seedName: "none", streams: new Map() };
      const seed = rng.pick(simSeeds);
      if (rng.chance(opts.packetEdits ?? 0.5)) {
        // Packet-level edits with a consistent manifest: only the executor's checks remain.
        let packets = exploded.get(seed);
        if (!packets)
          exploded.set(seed, (packets = explode(opts.api, seed.manifest, seed.streams)));
        const qs = cloneQueues(packets);
        const edits = mutatePackets(rng, qs);
        const out = assemble(opts.api, seed.manifest, qs);
        return { target, seedName: seed.name, streams: out.streams, manifest: out.manifest, edits };
      }
      const streams = new Map(seed.streams);
      const names = [...streams.keys()];
      const n = rng.range(1, 2);
      for (let k = 0; k < n; k++) {
        const name = rng.pick(names);
        streams.set(name, mutateWords(rng, streams.get(name)!));
      }
      return { target, seedName: seed.name, streams };
    }
    case "sim-input": {
      if (simSeeds.length === 0) return { target, seedName: "none", doc: { trace: null } };
      const seed = rng.pick(simSeeds);
      const doc = rng.chance(0.5)
        ? { manifest: mutateJson(rng, seed.manifest) }
        : { trace: mutateJson(rng, seed.trace) };
      return { target, seedName: seed.name, doc };
    }
    case "parts":
      return { target, source: generateProgram(rng, { errorRate: 0 }), ...pickConfig(rng) };
  }
}

/** A window of a real stream (whole streams can be long; the decoder is linear anyway). */
function sliceOf(rng: Rng, words: Uint32Array): Uint32Array {
  if (words.length <= 64) return words;
  const from = rng.int(words.length - 32);
  return words.subarray(from, from + rng.range(8, 64));
}

/** Compiled examples per API and (name, text): seeds are read-only, so one compile per process. */
const compiledExamples = new WeakMap<DmacApi, Map<string, Omit<SimSeed, "name"> | undefined>>();

function compileExample(
  api: DmacApi,
  name: string,
  text: string,
): Omit<SimSeed, "name"> | undefined {
  let cache = compiledExamples.get(api);
  if (!cache) compiledExamples.set(api, (cache = new Map()));
  const key = `${name}\0${text}`;
  if (!cache.has(key)) cache.set(key, compileExampleOnce(api, name, text));
  return cache.get(key);
}

function compileExampleOnce(
  api: DmacApi,
  name: string,
  text: string,
): Omit<SimSeed, "name"> | undefined {
  const file = api.makeSourceFile(name, text);
  const q = api.compileToQueues(file, { defines: {} });
  if (!q.compiled) return undefined;
  const out = api.buildOutputs(file, q.compiled, { emit: ["sdma", "trace"] });
  if (!out.files) return undefined;
  let trace: unknown;
  const streams = new Map<string, Uint32Array>();
  let manifest: Manifest | undefined;
  for (const f of out.files) {
    if (f.name === "manifest.json") manifest = JSON.parse(textOf(f.data)) as Manifest;
    else if (f.name === "trace.json") trace = JSON.parse(textOf(f.data));
    else if (f.name.endsWith(".bin") && f.data instanceof Uint8Array)
      streams.set(f.name, new Uint32Array(f.data.slice().buffer, 0, f.data.byteLength >>> 2));
  }
  return manifest ? { manifest, trace, streams, module: q.compiled.module } : undefined;
}

export function buildSimSeeds(api: DmacApi, examples: FuzzOptions["examples"]): SimSeed[] {
  const seeds: SimSeed[] = [];
  for (const e of examples) {
    const c = compileExample(api, e.name, e.text);
    if (c) seeds.push({ name: e.name, ...c });
  }
  return seeds;
}

function buildStreamSeeds(
  api: DmacApi,
  examples: FuzzOptions["examples"],
  targets: readonly FuzzTarget[],
): Uint32Array[] {
  if (!targets.includes("decoder")) return [];
  const out: Uint32Array[] = [];
  for (const e of examples) {
    const c = compileExample(api, e.name, e.text);
    if (c) pushAll(out, c.streams.values());
  }
  return out;
}
