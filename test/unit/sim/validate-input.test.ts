// The executor's input validator (src/sim/validate-input.ts): real outputs pass; each class of
// corruption (type, range, length/count, address, overlap, missing file, version) gives one
// DMAC6011 naming the file and the JSON path, through validate*, simulate() and `dmac sim`.

import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { simulate } from "../../../src/sim/run.js";
import { validateManifest, validateManifestInputs } from "../../../src/sim/validate-input.js";
import { validateTrace } from "../../../src/sim/validate-trace.js";
import { compileFile } from "./compile-helper.js";

const c = compileFile("examples/gather.dmac");
const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function manifestWith(edit: (m: Json) => void): Json {
  const m = clone(c.manifest) as unknown as Json;
  edit(m);
  return m;
}
function traceWith(edit: (t: Json) => void): Json {
  const t = clone(c.trace) as unknown as Json;
  edit(t);
  return t;
}

describe("validateManifest / validateTrace", () => {
  it("accepts every example's manifest and trace", () => {
    for (const f of readdirSync("examples").filter((x) => x.endsWith(".dmac"))) {
      const e = compileFile(join("examples", f));
      expect(validateManifest(e.manifest, { streams: e.streams }), f).toBeUndefined();
      expect(validateTrace(e.trace), f).toBeUndefined();
    }
  });

  const manifestCases: [string, (m: Json) => void, string, RegExp][] = [
    ["not an object", (m) => void (m["queues"] = 7), "$.queues", /expected an array/],
    ["wrong version", (m) => void (m["version"] = 2), "$.version", /schema version 1/],
    ["wrong kind", (m) => void (m["kind"] = "x"), "$.kind", /dmac-manifest/],
    [
      "wrong type",
      (m) => void (m["memory"]["buffers"][2]["name"] = 4294967296),
      "$.memory.buffers[2].name",
      /string/,
    ],
    [
      "missing field",
      (m) => void delete m["memory"]["buffers"][1]["id"],
      "$.memory.buffers[1].id",
      /integer/,
    ],
    [
      "gpu out of range",
      (m) => void (m["queues"][0]["gpu"] = 8),
      "$.queues[0].gpu",
      /outside \[0, 8\)/,
    ],
    [
      "address above 2^53",
      (m) =>
        void (m["memory"]["signals"].length
          ? (m["memory"]["signals"][0]["address"] = 2 ** 60)
          : (m["memory"]["buffers"][0]["address"] = 2 ** 60)),
      "$.memory.",
      /outside \[0, 9007199254740992\)/,
    ],
    [
      "huge slot count",
      (m) => void (m["memory"]["completionSignals"]["count"] = 2 ** 32),
      "$.memory.completionSignals.count",
      /more than an input of this size/,
    ],
    [
      "duplicate buffer",
      (m) => void (m["memory"]["buffers"][1] = clone(m["memory"]["buffers"][0])),
      "$.memory.buffers[1]",
      /second entry/,
    ],
    [
      "buffer id beyond the list",
      (m) => void (m["memory"]["buffers"][0]["id"] = 4294967296),
      "$.memory.buffers[0].id",
      /outside/,
    ],
    [
      "overlapping areas",
      (m) => void (m["memory"]["buffers"][1]["address"] = m["memory"]["buffers"][0]["address"]),
      "$.memory.buffers",
      /overlaps/,
    ],
    [
      "queue file escaping the directory",
      (m) => void (m["queues"][0]["file"] = "../x.bin"),
      "$.queues[0].file",
      /inside the manifest's directory/,
    ],
    [
      "missing queue file",
      (m) => void (m["queues"][0]["file"] = "nope.bin"),
      "$.queues[0].file",
      /missing/,
    ],
    [
      "slot beyond the count",
      (m) => void (m["queues"][0]["completionSlots"] = [999]),
      "$.queues[0].completionSlots[0]",
      /slot 999/,
    ],
    [
      "source map row",
      (m) => void (m["sourceMap"]["queues"][0]["entries"] = [["x"]]),
      "$.sourceMap.queues[0].entries[0]",
      /expected/,
    ],
  ];
  for (const [what, edit, path, detail] of manifestCases)
    it(`manifest: ${what}`, () => {
      const d = validateManifest(manifestWith(edit), {
        file: "out/manifest.json",
        streams: c.streams,
      });
      expect(d?.code).toBe("DMAC6011");
      expect(d?.message).toContain("out/manifest.json");
      expect(d?.message).toContain(path);
      expect(d?.message).toMatch(detail);
    });

  const traceCases: [string, (t: Json) => void, string, RegExp][] = [
    [
      "null address",
      (t) =>
        void (t["queues"][0]["cmds"][0][
          Object.keys(t["queues"][0]["cmds"][0]).find(
            (k) =>
              typeof t["queues"][0]["cmds"][0][k] === "object" &&
              !Array.isArray(t["queues"][0]["cmds"][0][k]),
          )!
        ]["addr"] = null),
      "$.queues[0].cmds[0].",
      /integer/,
    ],
    [
      "unknown command",
      (t) => void (t["queues"][0]["cmds"][0]["op"] = "jump"),
      "$.queues[0].cmds[0].op",
      /unknown command/,
    ],
    [
      "negative bytes",
      (t) => void (t["queues"][0]["cmds"].find((x: Json) => "bytes" in x)["bytes"] = -1),
      "bytes",
      /outside/,
    ],
    [
      "huge timestamp count",
      (t) => void (t["memory"]["timestampSlots"]["count"] = 2 ** 40),
      "$.memory.timestampSlots.count",
      /more than/,
    ],
    ["ranks out of range", (t) => void (t["ranks"] = 0), "$.ranks", /outside/],
    [
      "duplicate queue name",
      (t) => void (t["queues"][1]["name"] = t["queues"][0]["name"]),
      "$.queues[1].name",
      /second queue/,
    ],
    ["not JSON shape", (t) => void (t["memory"] = []), "$.memory", /expected an object/],
  ];
  for (const [what, edit, path, detail] of traceCases)
    it(`trace: ${what}`, () => {
      const d = validateTrace(traceWith(edit));
      expect(d?.code).toBe("DMAC6011");
      expect(d?.message).toContain("trace.json");
      expect(d?.message).toContain(path);
      expect(d?.message).toMatch(detail);
    });

  it("rejects instances of one buffer id with different sizes", () => {
    const bufs = c.manifest.memory.buffers;
    const i = bufs.findIndex((b, k) => bufs.findIndex((x) => x.id === b.id) < k);
    expect(i).toBeGreaterThan(0);
    const m = manifestWith((x) => void (x["memory"]["buffers"][i]["size"] -= 4));
    const d = validateManifest(m, { streams: c.streams });
    expect(d?.code).toBe("DMAC6011");
    expect(d?.message).toContain(`$.memory.buffers[${i}].size`);
    expect(d?.message).toMatch(/declares buffer \d+ with \d+/);
    const t = traceWith((x) => void (x["memory"]["buffers"][i]["size"] += 4));
    expect(validateTrace(t)?.message).toContain(`$.memory.buffers[${i}].size`);
  });

  describe("against the schedule's IR", () => {
    const opts = { streams: c.streams, module: c.module };
    it("accepts every example's own manifest and trace", () => {
      for (const f of readdirSync("examples").filter((x) => x.endsWith(".dmac"))) {
        const e = compileFile(join("examples", f));
        const o = { streams: e.streams, module: e.module };
        expect(validateManifest(e.manifest, o), f).toBeUndefined();
        expect(validateTrace(e.trace, { module: e.module }), f).toBeUndefined();
      }
    });
    it("a buffer whose size differs on every GPU", () => {
      const id = c.manifest.memory.buffers[0]!.id;
      const m = manifestWith((x) => {
        for (const b of x["memory"]["buffers"]) if (b.id === id) b.size = 7;
      });
      expect(validateManifest(m, { streams: c.streams })).toBeUndefined();
      const d = validateManifest(m, opts);
      expect(d?.code).toBe("DMAC6011");
      expect(d?.message).toMatch(/\$\.memory\.buffers\[\d+\]\.size: 7 bytes, but the schedule/);
      const r = simulate(
        { manifest: m as never, streams: c.streams, module: c.module },
        {
          target: c.target,
        },
      );
      expect(r.diagnostics.map((x) => x.code)).toEqual(["DMAC6011"]);
    });
    it("a missing or extra instance, another GPU count", () => {
      const gone = manifestWith((x) => void x["memory"]["buffers"].pop());
      expect(validateManifest(gone, opts)?.message).toMatch(/\$\.memory\.buffers: no entry for/);
      const lastId = c.module.buffers[c.module.buffers.length - 1]!.id;
      const fewer = { ...c.module, buffers: c.module.buffers.filter((b) => b.id !== lastId) };
      const d = validateManifest(c.manifest, { streams: c.streams, module: fewer });
      expect(d?.code).toBe("DMAC6011");
      expect(d?.message).toMatch(/\$\.memory\.buffers\[\d+\]: buffer \d+ on GPU \d+ is not in the/);
      const more = traceWith((x) => void (x["ranks"] = c.module.ranks + 1));
      expect(validateTrace(more, { module: c.module })?.message).toMatch(
        /\$\.ranks: \d+ GPUs, but the schedule's IR has \d+/,
      );
    });
  });

  it("validateManifestInputs: on a manifest valid alone, what streams and IR add, as validateManifest says it", () => {
    // (What `dmac sim DIR` runs again once the streams are read and the IR rebuilt.)
    const lastId = c.module.buffers[c.module.buffers.length - 1]!.id;
    const fewer = { ...c.module, buffers: c.module.buffers.filter((b) => b.id !== lastId) };
    const first = c.manifest.queues[0]!.file;
    const missing = new Map([...c.streams].filter(([f]) => f !== first));
    const short = new Map(c.streams);
    short.set(first, c.streams.get(first)!.subarray(1));
    const sized = manifestWith((x) => {
      for (const b of x["memory"]["buffers"]) if (b.id === lastId) b.size -= 4;
    });
    const cases: [Json, { streams: typeof c.streams; module?: typeof c.module }][] = [
      [c.manifest as unknown as Json, { streams: c.streams, module: c.module }],
      [c.manifest as unknown as Json, { streams: missing, module: c.module }],
      [c.manifest as unknown as Json, { streams: short, module: c.module }],
      [c.manifest as unknown as Json, { streams: c.streams, module: fewer }],
      [sized, { streams: c.streams, module: c.module }],
    ];
    const codes = cases.map(([m, o]) => {
      expect(validateManifest(m)).toBeUndefined();
      const got = validateManifestInputs(m as never, o);
      expect(got).toEqual(validateManifest(m, o));
      return got?.message;
    });
    expect(codes[0]).toBeUndefined();
    expect(codes.slice(1).every((m) => m !== undefined)).toBe(true);
  });

  it("bounds slot counts by the file size when it is known", () => {
    expect(validateManifest(c.manifest, { streams: c.streams, fileBytes: 100 })).toBeUndefined();
    const m = manifestWith((x) => void (x["memory"]["completionSignals"]["count"] = 1125));
    expect(validateManifest(m, { streams: c.streams, fileBytes: 100 })?.message).toMatch(
      /count: 1125 slots, more than an input of this size could use \(at most 1124\)/,
    );
  });

  it("simulate() reports the diagnostic instead of running", () => {
    const r = simulate(
      {
        trace: traceWith(
          (t) => void (t["memory"]["completionSignals"]["count"] = 2 ** 32),
        ) as never,
      },
      { target: c.target },
    );
    expect(r.diagnostics.map((d) => d.code)).toEqual(["DMAC6011"]);
    expect(r.verified).toBe(false);
    const wide = simulate(
      {
        manifest: manifestWith((m) => void (m["queues"][0]["engine"] = 200)) as never,
        streams: c.streams,
      },
      { target: c.target },
    );
    expect(wide.diagnostics[0]?.message).toMatch(/\$\.queues\[0\]\.engine: engine 200/);
  });
});

