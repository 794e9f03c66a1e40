// The properties every fuzz case must satisfy, one checker per fuzz target. A checker never
// throws: it returns the list of violated properties (empty = the case passed).
//
// Front end (source text -> check, compile, outputs, and sometimes the executor):
//   no-crash     no exception escapes (InternalError included: exit 2 in the CLI)
//   diagnostic   a rejected input has at least one error diagnostic; every diagnostic has a
//                message, a span inside the file, and renders
//   own-streams  the streams dmac emits decode without a single problem
//   ir-faithful  every IR op matches its source statement: kind, destination count, regions
//                inside their buffers (fuzz/ir-faithful.ts)
//   executor     a schedule the verifier accepted also verifies in the executor
//   cli          via main(): exit 0 or 1 (never 2), a message on exit 1, and no file written
//                outside the requested output directory (no stray temporaries either)
// Decoder (dwords -> decodeStream, disassemble):
//   no-crash, coverage (the entries tile the stream exactly, problems point inside it),
//   re-encode (a packet decoded without a problem encodes back to the same dwords)
// Executor (a compiled example with mutated streams, or packet-level edits with the manifest
// rebuilt around them: fuzz/stream-edit.ts -> simulate), and sim-input (mutated manifests and
// traces):
//   no-crash, diagnostic (not verified => at least one error diagnostic),
//   equivalent   verified => the run means what the original means (fuzz/equivalence.ts: the
//                same data packets, notifies, `when` guards and completion slots, by
//                happens-before against the IR); a "verified" that differs is a false verify
//   checks-log   (executor) the checks replayed from a log, as the helper thread runs them for a
//                large `dmac sim DIR`, find what the inline checks find, in the same order
// Every checker also times the case; exceeding the bound is a "hang" failure, since synchronous
// JS cannot be preempted.

import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import type { Manifest } from "../src/backend/sdma/manifest.js";
import type { Diagnostic } from "../src/diagnostics/diagnostic.js";
import type { IrModule } from "../src/ir/ir.js";
import type { SyncTrace } from "../src/sim/semantics.js";
import type { DmacApi } from "./api.js";
import { nonEquivalence } from "./equivalence.js";
import { irFaithfulness } from "./ir-faithful.js";
import { pushAll } from "../src/util/arrays.js";

export interface Failure {
  readonly property: string;
  readonly detail: string;
}

export interface FrontendCaseOptions {
  /** --max-ops for the case: small, so that hostile loops stop quickly. */
  readonly maxOps: number;
  /** Also run the executor on what compiles. */
  readonly simulate: boolean;
  readonly timeBoundMs: number;
}

function describe(e: unknown): string {
  if (e instanceof Error) {
    const frame = e.stack?.split("\n").find((l) => l.includes(" at ")) ?? "";
    return `${e.name}: ${e.message.slice(0, 300)} ${frame.trim()}`;
  }
  return String(e).slice(0, 300);
}

function timed(failures: Failure[], boundMs: number, body: () => void): void {
  const t0 = performance.now();
  try {
    body();
  } catch (e) {
    failures.push({ property: "no-crash", detail: describe(e) });
  }
  const ms = performance.now() - t0;
  if (ms > boundMs)
    failures.push({ property: "hang", detail: `took ${ms.toFixed(0)} ms (bound ${boundMs} ms)` });
}

function checkDiagnostics(api: DmacApi, diags: readonly Diagnostic[], text: string): Failure[] {
  const out: Failure[] = [];
  for (const d of diags) {
    if (d.message.length === 0) out.push({ property: "diagnostic", detail: `${d.code}: empty` });
    if (d.span && (d.span.start < 0 || d.span.end < d.span.start || d.span.end > text.length)) {
      out.push({
        property: "diagnostic",
        detail: `${d.code} span ${d.span.start}..${d.span.end} outside 0..${text.length}`,
      });
    }
  }
  api.renderDiagnostics(diags, "full", { color: false });
  api.renderDiagnostics(diags, "json", { color: false });
  return out;
}

/** An output file's text, whether the back end hands it over as a string or as bytes. */
export function textOf(data: string | Uint8Array | { bytes(): Uint8Array }): string {
  if (typeof data === "string") return data;
  return Buffer.from(data instanceof Uint8Array ? data : data.bytes()).toString("utf8");
}

const hasError = (ds: readonly Diagnostic[]): boolean => ds.some((d) => d.severity === "error");

