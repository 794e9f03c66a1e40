// Atomic output directories. writeOutputDir writes every file into a fresh temporary directory
// beside the target (same parent, so rename is atomic on one file system), then swaps it into
// place: the old directory is renamed aside and removed only after the new one is in place. On
// any failure the temporary directory is removed and the previous outputs are left untouched.
// This is I/O on purpose: the CLI calls it; nothing else below src/cli writes files.

import {
  mkdtempSync,
  renameSync,
  rmSync,
  writeFileSync,
  existsSync,
  statSync,
  mkdirSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import type { OutputFile } from "./compile-pipeline.js";

export class OutputError extends Error {
  override readonly name = "OutputError";
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

function reasonOf(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EACCES" || code === "EPERM") return "permission denied";
  if (code === "ENOTDIR") return "a parent is not a directory";
  return e instanceof Error ? e.message : String(e);
}

/** Replaces directory `dir` with one holding exactly `files`. Throws OutputError. */
export function writeOutputDir(dir: string, files: readonly OutputFile[]): void {
  const target = resolve(dir);
  const parent = dirname(target);
  if (existsSync(target) && !statSync(target).isDirectory()) {
    throw new OutputError(dir, "exists and is not a directory");
  }
  try {
    mkdirSync(parent, { recursive: true });
  } catch (e) {
    throw new OutputError(parent, reasonOf(e));
  }
  let tmp: string;
  try {
    tmp = mkdtempSync(join(parent, `.${basename(target)}.tmp-`));
  } catch (e) {
    throw new OutputError(dir, reasonOf(e));
  }
  let old: string | undefined;
  try {
    for (const f of files) {
      if (f.name.includes("/") || f.name.includes("\\") || f.name.startsWith(".")) {
        throw new OutputError(f.name, "not a plain file name");
      }
      writeFileSync(join(tmp, f.name), f.data);
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
  if (old) rmSync(old, { recursive: true, force: true });
}
