// What `dmac disasm` annotates a stream with: the manifest that lists it (given with --manifest,
// or the manifest.json beside the stream) and the source file the manifest records. Annotation
// is a reading aid, so nothing here stops the listing: a manifest that cannot be used is one
// DMAC4106 warning and the plain listing; a missing or changed source is said once, in the
// listing's header, and the listing goes on without source lines.

import { existsSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative } from "node:path";
import { makeListing, type Listing, type ListingContext } from "../../backend/sdma/listing.js";
import { manifestBindings, packRows, type Manifest } from "../../backend/sdma/manifest.js";
import type { PackedRows } from "../../backend/sdma/packed-rows.js";
import { describeInstances } from "../../ir/instances.js";
import { diag, type Diagnostic } from "../../diagnostics/diagnostic.js";
import { DEFAULT_MAX_SOURCE_BYTES } from "../../frontend/parse.js";
import { validateManifest } from "../../sim/validate-input.js";
import { lineText, makeSourceFile, type SourceFile } from "../../source/source-file.js";
import { readInputFile } from "../../util/read-input.js";
import { readErrorReason } from "../../options/options.js";

/** The largest manifest disasm reads (the same bound as dmac sim's). */
const MAX_MANIFEST_BYTES = 256 << 20;

export interface StreamListing {
  readonly listing: Listing;
  /** The stream's source-map rows. */
  readonly rows: PackedRows;
  /** The queue the manifest says the stream is. */
  readonly queue: string;
}

/**
 * The annotations for the stream at `streamPath` (`dwords` long): from `manifestPath`, else from
 * manifest.json beside the stream when there is one (no manifest there: undefined, silently; a
 * foreign stream has none).
 */
export function findListing(
  streamPath: string,
  words: Uint32Array,
  manifestPath: string | undefined,
): { listing?: StreamListing; diagnostics: Diagnostic[] } {
  // Found rather than given, a manifest.json that is no dmac manifest, or that lists another
  // stream, is not this stream's: the plain listing, silently (a foreign stream has none).
  const given = manifestPath !== undefined;
  const path = manifestPath ?? join(dirname(streamPath), "manifest.json");
  if (!given && !existsSync(path)) return { diagnostics: [] };
  const plain = { diagnostics: [] };
  const unusable = (detail: string): { diagnostics: Diagnostic[] } => ({
    diagnostics: [
      diag("DMAC4106", undefined, [path, detail], {
        hint: "give the manifest of the compile that wrote this stream with --manifest, or --raw for the plain listing",
      }),
    ],
  });
  let json: unknown;
  try {
    const text = readInputFile(path, { maxBytes: MAX_MANIFEST_BYTES, what: "a manifest" });
    json = JSON.parse(text.toString("utf8"));
  } catch (e) {
    if (!given) return plain;
    return unusable(e instanceof SyntaxError ? `not JSON (${e.message})` : readErrorReason(e));
  }
  const kind =
    typeof json === "object" && json !== null ? (json as { kind?: unknown }).kind : undefined;
  if (!given && kind !== "dmac-manifest") return plain;
  const invalid = validateManifest(json, { file: path });
  if (invalid) return unusable(invalid.message);
  const m = json as Manifest;
  const file = basename(streamPath);
  const q = m.queues.find((x) => x.file === file);
  if (!q) return given ? unusable(`it lists no queue whose stream is ${file}`) : plain;
  if (q.dwords !== words.length)
    return unusable(
      `its queue ${q.name} has ${q.dwords} dwords, but ${file} holds ${words.length}`,
    );
  const moved = relocationMismatch(m, q.name, words);
  if (moved !== undefined)
    return unusable(
      `dwords ${moved} and ${moved + 1} of ${file} do not hold the address its relocations give (another compile wrote the stream)`,
    );
  const source = readRecordedSource(m, path);
  const listing = makeListing({
    memory: m.memory,
    trigger: m.trigger,
    sourceFile: shownPath(source.name),
    stmts: m.sourceMap.stmts,
    sourceLine: source.file ? (n) => lineOf(source.file!, n) : undefined,
    sourceNote: source.note,
    instances: instancesOf(m),
  });
  const entries = m.sourceMap.queues.find((x) => x.queue === q.name)?.entries ?? [];
  return { listing: { listing, rows: packRows(entries), queue: q.name }, diagnostics: [] };
}

/** The listing's loop instances from the source map's recorded values (none recorded: none). */
function instancesOf(m: Manifest): ListingContext["instances"] {
  const b = manifestBindings(m.sourceMap);
  return b && ((stmt, ops) => describeInstances(b, stmt, ops));
}

/** `path` as the listing shows it: from the working directory when it lies below it. */
function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel) ? rel : path;
}

function lineOf(file: SourceFile, n: number): string | undefined {
  return n >= 1 && n <= file.lineStarts.length ? lineText(file, n) : undefined;
}

/**
 * The source file the manifest records (docs/manifest.md: relative to the manifest's directory
 * when the manifest has `targetFile`, else as given to the compiler), or why it cannot be used.
 */
function readRecordedSource(
  m: Manifest,
  manifestPath: string,
): { name: string; file?: SourceFile; note?: string } {
  const recorded = m.sourceMap.file;
  const name =
    m.targetFile !== undefined && !isAbsolute(recorded)
      ? join(dirname(manifestPath), recorded)
      : recorded;
  let text: string;
  try {
    text = readInputFile(name, {
      maxBytes: DEFAULT_MAX_SOURCE_BYTES,
      what: "a source file",
    }).toString("utf8");
  } catch (e) {
    return { name, note: `${readErrorReason(e)}: no source lines` };
  }
  const file = makeSourceFile(name, text);
  if (!matchesStatements(file, m.sourceMap.stmts))
    return {
      name,
      note: "changed since the compile (its statements are not where the manifest says): no source lines",
    };
  if (statSync(name).mtimeMs > statSync(manifestPath).mtimeMs)
    return { name, note: "modified after the manifest was written: no source lines" };
  return { name, file };
}

/** Whether every recorded statement starts at a non-blank character of `file`. */
function matchesStatements(file: SourceFile, stmts: Manifest["sourceMap"]["stmts"]): boolean {
  return stmts.every(({ line, col }) => {
    const text = lineOf(file, line);
    return text !== undefined && col >= 1 && col <= text.length && text[col - 1]!.trim() !== "";
  });
}

/**
 * The first dword of `words` whose 64-bit address is not what the manifest's relocations for
 * `queue` say (region base + addend), or undefined: a stream of the same length from another
 * compile would otherwise be annotated with this one's names.
 */
function relocationMismatch(m: Manifest, queue: string, words: Uint32Array): number | undefined {
  const entries = m.relocations.find((r) => r.queue === queue)?.entries ?? [];
  for (let i = 0; i + 2 < entries.length; i += 3) {
    const d = entries[i]!;
    const want = m.memory.regions[entries[i + 1]!]!.base + entries[i + 2]!;
    if (d + 1 >= words.length || words[d]! + words[d + 1]! * 2 ** 32 !== want) return d;
  }
  return undefined;
}
