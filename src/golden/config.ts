// The configurations of one test file: each `/// golden: ARGS` line is one (lit's RUN lines,
// TypeScript's `// @option:` headers), ARGS being the options of `dmac golden` for that file,
// parsed by commander exactly as on the command line (config-options.ts). A file without such a
// line has one configuration: the command line's options alone. There is no sidecar file: the
// configuration travels with the schedule it tests (docs/golden.md says why).
//
// Combining with the command line: the file's options win; the command line fills in the others,
// but only the line's own options name the goldens (`dmac golden tests -O2` compares -O2 output
// with the same goldens),
// except `-D name=value`, which reaches only files that declare a parameter `name` (so
// `dmac golden tests -D chunk=1MiB` does not break the files without `chunk`). A wrong line is a
// DMAC5008 diagnostic located at it; the file's other configurations still run.

import { relative, resolve } from "node:path";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { parseSource } from "../frontend/parse.js";
import type { SourceFile, Span } from "../source/source-file.js";
import { parseDefines, parseFrontEndLimits, parsePositiveInt } from "../options/options.js";
import { parseOptOptions } from "../options/opt-options.js";
import { ARTEFACTS, parseArtefactList, type ArtefactKind } from "./artefacts.js";
import { configLabel, parseConfigArgs, type ConfigOptions } from "./config-options.js";

/**
 * The default --time-tolerance, 1%: a retuned model constant that moves a predicted time by less
 * passes; a change to a schedule or a pass that makes it slower usually moves it by more.
 */
export const DEFAULT_TOLERANCE = 0.01;

export interface GoldenConfig {
  /** Names the configuration's goldens (NAME.LABEL.KIND.golden; "" for NAME.KIND.golden). */
  readonly label: string;
  /** The effective options (file's over command line's), as commander delivers them. */
  readonly options: ConfigOptions;
  readonly artefacts: readonly ArtefactKind[];
  /** The artefacts the configuration itself declares: its line's --emit, else every kind. */
  readonly declared: readonly ArtefactKind[];
  /** Relative tolerance of the sim summary's time and bandwidths (0.02 for 2%). */
  readonly tolerance: number;
  /** The `/// golden:` line (undefined: the default configuration of a file without one). */
  readonly span: Span | undefined;
}

const HEADER = /^[ \t]*\/\/\/[ \t]*golden[ \t]*:(.*)$/gm;

