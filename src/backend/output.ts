// Every file and directory dmac writes goes through here, so one set of rules protects the
// user's data (docs/safety.md, "Outputs"):
// - An output directory is replaced only if it is new, empty, or a previous dmac output: it holds
//   the marker file `.dmac-output` (a format version and the list of files dmac wrote there) and
//   nothing else besides those files. Anything else is refused, untouched: `-o .` in a project
//   must never delete the project.
// - Never over an input of the command, never the current directory or one of its parents, never
//   through a symbolic link (dmac did not create it, so it cannot know where it leads).
// - Big files (dump.txt, manifest.json) are streamed into the temporary as they are produced
//   (StreamedData); a big output's writes run on a second thread (write-behind.ts).
// - Atomic: everything is written into a fresh temporary directory (or file) beside the target
//   and renamed into place; on failure the previous outputs are untouched. Temporaries carry the
//   writer's pid, so a later run removes those of killed runs (and only those).
// - Modes follow the umask (mkdir 0777 and files 0666 before it), like any other tool's output.
// The CLI calls this; nothing else below src/cli writes files.

import {
  closeSync,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  readFileSync,
  renameSync,
  rmSync,
  realpathSync,
  writeFileSync,
  type Stats,
} from "node:fs";
import { randomBytes } from "node:crypto";
import { basename, dirname, join, resolve, sep } from "node:path";
import type { OutputFile } from "./compile-pipeline.js";
import { StreamedData } from "./streamed-data.js";
import { WriteBehind, writeAll } from "./write-behind.js";

export class OutputError extends Error {
  override readonly name = "OutputError";
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

/** The marker that makes a directory a dmac output; `format` changes when its meaning does. */
export const MARKER_NAME = ".dmac-output";
export const MARKER_FORMAT = 1;

interface Marker {
  readonly tool: "dmac";
  readonly format: number;
  readonly files: readonly string[];
}

/** Where an output may not go: the command's inputs (files it read). */
export interface WriteGuard {
  readonly inputs?: readonly string[] | undefined;
}

function reasonOf(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "ENOTDIR") return "a parent is not a directory";
  if (code === "ENOSPC") return "no space left on device";
  if (code === "EROFS") return "read-only file system";
  if (code === "EIO") return "input/output error";
  return e instanceof Error ? e.message : String(e);
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined; // creating a parent says why
    throw new OutputError(path, reasonOf(e));
  }
}

/** `inner` is `outer` or lies below it (both absolute). */
function within(inner: string, outer: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: unknown }).code === "EPERM"; // alive, someone else's
  }
}

function tempName(target: string): string {
  return join(
    dirname(target),
    `.${basename(target)}.dmac-tmp-${process.pid}-${randomBytes(4).toString("hex")}`,
  );
}

/** Removes temporaries of `target` left by dmac runs that were killed (their pid is gone). */
export function cleanStaleTemps(target: string): void {
  const prefix = `.${basename(target)}.dmac-tmp-`;
  let names: string[];
  try {
    names = readdirSync(dirname(target));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d+)-[0-9a-f]{8}(\.old)?$/.exec(name.slice(prefix.length));
    if (!m || isAlive(Number(m[1]))) continue;
    const path = join(dirname(target), name);
    // Best effort: a temporary we cannot inspect or remove is left for its owner.
    try {
      const st = lstatOrUndefined(path);
      if (st?.isFile() || (st?.isDirectory() && isOurDirectory(path))) {
        rmSync(path, { recursive: true, force: true });
      }
    } catch {
      continue;
    }
  }
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

/** Empty, or a dmac output holding only the files its marker lists (all plain files). */
function isOurDirectory(dir: string): boolean {
  return replaceRefusal(dir) === undefined;
}

/** Why the existing directory `dir` may not be replaced, or undefined if it may. */
function replaceRefusal(dir: string): string | undefined {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (e) {
    throw new OutputError(dir, reasonOf(e));
  }
  if (entries.length === 0) return undefined;
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
  for (const e of entries) {
    if (!lstatOrUndefined(join(dir, e))?.isFile()) return `holds ${e}, which is not a plain file`;
  }
  return undefined;
}

