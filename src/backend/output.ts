// Every file and directory dmac writes goes through here, so one set of rules protects the
// user's data (docs/safety.md, "Outputs"):
// - An output directory is replaced only if it is new, empty, or a previous dmac output: it holds
//   the marker file `.dmac-output` (a format version and the list of files dmac wrote there) and
//   nothing else besides those files. Anything else is refused, untouched: `-o .` in a project
//   must never delete the project.
// - Never over a file the command read (util/files-read.ts: under any name, hard links too) or
//   another input it names, never the current directory or one of its parents, never through a
//   symbolic link (dmac did not create it, so it cannot know where it leads).
// - Big files (dump.txt, manifest.json, a Chrome trace) are streamed into the temporary as they
//   are produced (StreamedData); a big output's writes run on a second thread (write-behind.ts).
// - Atomic: everything is written into a fresh temporary beside the target and renamed into
//   place; on failure the previous outputs are untouched. temporaries.ts has the one rule for
//   temporaries: what they hold, and what a later write does with those of a killed writer.
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
  renameSync,
  rmSync,
  realpathSync,
  statSync,
  writeFileSync,
  type Stats,
} from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import { filesRead, inputWithInode } from "../util/files-read.js";
import { ourDirectory } from "./output-marker.js";
import {
  asideName,
  discardTemporary,
  newTemporary,
  recoverStaleTemporaries,
  removeOurDirectory,
} from "./temporaries.js";
import { StreamedData } from "../util/streamed-data.js";
import { WriteBehind, writeAll } from "./write-behind.js";

/** One output file: its name in the output directory and its contents. */
export interface OutputFile {
  readonly name: string;
  readonly data: Uint8Array | string | StreamedData;
}

/** An output file's contents as bytes (a streamed file is produced in memory). */
export function outputBytes(f: OutputFile): Uint8Array | string {
  return f.data instanceof StreamedData ? f.data.bytes() : f.data;
}

/** An output file's contents as text: JSON and listings are written as strings or UTF-8 bytes. */
export function outputText(f: OutputFile): string {
  const data = outputBytes(f);
  return typeof data === "string" ? data : new TextDecoder().decode(data);
}

