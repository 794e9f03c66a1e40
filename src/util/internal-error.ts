// Internal errors are bugs in dmac, never problems with the user's input. They are thrown (not
// reported as coded diagnostics), caught once by the CLI, and reported with exit code 2.

export class InternalError extends Error {
  override readonly name = "InternalError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export function invariant(cond: unknown, message: string | (() => string)): asserts cond {
  if (!cond) throw new InternalError(typeof message === "string" ? message : message());
}
