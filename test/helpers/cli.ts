// Runs the dmac CLI in-process for tests: main() with stdout and stderr captured as strings, so a
// test can assert on the exit code and on both streams without spawning a process.

import { fileURLToPath } from "node:url";
import { main } from "../../src/cli/main.js";

export interface CliRun {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/** `dmac ARGS...` with captured streams; `isTTY` says whether stderr claims to be a terminal. */
export async function runCli(args: readonly string[], isTTY = false): Promise<CliRun> {
  let out = "";
  let err = "";
  const code = await main(["node", "dmac", ...args], {
    out: (s) => void (out += s),
    err: (s) => void (err += s),
    isTTY,
  });
  return { code, out, err };
}

/** The absolute path of examples/NAME, whatever directory the tests run from. */
export const example = (name: string): string =>
  fileURLToPath(new URL(`../../examples/${name}`, import.meta.url));

/** `dmac(...args)`: runCli for tests that spell the arguments inline. */
export const dmac = (...args: string[]): Promise<CliRun> => runCli(args);
