// The artefacts a golden can hold, one row each: how it is produced from a configuration's
// products (products.ts) and how a golden of it is compared. Each is a stable, diff-friendly
// text: the packet listing of `dmac compile --emit dump` (one line per packet, annotated), the
// IR with its dependency edges (`dmac ir --dump-deps`), the command trace (`--emit trace`,
// pretty-printed JSON), every diagnostic (the concise list, then each in full, like TypeScript's
// .errors.txt: the golden of a negative test), and the simulation summary (sim-summary.ts).
// A differing packet listing's report opens with a summary of the change (dump-summary.ts).
// A golden is NAME[.LABEL].KIND.golden beside NAME.dmac (golden-file.ts).

import { outputText } from "../backend/output.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import { renderDiagnostics } from "../diagnostics/render.js";
import { printIr } from "../ir/print.js";
import { dumpSummary } from "./dump-summary.js";
import type { Products } from "./products.js";
import { compareSimSummary, simSummaryText } from "./sim-summary.js";

export type ArtefactKind = "dump" | "ir" | "trace" | "diag" | "sim";

/** The text to compare, or why there is none (the schedule does not compile, ...). */
export type Produced =
  | { readonly text: string }
  | { readonly failure: string; readonly diagnostics: readonly Diagnostic[] };

export interface Comparison {
  readonly same: boolean;
  /** What moved, for a comparison that is not plain equality (sim's tolerance). */
  readonly note?: string | undefined;
}

export interface Artefact {
  readonly kind: ArtefactKind;
  readonly what: string;
  readonly produce: (p: Products) => Produced;
  /** Golden body vs produced text; `tolerance` is the configuration's (sim). */
  readonly compare: (expected: string, actual: string, tolerance: number) => Comparison;
  /** The lines a differing golden's report opens with, before its diff (what changed in all). */
  readonly summarize?: (expected: string, actual: string) => string;
}

const equal = (expected: string, actual: string): Comparison => ({ same: expected === actual });

const notCompiled = (diagnostics: readonly Diagnostic[]): Produced => ({
  failure: "does not compile",
  diagnostics,
});

/** One output file of the compile as text. */
function outputFile(name: string): (p: Products) => Produced {
  return (p) => {
    const out = p.outputs();
    const f = out.files?.find((x) => x.name === name);
    return f ? { text: outputText(f) } : notCompiled(out.diagnostics);
  };
}

function produceIr(p: Products): Produced {
  const q = p.compile();
  return q.compiled
    ? { text: printIr(q.compiled.module, { deps: true }) }
    : notCompiled(q.diagnostics);
}

/** Every diagnostic of the compile (errors or not): the golden of a negative test. */
function produceDiag(p: Products): Produced {
  const q = p.compile();
  const diagnostics = q.compiled ? p.outputs().diagnostics : q.diagnostics;
  if (diagnostics.length === 0) return { text: "(no diagnostics)\n" };
  return {
    text:
      renderDiagnostics(diagnostics, "concise", { color: false }) +
      "\n" +
      renderDiagnostics(diagnostics, "full", { color: false }),
  };
}

function produceSim(p: Products): Produced {
  const r = p.sim();
  if (!r) return notCompiled(p.outputs().diagnostics);
  return r.program
    ? { text: simSummaryText(r) }
    : { failure: "does not run", diagnostics: r.diagnostics };
}

export const ARTEFACTS: readonly Artefact[] = [
  {
    kind: "dump",
    what: "packet listing",
    produce: outputFile("dump.txt"),
    compare: equal,
    summarize: dumpSummary,
  },
  { kind: "ir", what: "IR with dependencies", produce: produceIr, compare: equal },
  { kind: "trace", what: "command trace", produce: outputFile("trace.json"), compare: equal },
  { kind: "diag", what: "diagnostics", produce: produceDiag, compare: equal },
  {
    kind: "sim",
    what: "simulation summary",
    produce: produceSim,
    compare: (e, a, tolerance) => compareSimSummary(e, a, tolerance),
  },
];

/** What a file without --emit compares: its packets and what the simulated node makes of them. */
export const DEFAULT_ARTEFACTS: readonly ArtefactKind[] = ["dump", "sim"];

export function artefact(kind: ArtefactKind): Artefact {
  return ARTEFACTS.find((a) => a.kind === kind)!;
}

/** `--emit dump,sim` -> the kinds in table order, or what is wrong with the list. */
export function parseArtefactList(text: string | undefined): ArtefactKind[] | { error: string } {
  if (text === undefined) return [...DEFAULT_ARTEFACTS];
  const items = text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  const unknown = items.filter((s) => !ARTEFACTS.some((a) => a.kind === s));
  if (unknown.length > 0 || items.length === 0)
    return {
      error: `${unknown.length > 0 ? `'${unknown[0]}' is not an artefact` : "empty list"}; choose from ${ARTEFACTS.map((a) => a.kind).join(", ")}`,
    };
  return ARTEFACTS.map((a) => a.kind).filter((k) => items.includes(k));
}
