// Issue 30 item 3: a flag that outside code raises states its encoding where the user writes it.
// `signal NAME [on R]` is a count (outside code stores k; notify adds 1) and is never compiled to
// a bit test; `signal NAME [on R] thermometer` stores 2^k - 1, and `when F >= V` tests bit V-1.
// Every place that shows a flag says which (check's summary, the hover, the dump's header, the
// manifest), and the thermometer rules are located errors at check time.

import { describe, expect, it } from "vitest";
import { check } from "../../../src/api/check.js";
import { compile } from "../../../src/api/compile.js";
import { formatDmac } from "../../../src/fmt/format.js";
import { CMD, SPACE } from "../../../src/queues/queue-program.js";
import { analyzeDocument } from "../../../src/lsp/analysis.js";
import { hoverAt } from "../../../src/lsp/hover.js";
import { dmac, example } from "../../helpers/cli.js";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SOURCE = `target mi300x

schedule s() {
  buffer a: 4KiB
  signal ready on 0 thermometer
  signal done on 1
  when ready@0 >= 2 {
    copy a@0 -> a@1
  }
  notify done@1
}
`;

/** The located codes `check` reports for a schedule body (target mi300x, buffer a). */
function codes(body: string, opts: { sync?: "aggressive" } = {}): string[] {
  const src = `target mi300x\nschedule s() {\n  buffer a: 4KiB\n${body}\n}\n`;
  const r = check(src, { path: "f.dmac", sync: opts.sync });
  for (const d of r.diagnostics) expect(d.span, d.code).toBeDefined();
  return r.diagnostics.map((d) => d.code);
}

describe("the language: count by default, thermometer declared", () => {
  it("a count's `>=` is never a bit test: conservative sync refuses it at the when, naming both fixes", () => {
    const count = SOURCE.replace(" thermometer", "");
    const r = check(count, { path: "f.dmac" });
    expect(r.diagnostics.map((d) => d.code)).toEqual(["DMAC4020"]);
    const d = r.diagnostics[0]!;
    expect(count.slice(d.span!.start, d.span!.end)).toMatch(/^when ready@0 >= 2/);
    expect(d.message).toMatch(/count flag.*`thermometer`.*--sync aggressive/);
    // --sync aggressive polls the count with >= as written: no mask.
    const c = compile(SOURCE.replace(" thermometer", ""), { sync: "aggressive" });
    expect(c.ok).toBe(true);
    const polls = c.queues!.queues.flatMap((q) =>
      Array.from({ length: q.cmds.length }, (_, i) => i)
        .filter((i) => q.cmds.kind(i) === CMD.poll && q.cmds.space(i) === SPACE.signal)
        .map((i) => ({ func: q.cmds.func(i), value: q.cmds.value(i), mask: q.cmds.mask(i) })),
    );
    expect(polls).toEqual([{ func: ">=", value: 2, mask: 0xffffffff }]);
  });

  it("a thermometer flag's `>= V` is bit V-1 in every sync mode", () => {
    for (const sync of ["conservative", "aggressive"] as const) {
      const c = compile(SOURCE, { sync });
      expect(c.ok, sync).toBe(true);
      const masks = c.queues!.queues.flatMap((q) =>
        Array.from({ length: q.cmds.length }, (_, i) => i)
          .filter((i) => q.cmds.kind(i) === CMD.poll && q.cmds.space(i) === SPACE.signal)
          .map((i) => `${q.cmds.func(i)} ${q.cmds.value(i)} mask ${q.cmds.mask(i)}`),
      );
      expect(masks, sync).toEqual(["== 2 mask 2"]);
    }
  });

  it("notify on a thermometer flag is DMAC2041, at the notify", () => {
    expect(codes("  signal f on 0 thermometer\n  fill a@0 with 1\n  notify f@0")).toEqual([
      "DMAC2041",
    ]);
  });

  it("a thermometer flag is waited for with >= or > only (DMAC2042), in any sync mode", () => {
    for (const op of ["==", "!=", "<", "<="])
      expect(codes(`  signal f on 0 thermometer\n  when f@0 ${op} 1 { fill a@0 with 1 }`)).toEqual([
        "DMAC2042",
      ]);
    expect(
      codes("  signal f on 0 thermometer\n  when f@0 == 1 { fill a@0 with 1 }", {
        sync: "aggressive",
      }),
    ).toEqual(["DMAC2042"]);
    expect(codes("  signal f on 0 thermometer\n  when f@0 > 31 { fill a@0 with 1 }")).toEqual([]);
  });

  it("V outside 1..32 is DMAC2043, which says the 32-value limit (the -D pieces=64 of the review)", () => {
    for (const cond of [">= 33", "> 32", ">= 0"])
      expect(codes(`  signal f on 0 thermometer\n  when f@0 ${cond} { fill a@0 with 1 }`)).toEqual([
        "DMAC2043",
      ]);
    const r = check(
      SOURCE.replace("schedule s()", "schedule s(n: int = 64)").replace(">= 2", ">= n"),
      { path: "f.dmac" },
    );
    expect(r.diagnostics.map((d) => d.code)).toEqual(["DMAC2043"]);
    expect(r.diagnostics[0]!.message).toMatch(/counts 1\.\.32 .*32-bit word/);
  });

  it("the formatter prints the declaration back", async () => {
    const ugly = SOURCE.replace(
      "signal ready on 0 thermometer",
      "signal   ready on  0   thermometer",
    );
    const r = await formatDmac(ugly, "f.dmac");
    expect(r).toEqual({ ok: true, text: SOURCE });
  });
});

