// Documentation derived from the diagnostic catalogue: the text `dmac explain CODE` prints and
// docs/diagnostics.md (one section per code). Pure functions; the CLI and the generator script
// (scripts/gen-diagnostic-docs.mjs) do the I/O. A unit test keeps the committed file in step.

import {
  DIAGNOSTICS,
  isDiagnosticCode,
  type DiagnosticCode,
  type DiagnosticSpec,
} from "./codes.js";

const RANGES = [
  ["1xxx", "lexing and parsing"],
  ["2xxx", "names and types (symbolic checks)"],
  ["3xxx", "instantiation, IR and verification"],
  ["4xxx", "back end, packet encoding and target limits"],
  ["5xxx", "command line and files"],
  ["6xxx", "executor (simulated node)"],
] as const;

/** `DMAC2004`, `dmac2004`, `2004` -> `DMAC2004`; undefined if there is no such code. */
export function normalizeCode(text: string): DiagnosticCode | undefined {
  const t = text.trim().toUpperCase();
  const code = /^\d+$/.test(t) ? `DMAC${t}` : t;
  return isDiagnosticCode(code) ? code : undefined;
}

function statusNote(spec: DiagnosticSpec): string {
  return spec.status === "removed" ? " (removed: no longer reported)" : "";
}

/** What `dmac explain CODE` prints. */
export function explainCode(code: DiagnosticCode): string {
  const spec: DiagnosticSpec = DIAGNOSTICS[code];
  return `${code}: ${spec.title}${statusNote(spec)}\nseverity: ${spec.severity}, phase: ${spec.phase}\n\n${spec.doc}\n`;
}

export const DIAGNOSTIC_DOCS_BANNER =
  "<!-- Generated from src/diagnostics/codes.ts by scripts/gen-diagnostic-docs.mjs: do not edit. Run `npm run gen:docs`. -->";

/** The whole of docs/diagnostics.md. */
export function renderDiagnosticDocs(): string {
  const out = [
    DIAGNOSTIC_DOCS_BANNER,
    "",
    "# dmac diagnostics",
    "",
    "Every problem dmac reports has a code from one catalogue. `dmac explain CODE` prints the",
    "section below for one code (`dmac explain 2004` works too). Codes are allocated by phase and",
    "never reused:",
    "",
    "| codes | phase |",
    "|---|---|",
    ...RANGES.map(([range, what]) => `| ${range} | ${what} |`),
    "",
  ];
  for (const [code, spec] of Object.entries(DIAGNOSTICS) as [DiagnosticCode, DiagnosticSpec][]) {
    out.push(
      `## ${code}: ${spec.title}${statusNote(spec)}`,
      "",
      `*${spec.severity}, phase ${spec.phase}*`,
      "",
      spec.doc,
      "",
    );
  }
  return out.join("\n");
}
