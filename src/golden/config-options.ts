// The options of one golden configuration, declared once with commander and used twice: by the
// command line of `dmac golden` (defaults for every file) and by each `/// golden:` line of a test
// file (parsed with a fresh commander command, so -D, -O, --engines, --prelaunch, --schedule, ...
// are spelled, checked and combined exactly as on the command line). Rendering a parsed option
// record back into arguments gives the command line a golden records and the configuration's
// label.

import { Command, CommanderError, type Option } from "commander";
import { addOptOptions, type OptCommandOptions } from "../options/opt-options.js";
import {
  addFrontEndLimitOptions,
  addMaxOpsOption,
  addScheduleOptions,
  type FrontEndLimitOptions,
  type ScheduleCommandOptions,
} from "../options/options.js";

/** One configuration's options as commander delivers them (every value a string, as typed). */
export interface ConfigOptions
  extends ScheduleCommandOptions, FrontEndLimitOptions, OptCommandOptions {
  /** Artefacts to compare, comma-separated (artefacts.ts; default DEFAULT_ARTEFACTS). */
  readonly emit?: string | undefined;
  /** How far the predicted time (and bandwidths) may move: `2%` (default DEFAULT_TOLERANCE). */
  readonly timeTolerance?: string | undefined;
  /** The configuration's label in golden file names (default: derived from its options). */
  readonly name?: string | undefined;
  readonly maxOps?: string | undefined;
  readonly maxPackets?: string | undefined;
  readonly maxCopyBytes?: string | undefined;
}

/** Options that choose what is compared or how goldens are named, not what is compiled. */
const NOT_IN_LABEL: ReadonlySet<string> = new Set(["emit", "timeTolerance", "name"]);

/** Adds the configuration options to a command (`dmac golden` and the header parser). */
export function addConfigOptions(cmd: Command): Command {
  addScheduleOptions(cmd, "the schedule to test when the file has several");
  addOptOptions(cmd);
  addMaxOpsOption(cmd);
  addFrontEndLimitOptions(cmd);
  return cmd
    .option("--max-packets <n>", "most data packets lowering may make (DMAC4010)")
    .option("--max-copy-bytes <n>", "split copies into packets of at most N bytes")
    .option(
      "--emit <artefacts>",
      "artefacts compared, comma-separated: dump, ir, trace, diag, sim (default: dump,sim)",
    )
    .option(
      "--time-tolerance <pct>",
      "how far sim's predicted time and bandwidths may move and still pass (default 1%)",
    )
    .option("--name <label>", "the configuration's label in golden file names");
}

/** The commander options of a configuration, in declaration order (rendering follows it). */
const CONFIG_OPTIONS: readonly Option[] = addConfigOptions(new Command()).options;

/** The attribute names of the configuration options (to pick them out of a larger record). */
export const CONFIG_KEYS: readonly string[] = CONFIG_OPTIONS.map((o) => o.attributeName());

/** The configuration options of a record that may hold others (the golden command's). */
export function pickConfig(opts: object): ConfigOptions {
  const out: Record<string, unknown> = {};
  for (const k of CONFIG_KEYS) {
    const v = (opts as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = v;
  }
  return out as ConfigOptions;
}

/**
 * Parses the words of one `/// golden:` line with commander: the options, or commander's own
 * message (without its "error: " prefix) when they are wrong.
 */
export function parseConfigArgs(
  args: readonly string[],
): { options: ConfigOptions } | { error: string } {
  let message = "";
  const cmd = addConfigOptions(new Command("golden"))
    .exitOverride()
    .allowExcessArguments(false)
    .helpOption(false)
    .configureOutput({ writeOut: () => undefined, writeErr: (s) => void (message += s) });
  try {
    cmd.parse([...args], { from: "user" });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    return { error: (message || e.message).trim().replace(/^error: /, "") };
  }
  return { options: cmd.opts<ConfigOptions>() };
}

/** A word as a POSIX shell reads it back (quoted only when it has to be). */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** One option as given: its flag and, unless it is a switch, its value. */
interface Given {
  readonly option: Option;
  readonly value: string | undefined;
}

/** The options that are set, in declaration order (a repeated option once per value). */
function given(opts: ConfigOptions): Given[] {
  const out: Given[] = [];
  const record = opts as Record<string, unknown>;
  for (const option of CONFIG_OPTIONS) {
    const v = record[option.attributeName()];
    if (v === undefined || v === false) continue;
    if (v === true) out.push({ option, value: undefined });
    else
      for (const item of Array.isArray(v) ? (v as unknown[]) : [v])
        out.push({ option, value: String(item) });
  }
  return out;
}

/** The options as command-line words, in declaration order (`-O2 -D chunk=1MiB --prelaunch`). */
export function renderConfigArgs(opts: ConfigOptions): string[] {
  const words: string[] = [];
  for (const { option: o, value } of given(opts)) {
    if (value === undefined) words.push(o.long ?? o.flags);
    else if (o.short && value.length === 1) words.push(`${o.short}${value}`);
    else words.push(o.short ?? o.long ?? o.flags, value);
  }
  return words;
}

/**
 * The label a configuration's goldens are named by: its compile options made file-name safe
 * (`-O2 -D chunk=1MiB --prelaunch` -> `chunk=1MiB_O2_prelaunch`, in declaration order), "" for none. `--emit`,
 * `--time-tolerance` and `--name` are not part of it: choosing what to compare does not rename
 * the goldens.
 */
export function configLabel(opts: ConfigOptions): string {
  if (opts.name !== undefined) return opts.name;
  const parts: string[] = [];
  for (const { option: o, value } of given(opts)) {
    if (NOT_IN_LABEL.has(o.attributeName())) continue;
    const name = o.short?.slice(1) ?? o.attributeName();
    if (value === undefined) parts.push(o.attributeName());
    else if (o.short === "-D") parts.push(value);
    else parts.push(o.short ? `${name}${value}` : `${name}=${value}`);
  }
  return parts.join("_").replace(/[^\w=.+-]/g, "_");
}
