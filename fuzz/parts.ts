// The differential part target (`npm run fuzz -- --target parts`): a random schedule compiled for
// a random built-in target (every MI300-family part and both NVIDIA targets), sync mode and -O
// level through the CLI's main(), as a user would, then run by `dmac sim` on the compiled
// directory and on the source. The properties (issue 29's "done when"):
//   - no internal error (exit 2, or main() throwing) in any of the three commands;
//   - a refusal has errors, each located in the source (a span) or about an option or target;
//   - an SDMA output that compiled verifies (`dmac sim DIR`), and `dmac sim FILE.dmac` with the
//     same options agrees: the same verdict and the same predicted time.
// NVIDIA targets are compiled only: their command programs have no executor yet.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DmacApi } from "./api.js";
import type { Failure } from "./properties.js";
import type { Rng } from "./rng.js";

export const PARTS = ["mi300x", "mi325x", "mi355x", "mi308x", "h100", "h200"] as const;
export const SYNC_MODES = ["conservative", "aggressive"] as const;
const SDMA_PARTS: readonly string[] = ["mi300x", "mi325x", "mi355x", "mi308x"];

export interface PartsCase {
  readonly source: string;
  readonly part: (typeof PARTS)[number];
  readonly sync: (typeof SYNC_MODES)[number];
  readonly level: 0 | 1 | 2;
}

/** What the cases came to (printed at the end of a long run). */
export const partsOutcomes = {
  refused: 0,
  compiledOnly: 0,
  verified: 0,
  /** The first code of each refusal, by code. */
  refusedBy: new Map<string, number>(),
};

/** The configuration of a case (the source comes from the front-end generator). */
export function pickConfig(rng: Rng): Omit<PartsCase, "source"> {
  return { part: rng.pick(PARTS), sync: rng.pick(SYNC_MODES), level: rng.int(3) as 0 | 1 | 2 };
}

interface Run {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

async function dmac(api: DmacApi, args: readonly string[], failures: Failure[]): Promise<Run> {
  let out = "";
  let err = "";
  const streams = { out: (s: string) => void (out += s), err: (s: string) => void (err += s) };
  let code = -1;
  try {
    code = await api.main(["node", "dmac", ...args], { ...streams, isTTY: false });
  } catch (e) {
    failures.push({ property: "no-crash", detail: `dmac ${args[0]} threw ${String(e)}` });
  }
  if (code === 2)
    failures.push({
      property: "no-crash",
      detail: `dmac ${args[0]}: exit 2: ${err.slice(0, 300)}`,
    });
  return { code, out, err };
}

interface JsonDiagnostic {
  readonly code: string;
  readonly severity: string;
  readonly span?: unknown;
}

/**
 * The error codes of a `--format json` document, and whether every one is located: a span in
 * the source, or a command-line or target problem (DMAC5xxx, DMAC2006) that names what it is
 * about. undefined: no document.
 */
function errorsOf(run: Run): { codes: string[]; located: boolean } | undefined {
  try {
    const doc = JSON.parse(run.out) as { diagnostics?: JsonDiagnostic[] };
    const errors = (doc.diagnostics ?? []).filter((d) => d.severity === "error");
    const located = (d: JsonDiagnostic): boolean =>
      (d.span !== undefined && d.span !== null) || /^DMAC(5\d{3}|2006)$/.test(d.code);
    return { codes: errors.map((d) => d.code), located: errors.every(located) };
  } catch {
    return undefined;
  }
}

/** The verdict and predicted time of a `sim --json` document. */
function verdict(run: Run): { verified: boolean; totalUs: unknown } | undefined {
  try {
    const doc = JSON.parse(run.out) as { verified?: boolean; totalUs?: unknown };
    return { verified: doc.verified === true, totalUs: doc.totalUs };
  } catch {
    return undefined;
  }
}

export async function checkParts(api: DmacApi, c: PartsCase, maxOps: number): Promise<Failure[]> {
  const failures: Failure[] = [];
  const root = mkdtempSync(join(tmpdir(), "dmac-fuzz-parts-"));
  try {
    const src = join(root, "case.dmac");
    writeFileSync(src, c.source);
    mkdirSync(join(root, "out"));
    const opts = ["--target", c.part, "--sync", c.sync, "-O", String(c.level)];
    const limits = ["--max-ops", String(maxOps)];
    const compiled = await dmac(
      api,
      ["compile", src, "-o", join(root, "out", "c"), ...opts, ...limits, "--format", "json"],
      failures,
    );
    if (compiled.code === 1) {
      const errors = errorsOf(compiled);
      if (!errors || errors.codes.length === 0 || !errors.located)
        failures.push({
          property: "diagnostic",
          detail: `compile refused without a located error: ${(compiled.out || compiled.err).slice(0, 300)}`,
        });
      partsOutcomes.refused++;
      const code = errors?.codes[0] ?? "none";
      partsOutcomes.refusedBy.set(code, (partsOutcomes.refusedBy.get(code) ?? 0) + 1);
    } else if (!SDMA_PARTS.includes(c.part)) partsOutcomes.compiledOnly++;
    if (compiled.code !== 0 || !SDMA_PARTS.includes(c.part)) return failures;
    const fromDir = await dmac(api, ["sim", join(root, "out", "c"), "--json"], failures);
    const fromSource = await dmac(api, ["sim", src, ...opts, "--json"], failures);
    const a = verdict(fromDir);
    const b = verdict(fromSource);
    if (a?.verified && b?.verified) partsOutcomes.verified++;
    if (!a?.verified)
      failures.push({
        property: "compiled-verifies",
        detail: `dmac sim DIR: exit ${fromDir.code}: ${(fromDir.err || fromDir.out).slice(0, 300)}`,
      });
    else if (!b || b.verified !== a.verified || b.totalUs !== a.totalUs)
      failures.push({
        property: "sim-agrees",
        detail: `sim DIR ${JSON.stringify(a)}, sim FILE ${JSON.stringify(b)}: ${fromSource.err.slice(0, 200)}`,
      });
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return failures;
}
