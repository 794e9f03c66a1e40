// The CLI's output conventions: where text goes, whether it is coloured, how diagnostics are
// printed, and the exit codes. All file and terminal I/O lives in src/cli; src/ elsewhere is pure.

export const EXIT_OK = 0;
/** Errors in the user's input (diagnostics with severity error). */
export const EXIT_USER_ERROR = 1;
/** A bug in dmac (InternalError or any unexpected exception). */
export const EXIT_INTERNAL = 2;

export type ColorMode = "auto" | "always" | "never";
export type DiagnosticFormat = "full" | "concise" | "json";

export interface OutputStreams {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly isTTY: boolean;
}

export const processStreams: OutputStreams = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  isTTY: process.stderr.isTTY === true,
};

/** Why writing an output stream failed, in words. */
function writeErrorReason(code: string | undefined): string {
  switch (code) {
    case "ENOSPC":
      return "no space left on device";
    case "EDQUOT":
      return "disk quota exceeded";
    case "EFBIG":
      return "file too large";
    case "EIO":
      return "input/output error";
    case "EBADF":
      return "bad file descriptor";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    default:
      return code ?? "write error";
  }
}

/**
 * What the installed command does when it cannot write its standard output or error: a reader
 * that stops early (`dmac disasm x.bin | head`) closes the pipe, which is not an error (exit with
 * the command's code); any other failure (ENOSPC on a full disk or /dev/full, EIO) ends dmac
 * with one line on standard error and exit code 1 (or the command's, if higher), never a stack
 * trace. Installed by bin/dmac.js on process.stdout and process.stderr.
 */
export function installOutputErrorHandlers(proc: NodeJS.Process = process): void {
  let ended = false;
  const end = (code: number): never => {
    ended = true;
    return proc.exit(code);
  };
  for (const [stream, name] of [
    [proc.stdout, "standard output"],
    [proc.stderr, "standard error"],
  ] as const) {
    stream.on("error", (e: NodeJS.ErrnoException) => {
      if (ended) return;
      const current = typeof proc.exitCode === "number" ? proc.exitCode : 0;
      if (e.code === "EPIPE") end(current);
      if (stream === proc.stdout) {
        try {
          proc.stderr.write(`dmac: cannot write to ${name}: ${writeErrorReason(e.code)}\n`);
        } catch {
          // standard error is gone too: the exit code says it
        }
      }
      end(Math.max(current, EXIT_USER_ERROR));
    });
  }
}

export function useColor(mode: ColorMode, streams: OutputStreams): boolean {
  if (mode === "always") return true;
  if (mode === "never") return false;
  return streams.isTTY && !process.env["NO_COLOR"];
}
