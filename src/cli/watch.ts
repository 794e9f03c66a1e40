// `--watch` for `dmac check` and `dmac sim`: run the command, then run it again each time one of
// its files is saved, until Ctrl-C.
//   - What is watched: each input (a directory input: anything in it), the `--target` file, and
//     the target description a .dmac names (`target "node.json"`), recomputed after every run.
//   - How: fs.watch on each file's DIRECTORY, filtered by name. Editors save by writing a new
//     file and renaming it over the old one, which ends a watch on the file itself. A directory
//     that is deleted and made again (a branch switch) is followed: see DirWatchers.
//   - Debounced (one run for the burst of events a save makes), and skipped when no watched file's
//     size, mtime or inode changed since the last run.
//   - Each run's output is captured. On a terminal the screen is cleared first. A run that
//     succeeds (exit 0) is printed and becomes the "last good result"; a run with errors prints
//     the last good result under a header, then its own output under a second header, so the
//     errors are at the bottom, where the eye is, and the working version stays visible above.
//   - SIGINT/SIGTERM close the watchers and end the loop with exit code 0 (1 at once when no
//     input's directory exists or could be watched).

import { statSync, watch, type FSWatcher } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import type { CliContext } from "./main.js";
import { EXIT_INTERNAL, EXIT_USER_ERROR, type OutputStreams } from "./io.js";
import { DEFAULT_MAX_SOURCE_BYTES, parseSource } from "../frontend/parse.js";
import { makeSourceFile } from "../source/source-file.js";
import { readInputFile } from "../util/read-input.js";
import { isBuiltinTargetName } from "../target/target.js";

export const WATCH_HELP =
  "run again each time an input (or its target file) is saved; on errors the last good result stays visible; Ctrl-C stops";

export interface WatchedCommand {
  /** The command's inputs: files, or directories (any change in one re-runs). */
  readonly inputs: readonly string[];
  /** The `--target` file, if given. */
  readonly targetOption?: string | undefined;
  /** One run of the command, writing to `ctx.streams`; returns its exit code. */
  readonly run: (ctx: CliContext) => number | Promise<number>;
}

export interface WatchLoopOptions {
  /** Quiet time after the last event before re-running, in ms (default 100). */
  readonly debounceMs?: number | undefined;
  /** Ends the loop (tests); by default SIGINT and SIGTERM do. */
  readonly signal?: AbortSignal | undefined;
  /** The clock shown in headers (tests). */
  readonly now?: (() => Date) | undefined;
}

/**
 * What a command's action calls: one run, or with `--watch` the watch loop over the inputs and
 * the `--target` file.
 */
export async function runOrWatch(
  ctx: CliContext,
  inputs: readonly string[],
  opts: { readonly watch?: boolean | undefined; readonly target?: string | undefined },
  run: WatchedCommand["run"],
): Promise<number> {
  if (opts.watch !== true) return await run(ctx);
  return await watchCommand(ctx, { inputs, targetOption: opts.target, run });
}

const CLEAR_SCREEN = "\x1b[2J\x1b[3J\x1b[H";

/** One run's output, in the order it was written, with its exit code and time. */
interface Captured {
  readonly chunks: readonly { readonly err: boolean; readonly text: string }[];
  readonly code: number;
  readonly at: Date;
}

export async function watchCommand(
  ctx: CliContext,
  cmd: WatchedCommand,
  opts: WatchLoopOptions = {},
): Promise<number> {
  const streams = ctx.streams;
  const now = opts.now ?? (() => new Date());
  const stopper = opts.signal !== undefined ? { signal: opts.signal, dispose() {} } : signalStop();
  const stop = stopper.signal;
  const watchers = new DirWatchers(streams, () => schedule());
  let lastGood: Captured | undefined;
  let files: string[] = [];
  let lastSeen = "";
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const runOnce = async (): Promise<void> => {
    // Before the run, so that a save during it is seen as a change.
    files = watchedFiles(cmd.inputs, cmd.targetOption);
    lastSeen = signature(files);
    const run = await capture(streams, cmd.run, now);
    if (run.code === 0) lastGood = run;
    // Watch before saying "watching": a save right after the message must not fall between the
    // two. A save during the run (before the watchers exist) is caught by the signature.
    watchers.update(files);
    show(streams, run, lastGood, now, files.length);
    if (signature(files) !== lastSeen) schedule();
  };
  const schedule = (): void => {
    if (stop.aborted) return;
    clearTimeout(timer);
    timer = setTimeout(() => {
      running = running.then(async () => {
        if (stop.aborted) return;
        if (signature(files) === lastSeen) return;
        await runOnce();
      });
    }, opts.debounceMs ?? 100);
  };

  try {
    await runOnce();
    if (watchers.size === 0) {
      streams.err("dmac: nothing to watch\n");
      return EXIT_USER_ERROR;
    }
    await new Promise<void>((done) => {
      if (stop.aborted) done();
      else stop.addEventListener("abort", () => done(), { once: true });
    });
    return 0;
  } finally {
    clearTimeout(timer);
    watchers.closeAll();
    stopper.dispose();
    await running;
  }
}

