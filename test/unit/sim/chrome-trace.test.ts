// The Perfetto trace of `dmac sim --trace` (issue 15): every poll of a multi-queue run is a wait
// span with exactly one incoming flow, and that flow starts at the slice that issued the write
// which released it, checked against the trace's own record of the word's writes (trace-check.ts
// reads the trace as Perfetto does). Plus a golden of a small run and the page `--html` writes.

import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { decodeStream } from "../../../src/backend/sdma/decode.js";
import { chromeTrace, type ChromeTrace } from "../../../src/sim/chrome-trace.js";
import { simulate } from "../../../src/sim/run.js";
import { example, runCli } from "../../helpers/cli.js";
import { compileText, RELAY } from "./compile-helper.js";
import { readTrace, type ReadTrace, type Slice } from "./trace-check.js";

const dir = mkdtempSync(join(tmpdir(), "dmac-trace-"));

/** Compiles with `dmac compile`, runs `dmac sim DIR --trace`; the trace and the POLL count. */
async function traceOf(
  name: string,
  compileArgs: string[],
  simArgs: string[],
): Promise<{ doc: ChromeTrace; polls: number }> {
  const out = join(dir, name);
  const c = await runCli(["compile", example(name), "-o", out, ...compileArgs]);
  expect(c.code, c.err).toBe(0);
  const file = join(dir, `${name}.json`);
  const s = await runCli(["sim", out, "--trace", file, ...simArgs]);
  expect(s.code, s.err).toBe(0);
  let polls = 0;
  for (const f of readdirSync(out).filter((n) => n.endsWith(".bin"))) {
    const b = readFileSync(join(out, f));
    const words = new Uint32Array(b.buffer, b.byteOffset, b.byteLength / 4);
    polls += decodeStream(words).packets.filter((p) => p.packet.kind === "poll_mem").length;
  }
  return { doc: JSON.parse(readFileSync(file, "utf8")) as ChromeTrace, polls };
}

/** `>= 3`, `== 0`, `& 0xff != 2` as a test of a word's value. */
function condition(text: string): (v: number) => boolean {
  const m = /^(?:& 0x([0-9a-f]+) )?(==|!=|>=|<=|>|<) (\d+)$/.exec(text);
  expect(m, text).not.toBeNull();
  const mask = m![1] === undefined ? 0xffffffff : parseInt(m![1], 16);
  const ref = Number(m![3]);
  const ops: Record<string, (a: number) => boolean> = {
    "==": (a) => a === ref,
    "!=": (a) => a !== ref,
    ">=": (a) => a >= ref,
    "<=": (a) => a <= ref,
    ">": (a) => a > ref,
    "<": (a) => a < ref,
  };
  return (v) => ops[m![2]!]!(((v % 4294967296) & mask) >>> 0);
}

/**
 * The wait's one incoming flow starts at the slice that wrote its word, and that write is the
 * release: its value and every later one up to the end of the wait meet the condition, and the
 * value before it does not (or it was the word's first write).
 */
function checkRelease(t: ReadTrace, wait: Slice): Slice {
  const from = t.incoming.get(wait) ?? [];
  expect(from, `${wait.name} at ${wait.ts}: one incoming flow`).toHaveLength(1);
  const src = from[0]!;
  const word = wait.args["word"];
  const by = wait.args["releasedBy"];
  if (src.cat === "engine") expect(src.args["word"]).toBe(word);
  else if (src.cat === "producer") expect(src.args["word"]).toBe(word);
  else expect([src.name, word]).toEqual(["trigger store", "trigger"]);
  const end = wait.ts + wait.dur;
  const landings = t.instants.filter((i) => i.name.startsWith(`${word} = `) && i.ts <= end);
  const k = landings.findIndex(
    (i) => i.ts === wait.args["releaseLandedUs"] && i.args?.["by"] === by,
  );
  expect(k, `the release of ${wait.name} landed on ${word}`).toBeGreaterThanOrEqual(0);
  expect(src.ts).toBeLessThanOrEqual(Number(landings[k]!.args!["issuedUs"]));
  const ok = condition(String(wait.args["condition"]));
  const value = (i: (typeof landings)[number]): number => Number(i.name.split(" = ")[1]);
  for (const later of landings.slice(k)) expect(ok(value(later))).toBe(true);
  if (k > 0) expect(ok(value(landings[k - 1]!))).toBe(false);
  return src;
}

function checkWaits(t: ReadTrace, polls: number): { engine: Slice[]; sources: Slice[] } {
  const waits = t.slices.filter((s) => s.cat === "wait");
  const engine = waits.filter((s) => s.args["packet"] !== undefined);
  expect(engine, "one wait span per POLL packet").toHaveLength(polls);
  for (const w of engine) {
    expect(w.args["satisfied"]).toBe("yes");
    expect(w.dur).toBeGreaterThan(0);
  }
  // The host's completion reads are waits too, each released by the queue's completion write.
  const host = waits.filter((s) => s.args["packet"] === undefined);
  expect(host.length).toBeGreaterThan(0);
  const sources = [...engine, ...host].map((w) => checkRelease(t, w));
  return { engine, sources };
}

