// Whether a sidecar's arrays are what manifest.json says (docs/manifest.md, "The sidecar").
// manifest.json is the document a runtime reads; the sidecar only spares `dmac sim` parsing its
// bulky arrays. Its SHA-256 of manifest.json binds it to the JSON's bytes but not its own numbers
// to them: a sidecar edited after compile (or a manifest.json edited and the hash updated) gave
// sim arrays the runtime never sees. So each array is compared with its span of manifest.json:
// the number lists (relocations, packet starts, completion slots, source-map rows) digit by digit
// as JSON reads them, the sync words (objects) as compile writes them (sync-word-rows.ts), byte for
// byte. Any difference and the sidecar is not used (manifest.json is then parsed whole). This
// reads the bytes once and allocates nothing per number: about half the time of parsing them,
// and none of the objects (docs/performance.md, "The sidecar against manifest.json").

import { TextSink } from "./disasm.js";
import type { SidecarArray } from "./manifest-sidecar.js";
import { SyncWordRows, writeSyncWordRows } from "./sync-word-rows.js";

/** manifest.json's bytes [from, to) (fewer at its end). */
export type ReadJson = (from: number, to: number) => Uint8Array;

/**
 * Whether every array is exactly manifest.json's text in its span.
 * `queueNames`: `queues[i].name` of the parsed manifest (sync words name queues by index).
 */
export function sidecarMatches(
  arrays: readonly SidecarArray[],
  queueNames: readonly string[],
  read: ReadJson,
): boolean {
  for (const a of arrays) if (!arrayMatches(a, queueNames, read)) return false;
  return true;
}

function arrayMatches(a: SidecarArray, queueNames: readonly string[], read: ReadJson): boolean {
  if (a.field === 5) return writtenMatches(a, queueNames, read);
  const t = read(a.start, a.end);
  const p =
    a.field === 4
      ? rowsAt(t, 0, a.values, a.rowStarts!)
      : listAt(t, 0, a.values, 0, a.values.length);
  return p === t.length;
}

const isSpace = (c: number | undefined): boolean =>
  c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(t: Uint8Array, p: number): number {
  while (isSpace(t[p])) p++;
  return p;
}

/** Past `c` (after white space) at p, or -1. */
function charAt(t: Uint8Array, p: number, c: number): number {
  p = skipSpace(t, p);
  return t[p] === c ? p + 1 : -1;
}

/**
 * Past the list `[values[from], .., values[to - 1]]` at p, or -1: JSON numbers equal to the
 * values, which are integers below 2^53 (at most 16 digits: no sign, fraction or exponent).
 */
function listAt(
  t: Uint8Array,
  p: number,
  values: ArrayLike<number>,
  from: number,
  to: number,
): number {
  p = charAt(t, p, 0x5b); // [
  if (p >= 0) p = listItems(t, p, values, from, to);
  return p < 0 ? -1 : charAt(t, p, 0x5d); // ]
}

/**
 * Past the list's numbers at p, or -1. One loop over the bytes with compile's `, ` taken first:
 * it runs over most of a big manifest. Nothing follows the loop but the return: V8 compiles the
 * loop while it runs, before any code after it has run, and such code, compiled without type
 * feedback, sent every later list back to the interpreter at its end (src/queues/lower.ts
 * emitCommands).
 */
function listItems(
  t: Uint8Array,
  p: number,
  values: ArrayLike<number>,
  from: number,
  to: number,
): number {
  for (let i = from; i < to && p >= 0; i++) {
    if (i > from) {
      if (t[p] === 0x2c && t[p + 1] === 0x20) p += 2;
      else if ((p = charAt(t, p, 0x2c)) < 0) return -1;
    }
    if (isSpace(t[p])) p = skipSpace(t, p);
    const first = p;
    let n = 0;
    for (; p < t.length; p++) {
      const d = t[p]! - 0x30;
      if (d < 0 || d > 9) break;
      n = n * 10 + d;
    }
    const digits = p - first;
    if (digits === 0 || digits > 16 || (digits > 1 && t[first] === 0x30) || n !== values[i])
      return -1;
  }
  return p;
}

/** Past the list of rows (row r: values[rowStarts[r] .. rowStarts[r + 1])) at p, or -1. */
function rowsAt(
  t: Uint8Array,
  p: number,
  values: ArrayLike<number>,
  rowStarts: Uint32Array,
): number {
  p = charAt(t, p, 0x5b); // [
  if (p >= 0) p = rows(t, p, values, rowStarts);
  return p < 0 ? -1 : charAt(t, p, 0x5d); // ]
}

/** Past the rows at p, or -1 (the loop alone: see listItems). */
function rows(t: Uint8Array, p: number, values: ArrayLike<number>, rowStarts: Uint32Array): number {
  for (let r = 0; r + 1 < rowStarts.length && p >= 0; r++) {
    if (r > 0) p = charAt(t, p, 0x2c); // ,
    if (p >= 0) p = listAt(t, p, values, rowStarts[r]!, rowStarts[r + 1]!);
  }
  return p;
}

/** Thrown by the comparing sink at the first difference (ends the writing early). */
const DIFFERS = Symbol("differs");

/** The sync words written as compile writes them, compared byte for byte with their span. */
function writtenMatches(a: SidecarArray, queueNames: readonly string[], read: ReadJson): boolean {
  let at = a.start;
  const out = new TextSink(1 << 20, (chunk) => {
    const there = read(at, at + chunk.length);
    const mine = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.length);
    if (at + chunk.length > a.end || !mine.equals(there)) throw DIFFERS;
    at += chunk.length;
  });
  try {
    writeSyncWordRows(out, new SyncWordRows(a.values, queueNames), depthOf(a, read));
    out.end();
  } catch (e) {
    if (e === DIFFERS) return false;
    throw e;
  }
  return at === a.end;
}

/**
 * The nesting depth the sync words were written at: their closing `]` is indented by two spaces
 * a level (a wrong guess only fails the comparison).
 */
function depthOf(a: SidecarArray, read: ReadJson): number {
  const tail = read(Math.max(a.start, a.end - 64), a.end);
  let spaces = 0;
  for (let i = tail.length - 2; i >= 0 && tail[i] === 0x20; i--) spaces++;
  return spaces >> 1;
}
