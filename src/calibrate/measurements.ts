// The measurements file of `dmac calibrate` (docs/calibrate.md): a CSV whose rows name a
// schedule file, a variant spec (src/options/variant-spec.ts: level, options, parameters), an id,
// and a measured time in microseconds or a speedup over another row (its baseline: speedup =
// baseline's time / this row's time, as DMA-Latte's variant tables give them). This module only
// reads the text (pure: no file system); every problem is a DMAC5007 diagnostic at its cell.

import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { didYouMean } from "../diagnostics/suggest.js";
import type { OptLevel } from "../passes/pass.js";
import type { SourceFile, Span } from "../source/source-file.js";
import { parseSpec, type ParsedSpec } from "../options/variant-spec.js";

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

interface Field {
  readonly text: string;
  readonly start: number;
  readonly end: number;
  /** Quoted with "" escapes inside: offsets within the text do not map 1:1 to the file. */
  readonly escaped: boolean;
}

interface Line {
  readonly number: number;
  readonly start: number;
  readonly end: number;
  readonly fields: Field[];
}

/**
 * Splits the text into lines of fields: `,` separates fields, `"..."` quotes one (`""` is a
 * quote inside), `#` outside quotes starts a comment that runs to the end of the line, and lines
 * with nothing but a comment or blanks are skipped. Fields are trimmed.
 */
function splitLines(file: SourceFile, bad: (span: Span, message: string) => void): Line[] {
  const text = file.text;
  const lines: Line[] = [];
  for (let l = 0; l < file.lineStarts.length; l++) {
    const start = file.lineStarts[l]!;
    let end = l + 1 < file.lineStarts.length ? file.lineStarts[l + 1]! - 1 : text.length;
    if (end > start && text[end - 1] === "\r") end--;
    const fields: Field[] = [];
    let pos = start;
    let blank = true;
    for (;;) {
      while (pos < end && (text[pos] === " " || text[pos] === "\t")) pos++;
      if (pos < end && text[pos] === "#" && fields.length === 0) {
        pos = end;
        break;
      }
      let field: Field;
      if (pos < end && text[pos] === '"') {
        let i = pos + 1;
        let value = "";
        let escaped = false;
        let closed = false;
        while (i < end) {
          if (text[i] === '"') {
            if (text[i + 1] === '"') {
              value += '"';
              escaped = true;
              i += 2;
              continue;
            }
            closed = true;
            break;
          }
          value += text[i];
          i++;
        }
        if (!closed) {
          bad({ start: pos, end }, 'unterminated quote (a quoted field ends with " on its line)');
          field = { text: value, start: pos + 1, end, escaped };
          pos = end;
        } else {
          field = { text: value, start: pos + 1, end: i, escaped };
          pos = i + 1;
          while (pos < end && (text[pos] === " " || text[pos] === "\t")) pos++;
          if (pos < end && text[pos] !== "," && text[pos] !== "#") {
            let j = pos;
            while (j < end && text[j] !== "," && text[j] !== "#") j++;
            bad({ start: pos, end: j }, "text after a quoted field (expected , or the line's end)");
            pos = j;
          }
        }
        blank = false;
      } else {
        let i = pos;
        while (i < end && text[i] !== "," && text[i] !== "#") i++;
        let j = i;
        while (j > pos && (text[j - 1] === " " || text[j - 1] === "\t")) j--;
        field = { text: text.slice(pos, j), start: pos, end: j, escaped: false };
        if (j > pos) blank = false;
        pos = i;
      }
      fields.push(field);
      if (pos < end && text[pos] === ",") {
        pos++;
        blank = false;
        continue;
      }
      break; // end of line or a comment
    }
    if (!blank) lines.push({ number: l + 1, start, end, fields });
  }
  return lines;
}

