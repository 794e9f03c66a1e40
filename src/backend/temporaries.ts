// The one rule for dmac's temporaries (docs/safety.md, "Outputs never destroy data"). Every
// output is first written into a temporary directory beside its target,
// `.NAME.dmac-tmp-PID-RANDOM`, whose marker (output-marker.ts) is written before anything else:
// a directory output is that directory renamed into place, a file output its one file renamed
// out of it. A directory output being replaced is first moved aside, to the temporary's name plus
// `.old`; between that rename and the next the previous output is complete under that name.
//
// A writer that is killed leaves its temporaries behind. The next write to the same target deals
// with those whose writer no longer runs, and only with those whose marker says dmac wrote all
// they hold (a user's file or empty directory of that name is never touched): a complete previous
// output moved aside while the target is missing (the writer died between its two renames) is
// renamed back, so the user always has one version; anything else is removed, its files before
// its marker, so a removal cut short still carries the marker and the next write finishes it.

import {
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { MARKER_NAME, ourDirectory, writeMarker } from "./output-marker.js";

const prefix = (target: string): string => `.${basename(target)}.dmac-tmp-`;

/** Eight random hex digits: with the pid, a name that no other writer uses and that a stale
 * temporary of a dead process with the same pid is unlikely to hold (mkdirSync refuses one that
 * exists). Math.random, not node:crypto: loading that module cost every compile ~3 ms, and the
 * name needs no secrecy. */
function randomHex8(): string {
  return Math.floor(Math.random() * 2 ** 32)
    .toString(16)
    .padStart(8, "0");
}

/**
 * Creates a temporary beside `target` for `files` (their names), marker first; throws the file
 * system's error. The caller writes the files into it.
 */
export function newTemporary(target: string, files: readonly string[]): string {
  const tmp = join(dirname(target), `${prefix(target)}${process.pid}-${randomHex8()}`);
  mkdirSync(tmp, { mode: 0o777 });
  try {
    writeMarker(tmp, files);
  } catch (e) {
    discardTemporary(tmp);
    throw e;
  }
  return tmp;
}

/** Where the output that `tmp` replaces is moved aside while it does. */
export const asideName = (tmp: string): string => `${tmp}.old`;

/**
 * Removes a temporary this process created (mkdir is exclusive: no one else wrote into it), once
 * its file was renamed out or after a failure; best effort.
 */
export function discardTemporary(tmp: string): void {
  try {
    rmSync(tmp, { recursive: true, force: true });
  } catch {
    /* left for the next write's recoverStaleTemporaries */
  }
}

/**
 * Removes `dir` if its marker says dmac wrote all it holds: the listed files, then the marker,
 * then the directory. False when it is not dmac's (left untouched); throws a removal's error.
 */
export function removeOurDirectory(dir: string): boolean {
  const ours = ourDirectory(dir);
  if (typeof ours === "string") return false;
  for (const f of ours.present) rmSync(join(dir, f), { force: true });
  unlinkSync(join(dir, MARKER_NAME));
  rmdirSync(dir);
  return true;
}

/** Deals with the temporaries of `target` left by writers that no longer run (see the top). */
export function recoverStaleTemporaries(target: string): void {
  let names: string[];
  try {
    names = readdirSync(dirname(target));
  } catch {
    return; // no parent yet: no temporaries
  }
  for (const name of names) {
    const stale = staleTemporary(target, name);
    if (stale === undefined) continue;
    const path = join(dirname(target), name);
    // Best effort: a temporary that cannot be inspected, restored or removed stays as it is.
    try {
      if (!lstatSync(path).isDirectory()) continue;
      const ours = ourDirectory(path);
      if (typeof ours === "string") continue;
      if (stale.aside && ours.complete && !exists(target)) renameSync(path, target);
      else removeOurDirectory(path);
    } catch {
      continue;
    }
  }
}

/** `name` as a temporary of `target` whose writer no longer runs, or undefined. */
function staleTemporary(target: string, name: string): { aside: boolean } | undefined {
  const p = prefix(target);
  if (!name.startsWith(p)) return undefined;
  const m = /^(\d+)-[0-9a-f]{8}(\.old)?$/.exec(name.slice(p.length));
  if (!m || isAlive(Number(m[1]))) return undefined;
  return { aside: m[2] !== undefined };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: unknown }).code === "EPERM"; // alive, someone else's
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (e) {
    if ((e as { code?: unknown }).code === "ENOENT") return false;
    throw e; // unknown: nothing is restored over it
  }
}
