// Every number docs/optimisations.md states about predicted times is checked here against the
// executor, so the page cannot go stale when the model, a pass or an example changes (issue 12
// item 7: the old page still claimed wins of an earlier model).
//
// - Each pass section (engine-assign ... prelaunch) names the two `dmac sim` commands it shows
//   ("before (`dmac sim ...`):", "after (`dmac sim ...`):", on the schedules of
//   docs/examples/optimisations/); the dumps and the stats below them must be what those
//   commands print, and its `predicted: A µs -> B µs` line their total times (within 0.01 µs).
// - "-O2: the plan": the `--explain-plan` block must be what its command prints (the search's
//   milliseconds aside).
// - The tables of "Predicted times against the hand-written variants" and "Sweeps: ..." (rows
//   named by their sweep label in backticks, columns by chunk size) must agree with
//   docs/sweeps/*/sweep.csv, and every cell with the executor run fresh; the -O2 plan block with
//   the sweeps' table.txt.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const DOC = readFileSync(join(ROOT, "docs/optimisations.md"), "utf8");

/** The page's `## ` sections by title. */
const SECTIONS = new Map(
  DOC.split(/^## /m)
    .slice(1)
    .map((s) => [s.slice(0, s.indexOf("\n")).trim(), s] as const),
);
const section = (title: string): string => {
  const s = SECTIONS.get(title);
  if (s === undefined) throw new Error(`docs/optimisations.md has no section "## ${title}"`);
  return s;
};

/** The text of the first fenced block after the line matching `intro` in `text`. */
function blockAfter(text: string, intro: RegExp): { match: RegExpExecArray; block: string } {
  const m = intro.exec(text);
  if (!m) throw new Error(`no line matching ${intro}`);
  const rest = text.slice(m.index + m[0].length);
  const b = /^```[^\n]*\n([\s\S]*?)^```$/m.exec(rest);
  if (!b) throw new Error(`no code block after ${intro}`);
  return { match: m, block: b[1]! };
}

/** `dmac sim ARGS` in-process; -O2 runs whose plan search hit its time budget are repeated. */
async function sim(args: readonly string[]): Promise<string> {
  for (let attempt = 0; ; attempt++) {
    const r = await runCli(["sim", ...args, "--color", "never"]);
    expect(r.code, `dmac sim ${args.join(" ")}\n${r.err}`).toBe(0);
    if (!/skipped \(time budget\)/.test(r.out) || attempt === 2) return r.out;
  }
}

const args = (cmd: string): string[] => cmd.trim().split(/\s+/);
const totalUs = (out: string): number => {
  const m = /^total time\s+([\d.]+) (µs|ms)/m.exec(out);
  if (!m) throw new Error(`no total time in\n${out}`);
  return Number(m[1]) * (m[2] === "ms" ? 1000 : 1);
};

/** The optimiser report of `sim` (what comes before the summary), split into its parts. */
function report(out: string): { dumps: Map<string, string>; rest: string } {
  const lines = out.slice(0, out.search(/^verified:/m)).split("\n");
  const dumps = new Map<string, string>();
  let i = 0;
  while (i < lines.length && lines[i]!.startsWith("# after ")) {
    const pass = lines[i]!.slice("# after ".length).trim();
    const body: string[] = [];
    for (i++; i < lines.length; i++) {
      const l = lines[i]!;
      // The next dump, the plan, the -O1 check or a stats line ("pass-name   what changed").
      if (/^(# after |plan: |-O1 check:)/.test(l) || /^[a-z][a-z0-9-]* {2,}\S/.test(l)) break;
      body.push(l);
    }
    dumps.set(pass, body.join("\n").trimEnd() + "\n");
  }
  return { dumps, rest: lines.slice(i).join("\n").trimEnd() + "\n" };
}

const PASS_SECTIONS = [
  "engine-assign",
  "bcast-fusion",
  "batch-copies",
  "batch-completions",
  "sync-elision",
  "prelaunch",
];

describe("docs/optimisations.md: the pass sections", () => {
  for (const title of PASS_SECTIONS) {
    it(`${title}: dumps, stats and predicted times are what the commands print`, async () => {
      const s = section(title);
      const before = blockAfter(s, /^before \(`dmac sim ([^`]+)`\):$/m);
      const after = blockAfter(s, /^after \(`dmac sim ([^`]+)`\):$/m);
      const stats = blockAfter(s, /^stats:$/m);
      const predicted = /^predicted: ([\d.]+) µs -> ([\d.]+) µs$/m.exec(s);
      expect(predicted, "a `predicted: A µs -> B µs` line").not.toBeNull();

      const runs = [];
      for (const { match, block } of [before, after]) {
        const a = args(match[1]!);
        const dumpPass = a[a.indexOf("--dump-after") + 1];
        expect(a, `${title}: the command names --dump-after`).toContain("--dump-after");
        const out = await sim(a);
        const r = report(out);
        expect(r.dumps.get(dumpPass!), `dmac sim ${match[1]}`).toBe(block);
        runs.push({ out, rest: r.rest });
      }
      expect(runs[1]!.rest, `stats of dmac sim ${after.match[1]}`).toBe(stats.block);
      expect(Math.abs(totalUs(runs[0]!.out) - Number(predicted![1]))).toBeLessThanOrEqual(0.01);
      expect(Math.abs(totalUs(runs[1]!.out) - Number(predicted![2]))).toBeLessThanOrEqual(0.01);
    }, 60_000);
  }
});

describe("docs/optimisations.md: -O2", () => {
  it("the --explain-plan block is what its command prints", async () => {
    const { match, block } = blockAfter(section("-O2: the plan"), /\(`dmac sim ([^`]+)`\):$/m);
    const out = await sim(args(match[1]!));
    const plan = out.slice(out.indexOf("plan: "), out.search(/^verified:/m));
    const ms = (t: string): string => t.replace(/, \d+ ms\)/, ", N ms)");
    expect(ms(plan)).toBe(ms(block));
  }, 60_000);
});

// ---------------------------------------------------------------------------------------------
// The tables against the sweeps.

type Row = Record<string, string>;
const csv = (collective: string): Row[] => {
  const [head, ...rows] = readFileSync(join(ROOT, `docs/sweeps/${collective}/sweep.csv`), "utf8")
    .trim()
    .split("\n");
  const keys = head!.split(",");
  return rows.map((r) => Object.fromEntries(r.split(",").map((v, i) => [keys[i]!, v])));
};
const CSV = new Map(["all_gather", "all_to_all"].map((c) => [c, csv(c)]));

const UNITS: Record<string, number> = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };
function bytes(cell: string): number {
  const m = /^(\d+) (B|KiB|MiB|GiB)$/.exec(cell.trim());
  if (!m) throw new Error(`not a size: '${cell}'`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

interface Cell {
  readonly collective: string;
  readonly label: string;
  readonly chunk: number;
  readonly us: number;
  readonly where: string;
}

/** The cells of a Markdown table row, trimmed. */
const rowCells = (line: string): string[] =>
  line
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((c) => c.trim());

/** The cells of every `| all-gather | SIZE | ... |` or `| all-to-all | ... |` table. */
function tableCells(title: string): Cell[] {
  const cells: Cell[] = [];
  const lines = section(title).split("\n");
  for (let i = 0; i < lines.length; i++) {
    const [name, ...head] = lines[i]!.startsWith("|") ? rowCells(lines[i]!) : [];
    if (name !== "all-gather" && name !== "all-to-all") continue;
    const collective = name.replace(/-/g, "_");
    const sizes = head.map(bytes);
    for (i += 2; i < lines.length && lines[i]!.startsWith("|"); i++) {
      const [first, ...values] = rowCells(lines[i]!);
      const label = /`(\w+)`/.exec(first!)?.[1];
      if (label === undefined) throw new Error(`${title}: no sweep label in '${lines[i]}'`);
      expect(values.length, lines[i]).toBe(sizes.length);
      values.forEach((v, j) =>
        cells.push({
          collective,
          label,
          chunk: sizes[j]!,
          us: Number(v.replace(/\*/g, "")),
          where: `${title}, ${collective} ${label} at ${sizes[j]} B`,
        }),
      );
    }
  }
  return cells;
}

const TABLES = [
  "Predicted times against the hand-written variants",
  "Sweeps: -O0, -O1, -O2 against the hand-written variants",
];
const CELLS = TABLES.flatMap(tableCells);
const csvRow = (c: Cell): Row | undefined =>
  CSV.get(c.collective)!.find((r) => r.label === c.label && Number(r.chunk_bytes) === c.chunk);

describe("docs/optimisations.md: the tables", () => {
  it("has tables for both collectives in both sections", () => {
    for (const t of TABLES)
      for (const c of ["all_gather", "all_to_all"])
        expect(
          CELLS.some((x) => x.where.startsWith(t) && x.collective === c),
          `${t}: ${c}`,
        ).toBe(true);
  });

  it("every cell is the sweep.csv time", () => {
    for (const c of CELLS) {
      const row = csvRow(c);
      expect(row, c.where).toBeDefined();
      expect(Math.abs(Number(row!.time_us) - c.us), c.where).toBeLessThanOrEqual(0.01);
    }
  });

  // Each distinct run once: the CSV's file, level and prelaunch at the cell's chunk (JSON for the
  // full precision of times in milliseconds; -O2's chosen plan must be the CSV's too).
  for (const collective of ["all_gather", "all_to_all"]) {
    it(`every ${collective} cell is what the executor predicts now`, async () => {
      const done = new Map<string, number>();
      for (const c of CELLS.filter((x) => x.collective === collective)) {
        const row = csvRow(c)!;
        const a = [join(ROOT, row.file!), `-O${row.opt}`, "-D", `chunk=${c.chunk}B`, "--json"];
        if (row.prelaunch === "true") a.push("--prelaunch");
        if (row.opt === "2") a.push("--explain-plan");
        const key = a.join(" ");
        if (!done.has(key)) {
          const r = JSON.parse(await sim(a)) as { totalUs: number; plan?: { chosen: string } };
          if (row.opt === "2") expect(r.plan?.chosen, `${c.where}: plan`).toBe(row.plan);
          done.set(key, r.totalUs);
        }
        expect(Math.abs(done.get(key)! - c.us), c.where).toBeLessThanOrEqual(0.01);
      }
    }, 120_000);
  }

  it("the -O2 plans by size are those of the sweeps' table.txt", () => {
    const { block } = blockAfter(
      section("Sweeps: -O0, -O1, -O2 against the hand-written variants"),
      /^The plans -O2 picked/m,
    );
    // "all_gather/table.txt:" then an excerpt of that file, and so on.
    const parts = block.split(/^(all_gather|all_to_all)\/table\.txt:\n/m).slice(1);
    expect(parts.length).toBe(4);
    for (let i = 0; i < parts.length; i += 2) {
      const table = readFileSync(join(ROOT, `docs/sweeps/${parts[i]}/table.txt`), "utf8");
      expect(table, `${parts[i]}/table.txt`).toContain(parts[i + 1]!);
    }
  });
});
