// README.md's command table lists every command `dmac --help` lists (three merged commands,
// target, postmortem and measure, were missing from it).

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";

const README = readFileSync(fileURLToPath(new URL("../../../README.md", import.meta.url)), "utf8");

describe("README's command table", () => {
  it("has a row for every command of dmac --help", async () => {
    const help = (await runCli(["--help"])).out;
    const commands = [...help.split("Commands:")[1]!.matchAll(/^ {2}([a-z]+) /gm)]
      .map((m) => m[1]!)
      .filter((c) => c !== "help");
    expect(commands.length).toBeGreaterThan(10);
    const rows = [...README.matchAll(/^\| `dmac ([a-z]+)/gm)].map((m) => m[1]!);
    expect(commands.filter((c) => !rows.includes(c))).toEqual([]);
  });
});
