// Conservative sync (queues/sync-forms.ts, issue 17 item 1): in the default mode of `target
// mi300x` every example's streams poll only with POLL_REGMEM function 3 (==), the executor runs
// and verifies them, and `--sync aggressive` keeps today's forms (>= on progress counters).

import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { decodeStream } from "../../../src/backend/sdma/decode.js";
import { conservativeSync } from "../../../src/queues/sync-forms.js";
import { verifyQueueProgram } from "../../../src/queues/verify.js";
import { CMD, FUNC_EQ } from "../../../src/queues/queue-program.js";
import { makeSourceFile } from "../../../src/source/source-file.js";
import { compileToQueues } from "../../../src/driver/compile.js";
import { readFileSync } from "node:fs";
import { compileFile } from "../sim/compile-helper.js";
import { simulate } from "../../../src/sim/run.js";
import { MI300X } from "./helpers.js";

const DIR = fileURLToPath(new URL("../../../examples/", import.meta.url));
const EXAMPLES = readdirSync(DIR)
  .filter((f) => f.endsWith(".dmac"))
  .sort();

/** Every POLL_REGMEM func of a manifest's streams. */
function pollFuncs(streams: Map<string, Uint32Array>): Set<string> {
  const funcs = new Set<string>();
  for (const words of streams.values())
    for (const e of decodeStream(words).packets)
      if (e.packet.kind === "poll_mem" || e.packet.kind === "poll_reg") funcs.add(e.packet.func);
  return funcs;
}

describe("conservative sync: every example", () => {
  it.each(EXAMPLES)("%s polls only with == (function 3) and verifies", (name) => {
    const c = compileFile(DIR + name);
    expect(c.manifest.sync?.mode).toBe("conservative");
    expect(c.manifest.sync?.words).toBe("host");
    const funcs = pollFuncs(c.streams);
    expect([...funcs].every((f) => f === "eq")).toBe(true);
    // Sync words live in host memory (gpu null), as AMD's code polls.
    expect(c.manifest.memory.syncWords.every((w) => w.gpu === null)).toBe(true);
    const r = simulate(
      { manifest: c.manifest, streams: c.streams, module: c.module },
      { target: c.target },
    );
    expect(r.diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    expect(r.verified).toBe(true);
  });
});

describe("--sync aggressive", () => {
  it("keeps >= polls on progress counters in GPU memory and writes no sync section", () => {
    const path = DIR + "ring_all_gather.dmac";
    const file = makeSourceFile(path, readFileSync(path, "utf8"));
    const q = compileToQueues(file, { sync: "aggressive" });
    const p = q.compiled!.program;
    expect(p.sync).toBeUndefined();
    let ge = 0;
    for (const queue of p.queues)
      for (let i = 0; i < queue.cmds.length; i++)
        if (queue.cmds.kind(i) === CMD.poll && queue.cmds.func(i) === ">=") ge++;
    expect(ge).toBeGreaterThan(0);
  });
});

describe("conservativeSync", () => {
  it("gives every polled progress FENCE its own write-once word and keeps the program live", () => {
    const path = DIR + "ring_all_gather.dmac";
    const file = makeSourceFile(path, readFileSync(path, "utf8"));
    const q = compileToQueues(file, { sync: "aggressive" });
    const { module, program } = q.compiled!;
    const r = conservativeSync(program, "host");
    expect(r.unsupportedWaits).toEqual([]);
    verifyQueueProgram(r.program, module, MI300X.engines.count);
    const fences = new Map<number, number>();
    for (const queue of r.program.queues)
      for (let i = 0; i < queue.cmds.length; i++) {
        const w = queue.cmds.syncWord(i);
        if (w < 0 || r.program.syncWords[w]!.kind !== "progress") continue;
        if (queue.cmds.kind(i) === CMD.signal) {
          fences.set(w, (fences.get(w) ?? 0) + 1);
          expect(queue.cmds.value(i)).toBe(1);
        } else expect(queue.cmds.funcCode(i)).toBe(FUNC_EQ);
      }
    expect([...fences.values()].every((n) => n === 1)).toBe(true);
    expect(r.program.syncWords.length).toBeGreaterThan(program.syncWords.length);
  });

  it("keeps a thermometer flag's `>= V` as a masked == on bit V-1; the manifest names its encoding", () => {
    const c = compileFile(DIR + "pipelined_all_gather.dmac");
    const ready = c.manifest.memory.signals.filter((f) => f.name === "ready");
    expect(ready.map((f) => f.encoding)).toContain("thermometer");
    const masks = new Set<number>();
    for (const words of c.streams.values())
      for (const e of decodeStream(words).packets)
        if (e.packet.kind === "poll_mem" && e.packet.mask !== 0xffffffff) {
          expect(e.packet.value).toBe(e.packet.mask);
          masks.add(e.packet.mask);
        }
    expect([...masks].sort((a, b) => a - b)).toEqual([1, 2, 4, 8]);
  });
});

describe("DMAC4020", () => {
  const compile = (text: string, sync?: "conservative" | "aggressive") =>
    compileToQueues(makeSourceFile("w.dmac", text), { sync });
  const src = (cond: string) => `target mi300x
schedule s() {
  buffer a: 4KiB
  signal f
  when f@0 ${cond} { copy a@0 -> a@1 }
}
`;
  it("reports a `when` compare conservative sync cannot poll with ==, once per statement", () => {
    const q = compile(src("< 3"));
    expect(q.compiled).toBeUndefined();
    expect(q.diagnostics.map((d) => d.code)).toEqual(["DMAC4020"]);
    expect(q.diagnostics[0]!.message).toContain("f@0 < 3");
  });
  it("accepts the same schedule with --sync aggressive, and == in conservative mode", () => {
    expect(compile(src("< 3"), "aggressive").compiled).toBeDefined();
    expect(compile(src(">= 3"), "aggressive").compiled).toBeDefined();
    expect(compile(src("== 3")).compiled).toBeDefined();
  });
  it("refuses >= on a count flag in conservative mode, naming `thermometer` and --sync aggressive", () => {
    const q = compile(src(">= 3"));
    expect(q.diagnostics.map((d) => d.code)).toEqual(["DMAC4020"]);
    expect(q.diagnostics[0]!.message).toMatch(/count flag.*thermometer.*--sync aggressive/);
  });
});

describe("conservative sync without sync words", () => {
  it("keeps every queue's command table (nothing to rewrite, nothing copied)", () => {
    const path = DIR + "all_to_all_pcpy.dmac";
    const file = makeSourceFile(path, readFileSync(path, "utf8"));
    const p = compileToQueues(file, { sync: "aggressive" }).compiled!.program;
    expect(p.syncWords).toEqual([]);
    const r = conservativeSync(p, "host");
    expect(r.program.sync).toEqual({ mode: "conservative", words: "host" });
    r.program.queues.forEach((q, i) => expect(q.cmds).toBe(p.queues[i]!.cmds));
  });
});
