// Every command's `--format json` (issue 15, item 6): stdout is ONE JSON document (JSON.parse of
// the whole of it), valid against the command's published schema, for a run that succeeds and
// one that fails; nothing else is on stdout. The cases come from the command table
// (cli/commands/index.ts), so a new command without a case here fails the first test.

import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMANDS } from "../../../src/cli/commands/index.js";
import { validateDocument, type SchemaName } from "../../../src/schemas.js";
import { example, runCli } from "../../helpers/cli.js";

const root = mkdtempSync(join(tmpdir(), "dmac-json-output-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const at = (name: string): string => join(root, name);
const ONE_COPY = fileURLToPath(new URL("../calibrate/fixtures/one_copy.dmac", import.meta.url));
const KFD = fileURLToPath(new URL("../../fixtures/kfd-mi300x", import.meta.url));
const RESULTS = fileURLToPath(
  new URL("../../../bench/hardware/h100-2026-host-copies.json", import.meta.url),
);
/** A schedule whose queue waits on a signal nobody raises (postmortem's input). */
const HANG = `target mi300x

schedule hang(n: bytes = 4KiB) {
  buffer a: n
  buffer b: n
  signal go
  copy a@0 -> b@1
  when go@0 == 1 {
    copy a@0 -> b@2
  }
}
`;

beforeAll(async () => {
  const c = await runCli(["compile", example("broadcast.dmac"), "-o", at("out")]);
  expect(c.code, c.err).toBe(0);
  writeFileSync(at("text.bin"), "not a packet stream\n");
  mkdirSync(at("golden"));
  const source = readFileSync(example("broadcast.dmac"), "utf8");
  writeFileSync(at("golden/broadcast.dmac"), `/// golden: --emit ir\n${source}`);
  mkdirSync(at("cal"));
  copyFileSync(ONE_COPY, at("cal/one_copy.dmac"));
  writeFileSync(
    at("cal/m.csv"),
    "id,file,spec,time_us\na,one_copy.dmac,O0,3\nb,one_copy.dmac,O1,2\n",
  );
  writeFileSync(at("bad.dmac"), "schedule s( {\n");
  writeFileSync(at("hang.dmac"), HANG);
  const h = await runCli(["compile", at("hang.dmac"), "-o", at("hang"), "--breadcrumbs"]);
  expect(h.code, h.err).toBe(0);
  const s = await runCli(["sim", at("hang"), "--hold-signals", "--snapshot", at("snap.json")]);
  expect(s.err).toContain("DMAC6004");
}, 60_000); // three compiles and a simulation: more than the default 10 s on a loaded machine

interface Case {
  readonly what: string;
  /** Arguments after the command name (`--format json` is added). */
  readonly args: () => readonly string[];
  readonly code: number;
  /** The schema of this document, when not the command's own. */
  readonly schema?: SchemaName;
  /** Runs first (e.g. writes the goldens that the case then compares). */
  readonly before?: () => Promise<void>;
}

/** Per command: a success and a failure (exit 1), at least. */
const CASES: Readonly<Record<string, readonly Case[]>> = {
  check: [
    { what: "an example", args: () => [example("broadcast.dmac")], code: 0 },
    {
      what: "a syntax error and a missing file",
      args: () => [at("bad.dmac"), at("no.dmac")],
      code: 1,
    },
    { what: "a bad -D (stops before any file)", args: () => [at("bad.dmac"), "-D", "x"], code: 1 },
  ],
  ir: [
    {
      what: "an example with deps",
      args: () => [example("broadcast.dmac"), "--dump-deps"],
      code: 0,
    },
    { what: "a syntax error", args: () => [at("bad.dmac")], code: 1 },
  ],
  explain: [
    { what: "a code", args: () => ["2004"], code: 0 },
    { what: "an unknown code", args: () => ["99999"], code: 1 },
  ],
  disasm: [
    { what: "a stream", args: () => [at("out/gpu0.sdma2.bin")], code: 0 },
    { what: "text (DMAC4105)", args: () => [at("text.bin")], code: 1 },
    { what: "a missing file", args: () => [at("no.bin")], code: 1 },
  ],
  compile: [
    {
      what: "an example at -O2",
      args: () => [example("broadcast.dmac"), "-o", at("c"), "-O2"],
      code: 0,
    },
    { what: "a syntax error", args: () => [at("bad.dmac"), "-o", at("c2")], code: 1 },
  ],
  golden: [
    {
      what: "goldens that match",
      args: () => [at("golden")],
      code: 0,
      before: async () => void (await runCli(["golden", at("golden"), "--update"])),
    },
    {
      what: "a golden that differs",
      args: () => [at("golden")],
      code: 1,
      before: async () => writeFileSync(at("golden/broadcast.ir.golden"), "changed\n"),
    },
  ],
  sim: [
    { what: "a .dmac at -O2", args: () => [example("broadcast.dmac"), "-O2"], code: 0 },
    {
      what: "an output directory and a .dmac",
      args: () => [at("out"), example("gather.dmac")],
      code: 0,
    },
    { what: "a missing input", args: () => [at("no.dmac")], code: 1 },
    { what: "a syntax error among several", args: () => [at("out"), at("bad.dmac")], code: 1 },
  ],
  sweep: [
    {
      what: "two sizes",
      args: () => [example("broadcast.dmac"), "--param", "size", "--sizes", "1KiB..2KiB"],
      code: 0,
    },
    {
      what: "a bad size range",
      args: () => [example("broadcast.dmac"), "--param", "size", "--sizes", "1KB"],
      code: 1,
    },
  ],
  calibrate: [
    { what: "a fit", args: () => [at("cal/m.csv"), "--max-evals", "3"], code: 0 },
    { what: "compare only", args: () => [at("cal/m.csv"), "--no-fit"], code: 0 },
    { what: "a missing file", args: () => [at("cal/no.csv")], code: 1 },
    { what: "CUDA runner results (measure's document)", args: () => [RESULTS], code: 0 },
  ],
  target: [
    { what: "import", args: () => ["import", KFD], code: 0, schema: "target-import" },
    {
      what: "import with -o",
      args: () => ["import", KFD, "-o", at("imported.json")],
      code: 0,
      schema: "target-import",
    },
    {
      what: "import of a base of another ISA",
      args: () => ["import", KFD, "--base", "mi355x"],
      code: 1,
      schema: "target-import",
    },
  ],
  measure: [
    { what: "the H100 results", args: () => [RESULTS], code: 0 },
    { what: "a fit, written", args: () => [RESULTS, "--fit", "-o", at("fitted.json")], code: 0 },
    { what: "a file that is not results", args: () => [at("text.bin")], code: 1 },
  ],
  postmortem: [
    { what: "a deadlock", args: () => [at("hang"), at("snap.json")], code: 0 },
    { what: "a snapshot that is not one", args: () => [at("hang"), at("text.bin")], code: 1 },
  ],
  fmt: [
    { what: "--check of an example", args: () => ["--check", example("broadcast.dmac")], code: 0 },
    { what: "printing one file", args: () => [example("broadcast.dmac")], code: 0 },
    { what: "a syntax error", args: () => ["--check", at("bad.dmac")], code: 1 },
  ],
};

/** Commands whose stdout is not theirs to shape: the language server speaks LSP there. */
const NO_JSON: ReadonlySet<string> = new Set(["lsp"]);

describe("--format json on every command", () => {
  it("every command has cases here (or is exempt), each with a success and a failure", () => {
    for (const { name } of COMMANDS) {
      if (NO_JSON.has(name)) continue;
      const cases = CASES[name];
      expect(cases, `no --format json case for dmac ${name}`).toBeDefined();
      expect(cases!.some((c) => c.code === 0) && cases!.some((c) => c.code !== 0), name).toBe(true);
    }
  });

  for (const [command, cases] of Object.entries(CASES))
    for (const c of cases)
      it(`${command}: ${c.what}`, async () => {
        await c.before?.();
        const r = await runCli([command, ...c.args(), "--format", "json"]);
        expect(r.code, r.err).toBe(c.code);
        let doc: unknown;
        expect(
          () => (doc = JSON.parse(r.out)),
          `stdout is one JSON document:\n${r.out}`,
        ).not.toThrow();
        const schema = c.schema ?? (command as SchemaName);
        expect(validateDocument(schema, doc), `against ${schema}.schema.json`).toEqual([]);
      });
});

describe("the documents carry what the text says", () => {
  it("check: each file, ok or not, with its schedules", async () => {
    const r = await runCli([
      "check",
      example("broadcast.dmac"),
      at("bad.dmac"),
      "--format",
      "json",
    ]);
    const doc = JSON.parse(r.out) as {
      files: { file: string; ok: boolean; schedules: string[] }[];
    };
    expect(doc.files.map((f) => [f.ok, f.schedules])).toEqual([
      [true, ["broadcast_root"]],
      [false, []],
    ]);
  });

  it("compile: the files written with their sizes, the plan, and the plan report on stderr", async () => {
    const r = await runCli([
      ...["compile", example("broadcast.dmac"), "-o", at("c3"), "-O2", "--explain-plan"],
      ...["--format", "json"],
    ]);
    const doc = JSON.parse(r.out) as { files: { name: string; bytes: number }[]; plan: object };
    const manifest = doc.files.find((f) => f.name === "manifest.json")!;
    expect(manifest.bytes).toBe(readFileSync(at("c3/manifest.json")).length);
    expect(doc.plan).toHaveProperty("chosen");
    expect(r.err).toMatch(/^plan: /m);
  });

  it("sim: the diagnostics have the one shape (spans, related, hint)", async () => {
    const r = await runCli(["sim", at("bad.dmac"), at("out"), "--format", "json"]);
    const doc = JSON.parse(r.out) as { diagnostics: Record<string, unknown>[] }[];
    expect(Object.keys(doc[0]!.diagnostics[0]!).sort()).toEqual([
      "code",
      "file",
      "hint",
      "message",
      "related",
      "severity",
      "span",
    ]);
  });

  it("measure --fit: every run, the summaries the text prints, the values the fitted target has", async () => {
    const out = at("fitted-doc.json");
    const r = await runCli(["measure", RESULTS, "--fit", "-o", out, "--format", "json"]);
    expect(r.err).toBe("");
    const doc = JSON.parse(r.out) as {
      runs: { heldOut: boolean; predictedUs: number; fittedUs: number }[];
      after: { heldOut: { runs: number; medianError: number } };
      fitted: Record<string, number>;
      out: string;
    };
    expect(doc.runs).toHaveLength(154);
    expect(doc.runs.filter((x) => x.heldOut)).toHaveLength(doc.after.heldOut.runs);
    const text = await runCli(["measure", RESULTS, "--fit"]);
    const held = /after the fit, held-out sizes: median error ([\d.]+)% over (\d+) runs/.exec(
      text.out,
    )!;
    expect((doc.after.heldOut.medianError * 100).toFixed(1)).toBe(held[1]);
    expect(doc.after.heldOut.runs).toBe(Number(held[2]));
    const target = JSON.parse(readFileSync(out, "utf8")) as {
      timing: Record<string, { value: number }>;
      hostLink: Record<string, number>;
    };
    expect(doc.fitted["hostCallUs"]).toBe(target.timing["hostCallUs"]!.value);
    expect(doc.fitted["h2dGBps"]).toBe(target.hostLink["h2dGBps"]);
    expect(doc.out).toBe(out);
  });

  it("target import: the target the text prints", async () => {
    const doc = JSON.parse((await runCli(["target", "import", KFD, "--format", "json"])).out);
    const text = await runCli(["target", "import", KFD]);
    expect(doc.target).toEqual(JSON.parse(text.out));
  });

  it("postmortem: the stuck queue and the word it waits on", async () => {
    const r = await runCli(["postmortem", at("hang"), at("snap.json"), "--format", "json"]);
    const doc = JSON.parse(r.out) as {
      reason: string;
      queues: { queue: string; state: string; waiting: { word: string } | null }[];
    };
    expect(doc.reason).toBe("deadlock");
    const stuck = doc.queues.filter((q) => q.state === "stuck");
    expect(stuck.map((q) => [q.queue, q.waiting?.word])).toEqual([["gpu0.sdma12", "signal go@0"]]);
  });

  it("explain: the catalogue entry", async () => {
    const r = await runCli(["explain", "dmac2004", "--format", "json"]);
    expect(JSON.parse(r.out)).toMatchObject({
      code: "DMAC2004",
      severity: "error",
      status: "stable",
    });
  });
});