/** Splits a header's arguments into words: blanks separate, '...' and "..." quote. */
export function splitWords(text: string): string[] | { error: string } {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (const ch of text) {
    if (quote !== undefined) {
      if (ch === quote) quote = undefined;
      else word += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= "";
    } else if (/\s/.test(ch)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else word = (word ?? "") + ch;
  }
  if (quote !== undefined) return { error: `unclosed ${quote}` };
  if (word !== undefined) words.push(word);
  return words;
}

/**
 * What commander cannot check: values (-D, -O, limits), artefact names, the tolerance, the
 * label. DMAC5004 each (a `/// golden:` line reports the first as DMAC5008, located).
 */
export function checkConfigOptions(o: ConfigOptions): Diagnostic[] {
  const problems: Diagnostic[] = [
    ...parseDefines(o.define).diagnostics,
    ...parseOptOptions(o, undefined).diagnostics,
    ...parsePositiveInt("--max-ops", o.maxOps).diagnostics,
    ...parsePositiveInt("--max-packets", o.maxPackets).diagnostics,
    ...parsePositiveInt("--max-copy-bytes", o.maxCopyBytes).diagnostics,
    ...parseFrontEndLimits(o).diagnostics,
  ];
  const bad = (option: string, detail: string): void =>
    void problems.push(diag("DMAC5004", undefined, [option, detail]));
  const kinds = parseArtefactList(o.emit);
  if ("error" in kinds) bad("--emit", kinds.error);
  if (parseTolerance(o.timeTolerance) === undefined)
    bad("--time-tolerance", `'${o.timeTolerance}' is not a percentage such as 2%`);
  if (o.name !== undefined && !/^[\w=.+-]+$/.test(o.name))
    bad("--name", `'${o.name}': letters, digits and _ = . + - only`);
  return problems;
}

/** `2%` or `2` -> 0.02; undefined for anything else (negative, not a number). */
export function parseTolerance(text: string | undefined): number | undefined {
  if (text === undefined) return DEFAULT_TOLERANCE;
  const m = /^\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(text);
  return m ? Number(m[1]) / 100 : undefined;
}

/** The parameters any schedule of the file declares (empty if it does not parse). */
function declaredParams(file: SourceFile): Set<string> {
  const names = new Set<string>();
  for (const item of parseSource(file).program.items)
    if (item.kind === "schedule") for (const p of item.params) names.add(p.name.name);
  return names;
}

/** `name=value` -> name. */
const defineName = (d: string): string => d.slice(0, Math.max(0, d.indexOf("="))).trim();

/** The file's options over the command line's; the command line's -D only for declared names. */
function combine(
  file: SourceFile,
  dir: string,
  cli: ConfigOptions,
  own: ConfigOptions,
): ConfigOptions {
  const declared = cli.define?.length ? declaredParams(file) : new Set<string>();
  const cliDefines = (cli.define ?? []).filter((d) => declared.has(defineName(d)));
  // A later -D of a name wins (parseDefines), so the file's come last.
  const define = [...cliDefines, ...(own.define ?? [])];
  // Every --target relative to the file: the command line's is given from the working directory.
  const target =
    own.target ?? (cli.target === undefined ? undefined : relative(dir, resolve(cli.target)));
  return { ...cli, ...own, define: define.length > 0 ? define : undefined, target };
}

/** `own`: the `/// golden:` line's options alone, which name the goldens (not the command line's). */
function makeConfig(
  options: ConfigOptions,
  own: ConfigOptions,
  span: Span | undefined,
): GoldenConfig {
  const kinds = parseArtefactList(options.emit);
  const declared =
    own.emit === undefined ? ARTEFACTS.map((a) => a.kind) : parseArtefactList(own.emit);
  return {
    label: configLabel(own),
    options,
    artefacts: "error" in kinds ? [] : kinds,
    declared: "error" in declared ? [] : declared,
    tolerance: parseTolerance(options.timeTolerance) ?? DEFAULT_TOLERANCE,
    span,
  };
}

/**
 * The configurations of a test file under the command line's options, and a DMAC5008 for each
 * wrong `/// golden:` line (or two lines that would write the same goldens).
 */
export function readConfigs(
  file: SourceFile,
  cli: ConfigOptions,
  dir: string,
): { configs: GoldenConfig[]; diagnostics: Diagnostic[] } {
  const configs: GoldenConfig[] = [];
  const diagnostics: Diagnostic[] = [];
  const bad = (span: Span, detail: string): void =>
    void diagnostics.push(diag("DMAC5008", { file, span }, [detail]));
  for (const m of file.text.matchAll(HEADER)) {
    const args = m[1]!;
    const start = m.index + m[0].length - args.length + (args.length - args.trimStart().length);
    const span = { start, end: start + args.trim().length };
    const words = splitWords(args);
    if ("error" in words) {
      bad(span, words.error);
      continue;
    }
    const parsed = parseConfigArgs(words);
    if ("error" in parsed) {
      bad(span, parsed.error);
      continue;
    }
    const problem = checkConfigOptions(parsed.options)[0];
    if (problem) {
      bad(span, problem.message);
      continue;
    }
    const config = makeConfig(combine(file, dir, cli, parsed.options), parsed.options, span);
    const twin = configs.find((c) => c.label === config.label);
    if (twin) {
      bad(
        span,
        `this configuration's goldens would have the same names as the one above (label '${config.label || "(none)"}'); give one a --name`,
      );
      continue;
    }
    configs.push(config);
  }
  if (configs.length === 0 && diagnostics.length === 0)
    configs.push(makeConfig(combine(file, dir, cli, {}), {}, undefined));
  return { configs, diagnostics };
}
