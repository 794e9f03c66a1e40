// Where a worker thread's code is. dmac starts every worker from a compiled entry module, never
// from source text: the entry is a .ts file like any other, compiled by tsc into dist/ beside the
// module that starts it, and bundled by scripts/bundle.mjs (WORKER_ENTRIES) into dist/bundle/
// under the same name, beside the CLI's bundle. So `./NAME.js` next to `import.meta.url` finds it
// from dist/ and from the bundle (whose import.meta.url is dist/bundle/dmac.cjs) alike. From the
// TypeScript sources (vitest) there is no compiled module beside the caller: the one in dist/
// is used, when built.

import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** Every worker entry module, as its path below src/ (and dist/) without the extension. */
export const WORKER_ENTRIES = ["backend/write-behind-worker", "sim/session/helper-thread"] as const;

/** A worker entry's file name, without the extension. */
type EntryName<P> = P extends `${string}/${infer Rest}` ? EntryName<Rest> : P;
export type WorkerEntryName = EntryName<(typeof WORKER_ENTRIES)[number]>;

/**
 * The entry module `name` (without .js) beside `callerUrl` (the caller's import.meta.url), or
 * undefined when there is none (not built): the caller then does the work on its own thread.
 */
export function workerEntry(callerUrl: string, name: WorkerEntryName): URL | undefined {
  let url = new URL(`./${name}.js`, callerUrl);
  if (callerUrl.endsWith(".ts")) {
    const src = url.href.lastIndexOf("/src/");
    if (src < 0) return undefined;
    url = new URL(`${url.href.slice(0, src)}/dist/${url.href.slice(src + "/src/".length)}`);
  }
  return url.protocol === "file:" && existsSync(fileURLToPath(url)) ? url : undefined;
}
