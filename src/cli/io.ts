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

export function useColor(mode: ColorMode, streams: OutputStreams): boolean {
  if (mode === "always") return true;
  if (mode === "never") return false;
  return streams.isTTY && !process.env["NO_COLOR"];
}
