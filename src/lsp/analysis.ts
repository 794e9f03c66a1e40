// What the language server knows about one version of one document. Diagnostics come from
// analyzeSource (src/driver/analyze.ts), the function `dmac check` runs, with the same defaults, so
// the editor shows exactly the CLI's codes, messages and spans. The rest is for navigation and
// hover: the parsed (possibly recovered) AST with its symbol index, and, where the file checks,
// the checked schedules (expression types) and the instantiated IR at the default parameters.
// Everything after the diagnostics is computed on first use: typing only pays for checking.

import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { checkSource, type CheckSourceOptions } from "../check/check-source.js";
import type { CheckedSchedule } from "../check/checked.js";
import type { Diagnostic } from "../diagnostics/diagnostic.js";
import type { Program } from "../frontend/ast.js";
import { parseSource } from "../frontend/parse.js";
import type { IrModule } from "../ir/ir.js";
import { analyzeSource } from "../driver/analyze.js";
import { makeSourceFile, type SourceFile } from "../source/source-file.js";
import { indexSymbols, type SymbolIndex } from "./symbol-index.js";

export interface DocumentAnalysis {
  readonly uri: string;
  readonly version: number;
  readonly file: SourceFile;
  /** 1 when the text starts with a byte order mark, which SourceFile offsets do not count. */
  readonly bom: number;
  readonly diagnostics: readonly Diagnostic[];
  /** One verified module per schedule that got through every phase (default parameters). */
  readonly modules: readonly IrModule[];
  program(): Program;
  symbols(): SymbolIndex;
  /** The schedules that check without errors, with the type of every expression. */
  checked(): readonly CheckedSchedule[];
}

/** The options `dmac check FILE` uses: no -D, every schedule, targets relative to the file. */
function checkOptions(uri: string): CheckSourceOptions {
  return { defines: {}, baseDir: fileDir(uri) };
}

function fileDir(uri: string): string | undefined {
  if (!uri.startsWith("file:")) return undefined;
  try {
    return dirname(fileURLToPath(uri));
  } catch {
    return undefined;
  }
}

/** The name diagnostics and hovers show for a document: its path, or the URI of an unsaved one. */
function displayName(uri: string): string {
  if (!uri.startsWith("file:")) return uri;
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}

function lazy<T>(make: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: make() }).v;
}

export function analyzeDocument(uri: string, version: number, text: string): DocumentAnalysis {
  const file = makeSourceFile(displayName(uri), text);
  const options = checkOptions(uri);
  const result = analyzeSource(file, options);
  const checked = lazy(() => checkSource(file, options).schedules);
  // One parse for navigation and types: the checker's types are keyed by its own AST's nodes.
  const program = lazy(() => checked()[0]?.program ?? parseSource(file).program);
  return {
    uri,
    version,
    file,
    bom: text.length - file.text.length,
    diagnostics: result.diagnostics,
    modules: result.modules,
    program,
    symbols: lazy(() => indexSymbols(program())),
    checked,
  };
}