/**
 * The error of an empty output path (an unset variable), or undefined: a command that writes files
 * into a directory checks the directory with it before it joins file names to it.
 */
export function emptyPathError(path: string): OutputError | undefined {
  return path.trim() === ""
    ? new OutputError("''", "empty output path (an unset variable?)")
    : undefined;
}

/** Refuses an output path that is empty, or holds the current directory or an input. */
function checkTarget(path: string, guard: WriteGuard): string {
  const empty = emptyPathError(path);
  if (empty) throw empty;
  const target = resolve(path);
  // Through symbolic links too: the real path of the deepest existing ancestor, plus the rest.
  const real = realOrUndefined(target) ?? realish(target);
  if (within(process.cwd(), target) || within(realish(process.cwd()), real)) {
    throw new OutputError(path, "is the current directory or one of its parents");
  }
  for (const input of guard.inputs ?? []) {
    const realInput = realOrUndefined(input);
    if (
      within(resolve(input), target) ||
      (real !== undefined && realInput !== undefined && within(realInput, real))
    ) {
      throw new OutputError(path, `would overwrite an input of this command (${input})`);
    }
    if (realInput !== undefined && isDirectory(realInput) && within(real, realInput)) {
      throw new OutputError(path, `is inside ${input}, an input directory of this command`);
    }
  }
  return target;
}

/** The real path of `path`'s deepest existing ancestor, joined with the part that does not exist. */
function realish(path: string): string {
  const rest: string[] = [];
  let at = path;
  for (;;) {
    const real = realOrUndefined(at);
    if (real !== undefined) return join(real, ...rest.reverse());
    const up = dirname(at);
    if (up === at) return path;
    rest.push(basename(at));
    at = up;
  }
}

