// `dmac lsp [--stdio]`: the language server (src/lsp/server.ts) over standard input and output,
// for editors (docs/editors.md). It runs until the client asks it to exit; `--stdio` is
// accepted because clients such as vscode-languageclient add it, and is the only transport.

import type { Command } from "commander";
import type { CliContext } from "../main.js";

export async function runLsp(): Promise<void> {
  // Loaded only when the server starts: the LSP libraries cost every other command nothing.
  const { createConnection } = await import("vscode-languageserver/node");
  const { startServer } = await import("../../lsp/server.js");
  const connection = createConnection(process.stdin, process.stdout);
  startServer(connection);
  // The connection exits the process on the client's `exit` notification.
  await new Promise<never>(() => {});
}

export function registerLsp(program: Command, _ctx: CliContext): void {
  program
    .command("lsp")
    .description("run the dmac language server on standard input and output (for editors)")
    .option("--stdio", "talk LSP over standard input and output (the default and only transport)")
    .action(async () => {
      await runLsp();
    });
}
