// Progress on stderr for work that can take more than a couple of seconds (a large `sim`, the -O2
// plan search, `sweep`, `calibrate`): one line, redrawn in place, cleared when the work ends, so
// nothing of it is left in the terminal or mixed into the output.
//
// Shown only when stderr is a terminal and --quiet was not given; otherwise startProgress returns
// NO_PROGRESS, whose methods do nothing, so callers never test for it. Rate-limited by time: a
// line is drawn at most every `intervalMs` (100 ms: 10 a second), and the first only after
// `delayMs` (work that ends sooner shows none). Updating is cheap (a clock read), but hot loops
// still must not call it per event: the executor calls back every 65,536 events and the plan
// search once per candidate, and update() decides from the clock whether to draw.

import type { OutputStreams } from "./io.js";

export interface Progress {
  /** Shows `what` (and `done`/`total` with a bar when the total is known), if a redraw is due. */
  update(what: string, done?: number, total?: number): void;
  /** Removes the line (call when the work ends, also on failure). */
  end(): void;
}

export interface ProgressOptions {
  /** --quiet: no progress at all. */
  readonly quiet?: boolean | undefined;
  /** Text before every line, e.g. "sweep". */
  readonly label?: string | undefined;
  /** Least time between two drawn lines (default 100 ms). */
  readonly intervalMs?: number | undefined;
  /** Nothing is drawn before this much time has passed (default 200 ms). */
  readonly delayMs?: number | undefined;
  /** The terminal's width (default: stderr's columns, else 80). */
  readonly columns?: number | undefined;
  /** The clock in ms (tests give a fake one). */
  readonly now?: (() => number) | undefined;
}

/** A Progress that shows nothing. */
export const NO_PROGRESS: Progress = { update: () => {}, end: () => {} };

const BAR_WIDTH = 24;
/** Erase the line the cursor is on and return to its start (ANSI EL). */
const CLEAR_LINE = "\r\x1b[K";

/** Progress on `streams.err`, or NO_PROGRESS when it is not a terminal or with --quiet. */
export function startProgress(
  streams: Pick<OutputStreams, "err" | "isTTY">,
  opts: ProgressOptions = {},
): Progress {
  if (!streams.isTTY || opts.quiet === true) return NO_PROGRESS;
  const now = opts.now ?? (() => performance.now());
  const interval = opts.intervalMs ?? 100;
  const columns = Math.max(20, opts.columns ?? (process.stderr.columns || 80));
  let next = now() + (opts.delayMs ?? 200);
  let shown = false;
  return {
    update(what, done, total) {
      const t = now();
      if (t < next) return;
      next = t + interval;
      shown = true;
      streams.err(CLEAR_LINE + progressLine(opts.label, what, done, total, columns));
    },
    end() {
      if (shown) streams.err(CLEAR_LINE);
      shown = false;
    },
  };
}

/** `label [######......] 12/48 what`, cut to fit `columns - 1` (the cursor needs a cell). */
export function progressLine(
  label: string | undefined,
  what: string,
  done: number | undefined,
  total: number | undefined,
  columns: number,
): string {
  const parts: string[] = [];
  if (label !== undefined) parts.push(`${label}:`);
  if (done !== undefined && total !== undefined && total > 0) {
    const filled = Math.min(BAR_WIDTH, Math.round((BAR_WIDTH * done) / total));
    parts.push(`[${"#".repeat(filled)}${".".repeat(BAR_WIDTH - filled)}]`, `${done}/${total}`);
  } else if (done !== undefined) parts.push(String(done));
  parts.push(what);
  const line = parts.join(" ");
  return line.length < columns ? line : `${line.slice(0, columns - 2)}…`;
}