/** A positive finite number (plain decimal or exponent notation). */
function positive(text: string): number | undefined {
  if (!/^[+]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  const v = Number(text);
  return Number.isFinite(v) && v > 0 ? v : undefined;
}

/**
 * Parses a measurements file. Rows with problems are left out; a row whose baseline is such a
 * row, or that is part of a cycle of baselines, is kept but reported (the caller stops on any
 * error).
 */
export function parseMeasurements(file: SourceFile): Measurements {
  const diagnostics: Diagnostic[] = [];
  const at = (span: Span, message: string, hint?: string): void => {
    diagnostics.push(
      diag(
        "DMAC5007",
        { file, span: { start: span.start, end: Math.max(span.end, span.start + 1) } },
        [message],
        {
          hint,
        },
      ),
    );
  };
  const lines = splitLines(file, (span, message) => at(span, message));
  const header = lines[0];
  if (!header) {
    at(
      { start: 0, end: 0 },
      "no header row: the first line that is not a comment names the columns",
      `columns: ${COLUMNS.join(", ")}`,
    );
    return { rows: [], diagnostics };
  }
  const index = new Map<Column, number>();
  header.fields.forEach((f, i) => {
    const name = f.text;
    if (!(COLUMNS as readonly string[]).includes(name)) {
      at(
        f,
        `unknown column '${name}'`,
        didYouMean(name, COLUMNS) ?? `the columns are ${COLUMNS.join(", ")}`,
      );
    } else if (index.has(name)) {
      at(f, `column '${name}' is given twice`);
    } else index.set(name, i);
  });
  const headerSpan = { start: header.start, end: header.end };
  for (const required of ["id", "file"] as const)
    if (!index.has(required))
      at(headerSpan, `the header has no '${required}' column`, `columns: ${COLUMNS.join(", ")}`);
  if (!index.has("time_us") && !index.has("speedup"))
    at(
      headerSpan,
      "the header has neither a 'time_us' nor a 'speedup' column: nothing is measured",
    );
  if (index.has("speedup") !== index.has("baseline"))
    at(
      headerSpan,
      index.has("speedup")
        ? "a 'speedup' column needs a 'baseline' column"
        : "a 'baseline' column needs a 'speedup' column",
    );
  if (diagnostics.length > 0 && (!index.has("id") || !index.has("file")))
    return { rows: [], diagnostics };

  const rows: MeasurementRow[] = [];
  const firstLine = new Map<string, { line: number; span: Span }>();
  for (const line of lines.slice(1)) {
    if (line.fields.length !== header.fields.length) {
      at(
        { start: line.start, end: line.end },
        `expected ${header.fields.length} fields (the header's columns), found ${line.fields.length}`,
        "leave a cell empty rather than leaving it out; quote a field that contains a comma",
      );
      continue;
    }
    const cell = (c: Column): Field | undefined => {
      const i = index.get(c);
      return i === undefined ? undefined : line.fields[i];
    };
    const cells: Partial<Record<Column, Span>> = {};
    for (const c of COLUMNS) {
      const f = cell(c);
      if (f) cells[c] = { start: f.start, end: f.end };
    }
    const before = diagnostics.length;
    const idCell = cell("id")!;
    const id = idCell.text;
    if (id === "")
      at(idCell, "empty id: every row needs one (other rows name it as their baseline)");
    else {
      const first = firstLine.get(id);
      if (first)
        diagnostics.push(
          diag(
            "DMAC5007",
            { file, span: { start: idCell.start, end: idCell.end } },
            [`id '${id}' is given twice`],
            {
              related: [{ message: `first given on line ${first.line}`, file, span: first.span }],
            },
          ),
        );
      else firstLine.set(id, { line: line.number, span: { start: idCell.start, end: idCell.end } });
    }
    const fileCell = cell("file")!;
    if (fileCell.text === "")
      at(fileCell, "empty file: name the schedule (.dmac), relative to this file");

    // An empty or absent spec is -O0 with the defaults.
    const specCell = cell("spec");
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

    const timeCell = cell("time_us");
    const speedCell = cell("speedup");
    const baseCell = cell("baseline");
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

    let weight = 1;
    const weightCell = cell("weight");
    if (weightCell && weightCell.text !== "") {
      const w = Number(weightCell.text);
      if (!/^[+]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(weightCell.text) || !Number.isFinite(w))
        at(weightCell, `weight '${weightCell.text}' is not a number >= 0`);
      else weight = w;
    }
    if (diagnostics.length > before) continue;
    rows.push({
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
    });
  }

  // Baselines: each must name a row, and following them must never come back to a row.
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
