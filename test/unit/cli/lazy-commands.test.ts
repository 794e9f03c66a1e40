// Lazy loading of the command modules (src/cli/commands/index.ts): main() imports only the
// command that argv names, and that must change nothing a user sees. Every help text is pinned
// by a file snapshot taken before the change (test/unit/cli/__snapshots__/help.txt), and a set of
// command lines, well-formed or not, gives the same output and exit code whether main() loads
// the commands it picks or all of them.
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS, commandsToLoad } from "../../../src/cli/commands/index.js";
import { main, type CliContext } from "../../../src/cli/main.js";
import type { CliRun } from "../../helpers/cli.js";
import { example } from "../../helpers/cli.js";

const ALL = () => COMMANDS;

async function run(args: readonly string[], select = commandsToLoad): Promise<CliRun> {
  let out = "";
  let err = "";
  const streams = { out: (s: string) => void (out += s), err: (s: string) => void (err += s) };
  const code = await main(["node", "dmac", ...args], { ...streams, isTTY: false }, select);
  return { code, out, err };
}

const names = COMMANDS.map((c) => c.name);

/** Every help text and the version, as `dmac` prints them. */
const HELP_LINES: readonly (readonly string[])[] = [
  ["--help"],
  ["-h"],
  ["help"],
  [],
  ["--version"],
  ["-V"],
  ...names.flatMap((n) => [
    [n, "--help"],
    ["help", n],
  ]),
];

/** Command lines whose handling might depend on which commands are registered. */
const EDGE_LINES: readonly (readonly string[])[] = [
  ["chek", "x.dmac"],
  ["nosuchcommand"],
  ["--bogus", "check", "x.dmac"],
  ["-h", "check"],
  ["--debug", "check", "--help"],
  ["--debug", "--help"],
  ["check", "--bogus"],
  ["check"],
  ["check", "-V"],
  ["check", example("all_gather_pcpy.dmac"), "--version"],
  ["--", "check", example("all_gather_pcpy.dmac")],
  ["--debug", "check", example("all_gather_pcpy.dmac")],
  ["help", "nosuchcommand"],
  ["explain", "DMAC1001"],
  ["explain"],
  ["compile"],
  ["disasm", "--bogus"],
  ["sim", "--help", "extra"],
];

describe("lazy command loading", () => {
  it("every help text and the version are unchanged (a deliberate change: -u)", async () => {
    const parts: string[] = [];
    for (const args of HELP_LINES) {
      const r = await run(args);
      parts.push(`$ dmac ${args.join(" ")}\n[exit ${r.code}]\n${r.out}[stderr]\n${r.err}`);
    }
    await expect(parts.join("\n")).toMatchFileSnapshot("__snapshots__/help.txt");
  });

  it("loading only the named command changes no output or exit code", async () => {
    for (const args of [...HELP_LINES, ...EDGE_LINES]) {
      const lazy = await run(args);
      const full = await run(args, ALL);
      expect({ args, ...lazy }).toEqual({ args, ...full });
    }
  });

  it("picks one command when argv names it, all otherwise", () => {
    const picked = (args: string[]) => commandsToLoad(args).map((c) => c.name);
    expect(picked(["check", "x.dmac"])).toEqual(["check"]);
    expect(picked(["--debug", "compile", "x", "-o", "d"])).toEqual(["compile"]);
    expect(picked(["--version"])).toEqual([]);
    expect(picked(["--debug", "-V"])).toEqual([]);
    for (const args of [[], ["help", "check"], ["-h", "check"], ["--", "check"], ["chek"]])
      expect(picked(args)).toEqual(names);
  });

  it("each entry's name is the name its module registers, with no alias", async () => {
    const ctx: CliContext = {
      streams: { out: () => {}, err: () => {}, isTTY: false },
      exit: () => {},
    };
    for (const entry of COMMANDS) {
      const program = new Command("dmac");
      (await entry.load())(program, ctx);
      expect(program.commands.map((c) => c.name())).toEqual([entry.name]);
      // commandsToLoad dispatches on the name alone: an alias would need its own entry.
      expect(program.commands[0]!.aliases()).toEqual([]);
    }
  });
});
