// Unified diffs of a golden against what was produced (jsdiff's structuredPatch: a maintained
// Myers diff), with 3 lines of context and a bound on the lines printed, and colour for a
// terminal. A change to one packet shows that packet's line and its neighbours, not the file.

import { structuredPatch } from "diff";

/** The most diff lines printed for one golden; the rest is counted. */
export const MAX_DIFF_LINES = 200;
/** Past this, jsdiff gives up (two listings with almost nothing in common). */
const DIFF_TIMEOUT_MS = 5000;

/** `--- golden` / `+++ actual` and the hunks, or a one-line note when too different to diff. */
export function unifiedDiff(
  goldenName: string,
  actualName: string,
  expected: string,
  actual: string,
  maxLines = MAX_DIFF_LINES,
): string {
  const patch = structuredPatch(goldenName, actualName, expected, actual, undefined, undefined, {
    context: 3,
    timeout: DIFF_TIMEOUT_MS,
  });
  if (!patch)
    return `--- ${goldenName}\n+++ ${actualName}\n(the texts differ too much to diff in ${DIFF_TIMEOUT_MS / 1000} s)\n`;
  const lines = [`--- ${goldenName}`, `+++ ${actualName}`];
  for (const h of patch.hunks) {
    lines.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`);
    for (const l of h.lines) lines.push(l);
  }
  const body = lines.length - 2;
  if (body > maxLines) {
    const kept = lines.slice(0, maxLines + 2);
    kept.push(`... ${body - maxLines} more diff lines`);
    return kept.join("\n") + "\n";
  }
  return lines.join("\n") + "\n";
}

const SGR = {
  red: "\x1b[31m",
  green: "\x1b[32m",
  cyan: "\x1b[36m",
  bold: "\x1b[1m",
  off: "\x1b[0m",
};

/** The diff with removed lines red, added green, hunk headers cyan. */
export function colourDiff(diff: string): string {
  return diff
    .split("\n")
    .map((l) =>
      l.startsWith("---") || l.startsWith("+++")
        ? `${SGR.bold}${l}${SGR.off}`
        : l.startsWith("@@")
          ? `${SGR.cyan}${l}${SGR.off}`
          : l.startsWith("-")
            ? `${SGR.red}${l}${SGR.off}`
            : l.startsWith("+")
              ? `${SGR.green}${l}${SGR.off}`
              : l,
    )
    .join("\n");
}
