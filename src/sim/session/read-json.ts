// Reads the JSON document `dmac sim` is given (manifest.json or trace.json) and, beside a
// manifest, its sidecar (backend/sdma/manifest-sidecar.ts): when the sidecar's arrays are these
// bytes' own (compared number by number, sidecar-match.ts), the JSON is parsed with its bulky
// arrays cut out and those arrays come back as typed arrays, attached once the document has
// passed the schema (src/sim/validate-input.ts).

import {
  readSidecar,
  SIDECAR_FILE,
  type SidecarArray,
  type SidecarInput,
} from "../../backend/sdma/manifest-sidecar.js";
import { sidecarMatches, type ReadJson } from "../../backend/sdma/sidecar-match.js";
import { diag, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { readInputFile } from "../../util/read-input.js";
import { basename, dirname, join } from "node:path";
import { readErrorReason } from "../../options/options.js";

export interface JsonInput {
  readonly json: unknown;
  /** The document's size in bytes (slot counts are bounded by it). */
  readonly bytes: number;
  readonly sidecar?: SidecarInput | undefined;
  readonly diagnostics: Diagnostic[];
}

/**
 * The sidecar's path beside a manifest: `manifest.json` -> `manifest.sidecar` (only a file named
 * manifest.json has one: that is the name compile writes both under).
 */
function sidecarPath(path: string): string | undefined {
  return basename(path) === "manifest.json" ? join(dirname(path), SIDECAR_FILE) : undefined;
}

/** `path` parsed; `maxBytes` bounds the document (and four times it, its sidecar). */
export function readJsonInput(path: string, maxBytes: number): JsonInput {
  const fail = (d: Diagnostic): JsonInput => ({ json: undefined, bytes: 0, diagnostics: [d] });
  let bytes: Buffer;
  try {
    bytes = readInputFile(path, { maxBytes, what: "a manifest or trace" });
  } catch (e) {
    return fail(diag("DMAC5001", undefined, [path, readErrorReason(e)]));
  }
  const side = sidecarPath(path);
  if (side !== undefined) {
    const read = readSidecarFile(side, bytes, 4 * maxBytes);
    if ("diagnostic" in read) return fail(read.diagnostic);
    const json = read.arrays && parsed(read.skeleton);
    if (json !== undefined && matches(read.arrays!, json, (from, to) => bytes.subarray(from, to)))
      return {
        json,
        bytes: bytes.byteLength,
        sidecar: { file: side, arrays: read.arrays! },
        diagnostics: [],
      };
  }
  try {
    return { json: JSON.parse(bytes.toString("utf8")), bytes: bytes.byteLength, diagnostics: [] };
  } catch (e) {
    // Not JSON at all: the executor-input code, with the parser's reason.
    return fail(
      diag("DMAC6011", undefined, [
        path,
        "$",
        `not valid JSON (${e instanceof Error ? e.message : String(e)})`,
      ]),
    );
  }
}

/** `text` parsed, or undefined when it is not JSON (the whole file's read then says why). */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Whether the sidecar's arrays are manifest.json's own (sidecar-match.ts), `json` the manifest
 * parsed without them: otherwise the sidecar is not used.
 */
function matches(arrays: readonly SidecarArray[], json: unknown, read: ReadJson): boolean {
  const queues = (json as { queues?: unknown } | null)?.queues;
  const names = Array.isArray(queues)
    ? queues.map((q) => String((q as { name?: unknown } | null)?.name))
    : [];
  return sidecarMatches(arrays, names, read);
}

/**
 * The sidecar at `path` for `json`'s bytes: none (absent, of another version), its arrays, or
 * what is wrong.
 */
function readSidecarFile(
  path: string,
  json: Uint8Array,
  maxBytes: number,
):
  | { arrays?: undefined }
  | { arrays: readonly SidecarArray[]; skeleton: string }
  | { diagnostic: Diagnostic } {
  let bytes: Buffer;
  try {
    bytes = readInputFile(path, { maxBytes, what: "a manifest sidecar" });
  } catch (e) {
    // Optional: a manifest without one (hand-written, older) is parsed whole.
    if ((e as { code?: unknown }).code === "ENOENT") return {};
    return { diagnostic: diag("DMAC5001", undefined, [path, readErrorReason(e)]) };
  }
  const r = readSidecar(json, bytes);
  if ("problem" in r)
    return { diagnostic: diag("DMAC6011", undefined, [path, r.problem.path, r.problem.detail]) };
  if ("stale" in r) return {};
  return r;
}