export function checkFrontend(api: DmacApi, text: string, opts: FrontendCaseOptions): Failure[] {
  const failures: Failure[] = [];
  timed(failures, opts.timeBoundMs, () => {
    const file = api.makeSourceFile("fuzz.dmac", text);
    // compileToQueues runs checkSource first, so this covers `dmac check` too.
    const q = api.compileToQueues(file, { maxOps: opts.maxOps });
    pushAll(failures, checkDiagnostics(api, q.diagnostics, text));
    if (!q.compiled) {
      if (!hasError(q.diagnostics))
        failures.push({ property: "diagnostic", detail: "compile rejected without an error" });
      return;
    }
    const module = q.compiled.module;
    if (module) {
      const { program } = api.parseSource(file);
      for (const detail of irFaithfulness(program, module)) {
        failures.push({ property: "ir-faithful", detail });
      }
    }
    const out = api.buildOutputs(file, q.compiled, { emit: ["sdma", "trace"] });
    pushAll(failures, checkDiagnostics(api, out.diagnostics, text));
    if (!out.files) {
      if (!hasError(out.diagnostics))
        failures.push({ property: "diagnostic", detail: "back end rejected without an error" });
      return;
    }
    const streams = new Map<string, Uint32Array>();
    let manifest: Manifest | undefined;
    for (const f of out.files) {
      if (f.name === "manifest.json") manifest = JSON.parse(textOf(f.data)) as Manifest;
      if (!f.name.endsWith(".bin") || !(f.data instanceof Uint8Array)) continue;
      const words = new Uint32Array(f.data.slice().buffer, 0, f.data.byteLength >>> 2);
      streams.set(f.name, words);
      const decoded = api.decodeStream(words);
      if (decoded.problems.length > 0) {
        const p = decoded.problems[0]!;
        failures.push({
          property: "own-streams",
          detail: `${f.name} +0x${p.offset.toString(16)}: ${p.code} ${p.detail}`,
        });
      }
    }
    if (opts.simulate && manifest) {
      pushAll(failures, checkSim(api, manifest, streams, q.compiled.module, true));
    }
  });
  return failures;
}

function checkSim(
  api: DmacApi,
  manifest: Manifest,
  streams: ReadonlyMap<string, Uint32Array>,
  module: IrModule | undefined,
  expectVerified: boolean,
): Failure[] {
  const target = api.builtinTarget("mi300x")!;
  const r = api.simulate({ manifest, streams, module }, { target, ...SIM_LIMITS });
  return simFailures(r, expectVerified);
}

function simFailures(r: ReturnType<DmacApi["simulate"]>, expectVerified: boolean): Failure[] {
  const failures: Failure[] = [];
  if (
    !r.verified &&
    !hasError(r.diagnostics) &&
    (r.postcondition !== "unchecked" || expectVerified)
  )
    failures.push({ property: "diagnostic", detail: "executor: not verified, yet no error" });
  // The verifier lets external signals take any value; the executor's producer only counts up,
  // so waits that need the word to go down (`when f > 0 { when f <= 0 }`) end in a deadlock
  // report, which is the executor's correct answer, not a disagreement.
  if (expectVerified && !r.verified && !r.deadlockOnExternal) {
    const first = r.diagnostics[0];
    failures.push({
      property: "executor",
      detail: `verifier accepted the schedule but the executor did not: ${first ? `${first.code} ${first.message}` : r.postcondition}`,
    });
  }
  return failures;
}

function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

