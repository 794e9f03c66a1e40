// The marker that makes a directory dmac's: `.dmac-output`, a format version and the list of
// files dmac writes there. Every output directory and every temporary (temporaries.ts) carries
// one, and dmac replaces or deletes a directory only when its marker says that dmac wrote all it
// holds: a directory without one is the user's, whatever its name.

import { lstatSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const MARKER_NAME = ".dmac-output";
/** Changes when the marker's meaning does: a newer dmac's outputs are not replaced. */
export const MARKER_FORMAT = 1;

interface Marker {
  readonly tool: "dmac";
  readonly format: number;
  readonly files: readonly string[];
}

/** Writes the marker of `dir`, which will hold `files`; it must not exist yet. */
export function writeMarker(dir: string, files: readonly string[]): void {
  const marker: Marker = { tool: "dmac", format: MARKER_FORMAT, files };
  writeFileSync(join(dir, MARKER_NAME), JSON.stringify(marker) + "\n", { flag: "wx" });
}

function readMarker(dir: string): Marker | undefined {
  try {
    const st = lstatSync(join(dir, MARKER_NAME));
    if (!st.isFile() || st.size > 1 << 20) return undefined;
    const m = JSON.parse(readFileSync(join(dir, MARKER_NAME), "utf8")) as Partial<Marker>;
    if (m.tool !== "dmac" || typeof m.format !== "number" || !Array.isArray(m.files)) {
      return undefined;
    }
    return m.files.every((f) => typeof f === "string") ? (m as Marker) : undefined;
  } catch {
    return undefined;
  }
}

/** What a directory dmac wrote holds. */
export interface OurDirectory {
  /** The files its marker lists that are there (names read from the directory, never the
   * marker's: a marker could list `../x`). */
  readonly present: readonly string[];
  /** Every listed file is there (a removal cut short, or a write, leaves fewer). */
  readonly complete: boolean;
}

/**
 * `dir` as dmac wrote it (its marker, plain files it lists and nothing else), or why it is not:
 * a reason for the user (an empty directory has no marker: it is not one). Throws the error of a
 * directory that cannot be listed.
 */
export function ourDirectory(dir: string): OurDirectory | string {
  const entries = readdirSync(dir);
  const marker = readMarker(dir);
  if (!marker) {
    return "exists, is not empty and is not a dmac output directory (it has no .dmac-output marker); choose a new or empty directory";
  }
  if (marker.format > MARKER_FORMAT) {
    return `was written by a newer dmac (output format ${marker.format}); remove it yourself to replace it`;
  }
  const known = new Set([MARKER_NAME, ...marker.files]);
  const extra = entries.filter((e) => !known.has(e)).sort();
  if (extra.length > 0) {
    return `is a dmac output directory but also holds ${extra.length === 1 ? "a file" : "files"} dmac did not write (${extra.slice(0, 3).join(", ")}${extra.length > 3 ? ", ..." : ""}); move ${extra.length === 1 ? "it" : "them"} away first`;
  }
  for (const e of entries)
    if (!isPlainFile(join(dir, e))) return `holds ${e}, which is not a plain file`;
  const present = entries.filter((e) => e !== MARKER_NAME);
  return { present, complete: entries.length === known.size };
}

function isPlainFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}