describe("the executor's modelled producer stores thermometer codes", () => {
  it("raises a thermometer flag to 32 (2^32 - 1), past the 2^16 values a search from 0 reaches", async () => {
    const r = await dmac(
      "sim",
      example("pipelined_all_gather.dmac"),
      "-D",
      "pieces=32",
      "-D",
      "chunk=2MiB",
      "--format",
      "concise",
    );
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^verified/m);
  });
});

describe("every place that shows a flag states its contract", () => {
  it("dmac check's summary (text and JSON)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dmac-flags-"));
    const path = join(dir, "f.dmac");
    writeFileSync(path, SOURCE);
    const r = await dmac("check", path);
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      `${path}: s: signal ready on rank 0, thermometer: the word holds 2^k - 1 for k (bits 0..k-1 set, k <= 32); outside code raises it to k by storing 2^k - 1\n` +
        `${path}: s: signal done on rank 1, count: the word holds k after k events; outside code raises it to k by storing k, and notify adds 1\n`,
    );
    const j = JSON.parse((await dmac("check", path, "--format", "json")).out);
    expect(j.files[0].signals).toEqual([
      { schedule: "s", name: "ready", rank: 0, encoding: "thermometer" },
      { schedule: "s", name: "done", rank: 1, encoding: "count" },
    ]);
  });

  it("the hover, on the declaration and on a use", () => {
    const doc = analyzeDocument("file:///f.dmac", 1, SOURCE);
    const hover = (needle: string): string =>
      (hoverAt(doc, SOURCE.indexOf(needle))!.contents as { value: string }).value;
    expect(hover("ready on 0")).toContain("thermometer: the word holds 2^k - 1");
    expect(hover("ready@0")).toContain("outside code raises it to k by storing 2^k - 1");
    expect(hover("done on 1")).toContain("count: the word holds k after k events");
  });

  it("the dump's header and the manifest", () => {
    const c = compile(SOURCE, { emit: ["sdma", "dump"] });
    expect(c.ok).toBe(true);
    const dump = c.files!.find((f) => f.name === "dump.txt")!;
    const text = typeof dump.data === "string" ? dump.data : new TextDecoder().decode(dump.data);
    expect(text).toMatch(/# signal ready@0 at 0x[0-9a-f]+, thermometer: stores 2\^k - 1\n/);
    expect(text).toMatch(/# signal done@1 at 0x[0-9a-f]+, count: stores k\n/);
    expect(c.manifest!.memory.signals.map((s) => [s.name, s.encoding])).toEqual([
      ["ready", "thermometer"],
      ["done", "count"],
    ]);
  });
});