/** An AbortSignal raised by SIGINT or SIGTERM; `dispose` removes the handlers. */
function signalStop(): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  return {
    signal: controller.signal,
    dispose: () => {
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
    },
  };
}

async function capture(
  streams: OutputStreams,
  run: WatchedCommand["run"],
  now: () => Date,
): Promise<Captured> {
  const chunks: { err: boolean; text: string }[] = [];
  let exitCode: number | undefined;
  const ctx: CliContext = {
    streams: {
      out: (text) => void chunks.push({ err: false, text }),
      err: (text) => void chunks.push({ err: true, text }),
      isTTY: streams.isTTY,
    },
    exit: (c) => void (exitCode = c),
  };
  let code: number;
  try {
    code = await run(ctx);
  } catch (e) {
    // A bug in dmac ends this run, not the watch: the next save may not meet it.
    const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    chunks.push({
      err: true,
      text: `internal error: ${what}\nThis is a bug in dmac, not a problem with your input. Please report it with the input that caused it (run without --watch, with --debug, for the stack trace).\n`,
    });
    code = EXIT_INTERNAL;
  }
  return { chunks, code: exitCode ?? code, at: now() };
}

function replay(streams: OutputStreams, run: Captured): void {
  for (const c of run.chunks) (c.err ? streams.err : streams.out)(c.text);
}

const clock = (d: Date): string => d.toTimeString().slice(0, 8);

function show(
  streams: OutputStreams,
  run: Captured,
  lastGood: Captured | undefined,
  now: () => Date,
  fileCount: number,
): void {
  // On standard error: `isTTY` is about that stream, and stdout may be piped to a file.
  if (streams.isTTY) streams.err(CLEAR_SCREEN);
  const failed = run.code !== 0;
  if (failed && lastGood !== undefined) {
    streams.err(`── last good result (${clock(lastGood.at)}) ──\n`);
    if (lastGood.chunks.length === 0) streams.err("(no output)\n");
    replay(streams, lastGood);
    streams.err(`── current version (${clock(run.at)}): errors ──\n`);
  }
  replay(streams, run);
  const files = `${fileCount} file${fileCount === 1 ? "" : "s"}`;
  const state = failed ? "errors" : "ok";
  streams.err(`[${clock(now())}] ${state}; watching ${files} for changes (Ctrl-C to stop)\n`);
}

/**
 * The files whose change re-runs the command: the inputs, the `--target` file, and the target
 * description each .dmac input names (relative to it, as the checker resolves it).
 */
export function watchedFiles(inputs: readonly string[], targetOption?: string): string[] {
  const files = new Set<string>();
  for (const input of inputs) {
    files.add(resolve(input));
    if (input.endsWith(".dmac")) {
      const target = namedTargetFile(input);
      if (target !== undefined) files.add(target);
    }
  }
  if (targetOption !== undefined && !isBuiltinTargetName(targetOption))
    files.add(resolve(targetOption));
  return [...files];
}

/** The absolute path of the `target "file.json"` a .dmac names, or undefined. */
function namedTargetFile(path: string): string | undefined {
  try {
    const limit = { maxBytes: DEFAULT_MAX_SOURCE_BYTES, what: "a source file" };
    const text = readInputFile(path, limit).toString("utf8");
    const { program } = parseSource(makeSourceFile(path, text));
    for (const item of program.items) {
      if (item.kind === "target" && item.path !== undefined)
        return resolve(dirname(path), item.path.value);
    }
  } catch {
    // Unreadable now: the run reports it; the file itself is still watched.
  }
  return undefined;
}

