// Reading an input file safely: every file dmac reads (sources, target descriptions, manifests,
// traces, packet streams, goldens) comes through readInputFile. Only regular files are read
// (a symbolic link is followed to what it names): a directory, a FIFO, a socket or a device
// (/dev/zero, /dev/urandom, a terminal) is refused before it is opened for reading, and a FIFO is
// never opened without O_NONBLOCK, so nothing blocks. The size is checked with fstat on the
// opened descriptor before a byte is read, against a limit per kind of input (docs/safety.md),
// and no more than that size is read even if the file grows meanwhile. Each file opened is noted
// (files-read.ts): no output of the command may be written over it.

import { closeSync, constants, fstatSync, openSync, readSync, statSync, type Stats } from "node:fs";
import { noteFileRead } from "./files-read.js";
import { formatSizeExact } from "./format-size.js";

/**
 * Why an input file was not read. `message` and `reason` are a phrase without the path ("is a
 * directory, not a regular file"); `code` is the errno code of a failed call (ENOENT, ...).
 */
export class InputFileError extends Error {
  override readonly name = "InputFileError";
  constructor(
    readonly path: string,
    readonly reason: string,
    /** Set when the file is a regular file larger than the limit. */
    readonly tooLarge?: { readonly size: number; readonly limit: number },
    readonly code?: string | undefined,
  ) {
    super(reason);
  }
}

function failed(path: string, e: unknown): InputFileError {
  const code = (e as { code?: unknown } | null)?.code;
  return new InputFileError(
    path,
    fsReason(e),
    undefined,
    typeof code === "string" ? code : undefined,
  );
}

export interface InputLimit {
  /** The largest accepted size in bytes. */
  readonly maxBytes: number;
  /** What the file is, for the message: "a source file", "a target description", ... */
  readonly what: string;
  /** The option that raises the limit, if there is one. */
  readonly option?: string | undefined;
}

/** Why a file system call failed, in words (no absolute paths, no errno numbers). */
export function fsReason(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  switch (code) {
    case "ENOENT":
      return "no such file or directory";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "EISDIR":
      return "is a directory";
    case "ENOTDIR":
      return "a component of the path is not a directory";
    case "ELOOP":
      return "too many levels of symbolic links";
    case "ENAMETOOLONG":
      return "the path is too long";
    case "EMFILE":
    case "ENFILE":
      return "too many open files";
    case "EIO":
      return "input/output error";
    default:
      return e instanceof Error ? e.message : String(e);
  }
}

/** What a non-regular file is, as the start of a reason ("is a FIFO (named pipe)"). */
function kindOf(st: Stats): string {
  if (st.isDirectory()) return "is a directory";
  if (st.isFIFO()) return "is a FIFO (named pipe)";
  if (st.isCharacterDevice()) return "is a character device";
  if (st.isBlockDevice()) return "is a block device";
  if (st.isSocket()) return "is a socket";
  return "is not a regular file";
}

/** A size against a limit, exactly: "16 MiB", "16777217 B" (util/format-size.ts). */
export const formatLimit = formatSizeExact;

/** The reason for a regular file over its limit. */
export function tooLargeReason(size: number, limit: InputLimit): string {
  return `is ${size} bytes, more than the limit of ${formatLimit(limit.maxBytes)} for ${limit.what}${
    limit.option ? ` (${limit.option} raises it)` : ""
  }`;
}

/**
 * The size of the regular file at `path` (following symbolic links); throws InputFileError if
 * it cannot be statted or is not a regular file. Opens nothing.
 */
export function regularFileSize(path: string): number {
  let st: Stats;
  try {
    st = statSync(path);
  } catch (e) {
    throw failed(path, e);
  }
  if (!st.isFile()) throw new InputFileError(path, `${kindOf(st)}, not a regular file`);
  return st.size;
}

/**
 * The bytes of the regular file at `path`, at most `limit.maxBytes` of them; throws
 * InputFileError (never blocks, never reads a device or a FIFO). `exactBytes`: the size the file
 * must have (a packet stream is as long as its manifest says), checked before reading.
 */
export function readInputFile(
  path: string,
  limit: InputLimit,
  exactBytes?: (size: number) => string | undefined,
): Buffer {
  // stat first: a device is never even opened (opening some has effects).
  regularFileSize(path);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw failed(path, e);
  }
  try {
    // fstat on the descriptor: the file may have been replaced since the stat above.
    const st = fstatSync(fd);
    if (!st.isFile()) throw new InputFileError(path, `${kindOf(st)}, not a regular file`);
    noteFileRead(path, st);
    if (st.size > limit.maxBytes)
      throw new InputFileError(path, tooLargeReason(st.size, limit), {
        size: st.size,
        limit: limit.maxBytes,
      });
    const wrongSize = exactBytes?.(st.size);
    if (wrongSize !== undefined) throw new InputFileError(path, wrongSize);
    const buf = Buffer.allocUnsafe(st.size);
    let n = 0;
    while (n < st.size) {
      let got: number;
      try {
        got = readSync(fd, buf, n, st.size - n, null);
      } catch (e) {
        throw failed(path, e);
      }
      if (got === 0) break; // shrank meanwhile: what is there
      n += got;
    }
    return n === st.size ? buf : buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** readInputFile as UTF-8 text (a BOM is kept: the caller decides what it means). */
export function readInputText(path: string, limit: InputLimit): string {
  return readInputFile(path, limit).toString("utf8");
}
