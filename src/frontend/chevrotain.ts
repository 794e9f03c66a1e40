// The one place the front end gets chevrotain's runtime values from (types still come from
// "chevrotain" with `import type`, which is erased).
//
// Why: the package's ESM entry (lib/src/api.js) pulls in lodash-es as ~600 separate modules;
// resolving and compiling them costs ~0.4 s of every `dmac` start, more than all the rest of a
// `dmac check` together (profile in docs/performance.md). The package also ships the same code as
// one pre-bundled ES module, lib/chevrotain.mjs, which loads in ~15 ms. Its `exports` map does not
// expose that file, so we locate it next to the resolved entry point. If it is ever missing (a
// different packaging), we fall back to the ordinary import: slower start, same behaviour.
// Every front-end module must import chevrotain values from here, never from "chevrotain"
// directly: two copies of the library would disagree about EOF and token identities.
// The bundled CLI (scripts/bundle.mjs) replaces this module with a static re-export of that same
// file, which the bundler then copies in: a path computed at run time is not something it can
// follow.

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";

type Chevrotain = typeof import("chevrotain");

async function loadChevrotain(): Promise<Chevrotain> {
  try {
    const entry = createRequire(import.meta.url).resolve("chevrotain"); // .../lib/src/api.js
    const bundle = join(dirname(entry), "..", "chevrotain.mjs");
    if (existsSync(bundle)) return (await import(pathToFileURL(bundle).href)) as Chevrotain;
  } catch {
    // Fall through to the ordinary entry point.
  }
  return await import("chevrotain");
}

const chevrotain = await loadChevrotain();

export const { CstParser, EOF, Lexer, LLkLookaheadStrategy, createToken } = chevrotain;
