// The golden index: which test blessed each golden of a directory. Every directory that holds
// goldens dmac wrote has one, `.dmac-golden-index.json`, one entry per line so it diffs well:
//
//   {"tool": "dmac golden", "format": 1, "goldens": {
//     "ring.O2.dump.golden": {"source": "ring.dmac", "label": "O2", "kind": "dump"}
//   }}
//
// `source` is relative to the index's directory (like a golden's header), so a checkout can move.
// The index, not a golden's header, is what makes a golden dmac's to remove: a header can be
// copied or hand-edited, and a golden from before the index existed has none (owners.ts). It is
// written after the goldens it lists, so a run cut short leaves goldens it does not record (never
// removed), never an entry for a file dmac did not write.

import { lstatSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { OutputError, removeOutputFile, writeOutputFile } from "../backend/output.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { InputFileError, readInputText } from "../util/read-input.js";
import { ARTEFACTS, type ArtefactKind } from "./artefacts.js";
import { GOLDEN_EXTENSION } from "./golden-file.js";

export const INDEX_NAME = ".dmac-golden-index.json";
/** Bumped when the index's meaning changes; a newer index is refused, never overwritten. */
export const INDEX_FORMAT = 1;
const TOOL = "dmac golden";
/** About 100 bytes an entry: a million goldens. */
const MAX_INDEX_BYTES = 128 << 20;

/** The test that blessed a golden: its source (absolute), configuration label and artefact. */
export interface Owner {
  readonly source: string;
  readonly label: string;
  readonly kind: ArtefactKind;
}

export interface GoldenIndex {
  readonly dir: string;
  /** By golden file name (no directory). */
  readonly goldens: Map<string, Owner>;
}

export const sameOwner = (a: Owner, b: Owner): boolean =>
  a.source === b.source && a.label === b.label && a.kind === b.kind;

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function parseOwner(dir: string, name: string, v: unknown): Owner | string {
  if (name.includes("/") || name.includes("\\") || !name.endsWith(GOLDEN_EXTENSION))
    return `'${name}' is not a golden file name`;
  if (!isRecord(v) || typeof v.source !== "string" || typeof v.label !== "string")
    return `the entry of ${name} needs a source and a label`;
  const kind = ARTEFACTS.find((a) => a.kind === v.kind)?.kind;
  if (kind === undefined) return `the entry of ${name} has no artefact kind`;
  return { source: resolve(dir, v.source), label: v.label, kind };
}

/** The index of `dir` (empty when there is none), or why it cannot be used. */
export function readIndex(dir: string): GoldenIndex | { error: string } {
  const goldens = new Map<string, Owner>();
  let text: string;
  try {
    text = readInputText(join(dir, INDEX_NAME), { maxBytes: MAX_INDEX_BYTES, what: "an index" });
  } catch (e) {
    if (e instanceof InputFileError && (e.code === "ENOENT" || e.code === "ENOTDIR"))
      return { dir, goldens };
    return { error: e instanceof Error ? e.message : String(e) };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { error: "it is not JSON" };
  }
  if (!isRecord(doc) || doc.tool !== TOOL || typeof doc.format !== "number")
    return { error: `it is not a golden index of ${TOOL}` };
  if (doc.format > INDEX_FORMAT)
    return { error: `it was written by a newer dmac (index format ${doc.format})` };
  if (!isRecord(doc.goldens)) return { error: "it has no goldens" };
  for (const [name, v] of Object.entries(doc.goldens)) {
    const owner = parseOwner(dir, name, v);
    if (typeof owner === "string") return { error: owner };
    goldens.set(name, owner);
  }
  return { dir, goldens };
}

/** The index as text: sorted by name (code units), one golden a line. */
export function renderIndex(index: GoldenIndex): string {
  const names = [...index.goldens.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const lines = names.map((name) => {
    const o = index.goldens.get(name)!;
    const entry = { source: relative(index.dir, o.source), label: o.label, kind: o.kind };
    return `    ${JSON.stringify(name)}: ${JSON.stringify(entry)}`;
  });
  const goldens = lines.length === 0 ? "{}" : `{\n${lines.join(",\n")}\n  }`;
  return `{\n  "tool": "${TOOL}",\n  "format": ${INDEX_FORMAT},\n  "goldens": ${goldens}\n}\n`;
}

const exists = (path: string): boolean => {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
};

/** Is this text (its start) an index dmac wrote? */
const isIndexText = (text: string): boolean => text.startsWith(`{\n  "tool": "${TOOL}",`);

/**
 * Writes an index through dmac's atomic writer, without the entries whose golden is no longer
 * there (removed, or deleted by hand), so an index never claims a file dmac did not write; an
 * index left with no entry is removed. Nothing is written when nothing `changed`.
 */
export function writeIndex(index: GoldenIndex, changed: boolean): Diagnostic[] {
  for (const name of [...index.goldens.keys()])
    if (!exists(join(index.dir, name))) changed = index.goldens.delete(name);
  if (!changed) return [];
  const path = join(index.dir, INDEX_NAME);
  try {
    if (index.goldens.size > 0)
      writeOutputFile(path, renderIndex(index), { rewrites: true }); // the index it read
    else removeOutputFile(path, isIndexText);
    return [];
  } catch (e) {
    if (!(e instanceof OutputError)) throw e;
    return [diag("DMAC5002", undefined, [e.path, e.reason])];
  }
}

/** The indexes a run reads, each directory's read once. */
export class IndexCache {
  private readonly indexes = new Map<string, GoldenIndex | { error: string }>();

  get(dir: string): GoldenIndex | { error: string } {
    let index = this.indexes.get(dir);
    if (index === undefined) this.indexes.set(dir, (index = readIndex(dir)));
    return index;
  }
}
