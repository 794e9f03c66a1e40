// `dmac lsp --stdio` as an editor starts it: the installed command (bin/dmac.js on the built
// dist/), LSP over the child's standard input and output, initialize -> shutdown -> exit.

import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
} from "vscode-jsonrpc/node";
import type { InitializeResult, PublishDiagnosticsParams } from "vscode-languageserver";

const root = fileURLToPath(new URL("../../../", import.meta.url));

it("dmac lsp --stdio initializes, checks a document, shuts down and exits with 0", async () => {
  const child = spawn(process.execPath, ["bin/dmac.js", "lsp", "--stdio"], { cwd: root });
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  const published = new Promise<PublishDiagnosticsParams>((resolve) =>
    connection.onNotification("textDocument/publishDiagnostics", resolve),
  );
  connection.listen();
  const init: InitializeResult = await connection.sendRequest("initialize", {
    processId: process.pid,
    rootUri: null,
    capabilities: {},
  });
  expect(init.serverInfo?.name).toBe("dmac");
  expect(init.capabilities.hoverProvider).toBe(true);
  await connection.sendNotification("initialized", {});
  await connection.sendNotification("textDocument/didOpen", {
    textDocument: {
      uri: "file:///virtual/x.dmac",
      languageId: "dmac",
      version: 1,
      text: "schedule s() {\n  fill nope@0 with 1\n}\n",
    },
  });
  expect((await published).diagnostics.map((d) => d.code)).toEqual(["DMAC2001"]);
  await connection.sendRequest("shutdown");
  const exited = once(child, "exit");
  await connection.sendNotification("exit");
  const [code] = (await exited) as [number | null];
  connection.dispose();
  expect(code).toBe(0);
});
