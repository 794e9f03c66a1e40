// The table of CLI commands, in the order `dmac --help` lists them.
//
// Each command's module is imported only when needed (`dmac check` must not load the lowering,
// the backend and the executor: docs/performance.md, "Where the time goes").
// main.ts loads just the invoked command when argv names one, and every command for the
// program's own help and for anything it cannot classify (commandsToLoad).

import type { Command } from "commander";
import type { CliContext } from "../main.js";

export type RegisterCommand = (program: Command, ctx: CliContext) => void;

export interface CommandEntry {
  /** The name `dmac <name>` dispatches on (as its register function declares it). */
  readonly name: string;
  /** Imports the command's module and returns its register function. */
  readonly load: () => Promise<RegisterCommand>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: "check", load: async () => (await import("./check.js")).registerCheck },
  { name: "ir", load: async () => (await import("./ir.js")).registerIr },
  { name: "explain", load: async () => (await import("./explain.js")).registerExplain },
  { name: "disasm", load: async () => (await import("./disasm.js")).registerDisasm },
  { name: "compile", load: async () => (await import("./compile.js")).registerCompile },
  { name: "golden", load: async () => (await import("./golden.js")).registerGolden },
  { name: "sim", load: async () => (await import("./sim.js")).registerSim },
  { name: "sweep", load: async () => (await import("./sweep.js")).registerSweep },
  { name: "calibrate", load: async () => (await import("./calibrate.js")).registerCalibrate },
  { name: "target", load: async () => (await import("./target.js")).registerTarget },
  { name: "lsp", load: async () => (await import("./lsp.js")).registerLsp },
  { name: "fmt", load: async () => (await import("./fmt.js")).registerFmt },
  { name: "postmortem", load: async () => (await import("./postmortem.js")).registerPostmortem },
  { name: "measure", load: async () => (await import("./measure.js")).registerMeasure },
];

/** The options `dmac` itself takes before a command name; none of them takes a value. */
const PROGRAM_FLAGS_BEFORE_COMMAND: ReadonlySet<string> = new Set(["--debug"]);
/** Print the version and stop as soon as commander reads them: no command is consulted. */
const VERSION_FLAGS: ReadonlySet<string> = new Set(["-V", "--version"]);

/**
 * The commands main() must register to parse `args` (argv without node and the script) exactly
 * as with all of them: just the named one when the first argument that is not an option names a
 * command and only `--debug` precedes it (commander then dispatches to it and nothing else is
 * consulted); none for `-V`/`--version` there (commander prints the version while it reads the
 * option, before it looks at commands). Everything else (no command, `help`, a misspelt command that gets a suggestion,
 * `-h`/`-V` or an unknown option first, `--`) may print the program's help or search the command
 * list, so it gets all of them.
 */
export function commandsToLoad(args: readonly string[]): readonly CommandEntry[] {
  for (const arg of args) {
    if (PROGRAM_FLAGS_BEFORE_COMMAND.has(arg)) continue;
    if (VERSION_FLAGS.has(arg)) return [];
    const named = COMMANDS.find((c) => c.name === arg);
    return named ? [named] : COMMANDS;
  }
  return COMMANDS;
}