/** The front-end properties through the CLI's main(), with a real output directory. */
export async function checkFrontendCli(
  api: DmacApi,
  text: string,
  opts: FrontendCaseOptions,
): Promise<Failure[]> {
  const failures: Failure[] = [];
  const t0 = performance.now();
  const root = mkdtempSync(join(tmpdir(), "dmac-fuzz-"));
  try {
    mkdirSync(join(root, "in"));
    mkdirSync(join(root, "out"));
    writeFileSync(join(root, "in", "case.dmac"), text);
    writeFileSync(join(root, "out", "keep.txt"), "previous output\n");
    let err = "";
    const streams = { out: () => {}, err: (s: string) => void (err += s), isTTY: false };
    let code = -1;
    try {
      code = await api.main(
        [
          "node",
          "dmac",
          "compile",
          join(root, "in", "case.dmac"),
          "-o",
          join(root, "out"),
          "--max-ops",
          String(opts.maxOps),
          "--emit",
          "sdma,trace",
          "--format",
          "concise",
        ],
        streams,
      );
    } catch (e) {
      failures.push({ property: "no-crash", detail: `main() threw ${describe(e)}` });
    }
    if (code === 2) failures.push({ property: "no-crash", detail: `exit 2: ${err.slice(0, 300)}` });
    if (code === 1 && err.trim() === "")
      failures.push({ property: "diagnostic", detail: "exit 1 without a message" });
    const top = readdirSync(root).sort();
    if (top.join(",") !== "in,out")
      failures.push({ property: "output", detail: `left beside the output: ${top.join(", ")}` });
    const files = listFiles(root).filter((f) => f !== join("in", "case.dmac"));
    const stray = files.filter((f) => !f.startsWith(`out${"/"}`));
    if (stray.length > 0)
      failures.push({
        property: "output",
        detail: `files outside the output: ${stray.join(", ")}`,
      });
    if (code === 0 && !files.includes(join("out", "manifest.json")))
      failures.push({ property: "output", detail: "exit 0 without out/manifest.json" });
    if (code !== 0 && !(files.length === 1 && files[0] === join("out", "keep.txt")))
      failures.push({
        property: "output",
        detail: `a failed compile changed the output directory: ${files.join(", ")}`,
      });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  const ms = performance.now() - t0;
  if (ms > opts.timeBoundMs)
    failures.push({
      property: "hang",
      detail: `took ${ms.toFixed(0)} ms (bound ${opts.timeBoundMs} ms)`,
    });
  return failures;
}

// ---- decoder ----------------------------------------------------------------------------------

export function checkDecoder(api: DmacApi, words: Uint32Array, timeBoundMs: number): Failure[] {
  const failures: Failure[] = [];
  timed(failures, timeBoundMs, () => {
    const d = api.decodeStream(words);
    let at = 0;
    for (const e of d.packets) {
      if (e.offset !== at * 4 || e.words < 1) {
        failures.push({
          property: "coverage",
          detail: `entry at +0x${e.offset.toString(16)} (${e.words} dwords) after ${at} dwords`,
        });
        return;
      }
      at += e.words;
    }
    if (at !== words.length)
      failures.push({ property: "coverage", detail: `entries cover ${at} of ${words.length}` });
    const problemAt = new Set<number>();
    for (const p of d.problems) {
      problemAt.add(p.offset);
      if (p.offset < 0 || p.offset >= words.length * 4 || p.offset % 4 !== 0)
        failures.push({ property: "coverage", detail: `problem at +0x${p.offset.toString(16)}` });
    }
    for (const e of d.packets) {
      if (e.packet.kind === "unknown" || problemAt.has(e.offset)) continue;
      const again = api.encodePacket(e.packet);
      const orig = Array.from(words.subarray(e.offset / 4, e.offset / 4 + e.words));
      // A NOP's padding dwords carry no fields: only its header must survive.
      const compared = e.packet.kind === "nop" ? 1 : orig.length;
      if (
        again.length !== orig.length ||
        again.slice(0, compared).some((w, i) => w >>> 0 !== orig[i]! >>> 0)
      ) {
        failures.push({
          property: "re-encode",
          detail: `${e.packet.kind} at +0x${e.offset.toString(16)}: ${hexWords(orig)} -> ${hexWords(again)}`,
        });
        break;
      }
    }
    const text = api.disassemble(words);
    if (words.length > 0 && text.length === 0)
      failures.push({ property: "coverage", detail: "empty disassembly" });
  });
  return failures;
}

const hexWords = (ws: readonly number[]): string =>
  ws.map((w) => (w >>> 0).toString(16).padStart(8, "0")).join(" ");

// ---- executor ---------------------------------------------------------------------------------

export interface SimSeed {
  readonly name: string;
  readonly manifest: Manifest;
  /** The same schedule's command trace (trace.json), for the sim-input target. */
  readonly trace: unknown;
  readonly streams: ReadonlyMap<string, Uint32Array>;
  readonly module: IrModule;
}

/**
 * The unmutated run's sync trace: what a verified mutant must be equivalent to. Computed on first
 * need (most mutants are not verified) and kept per seed.
 */
const baselines = new WeakMap<object, SyncTrace | null>();
function baselineOf(
  api: DmacApi,
  seed: Pick<SimSeed, "manifest" | "streams" | "module">,
): SyncTrace | undefined {
  const key = seed.module;
  let b = baselines.get(key);
  if (b === undefined) {
    const r = api.simulate(
      { manifest: seed.manifest, streams: seed.streams, module: seed.module },
      { target: api.builtinTarget("mi300x")!, ...SIM_LIMITS, syncTrace: true },
    );
    b = r.verified ? (r.syncTrace ?? null) : null;
    baselines.set(key, b);
  }
  return b ?? undefined;
}

const SIM_LIMITS = { maxEvents: 2_000_000, maxSimTimeUs: 10_000_000 } as const;

/** Mutated executor inputs the executor called verified, and how many were proven equivalent. */
export const verifiedMutants = { verified: 0, equivalent: 0 };

/** A verified run that does not mean what the seed means is a false verify. */
function equivalent(
  api: DmacApi,
  seed: Pick<SimSeed, "manifest" | "streams" | "module">,
  got: SyncTrace | undefined,
  mutManifest?: Manifest,
): Failure[] {
  verifiedMutants.verified++;
  const baseline = baselineOf(api, seed);
  if (!baseline || !got) return [];
  const why = nonEquivalence(seed.module, seed.manifest, baseline, got, mutManifest);
  if (why.length === 0) verifiedMutants.equivalent++;
  return why.length === 0
    ? []
    : [{ property: "equivalent", detail: `verified, but ${why.slice(0, 3).join("; ")}` }];
}

/**
 * The executor on a compiled example (`seed`, unmutated) with mutated streams (and, for
 * packet-level edits, a rebuilt manifest): no exception, not verified => an error, verified =>
 * equivalent to the original.
 */
export function checkExecutor(
  api: DmacApi,
  seed: Pick<SimSeed, "manifest" | "streams" | "module">,
  timeBoundMs: number,
  mutant: {
    readonly streams: ReadonlyMap<string, Uint32Array>;
    readonly manifest?: Manifest | undefined;
  } = seed,
  expectVerified = false,
): Failure[] {
  const failures: Failure[] = [];
  timed(failures, timeBoundMs, () => {
    const target = api.builtinTarget("mi300x")!;
    const manifest = mutant.manifest ?? seed.manifest;
    const r = api.simulate(
      { manifest, streams: mutant.streams, module: seed.module },
      { target, ...SIM_LIMITS, syncTrace: true },
    );
    pushAll(failures, simFailures(r, expectVerified));
    if (r.verified) pushAll(failures, equivalent(api, seed, r.syncTrace, manifest));
    pushAll(failures, checksAgree(api, { manifest, streams: mutant.streams, module: seed.module }));
  });
  return failures;
}

/**
 * checks-log: the run with its checks replayed from a log (as the helper thread replays it for a
 * large `dmac sim DIR`: src/sim/check-replay.ts) reports what the run with its checks inline
 * reports, in the same order, with the same verdict and time.
 */
function checksAgree(
  api: DmacApi,
  input: { manifest: Manifest; streams: ReadonlyMap<string, Uint32Array>; module: IrModule },
): Failure[] {
  const target = api.builtinTarget("mi300x")!;
  const shown = (r: ReturnType<DmacApi["simulate"]>): string =>
    JSON.stringify([
      r.diagnostics.map((d) => [d.code, d.message, d.hint ?? ""]),
      r.verified,
      r.postcondition,
      r.stats.totalUs,
      r.stats.events,
    ]);
  const inline = shown(api.simulate(input, { target, ...SIM_LIMITS }));
  const logged = shown(
    api.simulate(input, { target, ...SIM_LIMITS, checks: api.checksInProcess(input.module) }),
  );
  return inline === logged
    ? []
    : [
        {
          property: "checks-log",
          detail: `inline ${inline.slice(0, 300)} vs log ${logged.slice(0, 300)}`,
        },
      ];
}

/**
 * The executor on a hostile manifest or trace (a hand-edited or corrupt JSON file given to
 * `dmac sim`): no exception, and not verified => an error diagnostic.
 */
export function checkSimInput(
  api: DmacApi,
  seed: SimSeed,
  doc: { readonly manifest: unknown } | { readonly trace: unknown },
  timeBoundMs: number,
): Failure[] {
  const failures: Failure[] = [];
  timed(failures, timeBoundMs, () => {
    const target = api.builtinTarget("mi300x")!;
    const input =
      "manifest" in doc
        ? { manifest: doc.manifest as Manifest, streams: seed.streams, module: seed.module }
        : {
            trace: doc.trace as Parameters<DmacApi["simulate"]>[0] extends infer T
              ? T extends { trace: infer X }
                ? X
                : never
              : never,
            module: seed.module,
          };
    const r = api.simulate(input, { target, ...SIM_LIMITS, syncTrace: true });
    if (!r.verified && !hasError(r.diagnostics))
      failures.push({ property: "diagnostic", detail: "executor: not verified, yet no error" });
    if (r.verified)
      pushAll(
        failures,
        equivalent(
          api,
          seed,
          r.syncTrace,
          "manifest" in doc ? (doc.manifest as Manifest) : undefined,
        ),
      );
  });
  return failures;
}
