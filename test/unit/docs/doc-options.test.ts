// Every option a doc shows with a dmac command is one that command's --help lists (issue 30 item
// 9: docs/traces.md taught `--trace`, a hidden alias, where `-o` is the option). Covers README.md
// and docs/*.md, in code blocks and inline code alike: `dmac CMD [SUB] ... --option`.

import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runCli } from "../../helpers/cli.js";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const DOCS = [
  "README.md",
  ...readdirSync(`${ROOT}docs`)
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];
/** Subcommands, whose options are listed by `dmac CMD SUB --help`. */
const SUBCOMMANDS: Readonly<Record<string, readonly string[]>> = { target: ["import"] };

describe("options in the docs", () => {
  it("each `dmac CMD ... --option` a doc shows is in `dmac CMD --help`", async () => {
    const helps = new Map<string, string>();
    const help = async (words: string[]): Promise<string> => {
      const key = words.join(" ");
      if (!helps.has(key)) helps.set(key, (await runCli([...words, "--help"])).out);
      return helps.get(key)!;
    };
    const unknown: string[] = [];
    for (const doc of DOCS) {
      const text = readFileSync(`${ROOT}${doc}`, "utf8");
      // A command runs to the end of its inline code, table cell, comment or line.
      for (const m of text.matchAll(/\bdmac ([a-z]+)(?: ([a-z]+))?([^`|#\n]*)/g)) {
        const [, cmd, sub, rest] = m as unknown as [string, string, string | undefined, string];
        const words = sub && SUBCOMMANDS[cmd]?.includes(sub) ? [cmd, sub] : [cmd];
        const h = await help(words);
        if (!h.startsWith("Usage:")) continue; // not a command: prose such as "dmac sim ... the"
        for (const o of `${sub ?? ""}${rest}`.matchAll(/(?:^|\s)(--[a-z][a-z-]*)/g))
          if (!h.includes(o[1]!)) unknown.push(`${doc}: dmac ${words.join(" ")} ${o[1]}`);
      }
    }
    expect(unknown).toEqual([]);
  });
});
