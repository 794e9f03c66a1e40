// The schemas themselves: each can fail (a mutated real output is rejected, at the path of the
// mutation), and each agrees with the table it mirrors (packet kinds, timing constants,
// diagnostic codes), so a new entry in a table without its schema fails here.

import { CUDA_TIMING_REQUIRED } from "../../../src/target/cuda-target.js";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { COMPILED_BY_KIND } from "../../../src/backend/sdma/bitfield.js";
import { DIAGNOSTICS } from "../../../src/diagnostics/codes.js";
import { renderDiagnostics } from "../../../src/diagnostics/render.js";
import { compile, simulate } from "../../../src/index.js";
import { TIMING_CONSTANTS } from "../../../src/sim/model.js";
import {
  SCHEMA_NAMES,
  schemaPath,
  validateDocument,
  type SchemaName,
} from "../../../src/schemas.js";
import { example } from "../../helpers/cli.js";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
const schema = (name: SchemaName): Json =>
  JSON.parse(readFileSync(schemaPath(name), "utf8")) as Json;

const c = compile(readFileSync(example("pipelined_all_gather.dmac"), "utf8"), { opt: 1 });
const sim = simulate(c);
const simJson = {
  ...sim,
  diagnostics: sim.diagnostics.map((d) => ({
    code: d.code,
    severity: d.severity,
    message: d.message,
  })),
};

describe("every schema can fail", () => {
  const cases: [SchemaName, string, unknown, (j: Json) => void, string][] = [
    [
      "manifest",
      "a string gpu",
      c.manifest,
      (m) => void (m["queues"][0]["gpu"] = "0"),
      "$.queues[0].gpu",
    ],
    [
      "manifest",
      "a relocation above 2^53",
      c.manifest,
      (m) => void (m["relocations"][0]["entries"][5] = 2 ** 60),
      "$.relocations[0].entries[5]",
    ],
    [
      "manifest",
      "an extra field",
      c.manifest,
      (m) => void (m["memory"]["buffers"][0]["color"] = 1),
      "$.memory.buffers[0].color",
    ],
    ["manifest", "no source map", c.manifest, (m) => void delete m["sourceMap"], "$.sourceMap"],
    [
      "trace",
      "an unknown command",
      c.trace,
      (t) => void (t["queues"][0]["cmds"][0]["op"] = "jump"),
      "$.queues[0].cmds[0].op",
    ],
    [
      "trace",
      "a fill of 256",
      c.trace,
      (t) =>
        void t["queues"][0]["cmds"].unshift({
          op: "fill",
          dst: { gpu: 0, addr: 0 },
          bytes: 1,
          value: 256,
          ops: [],
        }),
      "$.queues[0].cmds[0].value",
    ],
    ["trace", "a source without params", c.trace, (t) => void delete t["params"], "$.params"],
    ["sim", "verified as a string", simJson, (s) => void (s["verified"] = "yes"), "$.verified"],
    ["sim", "a negative time", simJson, (s) => void (s["totalUs"] = -1), "$.totalUs"],
    [
      "diagnostics",
      "a bad code",
      {
        version: 1,
        diagnostics: [
          {
            code: "DMAC1001",
            severity: "error",
            message: "m",
            file: null,
            span: null,
            hint: null,
            related: [],
          },
        ],
      },
      (d) => void (d["diagnostics"][0]["code"] = "E1"),
      "$.diagnostics[0].code",
    ],
    [
      "disasm",
      "an unknown packet kind",
      {
        version: 1,
        file: "f",
        baseOffset: 0,
        packets: [{ offset: 0, raw: ["00000000"], packet: { kind: "nop" } }],
        trailingBytes: [],
        problems: [],
      },
      (d) => void (d["packets"][0]["packet"]["kind"] = "jump"),
      "$.packets[0].packet.kind",
    ],
    [
      "postmortem",
      "an unknown queue state",
      {
        version: 1,
        source: "hang.dmac",
        reason: "deadlock",
        queues: [
          {
            ...{ queue: "gpu0.sdma12", gpu: 0, engine: 12, state: "stuck", lastStep: 0, steps: 2 },
            ...{ line: null, col: null, nextLine: 8, waiting: null },
          },
        ],
        diagnostics: [],
      },
      (d) => void (d["queues"][0]["state"] = "hung"),
      "$.queues[0].state",
    ],
    [
      "measure",
      "a summary without the fastest-variant counts",
      {
        version: 1,
        before: {
          all: {
            runs: 1,
            medianError: null,
            fastest: { agree: 1, strict: 1, total: 1, misses: [] },
          },
        },
        diagnostics: [],
      },
      (d) => void delete d["before"]["all"]["fastest"],
      "$.before.all.fastest",
    ],
    [
      "chrome-trace",
      "an event of no phase",
      {
        traceEvents: [{ name: "process_name", ph: "M", pid: 0, tid: 0, args: { name: "gpu0" } }],
        displayTimeUnit: "ns",
      },
      (d) => void (d["traceEvents"][0]["ph"] = "B"),
      "$.traceEvents[0].ph",
    ],
    [
      "target",
      "a target without timing",
      JSON.parse(readFileSync("targets/mi300x.json", "utf8")),
      (t) => void delete t["timing"],
      "$.timing",
    ],
  ];
  for (const [name, what, doc, edit, path] of cases)
    it(`${name}: ${what}`, () => {
      expect(validateDocument(name, doc)).toEqual([]);
      const bad = clone(doc) as Json;
      edit(bad);
      const problems = validateDocument(name, bad);
      expect(problems.length).toBeGreaterThan(0);
      expect(problems[0]!.path).toBe(path);
    });
});

describe("the schemas agree with dmac's tables", () => {
  it("disasm: the packet kinds of the packet table (and 'unknown')", () => {
    const stream = schema("disasm")["definitions"]["stream"];
    const kinds = stream["properties"]["packets"]["items"]["properties"]["packet"]["properties"][
      "kind"
    ]["enum"] as string[];
    expect([...kinds].sort()).toEqual([...Object.keys(COMPILED_BY_KIND), "unknown"].sort());
  });

  it("target: every timing constant of the executor's model is required", () => {
    // SDMA targets are the schema's `else` branch (`"backend": "cuda"` selects cudaTarget).
    const sdma = schema("target")["else"];
    expect([...(sdma["properties"]["timing"]["required"] as string[])].sort()).toEqual(
      Object.keys(TIMING_CONSTANTS).sort(),
    );
  });

  it("target: a CUDA target requires every constant of the executor that has no stand-in", () => {
    const cuda = schema("target")["definitions"]["cudaTarget"];
    expect([...(cuda["properties"]["timing"]["required"] as string[])].sort()).toEqual(
      [...CUDA_TIMING_REQUIRED].sort(),
    );
  });

  it("diagnostics: every code of the catalogue, with every severity", () => {
    const all = Object.keys(DIAGNOSTICS).map((code) => ({
      code,
      severity: (DIAGNOSTICS as Json)[code]["severity"],
      message: "m",
      file: undefined,
      span: undefined,
      related: [],
      hint: undefined,
    }));
    const doc = JSON.parse(renderDiagnostics(all as never, "json", { color: false })) as unknown;
    expect(validateDocument("diagnostics", doc)).toEqual([]);
  });

  it("every schema is draft-07 with an $id naming its file", () => {
    for (const name of SCHEMA_NAMES) {
      const s = schema(name);
      expect(s["$schema"]).toBe("http://json-schema.org/draft-07/schema#");
      expect(s["$id"]).toBe(`${name}.schema.json`);
    }
  });
});
