// The measurements file of `dmac calibrate` (docs/calibrate.md): a CSV whose rows name a
// schedule file, a variant spec (src/options/variant-spec.ts: level, options, parameters), an id,
// and a measured time in microseconds or a speedup over another row (its baseline: speedup =
// baseline's time / this row's time, as DMA-Latte's variant tables give them). This module only
// reads the text (pure: no file system; the CSV itself is csv.ts); every problem is a DMAC5007
// diagnostic at its cell.

import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { didYouMean } from "../diagnostics/suggest.js";
import type { OptLevel } from "../passes/pass.js";
import type { SourceFile, Span } from "../source/source-file.js";
import { parseSpec, type ParsedSpec } from "../options/variant-spec.js";
import { splitLines, type Field, type Line } from "./csv.js";

export const COLUMNS = ["id", "file", "spec", "time_us", "speedup", "baseline", "weight", "note"];
export type Column = (typeof COLUMNS)[number];

export type Measured =
  | { readonly kind: "time"; readonly us: number }
  | { readonly kind: "speedup"; readonly value: number; readonly baseline: string };

export interface MeasurementRow {
  readonly id: string;
  /** 1-based line in the file. */
  readonly line: number;
  /** The schedule file as written (relative to the measurements file). */
  readonly file: string;
  readonly spec: ParsedSpec;
  /** The spec as parsed ("O0" when the cell is empty or absent). */
  readonly specText: string;
  readonly level: OptLevel;
  /** Undefined: a reference row (only another row's baseline). */
  readonly measured: Measured | undefined;
  readonly weight: number;
  readonly note: string;
  /** Where each cell is (for later diagnostics about the row). */
  readonly cells: Readonly<Partial<Record<Column, Span>>>;
}

export interface Measurements {
  readonly rows: MeasurementRow[];
  readonly diagnostics: Diagnostic[];
}

