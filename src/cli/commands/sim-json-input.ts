// Reads the JSON document `dmac sim` is given (manifest.json or trace.json) and, beside a
// manifest, its sidecar (backend/sdma/manifest-sidecar.ts): when the sidecar was written for
// these exact bytes, the JSON is parsed with its bulky arrays cut out and those arrays come back
// as typed arrays, attached once the document has passed the schema (src/sim/validate-input.ts).

import {
  readSidecar,
  readSidecarUnbound,
  SIDECAR_FILE,
  skeletonFrom,
  type SidecarArray,
  type SidecarInput,
} from "../../backend/sdma/manifest-sidecar.js";
import { sidecarMatches, type ReadJson } from "../../backend/sdma/sidecar-match.js";
import { diag, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { noteFileRead } from "../../util/files-read.js";
import { readInputFile, regularFileSize } from "../../util/read-input.js";
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { readErrorReason } from "../../options/options.js";
import { hashFile, type SimHelper } from "./sim-helper.js";

export interface JsonInput {
  readonly json: unknown;
  /** The document's size in bytes (slot counts are bounded by it). */
  readonly bytes: number;
  readonly sidecar?: SidecarInput | undefined;
  readonly diagnostics: Diagnostic[];
  /**
   * Set when the sidecar was taken before its binding to manifest.json was checked (the helper
   * thread hashes the JSON meanwhile): true when it holds. False: the sidecar is stale after all,
   * and everything read with it must be read again without it (readJsonInput with no helper).
   */
  readonly confirm?: (() => boolean) | undefined;
}

/**
 * The sidecar's path beside a manifest: `manifest.json` -> `manifest.sidecar` (only a file named
 * manifest.json has one: that is the name compile writes both under).
 */
function sidecarPath(path: string): string | undefined {
  return basename(path) === "manifest.json" ? join(dirname(path), SIDECAR_FILE) : undefined;
}

/**
 * `path` parsed; `maxBytes` bounds the document (and four times it, its sidecar). With a helper
 * thread, a manifest with a sidecar is read without its arrays' text (readBesideHelper).
 */
export function readJsonInput(path: string, maxBytes: number, helper?: SimHelper): JsonInput {
  const fail = (d: Diagnostic): JsonInput => ({ json: undefined, bytes: 0, diagnostics: [d] });
  if (helper !== undefined && sidecarPath(path) !== undefined) {
    const r = readBesideHelper(path, maxBytes, helper);
    if (r !== undefined) return r;
  }
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

/** The sidecar at `path` for `json`'s bytes: none (absent, stale), its arrays, or what is wrong. */
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

/**
 * A manifest and its sidecar read while the helper thread hashes manifest.json: the sidecar's
 * table is checked against the JSON's length and brackets, and only the text between its spans is
 * read and parsed (23 KB of 240 MB at 10^6 operations). The binding is checked when the result
 * is confirmed (JsonInput.confirm), or at once when something is wrong: a problem stands only
 * for a sidecar that is not stale, as in readSidecar's order. Undefined: read it the usual way
 * (no sidecar, a stale one, a file that cannot be opened: readJsonInput says what is wrong).
 */
function readBesideHelper(
  path: string,
  maxBytes: number,
  helper: SimHelper,
): JsonInput | undefined {
  let fd: number;
  try {
    regularFileSize(path);
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  let side: Buffer | undefined;
  let bytes = 0;
  try {
    const st = fstatSync(fd);
    noteFileRead(path, st); // (read here, not by readInputFile: an output may not replace it)
    bytes = st.size;
    if (st.isFile() && bytes <= maxBytes)
      side = readInputFile(sidecarPath(path)!, {
        maxBytes: 4 * maxBytes,
        what: "a manifest sidecar",
      });
  } catch {
    side = undefined;
  }
  if (side === undefined) {
    closeSync(fd);
    return undefined;
  }
  // The helper reads the descriptor until the digest is taken: it is closed then, and taken on
  // every path from here (its reply comes before any other).
  const take = helper.hash(fd, bytes);
  let digest: Uint8Array | null | undefined;
  const hashOf = (): Uint8Array | null => {
    if (digest === undefined) {
      // (No digest from the thread: it never started, or a run that failed early released it
      // before it replied. Hashed here then, so the binding is still known, not taken as stale.)
      digest = take() ?? hashFile(fd, bytes);
      closeSync(fd);
    }
    return digest;
  };
  const bound = (r: { sha256: Uint8Array }): boolean => {
    const d = hashOf();
    return d !== null && Buffer.from(d).equals(r.sha256);
  };
  const read = (from: number, to: number): Buffer => {
    const b = Buffer.allocUnsafe(to - from);
    let n = 0;
    while (n < b.length) {
      const got = readSync(fd, b, n, b.length - n, from + n);
      if (got === 0) break;
      n += got;
    }
    return b.subarray(0, n);
  };
  try {
    const r = readSidecarUnbound({ length: bytes, byteAt: (i) => read(i, i + 1)[0] ?? -1 }, side);
    const sidecarFile = sidecarPath(path)!;
    const problem = (p: { path: string; detail: string }): JsonInput => ({
      json: undefined,
      bytes: 0,
      diagnostics: [diag("DMAC6011", undefined, [sidecarFile, p.path, p.detail])],
    });
    if ("stale" in r) return (hashOf(), undefined);
    if (!("arrays" in r)) return (hashOf(), problem(r.problem));
    if (r.problem) return bound(r) ? problem(r.problem) : undefined;
    const skeleton = skeletonFrom(r.arrays, bytes, (from, to) => read(from, to).toString("utf8"));
    const json = parsed(skeleton);
    // (A stale sidecar's spans; else the usual read says why.)
    if (json === undefined) return (hashOf(), undefined);
    return {
      json,
      bytes,
      sidecar: { file: sidecarFile, arrays: r.arrays },
      diagnostics: [],
      confirm: () => {
        // (The arrays compared before the hash is taken, which closes the file: on every path.)
        const same = matches(r.arrays, json, read);
        return bound(r) && same;
      },
    };
  } catch (e) {
    hashOf();
    // A read that failed midway: the usual read reports it.
    if ((e as { code?: unknown }).code !== undefined) return undefined;
    throw e;
  }
}