function isDirectory(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function makeParent(target: string): void {
  const parent = dirname(target);
  try {
    mkdirSync(parent, { recursive: true });
  } catch (e) {
    throw new OutputError(parent, reasonOf(e));
  }
}

/** Creates `path` (it must not exist) with `data`; streamed data is written chunk by chunk. */
function writeNewFile(path: string, data: OutputFile["data"], behind?: WriteBehind): void {
  if (behind) return writeFileBehind(path, data, behind);
  if (!(data instanceof StreamedData)) {
    writeFileSync(path, data, { flag: "wx" });
    return;
  }
  const fd = openSync(path, "wx", 0o666);
  try {
    data.writeTo((chunk) => writeAll(fd, chunk));
  } finally {
    closeSync(fd);
  }
}

/** writeNewFile with the writes on the second thread (the file is created here). */
function writeFileBehind(path: string, data: OutputFile["data"], behind: WriteBehind): void {
  const fd = openSync(path, "wx", 0o666);
  try {
    if (data instanceof StreamedData) data.writeTo((chunk) => behind.write(fd, chunk));
    else behind.write(fd, typeof data === "string" ? Buffer.from(data) : data);
  } finally {
    behind.close(fd);
  }
}

/** Outputs whose streams hold this many bytes are written on a second thread (write-behind.ts):
 * the streams are a fair measure of the manifest and listing that come with them. */
const WRITE_BEHIND_BYTES = 8 << 20;

function writeBehindFor(files: readonly OutputFile[]): WriteBehind | undefined {
  let n = 0;
  for (const f of files) if (f.data instanceof Uint8Array) n += f.data.length;
  if (n < WRITE_BEHIND_BYTES) return undefined;
  try {
    return new WriteBehind();
  } catch {
    return undefined; // no worker threads here (node's permission model): written directly
  }
}

/** Replaces directory `dir` with one holding exactly `files` (and the marker). */
export function writeOutputDir(
  dir: string,
  files: readonly OutputFile[],
  guard: WriteGuard = {},
): void {
  const target = checkTarget(dir, guard);
  for (const f of files) {
    if (f.name.includes("/") || f.name.includes("\\") || f.name.startsWith(".")) {
      throw new OutputError(f.name, "not a plain file name");
    }
  }
  const st = lstatOrUndefined(target);
  if (st?.isSymbolicLink()) {
    throw new OutputError(dir, "is a symbolic link; dmac does not write through links");
  }
  if (st && !st.isDirectory()) throw new OutputError(dir, "exists and is not a directory");
  if (st) {
    const refusal = replaceRefusal(target);
    if (refusal) throw new OutputError(dir, refusal);
  }
  makeParent(target);
  cleanStaleTemps(target);
  const tmp = tempName(target);
  try {
    mkdirSync(tmp, { mode: 0o777 });
  } catch (e) {
    throw new OutputError(dir, reasonOf(e));
  }
  let old: string | undefined;
  try {
    const marker: Marker = { tool: "dmac", format: MARKER_FORMAT, files: files.map((f) => f.name) };
    writeFileSync(join(tmp, MARKER_NAME), JSON.stringify(marker) + "\n", { flag: "wx" });
    const behind = writeBehindFor(files);
    try {
      for (const f of files) writeNewFile(join(tmp, f.name), f.data, behind);
      behind?.drain();
    } finally {
      behind?.dispose();
    }
    if (existsSync(target)) {
      old = `${tmp}.old`;
      renameSync(target, old);
    }
    try {
      renameSync(tmp, target);
    } catch (e) {
      if (old) renameSync(old, target); // put the previous outputs back
      old = undefined;
      throw e;
    }
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    if (e instanceof OutputError) throw e;
    throw new OutputError(dir, reasonOf(e));
  }
  // The new outputs are in place; if the previous ones cannot all be removed (files owned by
  // someone else), they stay beside the target under a name the next run retries.
  if (old) {
    try {
      rmSync(old, { recursive: true, force: true });
    } catch {
      /* left for cleanStaleTemps */
    }
  }
}

/**
 * Writes one file atomically (temporary file beside it, then rename). Refuses symbolic links,
 * anything that is not a regular file, and the command's inputs. Creates missing parents.
 */
export function writeOutputFile(
  path: string,
  data: string | Uint8Array,
  guard: WriteGuard = {},
): void {
  if (/[/\\]$/.test(path)) throw new OutputError(path, "names a directory, not a file");
  const target = checkTarget(path, guard);
  const st = lstatOrUndefined(target);
  if (st?.isSymbolicLink()) {
    throw new OutputError(path, "is a symbolic link; dmac does not write through links");
  }
  if (st && !st.isFile()) throw new OutputError(path, "exists and is not a regular file");
  makeParent(target);
  cleanStaleTemps(target);
  const tmp = tempName(target);
  try {
    writeFileSync(tmp, data, { flag: "wx", mode: st ? st.mode & 0o777 : 0o666 });
    renameSync(tmp, target);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw new OutputError(path, reasonOf(e));
  }
}

/**
 * Removes one file that dmac wrote (an obsolete golden): refused, untouched, for a symbolic link,
 * anything that is not a regular file, an input of the command, and a file whose contents
 * `isOurs` does not recognise (its first KiB, read just before removing it), so a file dmac did not write is
 * never deleted.
 */
export function removeOutputFile(
  path: string,
  isOurs: (text: string) => boolean,
  guard: WriteGuard = {},
): void {
  const target = checkTarget(path, guard);
  const st = lstatOrUndefined(target);
  if (!st) return;
  if (st.isSymbolicLink()) {
    throw new OutputError(path, "is a symbolic link; dmac does not remove through links");
  }
  if (!st.isFile()) throw new OutputError(path, "is not a regular file");
  // The first KiB is enough to recognise a header; the file may be large.
  const head = Buffer.alloc(1024);
  let n: number;
  try {
    const fd = openSync(target, "r");
    try {
      n = readSync(fd, head, 0, head.length, 0);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    throw new OutputError(path, reasonOf(e));
  }
  if (!isOurs(head.subarray(0, n).toString("utf8"))) {
    throw new OutputError(path, "was not written by dmac; left in place");
  }
  try {
    rmSync(target);
  } catch (e) {
    throw new OutputError(path, reasonOf(e));
  }
}
