// The options only the command line has: --format and --color, -q, -o/--out, and printing
// diagnostics with the exit code they imply. Commands stay thin: parse options (here and in
// src/options/), call a pure function, report.

import { Option, type Command } from "../options/commander.js";
import { hasErrors, type Diagnostic } from "../diagnostics/diagnostic.js";
import { renderDiagnostics } from "../diagnostics/render.js";
import type { CliContext } from "./main.js";
import { EXIT_OK, EXIT_USER_ERROR, useColor, type ColorMode, type DiagnosticFormat } from "./io.js";

export const FORMATS: readonly DiagnosticFormat[] = ["full", "concise", "json"];
export const COLOR_MODES: readonly ColorMode[] = ["auto", "always", "never"];

export interface DiagnosticOutput {
  readonly format: DiagnosticFormat;
  readonly color: ColorMode;
}

/** Adds --format and --color (commander validates the choices). */
export function addDiagnosticOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        "--format <format>",
        "output: full (text; diagnostics with code frames), concise (text; one line per diagnostic) or json (one JSON document on stdout, schemas/<command>.schema.json)",
      )
        .choices(FORMATS)
        .default("full"),
    )
    .addOption(
      new Option(
        "--color <when>",
        "colour diagnostics: auto (when stderr is a terminal and NO_COLOR is unset), always or never",
      )
        .choices(COLOR_MODES)
        .default("auto"),
    );
}

/** Adds `-q, --quiet`: no progress on stderr (cli/progress.ts). */
export function addQuietOption(cmd: Command): Command {
  return cmd.option("-q, --quiet", "show no progress on stderr (it shows only on a terminal)");
}

/**
 * Adds `-o, --out <value>`, the one name of an output path, and the command's older spellings
 * (`--output DIR`, `sim --trace FILE`) as hidden aliases that still work. Whichever is given, the
 * command reads the path from the option `attr` (the name its code has always used). With
 * `required`, giving none is commander's usual "required option" error.
 */
export function addOutOption(
  cmd: Command,
  spec: {
    readonly value: string;
    readonly help: string;
    readonly attr: string;
    readonly aliases?: readonly string[];
    readonly required?: boolean;
  },
): Command {
  const flags = `-o, --out <${spec.value}>`;
  cmd.addOption(new Option(flags, spec.help));
  for (const alias of spec.aliases ?? [])
    cmd.addOption(new Option(`${alias} <${spec.value}>`, spec.help).hideHelp());
  return cmd.hook("preAction", (_program, action) => {
    const opts = action.opts<Record<string, unknown>>();
    const value = opts["out"] ?? opts[spec.attr];
    if (value !== undefined) action.setOptionValue(spec.attr, value);
    else if (spec.required) action.error(`error: required option '${flags}' not specified`);
  });
}

/**
 * Prints diagnostics (json on stdout, always one document; text on stderr) and returns the exit
 * code they imply: 1 if any is an error, else 0.
 */
export function reportDiagnostics(
  ctx: CliContext,
  diagnostics: readonly Diagnostic[],
  output: DiagnosticOutput,
): number {
  const color = useColor(output.color, ctx.streams);
  if (output.format === "json")
    ctx.streams.out(renderDiagnostics(diagnostics, "json", { color: false }));
  else if (diagnostics.length > 0)
    ctx.streams.err(renderDiagnostics(diagnostics, output.format, { color }));
  return hasErrors(diagnostics) ? EXIT_USER_ERROR : EXIT_OK;
}
