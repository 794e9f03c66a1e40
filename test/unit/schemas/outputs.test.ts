// Every JSON document dmac writes matches its published schema (schemas/*.schema.json), checked
// with ajv over REAL outputs: the manifest and trace of every example at -O0, -O1 and -O2 (through
// the library and through `dmac compile -o`), and each `--json` / `--format json` output of the
// commands (`sim --json` for one input and several, `sim --trace`, `check --format json`,
// `disasm --json`, the target that `calibrate -o` writes). A mutated output must be rejected (schemas/can-fail).

import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compile } from "../../../src/index.js";
import { validateDocument, type SchemaName } from "../../../src/schemas.js";
import { example, runCli } from "../../helpers/cli.js";

const EXAMPLES = readdirSync(fileURLToPath(new URL("../../../examples/", import.meta.url)))
  .filter((f) => f.endsWith(".dmac"))
  .sort();
const root = mkdtempSync(join(tmpdir(), "dmac-schemas-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function expectValid(name: SchemaName, json: unknown, what: string): void {
  expect(validateDocument(name, json), `${what} against ${name}.schema.json`).toEqual([]);
}

const parse = (text: string): unknown => JSON.parse(text) as unknown;

describe("manifest and trace of every example, at every level", () => {
  for (const f of EXAMPLES)
    it(f, () => {
      const source = readFileSync(example(f), "utf8");
      for (const opt of [0, 1, 2] as const) {
        const c = compile(source, { path: `examples/${f}`, opt });
        expect(c.ok, c.diagnostics.map((d) => d.message).join("\n")).toBe(true);
        expectValid("manifest", c.manifest, `${f} -O${opt} manifest`);
        expectValid("trace", c.trace, `${f} -O${opt} trace`);
      }
    });
});

describe("what the commands write and print", () => {
  beforeAll(async () => {
    for (const f of EXAMPLES) {
      const r = await runCli([
        "compile",
        example(f),
        "-o",
        join(root, f),
        "--emit",
        "sdma,trace",
        "-O1",
      ]);
      expect(r.code, r.err).toBe(0);
    }
  });

  it("dmac compile -o: manifest.json and trace.json (with targetFile and relative paths)", () => {
    for (const f of EXAMPLES) {
      const m = parse(readFileSync(join(root, f, "manifest.json"), "utf8"));
      expect((m as { targetFile?: unknown }).targetFile).toBeNull();
      expectValid("manifest", m, f);
      expectValid("trace", parse(readFileSync(join(root, f, "trace.json"), "utf8")), f);
    }
  });

  it("dmac sim --json: one input (an output directory, a trace, a .dmac at -O2 with its plan)", async () => {
    for (const f of EXAMPLES) {
      const dir = await runCli(["sim", join(root, f), "--json"]);
      expect(dir.code, dir.err).toBe(0);
      expectValid("sim", parse(dir.out), `sim ${f}/`);
      const trace = await runCli(["sim", join(root, f, "trace.json"), "--json"]);
      expectValid("sim", parse(trace.out), `sim ${f}/trace.json`);
    }
    const o2 = await runCli(["sim", example("all_gather_pcpy.dmac"), "-O2", "--json"]);
    const doc = parse(o2.out) as { plan?: unknown };
    expect(doc.plan).toBeDefined();
    expectValid("sim", doc, "sim -O2");
  });

  it("--format json on sim and sweep: one JSON document on stdout, no table", async () => {
    const sim = await runCli(["sim", example("all_gather_pcpy.dmac"), "--format", "json"]);
    expect(sim.code, sim.err).toBe(0);
    expectValid("sim", parse(sim.out), "sim --format json");
    const args = ["sweep", example("all_gather_pcpy.dmac"), "--param", "chunk"];
    const sweep = await runCli([...args, "--sizes", "4KiB..8KiB", "--format", "json"]);
    expect(sweep.code, sweep.err).toBe(0);
    const doc = parse(sweep.out) as { series: { points: unknown[] }[] };
    expect(doc.series[0]!.points).toHaveLength(2);
    expectValid("sweep", doc, "sweep --format json");
    // -O2 and a baseline: each point names its plan and its speedup over the baseline.
    const o2 = await runCli([...args, "--sizes", "1B..2B", "--json", "-O2", "--baseline", "#1"]);
    expect(o2.code, o2.err).toBe(0);
    const planned = parse(o2.out) as {
      series: { points: { plan?: string; speedup?: number }[] }[];
    };
    expect(planned.series[0]!.points.every((p) => p.plan !== undefined && p.speedup === 1)).toBe(
      true,
    );
    expectValid("sweep", planned, "sweep -O2 --baseline --json");
  });

  it("dmac sim --trace: the Chrome trace of a run", async () => {
    for (const f of ["pipelined_all_gather.dmac", "broadcast.dmac"]) {
      const out = join(root, `${f}.chrome.json`);
      const r = await runCli(["sim", join(root, f), "--trace", out]);
      expect(r.code, r.err).toBe(0);
      const doc = parse(readFileSync(out, "utf8")) as { traceEvents: { ph: string }[] };
      expect(new Set(doc.traceEvents.map((e) => e.ph))).toEqual(
        new Set(["M", "X", "i", "C", "s", "f"]),
      );
      expectValid("chrome-trace", doc, `sim ${f} --trace`);
    }
  });

  it("dmac sim on a CUDA target: the summary and the trace", async () => {
    const out = join(root, "cuda.chrome.json");
    const f = example("all_gather_pcpy.dmac");
    const r = await runCli(["sim", f, "--target", "h200", "--trace", out, "--format", "json"]);
    expect(r.code, r.err).toBe(0);
    expectValid("sim", parse(r.out), "sim --target h200 --format json");
    expectValid("chrome-trace", parse(readFileSync(out, "utf8")), "sim --target h200 --trace");
  });

  it("dmac sim --json: several inputs, one of which fails to load", async () => {
    const r = await runCli([
      "sim",
      join(root, EXAMPLES[0]!),
      example("broadcast.dmac"),
      join(root, "no-such-dir"),
      "--json",
    ]);
    expect(r.code).toBe(1);
    const doc = parse(r.out) as { verified: boolean }[];
    expect(doc.map((d) => d.verified)).toEqual([true, true, false]);
    expectValid("sim", doc, "sim of three inputs");
  });

  it("dmac check --format json: clean files, and errors with spans, hints and notes", async () => {
    const clean = await runCli(["check", ...EXAMPLES.map((f) => example(f)), "--format", "json"]);
    expect(clean.code).toBe(0);
    expectValid("check", parse(clean.out), "check of the examples");
    const bad = join(root, "bad.dmac");
    writeFileSync(
      bad,
      "target mi300x\nschedule s() {\n  buffer b: 64\n  for r in rank {\n    cpy b@r[0 +: 8] -> b@r[8 +: 8]\n  }\n",
    );
    const dup = join(root, "dup.dmac");
    writeFileSync(dup, "target mi300x\nschedule s() {\n  buffer b: 64\n  buffer b: 64\n}\n");
    const r = await runCli(["check", bad, dup, "--format", "json"]);
    expect(r.code).toBe(1);
    const doc = parse(r.out) as { diagnostics: { hint: unknown; related: unknown[] }[] };
    // With a hint and a related note among them, so those parts of the schema are exercised.
    expect(doc.diagnostics.some((d) => d.hint !== null)).toBe(true);
    expect(doc.diagnostics.some((d) => d.related.length > 0)).toBe(true);
    expectValid("check", doc, "check of bad files");
    const missing = await runCli(["sim", join(root, "nothing-here"), "--format", "json"]);
    expectValid("diagnostics", parse(missing.out), "a file that is not there");
  });

  it("dmac disasm --json: streams, a truncated stream and a text file", async () => {
    for (const f of EXAMPLES) {
      const bin = readdirSync(join(root, f)).find((n) => n.endsWith(".bin"))!;
      const r = await runCli(["disasm", join(root, f, bin), "--json"]);
      expect(r.code, r.err).toBe(0);
      expectValid("disasm", parse(r.out), `disasm ${f}/${bin}`);
    }
    const f = EXAMPLES[0]!;
    const bin = readdirSync(join(root, f)).find((n) => n.endsWith(".bin"))!;
    const bytes = readFileSync(join(root, f, bin));
    const cut = join(root, "cut.bin");
    writeFileSync(cut, bytes.subarray(0, bytes.length - 6));
    const truncated = await runCli(["disasm", cut, "--json"]);
    const doc = parse(truncated.out) as { problems: unknown[]; trailingBytes: unknown[] };
    expect(doc.problems.length).toBeGreaterThan(0);
    expect(doc.trailingBytes.length).toBe(2);
    expectValid("disasm", doc, "a truncated stream");
    const text = await runCli(["disasm", example(f), "--json"]);
    expect(text.code).toBe(1);
    expectValid("disasm", parse(text.out), "a text file");
  });

  it("targets/*.json and the target dmac calibrate -o writes", async () => {
    const targets = fileURLToPath(new URL("../../../targets/", import.meta.url));
    for (const t of readdirSync(targets))
      expectValid("target", parse(readFileSync(join(targets, t), "utf8")), t);
    const fixtures = fileURLToPath(new URL("../calibrate/fixtures/", import.meta.url));
    copyFileSync(join(fixtures, "one_copy.dmac"), join(root, "one_copy.dmac"));
    const csv = join(root, "m.csv");
    writeFileSync(
      csv,
      "id,file,spec,time_us,speedup,baseline\nsmall,one_copy.dmac,chunk=1KiB,7.5,,\nbig,one_copy.dmac,chunk=1MiB,,0.3,small\n",
    );
    const out = join(root, "fitted.json");
    const r = await runCli(["calibrate", csv, "-o", out, "--max-evals", "8"]);
    expect(r.code, r.err).toBe(0);
    expectValid("target", parse(readFileSync(out, "utf8")), "calibrate -o");
  });
});
