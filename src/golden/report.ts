// The text `dmac golden` prints for a run: one block per test that needs attention (FAIL with its
// unified diff or its diagnostics, NEW, WROTE, UPDATED), one line per golden no test uses
// (OBSOLETE, REMOVED, UNUSED, UNOWNED: obsolete.ts), and the
// summary line `N passed, M failed, K new, J obsolete` (counted in goldens; a file that cannot be
// read or configured counts as one failure).

import { renderDiagnostics } from "../diagnostics/render.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { colourDiff } from "./diff.js";
import { shownPath } from "./discover.js";
import type { Obsolete } from "./obsolete.js";
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
  // A passing golden can still come from a compile that warned (an -O2 search that stopped at
  // its budget): say so every run.
  if (o.warnings?.length) out.push(`WARN ${o.test.name}\n`, concise(o.warnings, color));
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

/** One line on a golden no test uses: what it is and whether it was (or will be) removed. */
export function obsoleteLine(o: Obsolete): string {
  const p = shownPath(o.path);
  const source = shownPath(o.source);
  if (o.removed) return `REMOVED ${p} (obsolete: ${source} is gone)\n`;
  switch (o.reason) {
    case "gone":
      return `OBSOLETE ${p} (${source}, the test that blessed it, is gone; --update removes it)\n`;
    case "unused":
      return `UNUSED ${p} (${source} no longer has its configuration or artefact, but still exists: not removed; delete it if that is for good)\n`;
    case "unowned":
      return `UNOWNED ${p} (no test uses it, and the golden index does not record it: not removed)\n`;
  }
}

/** The report of a run; `color` for a terminal. */
export function renderReport(r: RunReport, color: boolean): string {
  const parts = r.outcomes.map((o) => testReport(o, color));
  for (const o of r.obsolete) parts.push(obsoleteLine(o), concise(o.diagnostics ?? [], color));
  parts.push(summaryLine(countOutcomes(r), r.update !== "none") + "\n");
  return parts.join("");
}
