// The options that say what to compile, declared once (commander) and parsed into the driver's
// inputs: `-D name=value`, `--schedule`, `--target`, numeric limits, `--sync`, and reading source
// and target files (DMAC5001 / DMAC5006 instead of exceptions). The CLI, golden, calibrate and
// the library API all parse here, so a value one refuses the others refuse too. What only the
// command line has (--format, --color, -o, printing diagnostics) is in cli/options.ts.

import type { Command } from "./commander.js";
import { diag, type Diagnostic } from "../diagnostics/diagnostic.js";
import { DEFAULT_MAX_OPS } from "../ir/instantiate.js";
import {
  DEFAULT_MAX_NESTING,
  DEFAULT_MAX_SOURCE_BYTES,
  MAX_NESTING_CEILING,
} from "../frontend/parse.js";
import { makeSourceFile, type SourceFile } from "../source/source-file.js";
import {
  BUILTIN_TARGETS,
  builtinTarget,
  isBuiltinTargetName,
  loadTargetFile,
  SYNC_MODES,
  TargetError,
  type SyncMode,
  type Target,
} from "../target/target.js";
import { formatLimit, InputFileError, readInputText } from "../util/read-input.js";

function collect(value: string, previous: readonly string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Adds the repeatable `-D, --define <name=value>`. */
export function addDefineOption(cmd: Command): Command {
  return cmd.option(
    "-D, --define <name=value>",
    "set a schedule parameter, e.g. -D chunk=1MiB (repeatable; the value is a constant expression)",
    collect,
  );
}

/** `-D`, `--schedule` and `--target` as commander delivers them (every command that compiles). */
export interface ScheduleCommandOptions {
  readonly define?: string[] | undefined;
  readonly schedule?: string | undefined;
  readonly target?: string | undefined;
}

/** The usual help of `--target`; `sim` and `sweep` have no file 'target' to override. */
const TARGET_HELP = `use this target instead of the file's 'target': a built-in name (${BUILTIN_TARGETS.join(", ")}) or a description file (JSON)`;

/** Adds `-D`, `--schedule <name>` (its help says how the command uses it) and `--target <file>`. */
export function addScheduleOptions(
  cmd: Command,
  scheduleHelp: string,
  targetHelp = TARGET_HELP,
): Command {
  return addDefineOption(cmd)
    .option("--schedule <name>", scheduleHelp)
    .option("--target <name|file>", targetHelp);
}

/** Parses the `-D` list and loads `--target`: their diagnostics in that order. */
export function parseScheduleOptions(opts: ScheduleCommandOptions): {
  defines: Record<string, string>;
  target: Target | undefined;
  diagnostics: Diagnostic[];
} {
  const defines = parseDefines(opts.define);
  const target = readTargetOption(opts.target);
  return {
    defines: defines.defines,
    target: target.target,
    diagnostics: [...defines.diagnostics, ...target.diagnostics],
  };
}

/** Adds `--max-ops <n>` (DMAC3010), with the default the instantiator applies. */
export function addMaxOpsOption(cmd: Command): Command {
  return cmd.option(
    "--max-ops <n>",
    `limit on the operations a schedule may instantiate (default ${DEFAULT_MAX_OPS})`,
  );
}

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * `["chunk=1MiB", "n=4"]` -> { chunk: "1MiB", n: "4" }; a later -D for the same name wins. The
 * record has no prototype, so every name is an own key: `-D __proto__=1` (or `constructor`,
 * `toString`) is a parameter name like any other and reaches the checker, which reports it if
 * the schedule has no such parameter, instead of being swallowed by Object.prototype.
 */
export function parseDefines(list: readonly string[] | undefined): {
  defines: Record<string, string>;
  diagnostics: Diagnostic[];
} {
  const defines = Object.create(null) as Record<string, string>;
  const diagnostics: Diagnostic[] = [];
  for (const item of list ?? []) {
    const eq = item.indexOf("=");
    const name = (eq < 0 ? item : item.slice(0, eq)).trim();
    if (eq < 0 || !NAME.test(name)) {
      diagnostics.push(
        diag(
          "DMAC5004",
          undefined,
          [`-D ${item}`, eq < 0 ? "expected name=value" : `'${name}' is not a parameter name`],
          {
            hint: "write -D name=value, e.g. -D chunk=1MiB",
          },
        ),
      );
      continue;
    }
    defines[name] = item.slice(eq + 1);
  }
  return { defines, diagnostics };
}

/** A positive integer option such as --max-ops (underscores allowed: 4_000_000). */
export function parsePositiveInt(
  option: string,
  text: string | undefined,
  max = Number.MAX_SAFE_INTEGER,
): { value: number | undefined; diagnostics: Diagnostic[] } {
  if (text === undefined) return { value: undefined, diagnostics: [] };
  const clean = text.replace(/_/g, "");
  const value = /^\d+$/.test(clean) ? Number(clean) : NaN;
  if (!Number.isSafeInteger(value) || value < 1) {
    return {
      value: undefined,
      diagnostics: [diag("DMAC5004", undefined, [option, `'${text}' is not a positive integer`])],
    };
  }
  if (value > max) {
    return {
      value: undefined,
      diagnostics: [
        diag("DMAC5004", undefined, [option, `'${text}' is more than the most, ${max}`]),
      ],
    };
  }
  return { value, diagnostics: [] };
}

/** A positive number of microseconds (fractions allowed). */
export function parseMicros(
  option: string,
  text: string | undefined,
): { value: number | undefined; diagnostics: Diagnostic[] } {
  if (text === undefined) return { value: undefined, diagnostics: [] };
  const v = Number(text.replace(/us$/, ""));
  if (!Number.isFinite(v) || v <= 0)
    return {
      value: undefined,
      diagnostics: [
        diag("DMAC5004", undefined, [option, `'${text}' is not a positive number of microseconds`]),
      ],
    };
  return { value: v, diagnostics: [] };
}

/** The front end's limits as commander delivers them (`--max-source-bytes`, `--max-nesting`). */
export interface FrontEndLimitOptions {
  readonly maxSourceBytes?: string | undefined;
  readonly maxNesting?: string | undefined;
}

/** Adds `--max-source-bytes` and `--max-nesting` (DMAC1012 / DMAC1013). */
export function addFrontEndLimitOptions(cmd: Command): Command {
  return cmd
    .option(
      "--max-source-bytes <n>",
      `largest accepted source file in bytes (default ${DEFAULT_MAX_SOURCE_BYTES})`,
    )
    .option(
      "--max-nesting <n>",
      `deepest nesting of blocks, brackets and operators (default ${DEFAULT_MAX_NESTING}, at most ${MAX_NESTING_CEILING})`,
    );
}

export function parseFrontEndLimits(opts: FrontEndLimitOptions): {
  maxSourceBytes: number | undefined;
  maxNesting: number | undefined;
  diagnostics: Diagnostic[];
} {
  const bytes = parsePositiveInt("--max-source-bytes", opts.maxSourceBytes);
  const nesting = parsePositiveInt("--max-nesting", opts.maxNesting, MAX_NESTING_CEILING);
  return {
    maxSourceBytes: bytes.value,
    maxNesting: nesting.value,
    diagnostics: [...bytes.diagnostics, ...nesting.diagnostics],
  };
}

/** Why a file could not be read, in words (DMAC5001's detail). */
export function readErrorReason(e: unknown): string {
  if (e instanceof InputFileError) return e.reason;
  const code = (e as { code?: unknown } | null)?.code;
  if (code === "ENOENT") return "no such file or directory";
  if (code === "EACCES") return "permission denied";
  if (code === "EISDIR") return "is a directory";
  return e instanceof Error ? e.message : String(e);
}

/**
 * Reads a source file (a regular file, size-checked before reading: src/util/read-input.ts);
 * DMAC1012 above `maxBytes` (--max-source-bytes), DMAC5001 (never an exception) when it cannot
 * be read or is not a regular file.
 */
export function readSourceFile(
  path: string,
  maxBytes: number = DEFAULT_MAX_SOURCE_BYTES,
): {
  file: SourceFile | undefined;
  diagnostics: Diagnostic[];
} {
  try {
    const text = readInputText(path, {
      maxBytes,
      what: "a source file",
      option: "--max-source-bytes",
    });
    return { file: makeSourceFile(path, text), diagnostics: [] };
  } catch (e) {
    if (e instanceof InputFileError && e.tooLarge) {
      const at = { file: makeSourceFile(path, ""), span: { start: 0, end: 0 } };
      return {
        file: undefined,
        diagnostics: [
          diag("DMAC1012", at, [formatLimit(e.tooLarge.size), formatLimit(e.tooLarge.limit)]),
        ],
      };
    }
    return {
      file: undefined,
      diagnostics: [diag("DMAC5001", undefined, [path, readErrorReason(e)])],
    };
  }
}

/** Loads `--target FILE`; DMAC5001 if unreadable, DMAC5006 if not a valid description. */
export function readTargetOption(path: string | undefined): {
  target: Target | undefined;
  diagnostics: Diagnostic[];
} {
  if (path === undefined) return { target: undefined, diagnostics: [] };
  if (isBuiltinTargetName(path)) return { target: builtinTarget(path), diagnostics: [] };
  try {
    return { target: loadTargetFile(path), diagnostics: [] };
  } catch (e) {
    const d =
      e instanceof TargetError
        ? diag("DMAC5006", undefined, [
            path,
            e.message.startsWith(`${path}: `) ? e.message.slice(path.length + 2) : e.message,
          ])
        : diag("DMAC5001", undefined, [path, readErrorReason(e)]);
    return { target: undefined, diagnostics: [d] };
  }
}

/** `--sync`'s help: compile's, sweep's and check's (check runs compile's sync-form checks). */
export const SYNC_HELP =
  "synchronisation forms: conservative (every poll == on a write-once word, AMD's forms) or aggressive (>= on progress counters); default: the target's";

/** `--sync conservative|aggressive`. */
export function parseSync(text: string | undefined): {
  mode: SyncMode | undefined;
  diagnostics: Diagnostic[];
} {
  if (text === undefined) return { mode: undefined, diagnostics: [] };
  const mode = SYNC_MODES.find((m) => m === text.trim());
  return mode
    ? { mode, diagnostics: [] }
    : {
        mode: undefined,
        diagnostics: [
          diag("DMAC5004", undefined, ["--sync", `'${text}': choose ${SYNC_MODES.join(" or ")}`]),
        ],
      };
}
