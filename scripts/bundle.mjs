// `npm run build`, after tsc: bundles the compiled CLI (dist/) into one CommonJS script,
// dist/bundle/dmac.cjs, and stores beside it a V8 code cache made by warm-up runs (`dmac check`,
// then a compile and two `dmac sim` of an example), which bin/dmac.js runs through
// bin/load-bundle.js. Why: a `dmac check` start then costs ~1.8x
// `node -e 0` instead of ~2.5x (docs/design-decisions.md, "Build and packaging";
// figures in docs/performance.md, "Where the time goes").
//   node scripts/bundle.mjs
//
// Commands stay lazy: esbuild wraps every module that is reached through the command table's
// dynamic import() in an initialiser that runs on first import, so `dmac check` still evaluates
// no lowering, backend or executor module; with the code cache they are not even compiled.
// The bundle lies two directories below the package root, as dist/target/target.js does, so
// `new URL("../../targets/...", import.meta.url)` finds the same files from it.

import { build } from "esbuild";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BUNDLE, CODE_CACHE, runBundle } from "../bin/load-bundle.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const requireHere = createRequire(import.meta.url);

/**
 * What the code cache is made from: the functions these runs compile are cached (as bytecode;
 * the rest are compiled on first call). `dmac check` for every start; a compile, `dmac sim` of
 * its output directory and `dmac sim` of the source for the executor, its checks and the front
 * end they rebuild (a big `dmac sim DIR` runs the last two on its helper thread, from that
 * thread's own bundle, which has no cache: WORKER_ENTRIES). The bigger cache costs `dmac check`
 * nothing measurable (90 ms both ways, 10 runs each; docs/performance.md, "Where the time goes").
 * OUT: a scratch directory, made and removed by makeCodeCache.
 */
const example = join(ROOT, "examples/all_gather_pcpy.dmac");
const WARM_UP = (out) => [
  ["check", example],
  ["compile", example, "-o", out],
  ["sim", out],
  ["sim", example],
];

/**
 * The dependencies copied into the bundle: the two that every command loads. Every other one
 * stays a require() of the installed package, as from dist/.
 */
const INLINED = new Set(["chevrotain", "commander"]);

/**
 * dist/ modules whose text the bundle replaces: each locates its package at run time (which a
 * bundler cannot follow) to load it faster from dist/; in the bundle the same package file is
 * re-exported statically and so inlined. The re-export lists the names the dist/ module exports:
 * same names, same values, same behaviour.
 */
const SHIMS = [
  {
    // src/frontend/chevrotain.ts: chevrotain's pre-bundled ES module, found next to its entry.
    module: "dist/frontend/chevrotain.js",
    from: () => join(dirname(requireHere.resolve("chevrotain")), "..", "chevrotain.mjs"),
  },
  {
    // src/options/commander.ts: commander through createRequire().
    module: "dist/options/commander.js",
    from: () => "commander",
  },
];

async function shimText(shim) {
  const names = Object.keys(await import(pathToFileURL(join(ROOT, shim.module)).href));
  return `export { ${names.join(", ")} } from ${JSON.stringify(shim.from())};`;
}

/** Node modules that an inlined package requires when it loads but dmac uses rarely or never: in
 * the bundle, that package gets a stand-in (scripts/bundle-shims/) that loads the module on first
 * use. */
const LAZY_BUILTINS = [
  {
    builtin: "node:child_process",
    importer: join(ROOT, "node_modules/commander/"),
    shim: join(ROOT, "scripts/bundle-shims/lazy-child-process.cjs"),
  },
];

const replaceShims = {
  name: "dmac-shims",
  async setup(b) {
    const byPath = new Map();
    for (const shim of SHIMS) byPath.set(join(ROOT, shim.module), await shimText(shim));
    b.onLoad({ filter: /\.js$/ }, ({ path }) => {
      const contents = byPath.get(path);
      return contents === undefined ? undefined : { contents, loader: "js", resolveDir: ROOT };
    });
    b.onResolve({ filter: /^node:/ }, ({ path, importer }) => {
      const lazy = LAZY_BUILTINS.find((l) => l.builtin === path && importer.startsWith(l.importer));
      return lazy === undefined ? undefined : { path: lazy.shim };
    });
  },
};

async function bundle() {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  await build({
    stdin: {
      contents:
        `export { main } from "./dist/cli/main.js";\n` +
        `export { installOutputErrorHandlers } from "./dist/cli/io.js";\n`,
      resolveDir: ROOT,
      sourcefile: "dmac-bundle-entry.js",
    },
    outfile: BUNDLE,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    external: Object.keys(pkg.dependencies).filter((name) => !INLINED.has(name)),
    // import() of an external package becomes require(): a vm.Script cannot import().
    supported: { "dynamic-import": false },
    // A CommonJS script has no import.meta: give the modules the bundle's own URL.
    define: { "import.meta.url": "__dmacBundleUrl" },
    banner: { js: `const __dmacBundleUrl = require("node:url").pathToFileURL(__filename).href;` },
    charset: "ascii",
    legalComments: "none",
    plugins: [replaceShims],
    logLevel: "warning",
  });
  // bin/load-bundle.js reads it as latin1.
  if (/[^\x00-\x7f]/.test(readFileSync(BUNDLE, "latin1")))
    throw new Error(`${BUNDLE} is not ASCII`);
}

/**
 * The entry modules of dmac's worker threads (src/util/worker-entry.ts WORKER_ENTRIES): each is bundled alone,
 * as an ES module under its own name beside the CLI's bundle, where the bundled CLI looks for it
 * (`./NAME.js` next to its import.meta.url, as from dist/).
 */

async function bundleWorkers() {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  const { WORKER_ENTRIES } = await import(
    pathToFileURL(join(ROOT, "dist/util/worker-entry.js")).href
  );
  const names = WORKER_ENTRIES.map((entry) => basename(entry));
  if (new Set(names).size !== names.length) throw new Error("two worker entries share a name");
  for (const entry of WORKER_ENTRIES)
    await build({
      entryPoints: [join(ROOT, "dist", `${entry}.js`)],
      outfile: join(dirname(BUNDLE), `${basename(entry)}.js`),
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      external: Object.keys(pkg.dependencies),
      charset: "ascii",
      legalComments: "none",
      logLevel: "warning",
    });
}

/** Runs the bundle on WARM_UP and stores the compiled code that run produced. */
async function makeCodeCache() {
  const { cli, script } = runBundle(undefined);
  const quiet = { out: () => {}, err: () => {}, isTTY: false };
  const scratch = mkdtempSync(join(tmpdir(), "dmac-warm-up-"));
  try {
    for (const argv of WARM_UP(join(scratch, "out"))) {
      const code = await cli.main(["node", "dmac", ...argv], quiet);
      if (code !== 0) throw new Error(`warm-up 'dmac ${argv.join(" ")}' exited ${code}`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  writeFileSync(CODE_CACHE, script.createCachedData());
}

// V8 checks a cache against the length of the script's text only: never leave an old one
// beside a new bundle.
rmSync(CODE_CACHE, { force: true });
// (The workers first: a current CLI bundle implies theirs.)
await bundleWorkers();
await bundle();
await makeCodeCache();
