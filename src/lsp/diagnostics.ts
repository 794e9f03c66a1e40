// dmac diagnostics -> LSP diagnostics. The message is the CLI's, with its hint on a second line;
// the code links (codeDescription) to the code's section of docs/diagnostics.md, the page
// `dmac explain CODE` prints; related spans become related information. A did-you-mean hint
// carries its replacement in `data`, for the quick fix (code-actions.ts).

import { pathToFileURL } from "node:url";
import {
  DiagnosticSeverity,
  type Diagnostic as LspDiagnostic,
  type DiagnosticRelatedInformation,
  type Range,
} from "vscode-languageserver";
import { DIAGNOSTICS } from "../diagnostics/codes.js";
import type { Diagnostic, Severity } from "../diagnostics/diagnostic.js";
import { fixTitle } from "../diagnostics/render.js";
import type { DocumentAnalysis } from "./analysis.js";
import { toRange } from "./positions.js";

const SEVERITY: Readonly<Record<Severity, DiagnosticSeverity>> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  note: DiagnosticSeverity.Information,
};

/** docs/diagnostics.md as shipped in the package (package.json "files" lists docs/). */
const DIAGNOSTIC_DOCS = new URL("../../docs/diagnostics.md", import.meta.url).href;

/** The GitHub-style anchor of a code's heading, `## DMAC2001: unknown name`. */
export function docsLink(code: keyof typeof DIAGNOSTICS): string {
  const heading = `${code}: ${DIAGNOSTICS[code].title}`;
  const slug = heading
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, "")
    .replace(/ /g, "-");
  return `${DIAGNOSTIC_DOCS}#${slug}`;
}

/**
 * What a quick fix needs: the text that replaces `range` (the diagnostic's own range when absent),
 * and the action's title when the diagnostic carries a structured fix (Diagnostic.fix).
 */
export interface FixData {
  readonly replacement: string;
  readonly range?: Range | undefined;
  readonly title?: string | undefined;
}

const DID_YOU_MEAN = /did you mean '([^']+)'\?/;

export function toLspDiagnostic(doc: DocumentAnalysis, d: Diagnostic): LspDiagnostic {
  const span = d.span ?? { start: 0, end: 0 };
  const related: DiagnosticRelatedInformation[] = d.related.map((r) => ({
    location: {
      // Related spans are in this file unless they name another (a target file has no spans).
      uri: r.file === undefined || r.file === doc.file ? doc.uri : pathToFileURL(r.file.name).href,
      range: toRange(doc, r.span),
    },
    message: r.message,
  }));
  const fix = fixData(doc, d);
  const lines = [d.message];
  if (d.hint !== undefined) lines.push(`hint: ${d.hint}`);
  lines.push(`(dmac explain ${d.code})`);
  return {
    range: toRange(doc, span),
    severity: SEVERITY[d.severity],
    code: d.code,
    codeDescription: { href: docsLink(d.code) },
    source: "dmac",
    message: lines.join("\n"),
    ...(related.length > 0 ? { relatedInformation: related } : {}),
    ...(fix ? { data: fix } : {}),
  };
}

/** The diagnostic's structured fix (any edit of this file), else a did-you-mean in its hint. */
function fixData(doc: DocumentAnalysis, d: Diagnostic): FixData | undefined {
  if (d.fix !== undefined && (d.file === undefined || d.file === doc.file)) {
    return {
      replacement: d.fix.replacement,
      range: toRange(doc, d.fix.span),
      title: fixTitle(doc.file, d.fix),
    };
  }
  const m = d.span && d.span.end > d.span.start ? DID_YOU_MEAN.exec(d.hint ?? "") : null;
  return m ? { replacement: m[1]! } : undefined;
}
