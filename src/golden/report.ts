// The text `dmac golden` prints for a run: one block per test that needs attention (FAIL with its
// unified diff or its diagnostics, NEW, WROTE, UPDATED), one line per obsolete golden, and the
// summary line `N passed, M failed, K new, J obsolete` (counted in goldens; a file that cannot be
// read or configured counts as one failure).

import { renderDiagnostics } from "../diagnostics/render.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { colourDiff } from "./diff.js";
import { shownPath } from "./discover.js";
import type { RunReport, TestOutcome } from "./run.js";

export interface Counts {
  readonly passed: number;
  readonly failed: number;
  readonly new: number;
  readonly obsolete: number;
  /** With an update: goldens written (new), rewritten (changed) and removed (obsolete). */
  readonly written: number;
  readonly updated: number;
  readonly removed: number;
}

export function countOutcomes(r: RunReport): Counts {
  const gs = r.outcomes.flatMap((o) => o.goldens);
  const n = (s: string): number => gs.filter((g) => g.status === s).length;
  const broken = r.outcomes.filter((o) => o.goldens.length === 0 && o.failed).length;
  return {
    passed: n("passed"),
    failed: n("failed") + broken,
    new: n("new") + n("written"),
    obsolete: r.obsolete.length,
    written: n("written"),
    updated: n("updated"),
    removed: r.obsolete.filter((o) => o.removed).length,
  };
}

export function summaryLine(c: Counts, update: boolean): string {
  const main = `${c.passed} passed, ${c.failed} failed, ${c.new} new, ${c.obsolete} obsolete`;
  return update
    ? `${main} (${c.written} written, ${c.updated} updated, ${c.removed} removed)`
    : main;
}

const concise = (ds: readonly Diagnostic[], color: boolean): string =>
  ds.length > 0 ? renderDiagnostics(ds, "concise", { color }) : "";

/** What needs attention in one test: failures with their diffs or diagnostics, new and written goldens. */
export function testReport(o: TestOutcome, color: boolean): string {
  const out: string[] = [];
  if (o.goldens.length === 0 && o.failed) {
    out.push(`FAIL ${o.test.name}\n`, concise(o.test.problems, color));
    return out.join("");
  }
  for (const g of o.goldens) {
    const golden = shownPath(g.path);
    const note = g.note !== undefined ? `\n  ${g.note}` : "";
    switch (g.status) {
      case "passed":
        if (g.note !== undefined) out.push(`PASS ${o.test.name}: ${g.kind}${note}\n`);
        break;
      case "new":
        out.push(`NEW  ${o.test.name}: ${g.kind} -> ${golden} (--update writes it)\n`);
        break;
      case "written":
        out.push(`WROTE ${golden}\n`);
        break;
      case "updated":
        out.push(`UPDATED ${golden}${note}\n`);
        break;
      case "failed":
        if (g.diff !== undefined) {
          out.push(`FAIL ${o.test.name}: ${g.kind} differs from ${golden}${note}\n`);
          out.push(color ? colourDiff(g.diff) : g.diff);
        } else {
          out.push(`FAIL ${o.test.name}: ${g.kind}: ${g.note ?? "failed"}\n`);
          out.push(concise(g.diagnostics ?? [], color));
        }
        break;
    }
  }
  return out.join("");
}

/** The report of a run; `color` for a terminal. */
export function renderReport(r: RunReport, color: boolean): string {
  const parts = r.outcomes.map((o) => testReport(o, color));
  for (const o of r.obsolete) {
    const p = shownPath(o.path);
    if (o.removed) parts.push(`REMOVED ${p} (obsolete)\n`);
    else if (o.diagnostics?.length) parts.push(`OBSOLETE ${p}\n${concise(o.diagnostics, color)}`);
    else
      parts.push(
        `OBSOLETE ${p} (no test produces it: its schedule or configuration is gone; --update removes it)\n`,
      );
  }
  parts.push(summaryLine(countOutcomes(r), r.update !== "none") + "\n");
  return parts.join("");
}
