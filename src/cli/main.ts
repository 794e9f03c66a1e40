// The dmac command line: argument parsing only. Each command lives in cli/commands/<name>.ts and
// registers itself from the COMMANDS table (cli/commands/index.ts), which imports a command's
// module only when the command line needs it; its action is an exported function over plain
// options that returns an exit code, so tests can call it without argv.

import { Command, CommanderError } from "../options/commander.js";
import { EXIT_INTERNAL, EXIT_USER_ERROR, processStreams, type OutputStreams } from "./io.js";
import { VERSION } from "../version.js";
import { forgetFilesRead } from "../util/files-read.js";
import { commandsToLoad, type CommandEntry, type RegisterCommand } from "./commands/index.js";

export interface CliContext {
  readonly streams: OutputStreams;
  /** Records the exit code of the command that ran. */
  exit(code: number): void;
}

/** The dmac program with the given commands registered (in COMMANDS order). */
export function buildProgram(ctx: CliContext, commands: readonly RegisterCommand[]): Command {
  const program = new Command("dmac")
    .description(
      "Compile DMA collective schedules (.dmac) into verified MI300X SDMA packet streams and " +
        "command traces, and run them on a simulated 8-GPU node.",
    )
    .version(VERSION, "-V, --version", "print the version")
    .option("--debug", "print stack traces of internal errors")
    .showHelpAfterError("(run 'dmac --help' or 'dmac help <command>' for usage)")
    .configureOutput({
      writeOut: (s) => ctx.streams.out(s),
      writeErr: (s) => ctx.streams.err(s),
    })
    .exitOverride();
  for (const register of commands) register(program, ctx);
  // An explicit help command (commander's implicit one is no command it can find, so `dmac help
  // help` was an unknown command): help for the command named, or for dmac.
  program
    .command("help [command]")
    .description("display help for command")
    .action((name: string | undefined) => {
      const found = program.commands.find((c) => c.name() === name || c.aliases().includes(name!));
      if (found) found.help();
      program.help(name === undefined ? undefined : { error: true });
    });
  program.addHelpText(
    "after",
    "\nExit codes: 0 success (warnings allowed), 1 errors in the input, 2 internal error (a bug in dmac).",
  );
  return program;
}

/**
 * Runs the CLI over argv (as process.argv: node, script, args...) and returns the exit code.
 * `select` picks the commands to import and register (tests pass one that takes them all, to
 * check that loading fewer changes nothing).
 */
export async function main(
  argv: readonly string[],
  streams: OutputStreams = processStreams,
  select: (args: readonly string[]) => readonly CommandEntry[] = commandsToLoad,
): Promise<number> {
  let code = 0;
  const ctx: CliContext = { streams, exit: (c) => void (code = c) };
  const debug = argv.includes("--debug");
  forgetFilesRead(); // a new command: no output may replace what it reads (tests run several)
  try {
    const commands = await Promise.all(select(argv.slice(2)).map((c) => c.load()));
    await buildProgram(ctx, commands).parseAsync([...argv]);
    return code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end through here with exitCode 0; usage errors were already printed,
      // as text: with --format json stdout still gets its one document.
      if (e.exitCode === 0) return 0;
      if (asksForJson(argv)) streams.out(await usageErrorJson(e.message));
      return EXIT_USER_ERROR;
    }
    if (isMissingCwd(e)) {
      // (Imported here: the diagnostics' modules are loaded with the commands that need them.)
      const { diag } = await import("../diagnostics/diagnostic.js");
      const { renderDiagnostics } = await import("../diagnostics/render.js");
      streams.err(renderDiagnostics([diag("DMAC5040", undefined, [])], "full", { color: false }));
      return EXIT_USER_ERROR;
    }
    streams.err(internalErrorReport(e, debug));
    return EXIT_INTERNAL;
  }
}

/**
 * The error of process.cwd() (and so of path.resolve on a relative path) once the working
 * directory was deleted: the user's environment, not a bug. Thrown before any output is written
 * (output.ts checks the cwd before writing), so it is reported here once for every command.
 */
function isMissingCwd(e: unknown): boolean {
  const err = e as { code?: unknown; syscall?: unknown } | null;
  return err?.code === "ENOENT" && err.syscall === "uv_cwd";
}

/** `--format json`, `--format=json` or `--json` among the arguments (before any `--`). */
function asksForJson(argv: readonly string[]): boolean {
  const args = argv.slice(2);
  const end = args.indexOf("--");
  const own = end < 0 ? args : args.slice(0, end);
  return own.some(
    (a, i) =>
      a === "--json" || a === "--format=json" || (a === "--format" && own[i + 1] === "json"),
  );
}

/**
 * A usage error (commander's message) as the diagnostics document (DMAC5004). Imported here, not
 * at start-up: `dmac --version` loads no compiler module.
 */
async function usageErrorJson(message: string): Promise<string> {
  const [{ diag }, { renderDiagnostics }] = await Promise.all([
    import("../diagnostics/diagnostic.js"),
    import("../diagnostics/render.js"),
  ]);
  const detail = message.replace(/^error: /, "");
  return renderDiagnostics([diag("DMAC5004", undefined, ["command line", detail])], "json", {
    color: false,
  });
}

export function internalErrorReport(e: unknown, debug: boolean): string {
  const msg = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  const lines = [
    `internal error: ${msg}`,
    "This is a bug in dmac, not a problem with your input. Please report it with the input that caused it.",
  ];
  if (debug && e instanceof Error && e.stack) lines.push(e.stack);
  else lines.push("(run with --debug to see the stack trace)");
  return lines.join("\n") + "\n";
}