/** Size, mtime and inode of each file ("-" if missing): equal signatures, nothing to re-run. */
function signature(files: readonly string[]): string {
  return files
    .map((f) => {
      try {
        const s = statSync(f);
        return `${s.size}:${s.mtimeMs}:${s.ino}`;
      } catch {
        return "-";
      }
    })
    .join("|");
}

/** A watch for the files of one directory: on it, or while it is missing on its nearest ancestor. */
interface DirWatch {
  readonly watcher: FSWatcher;
  names: Set<string> | "all";
  /** The directory watched: the wanted one, or the nearest ancestor that exists. */
  readonly watched: string;
  /** Its inode when the watch began: another one means it was deleted and made again. */
  readonly ino: number | undefined;
}

/**
 * One fs.watch per directory, each filtered by the names of the files watched in it. A watch on a
 * directory that is deleted (a branch switch) hears nothing more, even once the directory is made
 * again: so a missing directory is watched through its nearest existing ancestor, every event
 * first checks that each watch is still on the directory it means (same path, same inode) and
 * moves it if not, and a watch that fails is tried again after a second.
 */
class DirWatchers {
  private readonly dirs = new Map<string, DirWatch>();
  private files: readonly string[] = [];
  private retry: NodeJS.Timeout | undefined;

  constructor(
    private readonly streams: OutputStreams,
    private readonly onChange: () => void,
  ) {}

  update(files: readonly string[]): void {
    this.files = files;
    const wanted = new Map<string, Set<string> | "all">();
    for (const f of files) {
      const isDir = isDirectory(f);
      const dir = isDir ? f : dirname(f);
      const names = wanted.get(dir);
      if (isDir || names === "all") wanted.set(dir, "all");
      else wanted.set(dir, (names ?? new Set<string>()).add(basename(f)));
    }
    for (const dir of [...this.dirs.keys()]) if (!wanted.has(dir)) this.forget(dir);
    for (const [dir, names] of wanted) this.arm(dir, names);
  }

  /** How many of the directories exist and are watched (not through an ancestor). */
  get size(): number {
    return [...this.dirs].filter(([dir, entry]) => entry.watched === dir).length;
  }

  closeAll(): void {
    clearTimeout(this.retry);
    for (const dir of [...this.dirs.keys()]) this.forget(dir);
  }

  /** Watches `dir` (or its nearest existing ancestor) unless the watch there is still good. */
  private arm(dir: string, names: Set<string> | "all"): void {
    const watched = nearestExisting(dir);
    const ino = inode(watched);
    const entry = this.dirs.get(dir);
    if (entry !== undefined && entry.watched === watched && entry.ino === ino) {
      entry.names = names;
      return;
    }
    this.forget(dir);
    try {
      const watcher = watch(watched, (_event, name) => this.event(dir, name));
      watcher.on("error", () => {
        this.forget(dir);
        this.retryLater();
      });
      this.dirs.set(dir, { watcher, names, watched, ino });
    } catch (e) {
      const reason = (e as NodeJS.ErrnoException).code ?? String(e);
      this.streams.err(`dmac: cannot watch ${watched}: ${reason}\n`);
    }
  }

  private event(dir: string, name: string | Buffer | null): void {
    const entry = this.dirs.get(dir);
    if (entry === undefined) return;
    if (entry.watched !== dir || inode(dir) !== entry.ino) {
      // The directory went away or came back: watch what is there now, and look at the files.
      this.update(this.files);
      this.onChange();
    } else if (entry.names === "all" || name === null || entry.names.has(String(name))) {
      this.onChange();
    }
  }

  private retryLater(): void {
    clearTimeout(this.retry);
    this.retry = setTimeout(() => {
      this.update(this.files);
      this.onChange();
    }, 1000);
  }

  private forget(dir: string): void {
    this.dirs.get(dir)?.watcher.close();
    this.dirs.delete(dir);
  }
}

/** `dir` if it is a directory, else its nearest ancestor that is. */
function nearestExisting(dir: string): string {
  let at = dir;
  while (!isDirectory(at) && dirname(at) !== at) at = dirname(at);
  return at;
}

function inode(path: string): number | undefined {
  try {
    return statSync(path).ino;
  } catch {
    return undefined;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