/** A positive finite number (plain decimal or exponent notation). */
function positive(text: string): number | undefined {
  if (!/^[+]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  const v = Number(text);
  return Number.isFinite(v) && v > 0 ? v : undefined;
}

/** Reports a DMAC5007 problem at a span of the file (at least one character wide). */
type At = (span: Span, message: string, hint?: string) => void;

/** The header's column indices; undefined when no row can be read (no header, no id or file). */
function readHeader(header: Line | undefined, at: At): Map<Column, number> | undefined {
  if (!header) {
    at(
      { start: 0, end: 0 },
      "no header row: the first line that is not a comment names the columns",
      `columns: ${COLUMNS.join(", ")}`,
    );
    return undefined;
  }
  let problems = false;
  const bad: At = (span, message, hint) => {
    problems = true;
    at(span, message, hint);
  };
  const index = new Map<Column, number>();
  header.fields.forEach((f, i) => {
    const name = f.text;
    if (!(COLUMNS as readonly string[]).includes(name)) {
      bad(
        f,
        `unknown column '${name}'`,
        didYouMean(name, COLUMNS) ?? `the columns are ${COLUMNS.join(", ")}`,
      );
    } else if (index.has(name)) {
      bad(f, `column '${name}' is given twice`);
    } else index.set(name, i);
  });
  const headerSpan = { start: header.start, end: header.end };
  for (const required of ["id", "file"] as const)
    if (!index.has(required))
      bad(headerSpan, `the header has no '${required}' column`, `columns: ${COLUMNS.join(", ")}`);
  if (!index.has("time_us") && !index.has("speedup"))
    bad(
      headerSpan,
      "the header has neither a 'time_us' nor a 'speedup' column: nothing is measured",
    );
  if (index.has("speedup") !== index.has("baseline"))
    bad(
      headerSpan,
      index.has("speedup")
        ? "a 'speedup' column needs a 'baseline' column"
        : "a 'baseline' column needs a 'speedup' column",
    );
  return problems && (!index.has("id") || !index.has("file")) ? undefined : index;
}

/** The spec cell: an empty or absent spec is -O0 with the defaults; one level, no label. */
function readSpec(specCell: Field | undefined, at: At): { spec: ParsedSpec; specText: string } {
  const specText = specCell && specCell.text !== "" ? specCell.text : "O0";
  const spec = parseSpec(specText);
  for (const p of spec.problems) {
    const span = specCell!.escaped
      ? { start: specCell!.start, end: specCell!.end }
      : {
          start: specCell!.start + p.start,
          end: Math.min(specCell!.start + p.end, specCell!.end),
        };
    at(span, `bad spec: ${p.message}`, p.hint);
  }
  if (spec.levels.length > 1)
    at(
      specCell!,
      `a row is one run: give one level, not ${spec.levels.map((l) => `O${l}`).join(" and ")}`,
    );
  if (spec.label !== undefined)
    at(specCell!, "a row's name is its id: remove the label from the spec");
  return { spec, specText };
}

/** What the row measured: a time, a speedup over its baseline, or nothing (a reference row). */
function readMeasured(
  timeCell: Field | undefined,
  speedCell: Field | undefined,
  baseCell: Field | undefined,
  at: At,
): Measured | undefined {
  let measured: Measured | undefined;
  if (timeCell && timeCell.text !== "") {
    const us = positive(timeCell.text);
    if (us === undefined)
      at(timeCell, `time_us '${timeCell.text}' is not a positive number of microseconds`);
    else measured = { kind: "time", us };
  }
  if (speedCell && speedCell.text !== "") {
    const value = positive(speedCell.text);
    if (timeCell && timeCell.text !== "")
      at(
        speedCell,
        "give a time or a speedup, not both",
        "split the row in two, or drop one of them",
      );
    else if (value === undefined)
      at(speedCell, `speedup '${speedCell.text}' is not a positive number`);
    else if (!baseCell || baseCell.text === "")
      at(
        speedCell,
        "a speedup needs a baseline: the id of the row it is measured against",
        "speedup = the baseline's time / this row's time",
      );
    else measured = { kind: "speedup", value, baseline: baseCell.text };
  } else if (baseCell && baseCell.text !== "")
    at(
      baseCell,
      "a baseline without a speedup",
      "give the speedup over the baseline, or leave the baseline empty",
    );
  return measured;
}

/** The weight cell: a number >= 0, 1 when empty or absent. */
function readWeight(weightCell: Field | undefined, at: At): number {
  if (!weightCell || weightCell.text === "") return 1;
  const w = Number(weightCell.text);
  if (/^[+]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(weightCell.text) && Number.isFinite(w))
    return w;
  at(weightCell, `weight '${weightCell.text}' is not a number >= 0`);
  return 1;
}

/** Where each row id was first given, for "given twice" and baseline reports. */
type FirstLines = Map<string, { line: number; span: Span }>;

/** The id cell: not empty, and not given on an earlier row. */
function readId(
  file: SourceFile,
  idCell: Field,
  line: number,
  firstLine: FirstLines,
  diagnostics: Diagnostic[],
  at: At,
): string {
  const id = idCell.text;
  const span = { start: idCell.start, end: idCell.end };
  if (id === "") at(idCell, "empty id: every row needs one (other rows name it as their baseline)");
  else {
    const first = firstLine.get(id);
    if (first)
      diagnostics.push(
        diag("DMAC5007", { file, span }, [`id '${id}' is given twice`], {
          related: [{ message: `first given on line ${first.line}`, file, span: first.span }],
        }),
      );
    else firstLine.set(id, { line, span });
  }
  return id;
}

/** One row of the table, or undefined when it has a problem (reported). */
function readRow(
  file: SourceFile,
  line: Line,
  header: { readonly index: ReadonlyMap<Column, number>; readonly fields: number },
  firstLine: FirstLines,
  diagnostics: Diagnostic[],
  at: At,
): MeasurementRow | undefined {
  if (line.fields.length !== header.fields) {
    at(
      { start: line.start, end: line.end },
      `expected ${header.fields} fields (the header's columns), found ${line.fields.length}`,
      "leave a cell empty rather than leaving it out; quote a field that contains a comma",
    );
    return undefined;
  }
  const cell = (c: Column): Field | undefined => {
    const i = header.index.get(c);
    return i === undefined ? undefined : line.fields[i];
  };
  const cells: Partial<Record<Column, Span>> = {};
  for (const c of COLUMNS) {
    const f = cell(c);
    if (f) cells[c] = { start: f.start, end: f.end };
  }
  const before = diagnostics.length;
  const id = readId(file, cell("id")!, line.number, firstLine, diagnostics, at);
  const fileCell = cell("file")!;
  if (fileCell.text === "")
    at(fileCell, "empty file: name the schedule (.dmac), relative to this file");
  const { spec, specText } = readSpec(cell("spec"), at);
  const measured = readMeasured(cell("time_us"), cell("speedup"), cell("baseline"), at);
  const weight = readWeight(cell("weight"), at);
  if (diagnostics.length > before) return undefined;
  return {
    id,
    line: line.number,
    file: fileCell.text,
    spec,
    specText,
    level: spec.levels[0] ?? 0,
    measured,
    weight,
    note: cell("note")?.text ?? "",
    cells,
  };
}

/** Each baseline must name a row, and following them must never come back to a row. */
function checkBaselines(rows: readonly MeasurementRow[], firstLine: FirstLines, at: At): void {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const ids = rows.map((r) => r.id);
  const badBaseline = new Set<string>();
  for (const r of rows) {
    if (r.measured?.kind !== "speedup" || byId.has(r.measured.baseline)) continue;
    badBaseline.add(r.id);
    const known = firstLine.has(r.measured.baseline);
    // Each suggestion compares the name with every id: only the first few get one.
    const suggest = !known && badBaseline.size <= SUGGESTED_BASELINES;
    at(
      r.cells.baseline!,
      known
        ? `baseline '${r.measured.baseline}' is a row with problems of its own`
        : `baseline '${r.measured.baseline}' is not the id of any row`,
      suggest ? (didYouMean(r.measured.baseline, ids) ?? undefined) : undefined,
    );
  }
  for (const cycle of baselineCycles(rows, byId)) {
    at(
      cycle[0]!.cells.baseline!,
      `baselines form a cycle: ${[...cycle, cycle[0]!].map((r) => r.id).join(" -> ")}`,
      "a speedup is measured against a row whose time is known or predicted: end the chain at a row without a speedup",
    );
  }
}

/**
 * Parses a measurements file. Rows with problems are left out; a row whose baseline is such a
 * row, or that is part of a cycle of baselines, is kept but reported (the caller stops on any
 * error).
 */
export function parseMeasurements(file: SourceFile): Measurements {
  const diagnostics: Diagnostic[] = [];
  const at: At = (span, message, hint) => {
    const wide = { start: span.start, end: Math.max(span.end, span.start + 1) };
    diagnostics.push(diag("DMAC5007", { file, span: wide }, [message], { hint }));
  };
  const lines = splitLines(file, (span, message) => at(span, message));
  const index = readHeader(lines[0], at);
  if (!index) return { rows: [], diagnostics };
  const header = { index, fields: lines[0]!.fields.length };
  const rows: MeasurementRow[] = [];
  const firstLine: FirstLines = new Map();
  for (const line of lines.slice(1)) {
    const row = readRow(file, line, header, firstLine, diagnostics, at);
    if (row) rows.push(row);
  }
  checkBaselines(rows, firstLine, at);
  return { rows, diagnostics };
}

/** Unknown baselines past this many get no "did you mean" (each costs a pass over the ids). */
const SUGGESTED_BASELINES = 20;

/**
 * Each cycle of baselines once, from its first row in the file. Linear: every row is followed
 * once (a walk stops at a row an earlier walk went through), so a 10,000-row chain or cycle does
 * not take 10,000 walks of 10,000 rows.
 */
function baselineCycles(
  rows: readonly MeasurementRow[],
  byId: ReadonlyMap<string, MeasurementRow>,
): MeasurementRow[][] {
  const cycles: MeasurementRow[][] = [];
  const state = new Map<MeasurementRow, "on the walk" | "done">();
  for (const start of rows) {
    const walk: MeasurementRow[] = [];
    let cur: MeasurementRow | undefined = start;
    while (cur?.measured?.kind === "speedup" && !state.has(cur)) {
      state.set(cur, "on the walk");
      walk.push(cur);
      cur = byId.get(cur.measured.baseline);
    }
    if (cur !== undefined && state.get(cur) === "on the walk") {
      const cycle = walk.slice(walk.indexOf(cur));
      const first = cycle.reduce((a, r, i) => (r.line < cycle[a]!.line ? i : a), 0);
      cycles.push([...cycle.slice(first), ...cycle.slice(0, first)]);
    }
    for (const r of walk) state.set(r, "done");
  }
  return cycles.sort((a, b) => a[0]!.line - b[0]!.line);
}