describe("dmac sim --trace: waits, flows and sources", () => {
  it("all_gather_b2b -O2 --prelaunch: the trigger store releases every queue's first poll", async () => {
    const { doc, polls } = await traceOf("all_gather_b2b.dmac", ["-O2", "--prelaunch"], []);
    const t = readTrace(doc);
    expect(polls).toBeGreaterThanOrEqual(8);
    const { sources } = checkWaits(t, polls);
    const trigger = sources.filter((s) => s.name === "trigger store");
    expect(trigger.length).toBe(8);
    expect(t.outgoing.get(trigger[0]!)).toBe(8); // one slice, eight arrows
  });

  it("pipelined_all_gather (when/notify, external signals raised over time): every wait", async () => {
    const { doc, polls } = await traceOf(
      "pipelined_all_gather.dmac",
      ["-D", "chunk=64KiB"],
      ["--signal-period", "2"],
    );
    const t = readTrace(doc);
    const { sources } = checkWaits(t, polls);
    const kinds = new Set(sources.map((s) => `${s.cat} ${String(s.args["packet"] ?? "")}`));
    // Releases by the producer (ready), by FENCEs (the lowering's cross-queue syncs) and by
    // completion ATOMICs (the host's reads).
    expect([...kinds].sort()).toEqual(["engine ATOMIC", "engine FENCE", "producer "]);
    // Every command slice says where it came from.
    for (const s of t.slices.filter((x) => x.cat === "engine")) {
      expect(s.args["source"]).toMatch(/pipelined_all_gather\.dmac:\d+:\d+$/);
      expect(typeof s.args["statement"]).toBe("string");
      expect(typeof s.args["dword"]).toBe("number");
    }
    const names = doc.traceEvents.filter((e) => e.ph === "M").map((e) => JSON.stringify(e.args));
    expect(names).toContain(JSON.stringify({ name: "GPU 3" }));
    expect(names).toContain(JSON.stringify({ name: "engine 2 (gpu0.sdma2)" }));
    const counters = new Set(doc.traceEvents.filter((e) => e.ph === "C").map((e) => e.name));
    expect(counters.has("xgmi gpu0->gpu1") && counters.has("xgmi gpu1->gpu0")).toBe(true);
  });

  it("a run from the command trace has waits and flows too (positions are command indices)", async () => {
    const out = join(dir, "ring");
    expect(
      (await runCli(["compile", example("ring_all_gather.dmac"), "-o", out, "--emit", "trace"]))
        .code,
    ).toBe(0);
    const file = join(dir, "ring.chrome.json");
    const s = await runCli(["sim", join(out, "trace.json"), "--trace", file]);
    expect(s.code, s.err).toBe(0);
    const t = readTrace(JSON.parse(readFileSync(file, "utf8")) as ChromeTrace);
    const waits = t.slices.filter((x) => x.cat === "wait" && x.args["command"] !== undefined);
    expect(waits.length).toBeGreaterThan(0);
    for (const w of waits) checkRelease(t, w);
  });
});

describe("names in the trace", () => {
  it("a buffer declared on host is name@host, not the placeholder rank 0", async () => {
    const { doc } = await traceOf("host_upload_pieces.dmac", [], []);
    const text = JSON.stringify(doc);
    expect(text).toContain('"staging@host');
    expect(text).not.toContain('"staging@0');
  });
});

describe("chromeTrace golden", () => {
  const source = RELAY;

  it("a two-queue relay, event by event", async () => {
    const c = compileText("relay.dmac", source, {}, "aggressive");
    const r = simulate(
      { manifest: c.manifest, streams: c.streams, module: c.module },
      { target: c.target, record: true },
    );
    expect(r.verified).toBe(true);
    const doc = chromeTrace(r.program!, r, { module: c.module, endUs: r.stats.totalUs });
    readTrace(doc);
    const text = `[\n${doc.traceEvents.map((e) => `  ${JSON.stringify(e)}`).join(",\n")}\n]\n`;
    await expect(text).toMatchFileSnapshot("golden/relay.chrome-trace.txt");
  });

  it("without a timeline: metadata only", () => {
    const c = compileText("relay.dmac", source, {}, "aggressive");
    const r = simulate({ manifest: c.manifest, streams: c.streams }, { target: c.target });
    const doc = chromeTrace(r.program!, r);
    expect(new Set(doc.traceEvents.map((e) => e.ph))).toEqual(new Set(["M"]));
  });
});