describe("dmac sim on a corrupt input", () => {
  async function sim(files: Record<string, string | Uint8Array>, input: string) {
    const dir = mkdtempSync(join(tmpdir(), "dmac-validate-"));
    try {
      for (const [n, d] of Object.entries(files)) writeFileSync(join(dir, n), d);
      let out = "";
      let err = "";
      const code = await main(["node", "dmac", "sim", join(dir, input), "--format", "concise"], {
        out: (s: string) => void (out += s),
        err: (s: string) => void (err += s),
        isTTY: false,
      });
      return { code, out, err };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("invalid JSON: DMAC6011, exit 1", async () => {
    const r = await sim({ "trace.json": "{ not json" }, "trace.json");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/DMAC6011.*trace\.json: \$: not valid JSON/);
  });

  it("each saved sim-input reproducer: DMAC6011, exit 1, never exit 2", async () => {
    const dir = "test/fuzz-regressions";
    const saved = readdirSync(dir).filter((f) => f.startsWith("sim-input-"));
    expect(saved.length).toBeGreaterThanOrEqual(5);
    for (const f of saved) {
      const j = JSON.parse(readFileSync(join(dir, f), "utf8")) as Json;
      const seed = compileFile(join("examples", j["seed"] as string));
      // With the IR the run is checked against (as the fuzzer runs it), every one is DMAC6011.
      const direct =
        "trace" in j
          ? simulate({ trace: j["trace"] as never, module: seed.module }, { target: c.target })
          : simulate(
              { manifest: j["manifest"] as never, streams: seed.streams, module: seed.module },
              { target: c.target },
            );
      expect(
        direct.diagnostics.map((d) => d.code),
        f,
      ).toEqual(["DMAC6011"]);
      // Through `dmac sim`, a manifest comes with its seed's packet streams and source, as
      // `dmac compile` leaves them. Those wrong only against the IR are DMAC6011 when the CLI
      // recompiles the source, else the executor's own 6xxx reports: exit 1 either way.
      const files: Record<string, string | Uint8Array> = {};
      if ("manifest" in j) {
        const m = j["manifest"] as Json;
        files["manifest.json"] = JSON.stringify(m);
        for (const [n, w] of seed.streams)
          files[n] = new Uint8Array(w.buffer, w.byteOffset, w.byteLength);
        const src = m["sourceMap"]?.["file"];
        if (typeof src === "string" && !src.includes("/"))
          files[src] = readFileSync(join("examples", j["seed"] as string), "utf8");
      } else files["trace.json"] = JSON.stringify(j["trace"]);
      const r = await sim(files, "manifest" in j ? "manifest.json" : "trace.json");
      expect(r.code, f).toBe(1);
      expect(r.err, f).toMatch(/DMAC6011 .*\$\.|DMAC60\d\d /);
    }
  });

  it("a manifest whose queue file is absent: DMAC5001 naming the file, exit 1", async () => {
    const r = await sim({ "manifest.json": JSON.stringify(c.manifest) }, "manifest.json");
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/DMAC5001 .*\.bin/);
  });
});
