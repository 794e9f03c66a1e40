import { InternalError } from "./internal-error.js";

/** Ends every exhaustive switch over a discriminated union: reaching it is a compiler bug. */
export function assertNever(x: never, what = "value"): never {
  throw new InternalError(`unexpected ${what}: ${JSON.stringify(x)}`);
}
