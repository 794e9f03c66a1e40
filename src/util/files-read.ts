// The files the running command has read, so that no output of it is ever one of them
// (backend/output.ts checks every output path against this record). Every read goes through
// read-input.ts, which notes each file here: a command cannot forget to list an input, which is
// how `measure --fit --target T -o T` used to overwrite its own target. Files are known by
// device and inode, so another name for the same file (a hard link, a path through a symbolic
// link) is the same input; main() starts each command with an empty record, since tests run many
// commands in one process. The record is this thread's: a file read on a worker thread (the
// source `sim` builds on its helper) is named by the command itself (WriteGuard.inputs).

import { realpathSync, statSync, type Stats } from "node:fs";

interface FileRead {
  /** As the command named it, for the message. */
  readonly path: string;
  /** Its real path, for "this directory holds an input". */
  readonly real: string;
}

const byInode = new Map<string, FileRead>();

const inodeKey = (st: Stats): string => `${st.dev}:${st.ino}`;

/** Records that the command read `path`, whose (fstat) stats are `st`. */
export function noteFileRead(path: string, st: Stats): void {
  const key = inodeKey(st);
  if (byInode.has(key)) return;
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return; // gone since it was read: nothing can be written over it
  }
  byInode.set(key, { path, real });
}

/** Forgets every file read (a new command starts). */
export function forgetFilesRead(): void {
  byInode.clear();
}

/**
 * The input that is the file with stats `st`, if the command read it. The input's path is
 * statted again, so an inode reused since (the input was deleted) is not taken for it.
 */
export function inputWithInode(st: Stats): string | undefined {
  const read = byInode.get(inodeKey(st));
  if (read === undefined) return undefined;
  try {
    return inodeKey(statSync(read.real)) === inodeKey(st) ? read.path : undefined;
  } catch {
    return undefined;
  }
}

/** The real paths of every file read, with the names the command gave them. */
export function filesRead(): Iterable<FileRead> {
  return byInode.values();
}
