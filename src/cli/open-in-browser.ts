// Opening a file the CLI wrote (`dmac sim --open`) with the desktop's default handler: `open` on
// macOS, `start` on Windows, `xdg-open` elsewhere. Only on a terminal: a script or a test that
// passes --open gets the file and a note, and no browser is started behind its back.

import { spawn } from "node:child_process";
import { resolve } from "node:path";
import type { CliContext } from "./main.js";

/** The command that opens `file` with the default handler of this platform. */
export function openerFor(platform: NodeJS.Platform, file: string): [string, string[]] {
  if (platform === "darwin") return ["open", [file]];
  if (platform === "win32") return ["cmd", ["/c", "start", '""', file]];
  return ["xdg-open", [file]];
}

/** Opens `file` (already written) when stderr is a terminal; says what it did on stderr. */
export function openInBrowser(ctx: CliContext, file: string): void {
  if (!ctx.streams.isTTY) {
    ctx.streams.err(`wrote ${file}; open it in a browser (not started: not a terminal)\n`);
    return;
  }
  const [cmd, args] = openerFor(process.platform, resolve(file));
  try {
    const child = spawn(cmd, args, { detached: true, stdio: "ignore" });
    child.on("error", () => ctx.streams.err(`could not start ${cmd}; open ${file} yourself\n`));
    child.unref();
    ctx.streams.err(`opening ${file} in the browser\n`);
  } catch {
    ctx.streams.err(`could not start ${cmd}; open ${file} yourself\n`);
  }
}
