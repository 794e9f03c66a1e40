// `dmac sweep` comparing variants: several files, several -O levels, FILE@SPEC overrides, the
// CSV's shape, the exit code when a run does not verify, labels, and the progress bar.

import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli as run } from "../../helpers/cli.js";
import { variantLabel } from "../../../src/cli/commands/sweep.js";
import { parseVariantSpec } from "../../../src/options/variant-spec.js";

interface CsvRow {
  readonly [column: string]: string;
}

function readCsv(path: string): { header: string[]; rows: CsvRow[] } {
  const [head, ...lines] = readFileSync(path, "utf8").trimEnd().split("\n");
  const header = head!.split(",");
  return {
    header,
    rows: lines.map((l) => Object.fromEntries(l.split(",").map((v, i) => [header[i]!, v]))),
  };
}

const AG_PCPY = "examples/all_gather_pcpy.dmac";
const AG_BCST = "examples/all_gather_bcst.dmac";

describe("dmac sweep with several variants", () => {
  const dir = mkdtempSync(join(tmpdir(), "dmac-sweep-"));

  it("writes one CSV row per (variant, size) and one SVG line per variant", async () => {
    const out = join(dir, "two");
    const r = await run([
      "sweep",
      AG_PCPY,
      `${AG_BCST}@O0`,
      "--param",
      "chunk",
      "--sizes",
      "1KiB..4KiB",
      "--out",
      out,
    ]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const { header, rows } = readCsv(join(out, "sweep.csv"));
    expect(header).toEqual([
      "label",
      "file",
      "schedule",
      "opt",
      "prelaunch",
      "options",
      "chunk_bytes",
      "time_us",
      "algbw_GBps",
      "busbw_GBps",
      "dma_latte_algbw_GBps",
      "dma_latte_busbw_GBps",
      "packets",
      "verified",
      "plan",
    ]);
    expect(rows.map((x) => [x["label"], x["chunk_bytes"]])).toEqual([
      ["all_gather_pcpy -O0", "1024"],
      ["all_gather_pcpy -O0", "2048"],
      ["all_gather_pcpy -O0", "4096"],
      ["all_gather_bcst -O0", "1024"],
      ["all_gather_bcst -O0", "2048"],
      ["all_gather_bcst -O0", "4096"],
    ]);
    for (const x of rows) {
      expect(x["verified"]).toBe("true");
      expect(x["opt"]).toBe("0");
      expect(Number(x["time_us"])).toBeGreaterThan(0);
      expect(Number(x["busbw_GBps"])).toBeGreaterThan(0);
    }
    // 7 copies per GPU at -O0 for pcpy; 4 packets (3 broadcasts + 1 copy) per GPU for bcst,
    // each followed by its completion.
    expect(Number(rows[0]!["packets"])).toBeGreaterThan(Number(rows[3]!["packets"]));
    // The sweep's numbers are the executor's: the same as `dmac sim --json` at that size.
    const sim = await run(["sim", AG_BCST, "-D", "chunk=2KiB", "--json"]);
    const s = JSON.parse(sim.out) as { totalUs: number; busbwGBps: number };
    expect(Number(rows[4]!["time_us"])).toBeCloseTo(s.totalUs, 3);
    expect(Number(rows[4]!["busbw_GBps"])).toBeCloseTo(s.busbwGBps, 4);
    // nccl-tests' busbw of an all-gather is DMA-Latte's algbw, and n - 1 = 7 times its busbw.
    expect(Number(rows[4]!["busbw_GBps"])).toBeCloseTo(Number(rows[4]!["dma_latte_algbw_GBps"]), 3);
    expect(Number(rows[4]!["busbw_GBps"])).toBeCloseTo(
      7 * Number(rows[4]!["dma_latte_busbw_GBps"]),
      3,
    );
    // Table: the two variants side by side and the fastest (bcst, one read for two writes).
    expect(r.out).toMatch(/#1\s+all_gather_pcpy -O0/);
    expect(r.out).toMatch(/#2\s+all_gather_bcst -O0/);
    expect(r.out).toMatch(/^\s+1 KiB\s.*#2$/m);
    const svg = readFileSync(join(out, "sweep.svg"), "utf8");
    // Two panels (time, busbw) x two variants.
    expect(svg.match(/<polyline /g)).toHaveLength(4);
    expect(svg).toContain(">all_gather_bcst -O0</text>");
  });

  it("-O 0,1,2 gives one variant per level; -O2 records its plan and is never slower", async () => {
    const out = join(dir, "levels");
    const r = await run([
      "sweep",
      "examples/all_to_all_pcpy.dmac",
      "--param",
      "chunk",
      "--sizes",
      "1KiB..2KiB",
      "-O",
      "0,1,2",
      "--out",
      out,
      "--explain-plan",
    ]);
    expect(r.code).toBe(0);
    const { rows } = readCsv(join(out, "sweep.csv"));
    expect(rows.map((x) => x["opt"])).toEqual(["0", "0", "1", "1", "2", "2"]);
    for (const x of rows) expect(x["plan"] === "").toBe(x["opt"] !== "2");
    for (let i = 0; i < 2; i++)
      expect(Number(rows[4 + i]!["time_us"])).toBeLessThanOrEqual(Number(rows[i]!["time_us"]));
    expect(r.out).toMatch(/plans of all_to_all_pcpy -O2:\n\s+1 KiB \.\. 2 KiB\s+\S+/);
  });

  it("FILE@SPEC fixes the level and prelaunch of one file; --label names the columns", async () => {
    const out = join(dir, "spec");
    const r = await run([
      "sweep",
      AG_PCPY,
      "examples/all_gather_b2b.dmac@O1+prelaunch",
      "examples/all_gather_b2b.dmac@O1=b2b plain",
      "--param",
      "chunk",
      "--sizes",
      "1KiB",
      "-O",
      "0,2",
      "--label",
      "{file}/O{level}{prelaunch}",
      "--out",
      out,
    ]);
    expect(r.code).toBe(0);
    const { rows } = readCsv(join(out, "sweep.csv"));
    expect(rows.map((x) => [x["label"], x["opt"], x["prelaunch"]])).toEqual([
      ["all_gather_pcpy/O0", "0", "false"],
      ["all_gather_pcpy/O2", "2", "false"],
      ["all_gather_b2b/O1 +prelaunch", "1", "true"],
      ["b2b plain", "1", "false"],
    ]);
    // Prelaunch removes the host's submission from the measured time.
    expect(Number(rows[2]!["time_us"])).toBeLessThan(Number(rows[3]!["time_us"]));
  });

  it("exits 1 and reports the run when a variant does not verify", async () => {
    const out = join(dir, "fail");
    // The watchdog stops -O0 (31 us at 1 KiB) but not the prelaunched -O2 plan (6.5 us).
    const r = await run([
      "sweep",
      AG_PCPY,
      "--param",
      "chunk",
      "--sizes",
      "1KiB..2KiB",
      "-O",
      "0,2",
      "--max-sim-time",
      "20",
      "--out",
      out,
      "--format",
      "concise",
    ]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/all_gather_pcpy -O0 at chunk = 1 KiB did not verify: DMAC6008/);
    expect(r.err).not.toMatch(/-O2 at chunk/);
    expect(r.out).toMatch(/^\s+1 KiB\s+FAIL\s+\S+ µs\s+#2$/m);
    const { rows } = readCsv(join(out, "sweep.csv"));
    expect(rows.map((x) => x["verified"])).toEqual(["false", "false", "true", "true"]);
  });

  it("exits 1 when a file does not compile or a spec is bad", async () => {
    const missing = await run([
      "sweep",
      AG_PCPY,
      "examples/no_such.dmac",
      "--param",
      "chunk",
      "--sizes",
      "1KiB",
      "--format",
      "concise",
    ]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/DMAC5001/);
    expect(missing.out).toMatch(/#1\s+all_gather_pcpy -O0/);
    const bad = await run([
      "sweep",
      `${AG_PCPY}@O3`,
      "--param",
      "chunk",
      "--sizes",
      "1KiB",
      "--format",
      "concise",
    ]);
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/DMAC5004.*unknown item 'O3'/);
    const level = await run(["sweep", AG_PCPY, "--param", "chunk", "--sizes", "1KiB", "-O", "0,5"]);
    expect(level.code).toBe(1);
    expect(level.err).toMatch(/DMAC5004/);
  });

  it("draws a progress bar on a terminal only", async () => {
    const args = ["sweep", AG_PCPY, "--param", "chunk", "--sizes", "1KiB..2KiB", "-O", "0,1"];
    const tty = await run(args, true);
    expect(tty.code).toBe(0);
    // Drawn after 200 ms (so only if the run takes that long: the timing is tested with a fake
    // clock in test/unit/cli/progress.test.ts), redrawn in place, cleared at the end.
    for (const line of tty.err.split("\r\x1b[K").filter((l) => l !== ""))
      expect(line).toMatch(/^sweep: \[#*\.*\] [0-3]\/4 /);
    if (tty.err !== "") expect(tty.err.endsWith("\r\x1b[K")).toBe(true);
    const piped = await run(args, false);
    expect(piped.err).toBe("");
    expect(piped.out).toBe(tty.out);
    const quiet = await run([...args, "--quiet"], true);
    expect(quiet.err).toBe("");
  });
});

/** Splits one CSV line, honouring "quoted, fields". */
function csvLine(line: string): string[] {
  const out: string[] = [];
  const re = /("(?:[^"]|"")*"|[^,]*)(,|$)/g;
  for (let m = re.exec(line); m && m.index < line.length; m = re.exec(line)) {
    const f = m[1]!;
    out.push(f.startsWith('"') ? f.slice(1, -1).replace(/""/g, '"') : f);
    if (m[2] === "") break;
  }
  return out;
}

describe("dmac sweep: per-variant options and --baseline", () => {
  const dir = mkdtempSync(join(tmpdir(), "dmac-sweep-baseline-"));
  const CAL = "bench/calibration";

  it("runs each variant with its own options and prints speedups over the baseline", async () => {
    const out = join(dir, "variants");
    const r = await run([
      "sweep",
      `${CAL}/all_gather_pcpy.dmac@O0=pcpy`,
      `${CAL}/all_gather_pcpy.dmac@O0,prelaunch=pcpy_pl`,
      `${CAL}/all_gather_b2b.dmac@O0+completion=per-queue+engine=8+label=b2b`,
      "--param",
      "chunk",
      "--sizes",
      "1KiB..2KiB",
      "--baseline",
      "pcpy",
      "--out",
      out,
    ]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const [head, ...lines] = readFileSync(join(out, "sweep.csv"), "utf8").trimEnd().split("\n");
    const header = csvLine(head!);
    expect(header.slice(-1)).toEqual(["speedup"]);
    const rows = lines.map((l) => Object.fromEntries(csvLine(l).map((v, i) => [header[i]!, v])));
    expect(rows.map((x) => [x["label"], x["prelaunch"], x["options"]])).toEqual([
      ["pcpy", "false", ""],
      ["pcpy", "false", ""],
      ["pcpy_pl", "true", ""],
      ["pcpy_pl", "true", ""],
      ["b2b", "false", "completion=per-queue,engine=8"],
      ["b2b", "false", "completion=per-queue,engine=8"],
    ]);
    // b2b: one queue per GPU, 7 copies and one completion each.
    expect(rows[4]!["packets"]).toBe("64");
    for (const [i, x] of rows.entries()) {
      const base = Number(rows[i % 2]!["time_us"]);
      expect(Number(x["speedup"])).toBeCloseTo(base / Number(x["time_us"]), 3);
    }
    expect(rows[0]!["speedup"]).toBe("1");
    expect(r.out).toContain("speedup over #1 pcpy (its time / the variant's time)");
    expect(r.out).toMatch(/^\s+1 KiB\s+1\.00x\s+\d+\.\d\dx\s+\d+\.\d\dx\s+#\d/m);
    // The listing gives each variant as a command line.
    expect(r.out).toMatch(
      /#3\s+b2b\s+\S+all_gather_b2b\.dmac -O0 --completion per-queue -D engine=8/,
    );
  });

  it("reports a --baseline that names no variant, and options a variant cannot have", async () => {
    const common = ["--param", "chunk", "--sizes", "1KiB", "--format", "concise"];
    const nobase = await run([
      "sweep",
      `${CAL}/all_gather_pcpy.dmac@O0=pcpy`,
      `${CAL}/all_gather_pcpy.dmac@O0,pl=pcpy_pl`,
      "--baseline",
      "pcyp",
      ...common.slice(0, 4),
      "--color",
      "never",
    ]);
    expect(nobase.code).toBe(1);
    expect(nobase.err).toMatch(/DMAC5004.*bad --baseline: no variant is labelled 'pcyp'/);
    expect(nobase.err).toMatch(/hint: did you mean 'pcpy'/);
    const byNumber = await run([
      "sweep",
      `${CAL}/all_gather_pcpy.dmac@O0=pcpy`,
      `${CAL}/all_gather_pcpy.dmac@O0,pl=pcpy_pl`,
      "--baseline",
      "#2",
      ...common,
    ]);
    expect(byNumber.code).toBe(0);
    expect(byNumber.out).toContain("speedup over #2 pcpy_pl");
    const swept = await run(["sweep", `${CAL}/all_gather_pcpy.dmac@O0,chunk=4KiB`, ...common]);
    expect(swept.code).toBe(1);
    expect(swept.err).toMatch(/DMAC5004.*chunk is the swept parameter/);
    const engine = await run(["sweep", `${CAL}/all_gather_pcpy.dmac@engines=spread:0`, ...common]);
    expect(engine.code).toBe(1);
    expect(engine.err).toMatch(
      /DMAC5004.*variant: '.*@engines=spread:0'.*spread needs an engine count/,
    );
    expect(engine.out).toBe("");
  });
});

describe("variant specs and labels", () => {
  it("parses FILE@SPEC=LABEL", () => {
    const v = parseVariantSpec("x/none.dmac@O1+prelaunch=b2b", [0, 2], false);
    expect(v.diagnostics).toEqual([]);
    expect(v.variants).toEqual([{ path: "x/none.dmac", level: 1, prelaunch: true, label: "b2b" }]);
    const all = parseVariantSpec("x/none.dmac@pl", [0, 2], false);
    expect(all.variants.map((x) => [x.level, x.prelaunch])).toEqual([
      [0, true],
      [2, true],
    ]);
    expect(parseVariantSpec("x/none.dmac@O0+O2=one", [0], false).diagnostics).toHaveLength(1);
    // An existing path is taken as is.
    expect(parseVariantSpec(AG_PCPY, [1], true).variants).toEqual([
      { path: AG_PCPY, level: 1, prelaunch: true },
    ]);
  });

  it("labels by schedule, file or template", () => {
    const v = { path: "ex/all_gather_b2b.dmac", level: 1 as const, prelaunch: true };
    expect(variantLabel("schedule", v, "ag_b2b")).toBe("ag_b2b -O1 +prelaunch");
    expect(variantLabel("file", v, "ag_b2b")).toBe("all_gather_b2b -O1 +prelaunch");
    expect(variantLabel("{schedule}@{level}", v, "ag_b2b")).toBe("ag_b2b@1");
  });
});