export class OutputError extends Error {
  override readonly name = "OutputError";
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

/**
 * Where an output may not go, besides every file the command read (util/files-read.ts): `inputs`
 * names more, such as an input directory (a compiled output given to `sim`). `rewrites`: the
 * output is the new version of the file at its own path, which the command read as the old one
 * (`fmt --write`, `golden --update`); the files read are then not checked.
 */
export interface WriteGuard {
  readonly inputs?: readonly string[] | undefined;
  readonly rewrites?: boolean | undefined;
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

/** Why the existing directory `dir` may not be replaced, or undefined if it may. */
function replaceRefusal(dir: string): string | undefined {
  try {
    if (readdirSync(dir).length === 0) return undefined;
    const ours = ourDirectory(dir);
    return typeof ours === "string" ? ours : undefined;
  } catch (e) {
    throw new OutputError(dir, reasonOf(e));
  }
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
  if (!guard.rewrites) refuseFilesRead(path, target, real);
  return target;
}

/** Refuses a target that is a file the command read (under any name), or a directory holding one. */
function refuseFilesRead(path: string, target: string, real: string): void {
  let st: Stats;
  try {
    st = statSync(target); // what the path names, through links
  } catch {
    return; // nothing there: not a file that was read
  }
  const input = inputWithInode(st);
  if (input !== undefined) {
    throw new OutputError(path, `would overwrite an input of this command (${input})`);
  }
  if (!st.isDirectory()) return;
  for (const read of filesRead()) {
    if (within(read.real, real)) {
      throw new OutputError(path, `would overwrite an input of this command (${read.path})`);
    }
  }
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
function writeNewFile(
  path: string,
  data: OutputFile["data"],
  behind?: WriteBehind,
  mode = 0o666,
): void {
  if (behind) return writeFileBehind(path, data, behind);
  if (!(data instanceof StreamedData)) {
    writeFileSync(path, data, { flag: "wx", mode });
    return;
  }
  const fd = openSync(path, "wx", mode);
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
  recoverStaleTemporaries(target); // first: a previous output may come back to `target`
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
  const tmp = temporaryFor(
    dir,
    target,
    files.map((f) => f.name),
  );
  let aside: string | undefined;
  try {
    writeFiles(tmp, files);
    aside = swapIn(tmp, target);
  } catch (e) {
    discardTemporary(tmp);
    if (e instanceof OutputError) throw e;
    throw new OutputError(dir, reasonOf(e));
  }
  // The new outputs are in place; previous ones that cannot all be removed (files owned by
  // someone else) stay aside, marked, for the next write to remove.
  if (aside !== undefined) {
    try {
      removeOurDirectory(aside);
    } catch {
      /* left for recoverStaleTemporaries */
    }
  }
}

function temporaryFor(path: string, target: string, names: readonly string[]): string {
  try {
    return newTemporary(target, names);
  } catch (e) {
    throw new OutputError(path, reasonOf(e));
  }
}

function writeFiles(dir: string, files: readonly OutputFile[]): void {
  const behind = writeBehindFor(files);
  try {
    for (const f of files) writeNewFile(join(dir, f.name), f.data, behind);
    behind?.drain();
  } finally {
    behind?.dispose();
  }
}

/**
 * Renames the complete `tmp` to `target`, moving a previous `target` aside first (returned, for
 * removal). Between the two renames `target` is missing and the previous output is complete
 * aside, with its marker: the next write renames it back if this process dies there.
 */
function swapIn(tmp: string, target: string): string | undefined {
  const aside = existsSync(target) ? asideName(tmp) : undefined;
  if (aside !== undefined) renameSync(target, aside);
  try {
    renameSync(tmp, target);
  } catch (e) {
    if (aside !== undefined) renameSync(aside, target); // put the previous outputs back
    throw e;
  }
  return aside;
}

/** The one file of a file output's temporary (a fixed name: the target's could be the marker's). */
const TEMPORARY_FILE = "file";

/**
 * Writes one file atomically (into a temporary beside it, then renamed into place; streamed data
 * chunk by chunk, never held whole). Refuses symbolic links, anything that is not a regular file,
 * and the command's inputs. Creates missing parents.
 */
export function writeOutputFile(
  path: string,
  data: string | Uint8Array | StreamedData,
  guard: WriteGuard = {},
): void {
  if (/[/\\]$/.test(path)) throw new OutputError(path, "names a directory, not a file");
  const target = checkTarget(path, guard);
  recoverStaleTemporaries(target);
  const st = lstatOrUndefined(target);
  if (st?.isSymbolicLink()) {
    throw new OutputError(path, "is a symbolic link; dmac does not write through links");
  }
  if (st && !st.isFile()) throw new OutputError(path, "exists and is not a regular file");
  makeParent(target);
  const tmp = temporaryFor(path, target, [TEMPORARY_FILE]);
  try {
    const file = join(tmp, TEMPORARY_FILE);
    writeNewFile(file, data, undefined, st ? st.mode & 0o777 : 0o666);
    renameSync(file, target);
  } catch (e) {
    if (!isSystemError(e)) throw e; // a fault of streamed data's producer, not of the write
    throw new OutputError(path, reasonOf(e));
  } finally {
    discardTemporary(tmp);
  }
}

/** An error of a system call (it has a code such as ENOSPC), as opposed to a bug. */
const isSystemError = (e: unknown): boolean =>
  typeof (e as { code?: unknown } | null)?.code === "string";

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
  // (The file was read to recognise it: reading it does not make it an input.)
  const target = checkTarget(path, { ...guard, rewrites: true });
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
