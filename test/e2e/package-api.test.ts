// dmac as a package: `npm pack` the repository (the files and the exports map as published),
// install the tarball in a fresh project, and use it by its name: a script that imports "dmac"
// compiles and simulates an example with the documented API (docs/api.md), the schemas resolve
// through "dmac/schemas/*", and a TypeScript consumer type-checks against the shipped
// declarations. Installing means unpacking the tarball into node_modules/dmac and linking its
// dependencies from this checkout's node_modules: `npm install TARBALL` would fetch them from
// the registry (or a populated cache), which a CI machine may not have. Packing uses the built
// dist/ (as `npm ci` leaves it; built here only if it is missing), without running `prepare`.

import { execFileSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "dmac-package-"));
const project = join(dir, "project");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const run = (cmd: string, args: string[], cwd: string): string =>
  execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

beforeAll(() => {
  if (!existsSync(join(repo, "dist", "index.js")))
    run(
      process.execPath,
      [join(repo, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"],
      repo,
    );
  const packed = JSON.parse(
    run("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], repo),
  ) as { filename: string }[];
  const tarball = join(dir, packed[0]!.filename);
  const pkg = join(project, "node_modules", "dmac");
  mkdirSync(pkg, { recursive: true });
  run("tar", ["-xzf", tarball, "-C", pkg, "--strip-components=1"], dir);
  const deps = Object.keys(
    (JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { dependencies: object })
      .dependencies,
  );
  for (const d of deps) {
    const to = join(project, "node_modules", d);
    mkdirSync(join(to, ".."), { recursive: true });
    symlinkSync(join(repo, "node_modules", d), to, "dir");
  }
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "consumer", version: "1.0.0", type: "module", private: true }),
  );
}, 120_000);

/**
 * tsc --strict over `files` in the consumer project, with `options` added; throws (with tsc's
 * report) if the declarations do not resolve or a file is wrong.
 */
function typeCheck(config: string, files: readonly string[], options: object): void {
  const compilerOptions = {
    module: "NodeNext",
    moduleResolution: "NodeNext",
    target: "ES2022",
    strict: true,
    noEmit: true,
    ...options,
  };
  writeFileSync(join(project, config), JSON.stringify({ compilerOptions, files }));
  run(process.execPath, [join(repo, "node_modules/typescript/bin/tsc"), "-p", config], project);
}

describe("the packed package, imported by name", () => {
  it("ships the schemas and the declarations, not the sources or tests", () => {
    const pkg = join(project, "node_modules", "dmac");
    expect(existsSync(join(pkg, "dist", "index.d.ts"))).toBe(true);
    expect(readdirSync(join(pkg, "schemas"))).toContain("manifest.schema.json");
    expect(existsSync(join(pkg, "src"))).toBe(false);
    expect(existsSync(join(pkg, "test"))).toBe(false);
  });

  it("compiles and simulates an example with the documented API", () => {
    writeFileSync(
      join(project, "run.mjs"),
      `import { readFileSync } from "node:fs";
import { compile, simulate, validateDocument, version } from "dmac";

const path = process.argv[2];
const compiled = compile(readFileSync(path, "utf8"), { path, opt: 1 });
if (!compiled.ok) throw new Error(compiled.diagnostics.map((d) => d.message).join("\\n"));
const result = simulate(compiled);
const schema = JSON.parse(
  readFileSync(new URL(import.meta.resolve("dmac/schemas/manifest.schema.json")), "utf8"),
);
console.log(
  JSON.stringify({
    version,
    verified: result.verified,
    postcondition: result.postcondition,
    totalUs: result.totalUs,
    queues: compiled.manifest.queues.length,
    manifestProblems: validateDocument("manifest", compiled.manifest).length,
    schemaTitle: schema.title,
  }),
);
`,
    );
    const out = JSON.parse(
      run(process.execPath, ["run.mjs", join(repo, "examples", "all_gather_pcpy.dmac")], project),
    ) as Record<string, unknown>;
    expect(out).toMatchObject({
      version: JSON.parse(readFileSync(join(repo, "package.json"), "utf8")).version,
      verified: true,
      postcondition: "holds",
      manifestProblems: 0,
      schemaTitle: "dmac manifest (manifest.json, version 1)",
    });
    expect(out["totalUs"]).toBeGreaterThan(0);
    expect(out["queues"]).toBeGreaterThan(0);
  });

  it("type-checks a TypeScript consumer against the shipped declarations", () => {
    writeFileSync(
      join(project, "use.ts"),
      `import { compile, simulate, sweep, type CompileResult, type SimulateResult } from "dmac";

const compiled: CompileResult = compile("target mi300x\\nschedule s() { buffer b: 64 }\\n", { opt: 2 });
const result: SimulateResult = simulate(compiled, { target: "mi300x" });
const time: number = result.totalUs;
const rows = sweep("", { param: "chunk", sizes: [1024] }).points.map((p) => p.busbwGBps);
// @ts-expect-error: the level is 0, 1 or 2
compile("", { opt: 3 });
export { time, rows };
`,
    );
    // The shipped declarations are checked too, without Node's types: a consumer that is not a
    // Node program must not need @types/node.
    typeCheck("tsconfig.json", ["use.ts"], { skipLibCheck: false, types: [] });
  });
});

describe("docs/api.md's examples as TypeScript", () => {
  it("type-check under --strict against the shipped declarations", () => {
    const doc = readFileSync(join(repo, "docs", "api.md"), "utf8");
    const blocks = [...doc.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const files = blocks.map((text, i) => {
      const name = `doc-${i}.ts`;
      writeFileSync(join(project, name), `${text}export {};\n`);
      return name;
    });
    const types = join(project, "node_modules", "@types");
    if (!existsSync(join(types, "node"))) {
      mkdirSync(types, { recursive: true });
      symlinkSync(join(repo, "node_modules", "@types", "node"), join(types, "node"));
    }
    typeCheck("tsconfig.docs.json", files, { skipLibCheck: true, types: ["node"] });
  });
});
