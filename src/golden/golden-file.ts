// A golden file: a header saying what produced it, then the artefact's text (the body).
//
//   // dmac-golden 1
//   // source: ring.dmac
//   // configuration: O2_chunk=1MiB
//   // artefact: sim
//   // command: dmac golden ring.dmac -O2 -D chunk=1MiB --emit sim
//   // dmac: 0.1.0
//   // ---
//   verdict  verified
//   ...
//
// Only the body is compared: a golden written by another dmac version, or from another command
// line that produces the same text, still passes, and --update leaves it as it is. The first line
// marks a file dmac wrote: only such files are ever reported obsolete or removed. `source` is
// relative to the golden's directory (how obsolete goldens are matched to their schedule).

import { dirname, join, relative, resolve } from "node:path";
import { VERSION } from "../version.js";
import type { ArtefactKind } from "./artefacts.js";

export const GOLDEN_EXTENSION = ".golden";
/** Bumped when the header's meaning changes; a newer golden is refused, never overwritten. */
export const GOLDEN_FORMAT = 1;
const MAGIC = "// dmac-golden ";
const END = "// ---";

export interface GoldenMeta {
  /** The source, relative to the golden's directory. */
  readonly source: string;
  readonly label: string;
  readonly kind: ArtefactKind;
  /** The command line, as words (the source first). */
  readonly command: string;
}

/** `dir/NAME[.LABEL]`: what the goldens of one configuration share (kinds have no dot, so two
 * configurations' goldens have the same names exactly when their bases are the same). */
export function goldenBase(stem: string, label: string): string {
  return label === "" ? stem : `${stem}.${label}`;
}

/** NAME[.LABEL].KIND.golden for the golden stem `dir/NAME`. */
export function goldenPath(stem: string, label: string, kind: ArtefactKind): string {
  return `${goldenBase(stem, label)}.${kind}${GOLDEN_EXTENSION}`;
}

export function renderGolden(meta: GoldenMeta, body: string): string {
  const lines = [
    `${MAGIC}${GOLDEN_FORMAT}`,
    `// source: ${meta.source}`,
    ...(meta.label !== "" ? [`// configuration: ${meta.label}`] : []),
    `// artefact: ${meta.kind}`,
    `// command: ${meta.command}`,
    `// dmac: ${VERSION}`,
    END,
  ];
  return lines.join("\n") + "\n" + body;
}

/** Is this text a golden dmac wrote (its first line)? */
export function isGoldenText(text: string): boolean {
  return text.startsWith(MAGIC);
}

export type ParsedGolden =
  | { readonly body: string; readonly fields: ReadonlyMap<string, string> }
  | { readonly error: string };

/**
 * The body and header fields of a golden. A file without the header is all body (a golden
 * written by hand); one from a newer format is an error rather than a guess.
 */
export function parseGolden(text: string): ParsedGolden {
  if (!isGoldenText(text)) return { body: text, fields: new Map() };
  const end = text.indexOf(`\n${END}\n`);
  if (end < 0) return { error: `its header has no '${END}' line` };
  const header = text.slice(0, end).split("\n");
  const format = Number(header[0]!.slice(MAGIC.length));
  if (!(format <= GOLDEN_FORMAT))
    return {
      error: `it was written by a newer dmac (golden format ${header[0]!.slice(MAGIC.length)})`,
    };
  const fields = new Map<string, string>();
  for (const line of header.slice(1)) {
    const m = /^\/\/ ([\w-]+): (.*)$/.exec(line);
    if (m) fields.set(m[1]!, m[2]!);
  }
  return { body: text.slice(end + END.length + 2), fields };
}

/** The absolute path of the source a golden records (undefined: none recorded). */
export function recordedSource(
  goldenFile: string,
  fields: ReadonlyMap<string, string>,
): string | undefined {
  const s = fields.get("source");
  return s === undefined ? undefined : resolve(dirname(goldenFile), s);
}

/** The source as a golden in `goldenDir` records it. */
export function sourceFromGolden(goldenDir: string, source: string): string {
  return relative(goldenDir, source) || join(".", source);
}
