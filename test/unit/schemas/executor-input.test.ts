// checkExecutorInput (src/schemas.ts): the structural half of the executor's input validation,
// done by the manifest and trace schemas. For each corruption the hand-written validator
// (src/sim/validate-input.ts) rejects, either the schema rejects it too, at the same JSON path
// (a structural check the schema can replace), or it is a rule a schema cannot state (it depends
// on other values: GPUs below `ranks`, uniqueness, disjoint areas, counts bounded by the input,
// agreement with the streams or the IR), which the schema accepts and code must keep checking.
// The cases are those of test/unit/sim/validate-input.test.ts and test/adversarial/manifests.test.ts.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateManifest } from "../../../src/sim/validate-input.js";
import { validateTrace } from "../../../src/sim/validate-trace.js";
import { checkExecutorInput } from "../../../src/schemas.js";
import { compileFile } from "../sim/compile-helper.js";

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

const gather = compileFile("examples/gather.dmac");
const broadcast = compileFile("examples/broadcast.dmac");
const ring = compileFile("examples/ring_all_gather.dmac");

type Seed = typeof gather;
type Case = readonly [
  what: string,
  seed: Seed,
  edit: (d: Json) => void,
  path: string,
  detail: RegExp,
];

/** Rejected by both, at the same path: the schema covers them. */
const STRUCTURAL_MANIFEST: readonly Case[] = [
  ["not an array", gather, (m) => void (m["queues"] = 7), "$.queues", /expected an array/],
  ["wrong version", gather, (m) => void (m["version"] = 2), "$.version", /schema version 1/],
  ["wrong kind", gather, (m) => void (m["kind"] = "x"), "$.kind", /dmac-manifest/],
  [
    "wrong type",
    gather,
    (m) => void (m["memory"]["buffers"][2]["name"] = 4294967296),
    "$.memory.buffers[2].name",
    /string/,
  ],
  [
    "missing field",
    gather,
    (m) => void delete m["memory"]["buffers"][1]["id"],
    "$.memory.buffers[1].id",
    /integer/,
  ],
  [
    "address above 2^53",
    gather,
    (m) => void (m["memory"]["buffers"][0]["address"] = 2 ** 60),
    "$.memory.buffers[0].address",
    /outside \[0, 9007199254740992\)/,
  ],
  [
    "queue file escaping the directory",
    gather,
    (m) => void (m["queues"][0]["file"] = "../x.bin"),
    "$.queues[0].file",
    /inside the manifest's directory/,
  ],
  [
    "an absolute queue file",
    gather,
    (m) => void (m["queues"][0]["file"] = "/etc/x.bin"),
    "$.queues[0].file",
    /inside the manifest's directory/,
  ],
  [
    "source map row of a string",
    gather,
    (m) => void (m["sourceMap"]["queues"][0]["entries"] = [["x"]]),
    "$.sourceMap.queues[0].entries[0]",
    /expected/,
  ],
  [
    "source map row too short",
    gather,
    (m) => void (m["sourceMap"]["queues"][0]["entries"] = [[0]]),
    "$.sourceMap.queues[0].entries[0]",
    /fewer than 2/,
  ],
  ["ranks out of range", gather, (m) => void (m["ranks"] = 0), "$.ranks", /outside \[1, 65\)/],
  [
    "engine out of range",
    gather,
    (m) => void (m["queues"][0]["engine"] = 256),
    "$.queues[0].engine",
    /outside \[0, 256\)/,
  ],
  [
    "unknown protocol",
    gather,
    (m) => void (m["completion"]["protocol"] = "poll"),
    "$.completion.protocol",
    /"atomic", "fence"/,
  ],
  [
    "completion width",
    gather,
    (m) => void (m["completion"]["width"] = 32),
    "$.completion.width",
    /64/,
  ],
  [
    "trigger value above 32 bits",
    gather,
    (m) => void (m["trigger"] = { address: 0, value: 2 ** 32 }),
    "$.trigger",
    /./,
  ],
  [
    "a parameter of no type",
    gather,
    (m) => void (m["params"][0]["type"] = "float"),
    "$.params[0].type",
    /"int", "bytes", "bool"/,
  ],
  [
    "a region of another kind",
    gather,
    (m) => void (m["memory"]["regions"][0]["kind"] = "peer"),
    "$.memory.regions[0].kind",
    /"device", "host"/,
  ],
  [
    "an unaligned signal word",
    ring,
    (m) => void (m["memory"]["syncWords"][0]["address"] += 2),
    "$.memory.syncWords[0].address",
    /4-byte aligned/,
  ],
  [
    "a sync word without its producer",
    ring,
    (m) => void delete m["memory"]["syncWords"][0]["producer"],
    "$.memory.syncWords[0].producer",
    /string/,
  ],
  [
    "a slot stride below 8",
    gather,
    (m) => void (m["memory"]["timestampSlots"]["stride"] = 4),
    "$.memory.timestampSlots.stride",
    /outside \[8, /,
  ],
  [
    "a negative relocation",
    broadcast,
    (m) => void (m["relocations"][0]["entries"][2] = -64),
    "$.relocations[0].entries[2]",
    /outside/,
  ],
  [
    "a completion slot that is not an integer",
    gather,
    (m) => void (m["queues"][0]["completionSlots"] = [0.5]),
    "$.queues[0].completionSlots[0]",
    /integer/,
  ],
];

const STRUCTURAL_TRACE: readonly Case[] = [
  [
    "null address",
    gather,
    (t) => void (t["queues"][0]["cmds"][0]["src"]["addr"] = null),
    "$.queues[0].cmds[0].src.addr",
    /integer/,
  ],
  [
    "unknown command",
    gather,
    (t) => void (t["queues"][0]["cmds"][0]["op"] = "jump"),
    "$.queues[0].cmds[0].op",
    /unknown command/,
  ],
  [
    "negative bytes",
    gather,
    (t) => void (t["queues"][0]["cmds"][0]["bytes"] = -1),
    "$.queues[0].cmds[0].bytes",
    /outside/,
  ],
  ["ranks out of range", gather, (t) => void (t["ranks"] = 0), "$.ranks", /outside/],
  [
    "memory not an object",
    gather,
    (t) => void (t["memory"] = []),
    "$.memory",
    /expected an object/,
  ],
  [
    "a poll of no comparison",
    ring,
    (t) => {
      const q = t["queues"].find((x: Json) => x["cmds"].some((c: Json) => c["op"] === "poll"));
      q["cmds"].find((c: Json) => c["op"] === "poll")["func"] = "~";
    },
    "$.queues[",
    /one of "==", "!=", "<", "<=", ">", ">="/,
  ],
  [
    "an atomic of width 16",
    gather,
    (t) => {
      const q = t["queues"][0];
      q["cmds"].find((c: Json) => c["op"] === "atomic")["width"] = 16;
    },
    "$.queues[0].cmds[",
    /32, 64/,
  ],
  ["a source without params", gather, (t) => void delete t["params"], "$.params", /array/],
];

/** Rejected by the hand-written validator only: rules about other values, kept in code. */
const SEMANTIC_MANIFEST: readonly [string, Seed, (d: Json) => void][] = [
  ["gpu out of range (>= ranks)", gather, (m) => void (m["queues"][0]["gpu"] = 8)],
  [
    "huge slot count (more than the input could use)",
    gather,
    (m) => void (m["memory"]["completionSignals"]["count"] = 2 ** 32),
  ],
  [
    "duplicate buffer",
    gather,
    (m) => void (m["memory"]["buffers"][1] = clone(m["memory"]["buffers"][0])),
  ],
  ["buffer id beyond the list", gather, (m) => void (m["memory"]["buffers"][0]["id"] = 4294967296)],
  [
    "overlapping areas",
    gather,
    (m) => void (m["memory"]["buffers"][1]["address"] = m["memory"]["buffers"][0]["address"]),
  ],
  [
    "missing queue file (not among the streams)",
    gather,
    (m) => void (m["queues"][0]["file"] = "nope.bin"),
  ],
  ["slot beyond the count", gather, (m) => void (m["queues"][0]["completionSlots"] = [999])],
  [
    "one slot listed by two queues",
    broadcast,
    (m) => void (m["queues"][1]["completionSlots"] = [...m["queues"][0]["completionSlots"]]),
  ],
  ["`dwords` edited, the file not", broadcast, (m) => void (m["queues"][2]["dwords"] -= 1)],
  ["no regions at all", broadcast, (m) => void (m["memory"]["regions"] = [])],
  ["the host region missing", broadcast, (m) => void m["memory"]["regions"].pop()],
  [
    "a region too small for its buffer",
    broadcast,
    (m) => void (m["memory"]["regions"][1]["size"] = 4096),
  ],
  [
    "two regions overlapping",
    broadcast,
    (m) => {
      const r = m["memory"]["regions"];
      r[0]["size"] = r[1]["base"] - r[0]["base"] + 4096;
    },
  ],
  [
    "the host region marked as a device",
    broadcast,
    (m) => void (m["memory"]["regions"][8]["kind"] = "device"),
  ],
  [
    "relocations: an unknown region",
    broadcast,
    (m) => void (m["relocations"][0]["entries"][1] = 99),
  ],
  [
    "relocations: an unknown queue",
    broadcast,
    (m) => void (m["relocations"][0]["queue"] = "gpu9.sdma2"),
  ],
  [
    "relocations: a dword past the stream",
    broadcast,
    (m) => void (m["relocations"][0]["entries"][0] = 15),
  ],
  ["relocations: not triples", broadcast, (m) => void m["relocations"][0]["entries"].pop()],
  [
    "buffer sizes differ between instances",
    gather,
    (m) => {
      const b = m["memory"]["buffers"];
      const i = b.findIndex(
        (x: Json, k: number) => b.findIndex((y: Json) => y["id"] === x["id"]) < k,
      );
      b[i]["size"] -= 4;
    },
  ],
];

const SEMANTIC_TRACE: readonly [string, Seed, (d: Json) => void][] = [
  ["huge timestamp count", gather, (t) => void (t["memory"]["timestampSlots"]["count"] = 2 ** 40)],
  ["duplicate queue name", gather, (t) => void (t["queues"][1]["name"] = t["queues"][0]["name"])],
  [
    'protocol "fence" over atomic commands',
    broadcast,
    (t) => void (t["completion"]["protocol"] = "fence"),
  ],
  [
    "an address on a GPU beyond ranks",
    gather,
    (t) => void (t["queues"][0]["cmds"][0]["src"]["gpu"] = 8),
  ],
];

const edited = (doc: unknown, edit: (d: Json) => void): Json => {
  const d = clone(doc) as Json;
  edit(d);
  return d;
};

describe("real outputs pass the structural check", () => {
  it("every seed's manifest and trace", () => {
    for (const s of [gather, broadcast, ring]) {
      expect(checkExecutorInput("manifest", s.manifest)).toBeUndefined();
      expect(checkExecutorInput("trace", s.trace)).toBeUndefined();
    }
  });
});

describe("structural corruption: the schema rejects it where the hand-written check does", () => {
  const run = (kind: "manifest" | "trace", cases: readonly Case[]) => {
    for (const [what, seed, edit, path, detail] of cases)
      it(`${kind}: ${what}`, () => {
        const doc = edited(kind === "manifest" ? seed.manifest : seed.trace, edit);
        const hand =
          kind === "manifest"
            ? validateManifest(doc, { file: "out/x.json", streams: seed.streams })
            : validateTrace(doc, { file: "out/x.json" });
        const schema = checkExecutorInput(kind, doc, "out/x.json");
        expect(hand?.code, "the hand-written validator").toBe("DMAC6011");
        expect(hand?.message).toContain(path);
        expect(schema?.code, "the schema").toBe("DMAC6011");
        expect(schema?.message).toContain("out/x.json");
        expect(schema?.message).toContain(path);
        expect(schema?.message).toMatch(detail);
      });
  };
  run("manifest", STRUCTURAL_MANIFEST);
  run("trace", STRUCTURAL_TRACE);
});

describe("rules about other values: the schema accepts them, code keeps checking them", () => {
  const run = (kind: "manifest" | "trace", cases: readonly [string, Seed, (d: Json) => void][]) => {
    for (const [what, seed, edit] of cases)
      it(`${kind}: ${what}`, () => {
        const doc = edited(kind === "manifest" ? seed.manifest : seed.trace, edit);
        expect(checkExecutorInput(kind, doc)).toBeUndefined();
        const hand =
          kind === "manifest"
            ? validateManifest(doc, { streams: seed.streams })
            : validateTrace(doc);
        // (Checks that need the decoded streams run when the executor loads them.)
        expect(hand?.code ?? "checked against the streams").toMatch(/DMAC6011|streams/);
      });
  };
  run("manifest", SEMANTIC_MANIFEST);
  run("trace", SEMANTIC_TRACE);
});

describe("the fuzzers' saved executor inputs", () => {
  it("each is refused by the schema, or by a rule code keeps", () => {
    const dir = "test/fuzz-regressions";
    const saved = readdirSync(dir).filter((f) => f.startsWith("sim-input-"));
    expect(saved.length).toBeGreaterThanOrEqual(5);
    for (const f of saved) {
      const j = JSON.parse(readFileSync(join(dir, f), "utf8")) as Json;
      const seed = compileFile(join("examples", j["seed"] as string));
      const kind = "trace" in j ? "trace" : "manifest";
      const doc = j[kind] as Json;
      const schema = checkExecutorInput(kind, doc);
      const hand =
        kind === "manifest"
          ? validateManifest(doc, { streams: seed.streams, module: seed.module })
          : validateTrace(doc, { module: seed.module });
      expect(schema ?? hand, f).toBeDefined();
      expect((schema ?? hand)!.code, f).toBe("DMAC6011");
    }
  });
});
